import Foundation
import SwiftFrame

/// `swiftframe inspect --json`: one JSON object per line for each frame, error and note, for
/// scripts. A frame: `{"kind":"frame","offset":0,"header":{"magic":255,"length":10,"cmd":1},
/// "payload":6,"command":"CMD_TEST","message":["Test_Req"],"text":"param1: \"hi\"","error":null}`,
/// with `time`, `from`, `to` and `dir` in a capture; `command` and what follows only with the
/// .proto files (`message` lists the envelopes down to the innermost message, `text` is that
/// message in text format on one line, `error` says why it is shown raw). A reply whose response
/// holds the response of the request it answers (`CommonRespon.respon`) shows it decoded, its
/// message last in `message` (`["CommonRespon", "login_response"]`); when no request was seen,
/// `note` says why it stays bytes.
enum InspectJSON {
    /// Where a line happened: `time`, `from`, `to`, `dir` in a capture; nothing in a raw stream.
    typealias Place = [(key: String, value: String)]

    static func frame(_ frame: Frame, layout: FrameLayout, place: Place, payloads: PayloadPrinter?, toServer: Bool?,
                      answering: [String]? = nil) -> String {
        var object = base("frame", place: place, offset: frame.offset)
        var header: [String: Any] = [:]
        for field in layout.headerFields(of: frame) { header[field.name] = field.value }
        object["header"] = header
        object["payload"] = frame.payload.count
        if let summary = payloads?.summary(of: frame, toServer: toServer, answering: answering) {
            object["command"] = summary.command
            object["message"] = summary.path ?? NSNull()
            object["text"] = summary.text ?? NSNull()
            object["error"] = summary.error ?? NSNull()
            if let note = summary.note { object["note"] = note }
        }
        return line(object)
    }

    /// An `error` or a `note` at `offset`.
    static func event(_ kind: String, place: Place, offset: Int, reason: String) -> String {
        var object = base(kind, place: place, offset: offset)
        object["reason"] = reason
        return line(object)
    }

    private static func base(_ kind: String, place: Place, offset: Int) -> [String: Any] {
        var object: [String: Any] = ["kind": kind, "offset": offset]
        for (key, value) in place { object[key] = value }
        return object
    }

    private static func line(_ object: [String: Any]) -> String {
        // Every value is a string, a number, an array of strings, a dictionary of numbers or null.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
