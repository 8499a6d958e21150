import SwiftFrame
import SwiftFrameGenerator
import SwiftFrameReflection

/// Shows frame bodies as the messages their commands carry, read from the descriptors at run
/// time: protobuf's text format, envelopes unwrapped to the innermost message; a body that does
/// not parse is shown raw, as `protoc --decode_raw` shows it, with the error.
struct PayloadPrinter {
    /// What a body holds.
    struct Decoded {
        /// The message and, for envelopes, what each holds (`Common`, `User_msg`, `login_request`).
        let path: [String]
        /// The innermost message in text format, one field per line; or the body raw.
        let text: String
        /// Why the body was shown raw.
        let error: String?
        /// Why a reply's response bytes are shown raw (no request seen for it).
        var note: String? = nil
    }

    let schemas: DescriptorSchemas
    let description: ProtocolDescription
    /// The table `annotation(of:toServer:)` reads commands from: the one of the layout.
    let table: ProtocolDescription.Table?
    /// Reply messages that carry the response of the request they answer in a bytes field
    /// (`CommonRespon.respon`): the description's, which the Wireshark dissector reads too.
    var responseBodies: [String: ProtocolDescription.ResponseBody] { description.responseBodies }

    /// Prints every field by number: `protoc --decode_raw`.
    private static let raw = DynamicMessageSchema(TextFormatSchemaSet([.init(fullName: "", fields: [])]), index: 0)

    init(_ loaded: LoadedProtocol, layout: FrameLayout? = nil) throws {
        let tables = loaded.description.tables
        table = tables.first { $0.layout.fields == layout?.fields } ?? tables.first
        do {
            schemas = try DescriptorSchemas(loaded.index)
        } catch {
            throw ToolFailure(status: .usage, message: "the descriptors: \(error)")
        }
        description = loaded.description
    }

    /// The wire bytes of message `name` written in text format.
    func encode(_ text: String, as name: String) throws -> [UInt8] {
        try schemas.message(named: name).serializedBytes(textFormat: text)
    }

    /// The message a frame of `command` carries in its direction (to the server: the request).
    func message(command: UInt32, toServer: Bool?, in table: ProtocolDescription.Table) -> String? {
        guard let entry = table.command(command) else { return nil }
        switch toServer {
        case true?: return entry.request
        case false?: return entry.response
        case nil: return entry.response ?? entry.request
        }
    }

    /// `payload` read as message `name`, and what its envelopes hold.
    func decode(_ payload: [UInt8], as name: String, multiline: Bool = true) -> Decoded {
        var path = [name]
        var bytes = payload
        while true {
            let current = path[path.count - 1]
            let text: String
            do {
                text = try schemas.message(named: current).checkedTextFormatString(of: bytes, multiline: multiline)
            } catch {
                return Decoded(
                    path: path, text: Self.raw.textFormatString(of: bytes, multiline: multiline),
                    error: "\(current): \(error)")
            }
            guard path.count < 16, let envelope = description.envelope(current),
                let (selector, body) = Self.parts(of: bytes, envelope), let held = envelope.holds[selector]
            else {
                return Decoded(path: path, text: text, error: nil)
            }
            path.append(held)
            bytes = body
        }
    }

    /// A reply's payload read as `name`, a response with a bytes field that holds the response
    /// of the request it answers (`CommonRespon.respon`): that field is printed as the response
    /// of the innermost message of `request` (the path of the request, `Common`, `User_msg`,
    /// `login_request`) that declares one, in its place among the fields
    /// (`isSuc: true respon { uid: 7 } error { ... }`). With no request, or one that declares
    /// no response, the field stays bytes and `note` says why.
    func decodeReply(_ payload: [UInt8], as name: String, answering request: [String]?, multiline: Bool = true)
        -> Decoded
    {
        let plain = decode(payload, as: name, multiline: multiline)
        guard let field = responseBodies[name], plain.error == nil else { return plain }
        // Absent (an error reply may carry none): nothing to read through the request.
        guard let (before, body, after) = Self.split(payload, at: field.number), let body else { return plain }
        guard let request else {
            return Decoded(
                path: plain.path, text: plain.text, error: nil,
                note:
                    "no request seen that this reply answers (a capture that starts after it, or a stream of one direction): \(field.name) stays raw"
            )
        }
        guard let inner = description.heldResponse(answering: request, in: name) else {
            return Decoded(
                path: plain.path, text: plain.text, error: nil,
                note:
                    "nothing in \(request.joined(separator: " > ")) declares a response of its own: \(field.name) stays raw"
            )
        }
        let innerDecoded = decode(body, as: inner, multiline: multiline)
        if let error = innerDecoded.error {
            return Decoded(
                path: plain.path, text: plain.text, error: nil,
                note: "\(field.name) is not a \(error) (the response of \(request.last ?? name)): it stays raw")
        }
        let fieldName = field.name
        // Each part's text, on its own: the fields before the bytes field, then it, then the rest.
        func text(_ bytes: [UInt8]) -> String {
            (try? schemas.message(named: name).checkedTextFormatString(of: bytes, multiline: multiline)) ?? ""
        }
        let parts: [String]
        if multiline {
            let lines = innerDecoded.text.split(separator: "\n", omittingEmptySubsequences: true).map { "  " + $0 }
            parts = [text(before), ([fieldName + " {"] + lines + ["}"]).joined(separator: "\n") + "\n", text(after)]
        } else {
            parts = [
                text(before), fieldName + " { " + innerDecoded.text + (innerDecoded.text.isEmpty ? "}" : " }"),
                text(after),
            ]
        }
        let joined = parts.filter { !$0.isEmpty }.joined(separator: multiline ? "" : " ")
        return Decoded(path: [name] + innerDecoded.path, text: joined, error: nil)
    }

