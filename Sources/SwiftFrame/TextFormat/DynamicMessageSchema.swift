/// Message schemas that are data rather than generated code: each message's full name and
/// fields (as `textFormatFields` lists a generated message's), with the two facts about its
/// repeated and proto3 fields that writing its encoding as protoc does needs. A field of a
/// message type in the set is `.schemaMessage(index)` (or `.schemaGroup(index)`), the index of
/// that message in `messages`: types refer to one another by index, so recursive messages
/// (`message Tree { Tree left = 1; }`) make no reference cycle, and the set is immutable once
/// made. SwiftFrameReflection makes one from a descriptor set; `DynamicMessageSchema` is the
/// documented way to use it.
@_documentation(visibility: internal)
public final class TextFormatSchemaSet: Sendable {
    /// One message's schema.
    public struct Message: Sendable {
        /// The full proto name (`im.Common`), as `protoMessageName` gives it for a generated message.
        public let fullName: String
        /// Sorted by number.
        public let fields: [TextFormatField]
        /// Repeated scalar fields written packed (proto3's default, `[packed = true]` in proto2).
        public let packed: Set<Int32>
        /// proto3 singular scalar fields without presence: a default value is not written.
        public let implicitPresence: Set<Int32>
        /// The field names the message reserves, which the text format skips.
        public let reservedNames: [String]

        public init(
            fullName: String, fields: [TextFormatField], packed: Set<Int32> = [],
            implicitPresence: Set<Int32> = [], reservedNames: [String] = []
        ) {
            self.fullName = fullName
            self.fields = fields.sorted { $0.number < $1.number }
            self.packed = packed
            self.implicitPresence = implicitPresence
            self.reservedNames = reservedNames
        }
    }

    public let messages: [Message]

    /// Traps when a field refers to a message index outside `messages`.
    public init(_ messages: [Message]) {
        func check(_ kind: TextFormatKind, in message: Message) {
            switch kind {
            case .schemaMessage(let index), .schemaGroup(let index):
                precondition(
                    messages.indices.contains(index),
                    "\(message.fullName): a field refers to message \(index) of \(messages.count)")
            case .map(let key, let value):
                check(key, in: message)
                check(value, in: message)
            default:
                break
            }
        }
        for message in messages {
            for field in message.fields { check(field.kind, in: message) }
        }
        self.messages = messages
    }

    /// The message at `index`, nil when there is none.
    func message(at index: Int) -> Message? {
        messages.indices.contains(index) ? messages[index] : nil
    }
}

/// A message type known at run time from a schema that is data (SwiftFrameReflection reads
/// one from a descriptor set), with no generated code: it prints wire bytes in protobuf's
/// text format exactly as `protoc --decode=Type` prints them, and reads text format into the
/// wire bytes `protoc --encode=Type` writes. Printing and reading go through the same code
/// as a generated message's `textFormatString()` and `init(textFormat:)`.
public struct DynamicMessageSchema: Sendable {
    /// The set the message belongs to, and its index there.
    @_documentation(visibility: internal)
    public let schemas: TextFormatSchemaSet
    @_documentation(visibility: internal)
    public let index: Int

    /// The message at `index` of `schemas`; traps when there is none.
    @_documentation(visibility: internal)
    public init(_ schemas: TextFormatSchemaSet, index: Int) {
        precondition(
            schemas.messages.indices.contains(index), "no message \(index) in a set of \(schemas.messages.count)")
        self.schemas = schemas
        self.index = index
    }

    /// The message's full proto name (`im.Common`).
    public var fullName: String { schemas.messages[index].fullName }

