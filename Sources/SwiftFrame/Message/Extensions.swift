// proto2 extensions. A message that declares extension ranges keeps the fields it reads
// in those ranges, byte for byte, in `extensionFields`; ones the reader does not know are
// therefore kept and re-emitted. A typed `Extension` reads and writes its own field number
// there. Encoding writes them sorted by number where their range falls among the fields,
// as protobuf's C++ runtime does.

/// A message with `extensions` ranges.
public protocol ExtensibleMessage: Message {
    /// The fields read in the message's extension ranges, as they were on the wire.
    var extensionFields: UnknownFields { get set }
}

/// A singular extension field of `Container`, whose values `Codec` reads and writes.
public struct Extension<Container: ExtensibleMessage, Codec: MapCodec>: Sendable {
    public let fieldNumber: Int
    /// The full proto name, e.g. `protobuf_test_messages.proto2.extension_int32`.
    public let protoName: String

    public init(fieldNumber: Int, protoName: String) {
        self.fieldNumber = fieldNumber
        self.protoName = protoName
    }
}

/// A repeated extension field of `Container`.
public struct RepeatedExtension<Container: ExtensibleMessage, Codec: MapCodec>: Sendable {
    public let fieldNumber: Int
    public let protoName: String
    /// Written as one packed run (`[packed = true]`); both forms are read.
    public let isPacked: Bool

    public init(fieldNumber: Int, protoName: String, isPacked: Bool = false) {
        self.fieldNumber = fieldNumber
        self.protoName = protoName
        self.isPacked = isPacked
    }
}

/// A singular group extension of `Container` (`extend Foo { optional group Bar = 121 { ... } }`,
/// or a delimited message extension of an edition): the message `M` between a start tag and an
/// end tag of the extension's number.
public struct GroupExtension<Container: ExtensibleMessage, M: Message>: Sendable {
    public let fieldNumber: Int
    public let protoName: String

    public init(fieldNumber: Int, protoName: String) {
        self.fieldNumber = fieldNumber
        self.protoName = protoName
    }
}

extension ExtensibleMessage {
    /// The group extension's value, nil when unset or unreadable; every occurrence is merged,
    /// as protobuf reads a singular group.
    public subscript<M: Message>(extension field: GroupExtension<Self, M>) -> M? {
        get { extensionFields.group(of: field.fieldNumber, M.self) }
        set {
            extensionFields.remove(fieldNumber: field.fieldNumber)
            guard let newValue else { return }
            var writer = ProtoWriter()
            let tags = 2 * Wire.varintSize(Wire.tag(fieldNumber: field.fieldNumber, wireType: .startGroup))
            let size = tags + writer.sizes.group(newValue)
            extensionFields.bytes.appendWritten(size: size, by: &writer, of: "extension field \(field.fieldNumber)") {
                $0.writeGroup(newValue, fieldNumber: field.fieldNumber)
            }
        }
    }

    /// The extension's value, nil when unset or unreadable. Read as protobuf reads a singular
    /// field: the last scalar on the wire, every occurrence of a message merged, and a
    /// closed-enum number the enum does not declare ignored (it stays an unknown field).
    public subscript<Codec: MapCodec>(extension field: Extension<Self, Codec>) -> Codec.Value? {
        get { extensionFields.value(of: field.fieldNumber, Codec.self) }
        set {
            extensionFields.remove(fieldNumber: field.fieldNumber)
            if let newValue { extensionFields.appendField(field.fieldNumber, [newValue], Codec.self, packed: false) }
        }
    }

    /// The repeated extension's values, in wire order (packed and unpacked runs alike);
    /// closed-enum numbers the enum does not declare are left out.
    public subscript<Codec: MapCodec>(extension field: RepeatedExtension<Self, Codec>) -> [Codec.Value] {
        get { extensionFields.values(of: field.fieldNumber, Codec.self, packedAllowed: true) }
        set {
            extensionFields.remove(fieldNumber: field.fieldNumber)
            extensionFields.appendField(field.fieldNumber, newValue, Codec.self, packed: field.isPacked)
        }
    }

    /// Whether the extension has a value: a field of its number and wire type holding a
    /// value it can read (see the subscript).
    public func hasExtension<Codec: MapCodec>(_ field: Extension<Self, Codec>) -> Bool {
        self[extension: field] != nil
    }
}

extension UnknownFields {
    /// Runs `body` over each field: its tag, and a reader positioned at its value.
    private func forEachField(_ body: (UInt32, inout ProtoReader) throws(WireError) -> Void) {
        _ = bytes.withUnsafeBytes { buffer -> WireError? in
            var reader = ProtoReader(buffer: buffer)
            do throws(WireError) {
                while reader.hasRemaining {
                    let tag = try reader.readTag()
                    try body(tag, &reader)
                }
                return nil
            } catch {
                return error
            }
        }
    }

    /// Every occurrence of a singular field read into one value (see `MapCodec.read(from:merging:)`).
    func value<Codec: MapCodec>(of fieldNumber: Int, _: Codec.Type) -> Codec.Value? {
        let wanted = Wire.tag(fieldNumber: fieldNumber, wireType: Codec.wireType)
        var value: Codec.Value? = nil
        forEachField { (tag: UInt32, reader: inout ProtoReader) throws(WireError) in
            if tag == wanted {
                try Codec.read(from: &reader, merging: &value)
            } else {
                try reader.skipValue(tag: tag)
            }
        }
        return value
    }