    /// `payload` split around its field `number` (length-delimited): the fields before it, its
    /// value (nil when absent), the fields after it; nil when it does not read so.
    private static func split(_ payload: [UInt8], at number: Int32) -> ([UInt8], [UInt8]?, [UInt8])? {
        payload.withUnsafeBytes { buffer -> ([UInt8], [UInt8]?, [UInt8])? in
            var reader = ProtoReader(buffer: buffer)
            var before: [UInt8] = [], after: [UInt8] = []
            var body: [UInt8]?
            do throws(WireError) {
                while reader.hasRemaining {
                    let start = reader.offset
                    let tag = try reader.readTag()
                    if Int32(tag >> 3) == number, tag & 7 == 2 {
                        body = try reader.readBytes()
                        continue
                    }
                    try reader.skipValue(tag: tag)
                    let bytes = buffer[start..<reader.offset]
                    if Int32(tag >> 3) < number { before += bytes } else { after += bytes }
                }
            } catch {
                return nil
            }
            return (before, body, after)
        }
    }

    /// The path of what a request frame holds (`Common`, `User_msg`, `login_request`), kept to
    /// read its reply by; nil when the frame is no request of a command whose response holds
    /// the request's own response.
    func requestPath(of frame: Frame) -> [String]? {
        guard let table else { return nil }
        return requestPath(command: table.layout.commandID(of: frame), payload: Array(frame.payload))
    }

    /// `requestPath(of:)` of a request of `command` with `payload`.
    func requestPath(command: UInt32, payload: [UInt8]) -> [String]? {
        guard let table, let entry = table.command(command), let request = entry.request,
            let response = entry.response, responseBodies[response] != nil
        else { return nil }
        return decode(payload, as: request, multiline: false).path
    }

    /// Whether a frame from the server may be a reply `requestPath(of:)` kept a request for:
    /// a reply (never a push) whose message has a response body.
    func isPairedReply(_ frame: Frame) -> Bool {
        guard let table, let entry = table.command(table.layout.commandID(of: frame)), entry.isReply,
            let response = entry.response
        else { return false }
        return responseBodies[response] != nil
    }

    /// For `call`: `LABEL NAME FIELD=VALUE... MESSAGE > HELD` and the message's fields, two
    /// spaces in, on the lines after it. `answering`: the path of the request a reply answers.
    func describe(_ frame: Frame, label: String, toServer: Bool? = false, answering: [String]? = nil) -> String {
        guard let table else { return label }
        var text = label + " " + commandName(of: frame, in: table)
        for field in table.layout.headerFields(of: frame) where field.name != "magic" && field.name != "length" {
            text += " \(field.name)=\(field.value)"
        }
        return text
            + (payload(of: frame, toServer: toServer, answering: answering, in: table)
                ?? (frame.payload.isEmpty ? "" : " (\(frame.payload.count) bytes, no message)"))
    }

    /// For `inspect`, after a frame's line: ` NAME MESSAGE > HELD` and the message's fields,
    /// two spaces in, on the lines after it. `answering`: the path of the request a reply answers.
    func annotation(of frame: Frame, toServer: Bool?, answering: [String]? = nil) -> String {
        guard let table else { return "" }
        return " " + commandName(of: frame, in: table)
            + (payload(of: frame, toServer: toServer, answering: answering, in: table) ?? "")
    }