    /// The message encoded in `bytes`, in protobuf's text format: one field per line, exactly
    /// as `protoc --decode=Type` prints it; on one line (`nick_name: "neo" port: 8080`, as
    /// protobuf's `ShortDebugString`) when `multiline` is false. Fields print in the order
    /// they are encoded; a field the schema does not list (an extension, an unknown field)
    /// prints by number as `protoc --decode_raw` prints it. Bytes that do not parse stop the
    /// printing of their message with a note (`<unreadable: ...>`) and the rest is printed;
    /// `checkedTextFormatString(of:multiline:)` throws instead.
    public func textFormatString(of bytes: [UInt8], multiline: Bool = true) -> String {
        bytes.withUnsafeBytes { textFormatString(of: $0, multiline: multiline) }
    }

    /// `textFormatString(of:multiline:)` of the bytes in `buffer`.
    public func textFormatString(of buffer: UnsafeRawBufferPointer, multiline: Bool = true) -> String {
        TextFormatPrinter.print(buffer, message: index, of: schemas, multiline: multiline).text
    }

    /// The message encoded in `bytes` in text format, as `textFormatString(of:multiline:)`
    /// prints it; throws the first error in bytes that do not parse instead of noting it.
    public func checkedTextFormatString(of bytes: [UInt8], multiline: Bool = true) throws(WireError) -> String {
        let (text, error) = bytes.withUnsafeBytes {
            TextFormatPrinter.print($0, message: index, of: schemas, multiline: multiline)
        }
        if let error { throw error }
        return text
    }

    /// Reads protobuf's text format into the message's wire bytes, as `protoc --encode=Type`
    /// writes them: what `init(textFormat:)` reads for a generated message (one field per line
    /// or not, `#` comments, `[a, b]` lists, `< >` or `{ }` around messages, fields by name or
    /// by number, reserved names skipped; not extensions), written in field-number order with packed fields packed and
    /// proto3 fields without presence left out at their default, as protoc writes them.
    /// Required fields are not checked.
    public func serializedBytes(textFormat text: String) throws(TextFormatError) -> [UInt8] {
        var tokens = TextFormatTokenizer(Array(text.utf8))
        var bytes: [UInt8] = []
        try TextFormatReader.readFields(
            TextFormatTable(kind: .schemaMessage(index), schemas: schemas, registry: nil), schemas: schemas,
            from: &tokens, until: nil, into: &bytes)
        return schemas.canonicalBytes(bytes, message: index)
    }
}

// MARK: Writing as protoc writes

extension TextFormatSchemaSet {
    /// The encoding the text-format reader wrote (fields in the order of the text, repeated
    /// scalars unpacked, every value given), written as protoc writes the message: fields the
    /// schema lists in number order (each field's values in their order), packed fields as one
    /// packed run, proto3 fields without presence left out at their default, nested messages
    /// the same way, then the fields it does not list, in their order.
    func canonicalBytes(_ bytes: [UInt8], message index: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let written: Bool = bytes.withUnsafeBytes { buffer in
            do throws(WireError) {
                try canonicalize(buffer, fields: messages[index].fields, message: messages[index], into: &output)
                return true
            } catch {
                return false
            }
        }
        return written ? output : bytes  // the reader writes nothing that does not parse
    }

    private struct Occurrence {
        let field: Int  // index in the message's fields
        let tag: UInt32
        /// The value's bytes after the tag, as they are on the wire.
        let raw: UnsafeRawBufferPointer
        /// A length-delimited value's or a group's contents; the scalar's bytes otherwise.
        let body: UnsafeRawBufferPointer
    }

