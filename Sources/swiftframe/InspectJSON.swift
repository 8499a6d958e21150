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
///
/// The lines are written here rather than by Foundation's `JSONSerialization`, which is many
/// times slower on a large capture (its sorted keys compare strings through ICU): the values are only strings, integers, arrays of strings and null, and keys keep the
/// order above (header fields in the layout's order).
enum InspectJSON {
    /// Where a line happened: `time`, `from`, `to`, `dir` in a capture; nothing in a raw stream.
    typealias Place = [(key: String, value: String)]

    static func frame(
        _ frame: Frame, layout: FrameLayout, place: Place, payloads: PayloadPrinter?, toServer: Bool?,
        answering: [String]? = nil
    ) -> String {
        var line = Line(kind: "frame", place: place, offset: frame.offset)
        line.key("header")
        line.raw("{")
        for (index, field) in layout.headerFields(of: frame).enumerated() {
            if index > 0 { line.raw(",") }
            line.string(field.name)
            line.raw(":\(field.value)")
        }
        line.raw("}")
        line.key("payload")
        line.raw("\(frame.payload.count)")
        if let summary = payloads?.summary(of: frame, toServer: toServer, answering: answering) {
            line.key("command")
            line.string(summary.command)
            line.key("message")
            if let path = summary.path {
                line.raw("[")
                for (index, name) in path.enumerated() {
                    if index > 0 { line.raw(",") }
                    line.string(name)
                }
                line.raw("]")
            } else {
                line.raw("null")
            }
            line.key("text")
            line.optionalString(summary.text)
            line.key("error")
            line.optionalString(summary.error)
            if let note = summary.note {
                line.key("note")
                line.string(note)
            }
        }
        return line.finished()
    }

    /// An `error` or a `note` at `offset`.
    static func event(_ kind: String, place: Place, offset: Int, reason: String) -> String {
        var line = Line(kind: kind, place: place, offset: offset)
        line.key("reason")
        line.string(reason)
        return line.finished()
    }

    /// One object being written, its keys in the order they are added.
    private struct Line {
        var bytes: [UInt8] = [UInt8(ascii: "{")]

        init(kind: String, place: Place, offset: Int) {
            key("kind", first: true)
            string(kind)
            key("offset")
            raw("\(offset)")
            for (name, value) in place {
                key(name)
                string(value)
            }
        }

        mutating func raw(_ text: String) {
            bytes += text.utf8
        }

        mutating func key(_ name: String, first: Bool = false) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            string(name)
            bytes.append(UInt8(ascii: ":"))
        }

        mutating func optionalString(_ value: String?) {
            if let value { string(value) } else { raw("null") }
        }

        /// `value` as a JSON string: quotes, backslashes and control characters escaped
        /// (RFC 8259), every other byte of its UTF-8 as it is (no byte of a multi-byte
        /// character is below 0x80, so escaping byte by byte is safe).
        mutating func string(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hex[Int(byte >> 4)], hex[Int(byte & 15)],
                    ]
                default:
                    bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        func finished() -> String { String(decoding: bytes + [UInt8(ascii: "}"), UInt8(ascii: "\n")], as: UTF8.self) }
    }
}