    /// Every occurrence of a group field read into one message.
    func group<M: Message>(of fieldNumber: Int, _: M.Type) -> M? {
        let wanted = Wire.tag(fieldNumber: fieldNumber, wireType: .startGroup)
        var value: M? = nil
        forEachField { (tag: UInt32, reader: inout ProtoReader) throws(WireError) in
            if tag == wanted {
                try reader.readGroup(fieldNumber: fieldNumber, into: &value)
            } else {
                try reader.skipValue(tag: tag)
            }
        }
        return value
    }

    func values<Codec: MapCodec>(of fieldNumber: Int, _: Codec.Type, packedAllowed: Bool) -> [Codec.Value] {
        let wanted = Wire.tag(fieldNumber: fieldNumber, wireType: Codec.wireType)
        let packed = Wire.tag(fieldNumber: fieldNumber, wireType: .lengthDelimited)
        var values: [Codec.Value] = []
        // One element; nil for a closed-enum number the enum does not declare.
        func element(_ reader: inout ProtoReader) throws(WireError) {
            var value: Codec.Value? = nil
            try Codec.read(from: &reader, merging: &value)
            if let value { values.append(value) }
        }
        forEachField { (tag: UInt32, reader: inout ProtoReader) throws(WireError) in
            if tag == wanted {
                try element(&reader)
            } else if packedAllowed, tag == packed, Codec.wireType != .lengthDelimited {
                try reader.readLengthDelimited { (run: inout ProtoReader) throws(WireError) in
                    while run.hasRemaining { try element(&run) }
                }
            } else {
                try reader.skipValue(tag: tag)
            }
        }
        return values
    }

    /// Drops every field with this number, keeping the others' bytes as they are.
    mutating func remove(fieldNumber: Int) {
        var kept: [UInt8] = []
        let original = bytes
        original.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            do throws(WireError) {
                while reader.hasRemaining {
                    let start = reader.offset
                    let tag = try reader.readTag()
                    try reader.skipValue(tag: tag)
                    if Int(tag >> 3) != fieldNumber {
                        kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start..<reader.offset]))
                    }
                }
            } catch {
                kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[reader.offset...]))
            }
        }
        bytes = kept
    }

    /// Appends values of one field, packed or one field each.
    mutating func appendField<Codec: MapCodec>(_ fieldNumber: Int, _ values: [Codec.Value], _: Codec.Type, packed: Bool)
    {
        guard !values.isEmpty else { return }
        var writer = ProtoWriter()
        let tag = Wire.tag(fieldNumber: fieldNumber, wireType: packed ? .lengthDelimited : Codec.wireType)
        let payload = values.reduce(0) { $0 + Codec.size(of: $1, cache: &writer.sizes) }
        let size =
            packed
            ? Wire.varintSize(tag) + Wire.lengthDelimitedSize(payload)
            : values.count * Wire.varintSize(tag) + payload
        bytes.appendWritten(size: size, by: &writer, of: "extension field \(fieldNumber)") { writer in
            if packed {
                writer.writeTag(tag)
                writer.writeVarint(UInt64(payload))
            }
            for value in values {
                if !packed { writer.writeTag(tag) }
                Codec.write(value, to: &writer)
            }
        }
    }
}

extension ProtoClosedEnum: MapCodec {
    @inlinable public static var defaultValue: E { E() }
    public static var textFormatKind: TextFormatKind { .closedEnumeration(E.protoNames) }
    @inlinable public static func read(from reader: inout ProtoReader, merging value: inout E?) throws(WireError) {
        if let known = E(rawValue: Int32(truncatingIfNeeded: try reader.readVarint())) { value = known }
    }
}

extension ProtoWriter {
    /// Writes the extension fields whose numbers are in `range`, sorted by number (fields
    /// of one number keep their order), each exactly as it was read or set.
    public mutating func writeExtensions(_ fields: UnknownFields, in range: ClosedRange<Int>) {
        writeExtensionChunks(fields) { range.contains($0) }
    }

    /// Writes what no range claimed (fields set by hand outside every range, or bytes that
    /// do not parse), so that every byte counted by the size pass is written.
    public mutating func writeExtensionLeftovers(_ fields: UnknownFields, ranges: [ClosedRange<Int>]) {
        writeExtensionChunks(fields, includingUnparsedTail: true) { number in
            !ranges.contains { $0.contains(number) }
        }
    }

    private mutating func writeExtensionChunks(
        _ fields: UnknownFields, includingUnparsedTail: Bool = false,
        where wanted: (Int) -> Bool
    ) {
        guard !fields.isEmpty else { return }
        fields.bytes.withUnsafeBytes { buffer in
            var chunks: [(number: Int, start: Int, end: Int)] = []
            var reader = ProtoReader(buffer: buffer)
            var parsedEnd = 0
            do throws(WireError) {
                while reader.hasRemaining {
                    let tag = try reader.readTag()
                    try reader.skipValue(tag: tag)
                    let number = Int(tag >> 3)
                    if wanted(number) { chunks.append((number, parsedEnd, reader.offset)) }
                    parsedEnd = reader.offset
                }
            } catch {
                // Bytes that do not parse stay where they are, written by the leftovers call.
            }
            let ordered = chunks.enumerated().sorted {
                ($0.element.number, $0.offset) < ($1.element.number, $1.offset)
            }
            for (_, chunk) in ordered {
                writeRaw(UnsafeRawBufferPointer(rebasing: buffer[chunk.start..<chunk.end]))
            }
            if includingUnparsedTail && parsedEnd < buffer.count {
                writeRaw(UnsafeRawBufferPointer(rebasing: buffer[parsedEnd...]))
            }
        }
    }
}