    private func canonicalize(
        _ buffer: UnsafeRawBufferPointer, fields: [TextFormatField], message: Message?,
        into output: inout [UInt8]
    ) throws(WireError) {
        var reader = ProtoReader(buffer: buffer)
        var known: [Occurrence] = []
        var unknown: [UnsafeRawBufferPointer] = []
        while reader.hasRemaining {
            let start = reader.position
            let tag = try reader.readTag()
            let wireType = WireType(rawValue: UInt8(tag & 7))
            let fieldIndex = fields.firstIndex { $0.number == Int32(bitPattern: tag >> 3) }
            let valueStart = reader.position
            var body: UnsafeRawBufferPointer
            switch wireType {
            case .lengthDelimited: body = try reader.readDelimitedBuffer()
            case .startGroup: body = try reader.readGroupBuffer(fieldNumber: tag >> 3)
            default:
                try reader.skipValue(tag: tag)
                body = UnsafeRawBufferPointer(rebasing: buffer[valueStart..<reader.position])
            }
            let raw = UnsafeRawBufferPointer(rebasing: buffer[valueStart..<reader.position])
            if wireType != .startGroup, wireType != .lengthDelimited { body = raw }
            if let fieldIndex, Self.fits(fields[fieldIndex], wireType: wireType, packed: message?.packed) {
                known.append(Occurrence(field: fieldIndex, tag: tag, raw: raw, body: body))
            } else {
                unknown.append(UnsafeRawBufferPointer(rebasing: buffer[start..<reader.position]))
            }
        }
        // A stable sort by field number (`fields` is sorted).
        let order = known.indices.sorted { (known[$0].field, $0) < (known[$1].field, $1) }
        var position = 0
        while position < order.count {
            let fieldIndex = known[order[position]].field
            var end = position
            while end < order.count, known[order[end]].field == fieldIndex { end += 1 }
            let run = order[position..<end].map { known[$0] }
            try write(run, of: fields[fieldIndex], message: message, into: &output)
            position = end
        }
        for field in unknown { output += field }
    }

    /// Whether a field the schema lists arrived with a wire type it is written with.
    private static func fits(_ field: TextFormatField, wireType: WireType?, packed: Set<Int32>?) -> Bool {
        wireType == field.kind.wireType
            || (wireType == .lengthDelimited && packed?.contains(field.number) == true)
    }

    private func write(
        _ run: [Occurrence], of field: TextFormatField, message: Message?,
        into output: inout [UInt8]
    ) throws(WireError) {
        let number = Int(field.number)
        if message?.packed.contains(field.number) == true {
            var elements: [UInt8] = []
            for occurrence in run {
                // An element, or a packed run of them.
                elements +=
                    UInt8(occurrence.tag & 7) == WireType.lengthDelimited.rawValue ? occurrence.body : occurrence.raw
            }
            guard !elements.isEmpty else { return }
            Wire.appendVarint(UInt64(Wire.tag(fieldNumber: number, wireType: .lengthDelimited)), to: &output)
            Wire.appendVarint(UInt64(elements.count), to: &output)
            output += elements
            return
        }
        let implicit = message?.implicitPresence.contains(field.number) == true
        for occurrence in run {
            let nested: (fields: [TextFormatField], message: Message?)?
            switch field.kind {
            case .schemaMessage(let index), .schemaGroup(let index): nested = (messages[index].fields, messages[index])
            case .map(let key, let value):
                nested = ([TextFormatField(1, "key", key), TextFormatField(2, "value", value)], nil)
            default: nested = nil
            }
            guard let nested else {
                // A default: zero bits (a varint 0, a fixed 0, but not -0.0), or no bytes.
                if implicit,
                    field.kind.wireType == .lengthDelimited
                        ? occurrence.body.isEmpty
                        : occurrence.raw.allSatisfy({ $0 == 0 })
                {
                    continue
                }
                Wire.appendVarint(UInt64(occurrence.tag), to: &output)
                output += occurrence.raw
                continue
            }
            var body: [UInt8] = []
            try canonicalize(occurrence.body, fields: nested.fields, message: nested.message, into: &body)
            Wire.appendVarint(UInt64(occurrence.tag), to: &output)
            if field.kind.wireType == .startGroup {
                output += body
                Wire.appendVarint(UInt64(Wire.tag(fieldNumber: number, wireType: .endGroup)), to: &output)
            } else {
                Wire.appendVarint(UInt64(body.count), to: &output)
                output += body
            }
        }
    }
}