    /// For `inspect --json`: the command's name; the message and what its envelopes hold, the
    /// innermost on one line of text format, and why it is raw (nil when the command carries
    /// no message), and why a reply's response bytes stay raw.
    func summary(of frame: Frame, toServer: Bool?, answering: [String]? = nil)
        -> (command: String, path: [String]?, text: String?, error: String?, note: String?)?
    {
        guard let table else { return nil }
        let name = commandName(of: frame, in: table)
        guard let decoded = decoded(frame, toServer: toServer, answering: answering, multiline: false, in: table) else {
            return (name, nil, nil, nil, nil)
        }
        return (name, decoded.path, decoded.text, decoded.error, decoded.note)
    }

    /// A frame's payload as its command's message in its direction; a reply's response bytes
    /// read through the request it answers. A push answers none: its bytes stay as they are,
    /// with no note.
    private func decoded(
        _ frame: Frame, toServer: Bool?, answering: [String]?, multiline: Bool,
        in table: ProtocolDescription.Table
    ) -> Decoded? {
        let command = table.layout.commandID(of: frame)
        guard let message = message(command: command, toServer: toServer, in: table) else {
            return nil
        }
        if toServer != true, table.command(command)?.isReply == true, responseBodies[message] != nil {
            return decodeReply(Array(frame.payload), as: message, answering: answering, multiline: multiline)
        }
        return decode(Array(frame.payload), as: message, multiline: multiline)
    }

    private func commandName(of frame: Frame, in table: ProtocolDescription.Table) -> String {
        let command = table.layout.commandID(of: frame)
        return table.command(command)?.name ?? "command \(command)"
    }

    /// ` MESSAGE > HELD` and the lines of the message; nil when the command carries none.
    private func payload(of frame: Frame, toServer: Bool?, answering: [String]?, in table: ProtocolDescription.Table)
        -> String?
    {
        guard let decoded = decoded(frame, toServer: toServer, answering: answering, multiline: true, in: table) else {
            return nil
        }
        return " " + decoded.path.joined(separator: " > ") + Self.indented(decoded)
    }

    /// The lines of `decoded`, each after a newline and two spaces, with the error (when it is
    /// raw) and the note first. One pass over the text's bytes: splitting it into lines and
    /// joining them again was a large part of a run of `inspect --proto`.
    static func indented(_ decoded: Decoded) -> String {
        var out = decoded.error.map { "\n  # not a \($0); raw:" } ?? ""
        if let note = decoded.note { out += "\n  # " + note }
        var rest = decoded.text.utf8[...]
        while true {
            rest = rest.drop { $0 == UInt8(ascii: "\n") }
            guard !rest.isEmpty else { break }
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
            out += "\n  "
            out += Substring(rest[..<end])
            rest = rest[end...]
        }
        return out
    }

    /// `bytes` of message `name` put in the envelopes that hold it, out to a message `isOuter`
    /// accepts (a request of the table): the outer message's name and bytes, or nil when no
    /// envelope holds `name`.
    func wrapped(_ name: String, _ bytes: [UInt8], until isOuter: (String) -> Bool) throws -> (String, [UInt8])? {
        var current = (name, bytes)
        var depth = 0
        while !isOuter(current.0) {
            guard depth < 16,
                let (envelope, selector) = description.envelopes.lazy.compactMap({ envelope in
                    envelope.holds.first { $0.value == current.0 }.map { (envelope, $0.key) }
                }).first
            else {
                return depth == 0 ? nil : current
            }
            // The envelope in text format, by field number: `1: 2 2: "\n\003neo..."`.
            let body = current.1.withUnsafeBytes { TextFormatEscapes.quoted($0) }
            let text = "\(envelope.selectorField): \(selector) \(envelope.bodyField): \(body)"
            current = (envelope.message, try encode(text, as: envelope.message))
            depth += 1
        }
        return depth == 0 ? nil : current
    }

    /// An envelope's selector value (0 when absent, as proto3 reads it) and body.
    private static func parts(of bytes: [UInt8], _ envelope: ProtocolDescription.Envelope) -> (Int32, [UInt8])? {
        bytes.withUnsafeBytes { buffer -> (Int32, [UInt8])? in
            var reader = ProtoReader(buffer: buffer)
            var selector: Int32 = 0
            var body: [UInt8]?
            do throws(WireError) {
                while reader.hasRemaining {
                    let tag = try reader.readTag()
                    let number = Int32(tag >> 3)
                    if number == envelope.selectorField, tag & 7 == 0 {
                        selector = Int32(truncatingIfNeeded: try reader.readVarint())
                    } else if number == envelope.bodyField, tag & 7 == 2 {
                        body = try reader.readBytes()
                    } else {
                        try reader.skipValue(tag: tag)
                    }
                }
            } catch {
                return nil
            }
            return body.map { (selector, $0) }
        }
    }
}
