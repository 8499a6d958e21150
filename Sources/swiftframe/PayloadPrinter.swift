import SwiftFrame
import SwiftFrameDescriptors
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
    }

    let schemas: DescriptorSchemas
    let description: ProtocolDescription
    /// The table `annotation(of:toServer:)` reads commands from: the one of the layout.
    let table: ProtocolDescription.Table?

    /// Prints every field by number: `protoc --decode_raw`.
    private static let raw = DynamicMessageSchema(TextFormatSchemaSet([.init(fullName: "", fields: [])]), index: 0)

    init(_ loaded: LoadedProtocol, layout: FrameLayout? = nil) throws {
        let tables = loaded.description.tables
        table = tables.first { $0.layout.fields == layout?.fields } ?? tables.first
        do {
            schemas = try DescriptorSchemas(loaded.set)
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
                return Decoded(path: path, text: Self.raw.textFormatString(of: bytes, multiline: multiline),
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

    /// For `call`: `LABEL NAME FIELD=VALUE... MESSAGE > HELD` and the message's fields, two
    /// spaces in, on the lines after it.
    func describe(_ frame: Frame, label: String, toServer: Bool? = false) -> String {
        guard let table else { return label }
        var text = label + " " + commandName(of: frame, in: table)
        for field in table.layout.headerFields(of: frame) where field.name != "magic" && field.name != "length" {
            text += " \(field.name)=\(field.value)"
        }
        return text + (payload(of: frame, toServer: toServer, in: table)
            ?? (frame.payload.isEmpty ? "" : " (\(frame.payload.count) bytes, no message)"))
    }

    /// For `inspect`, after a frame's line: ` NAME MESSAGE > HELD` and the message's fields,
    /// two spaces in, on the lines after it.
    func annotation(of frame: Frame, toServer: Bool?) -> String {
        guard let table else { return "" }
        return " " + commandName(of: frame, in: table) + (payload(of: frame, toServer: toServer, in: table) ?? "")
    }

    /// For `inspect --json`: the command's name; the message and what its envelopes hold, the
    /// innermost on one line of text format, and why it is raw (nil when the command carries
    /// no message).
    func summary(of frame: Frame, toServer: Bool?) -> (command: String, path: [String]?, text: String?, error: String?)? {
        guard let table else { return nil }
        let name = commandName(of: frame, in: table)
        guard let message = message(command: table.layout.commandID(of: frame), toServer: toServer, in: table) else {
            return (name, nil, nil, nil)
        }
        let decoded = decode(Array(frame.payload), as: message, multiline: false)
        return (name, decoded.path, decoded.text, decoded.error)
    }

    private func commandName(of frame: Frame, in table: ProtocolDescription.Table) -> String {
        let command = table.layout.commandID(of: frame)
        return table.command(command)?.name ?? "command \(command)"
    }

    /// ` MESSAGE > HELD` and the lines of the message; nil when the command carries none.
    private func payload(of frame: Frame, toServer: Bool?, in table: ProtocolDescription.Table) -> String? {
        guard let message = message(command: table.layout.commandID(of: frame), toServer: toServer, in: table) else {
            return nil
        }
        let decoded = decode(Array(frame.payload), as: message)
        return " " + decoded.path.joined(separator: " > ") + Self.indented(decoded)
    }

    /// The lines of `decoded`, each after a newline and two spaces, with the error first when it
    /// is raw. One pass over the text's bytes: splitting it into lines and joining them again
    /// took a quarter of a run of `inspect --proto`.
    static func indented(_ decoded: Decoded) -> String {
        var out = decoded.error.map { "\n  # not a \($0); raw:" } ?? ""
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
            guard depth < 16, let (envelope, selector) = description.envelopes.lazy.compactMap({ envelope in
                envelope.holds.first { $0.value == current.0 }.map { (envelope, $0.key) }
            }).first else {
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
