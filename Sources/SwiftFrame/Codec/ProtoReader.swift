/// Reads protobuf wire data from a contiguous buffer.
///
/// A reader is a cursor over memory it does not own: make one inside
/// `withUnsafeBytes` (as `Message.init(serializedBytes:)` does) and do not let it escape.
/// Every read is checked against the end of the enclosing message, lengths are checked
/// against the remaining bytes before anything is allocated, and every error carries the
/// offset from the start of the buffer.
public struct ProtoReader {
    public static let defaultMaxDepth = 100

    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline var position: Int
    /// End of the message (or packed field) being read.
    @usableFromInline var limit: Int
    @usableFromInline var depthRemaining: Int
    @usableFromInline let maxDepth: Int
    /// Where the most recently read tag started, so unknown fields keep their exact bytes.
    @usableFromInline var tagStart: Int = 0

    public init(buffer: UnsafeRawBufferPointer, maxDepth: Int = ProtoReader.defaultMaxDepth) {
        // An empty buffer may have no address; nothing is ever loaded from it then.
        self.base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 0x10)!
        self.position = 0
        self.limit = buffer.count
        self.maxDepth = maxDepth
        self.depthRemaining = maxDepth
    }

    /// Offset of the next byte to read, from the start of the buffer.
    public var offset: Int { position }

    /// True while the current message has bytes left.
    @inlinable
    public var hasRemaining: Bool { position < limit }

    // MARK: Varints and tags

    @inlinable
    public mutating func readVarint() throws(WireError) -> UInt64 {
        if position < limit {
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            if byte < 0x80 {
                position &+= 1
                return UInt64(byte)
            }
        }
        return try readVarintSlow()
    }

    @usableFromInline
    mutating func readVarintSlow() throws(WireError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < limit else { throw .truncated(offset: start) }
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift == 70 { throw .malformedVarint(offset: start) }
        }
    }

    /// Reads the next tag; rejects field number 0, wire types 6 and 7, and tags over 32 bits.
    @inlinable
    public mutating func readTag() throws(WireError) -> UInt32 {
        tagStart = position
        let raw = try readVarint()
        guard raw >> 32 == 0 else { throw .invalidTag(offset: tagStart) }
        let tag = UInt32(truncatingIfNeeded: raw)
        guard tag >= 8 else { throw .fieldNumberZero(offset: tagStart) }
        guard tag & 7 < 6 else { throw .invalidWireType(offset: tagStart, wireType: UInt8(tag & 7)) }
        return tag
    }

    /// Reads a length prefix and checks it against the bytes left in the current message.
    @inlinable
    public mutating func readLength() throws(WireError) -> Int {
        let start = position
        let length = try readVarint()
        let remaining = limit - position
        guard length <= UInt64(remaining) else {
            throw .lengthPastEnd(offset: start, length: length, remaining: remaining)
        }
        return Int(truncatingIfNeeded: length)
    }

    // MARK: Scalars

    @inlinable
    public mutating func readFixed32() throws(WireError) -> UInt32 {
        guard limit - position >= 4 else { throw .truncated(offset: position) }
        let value = base.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        position &+= 4
        return UInt32(littleEndian: value)
    }

    @inlinable
    public mutating func readFixed64() throws(WireError) -> UInt64 {
        guard limit - position >= 8 else { throw .truncated(offset: position) }
        let value = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position &+= 8
        return UInt64(littleEndian: value)
    }

    @inlinable
    public mutating func readVarint<C: VarintCodec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readVarint())
    }

    @inlinable
    public mutating func readFixed32<C: Fixed32Codec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readFixed32())
    }

    @inlinable
    public mutating func readFixed64<C: Fixed64Codec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readFixed64())
    }

    /// Reads a length-delimited `string`, rejecting invalid UTF-8.
    @inlinable
    public mutating func readString() throws(WireError) -> String {
        let length = try readLength()
        let bytes = UnsafeRawBufferPointer(start: base + position, count: length)
        if let bad = UTF8Validation.firstInvalidIndex(bytes) {
            throw .invalidUTF8(offset: position + bad)
        }
        position &+= length
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a length-delimited `bytes` value.
    @inlinable
    public mutating func readBytes() throws(WireError) -> [UInt8] {
        let length = try readLength()
        let bytes = [UInt8](UnsafeRawBufferPointer(start: base + position, count: length))
        position &+= length
        return bytes
    }

    // MARK: Repeated scalars (packed)

    /// Reads a packed run of varints, appending to `values`.
    @inlinable
    public mutating func readPackedVarint<C: VarintCodec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        let length = try readLength()
        let outerLimit = limit
        limit = position + length
        while position < limit {
            values.append(C.value(try readVarint()))
        }
        limit = outerLimit
    }

    @inlinable
    public mutating func readPackedFixed32<C: Fixed32Codec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        try readPackedFixed(into: &values, C.value)
    }

    @inlinable
    public mutating func readPackedFixed64<C: Fixed64Codec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        try readPackedFixed(into: &values, C.value)
    }

    /// A packed run of little-endian `Raw` values; its length must be a whole number of them.
    @inlinable
    mutating func readPackedFixed<Raw: FixedWidthInteger, Value>(
        into values: inout [Value], _ convert: (Raw) -> Value
    ) throws(WireError) {
        let start = position
        let length = try readLength()
        let width = MemoryLayout<Raw>.size
        guard length % width == 0 else { throw .malformedPackedField(offset: start, length: length) }
        let count = length / width
        values.reserveCapacity(values.count + count)
        for index in 0..<count {
            let raw = base.loadUnaligned(fromByteOffset: position + index * width, as: Raw.self)
            values.append(convert(Raw(littleEndian: raw)))
        }
        position &+= length
    }

    // MARK: Messages

    /// Reads a length-delimited message and merges it into `message` (protobuf semantics:
    /// a singular message seen twice is merged).
    @inlinable
    public mutating func readMessage<M: Message>(merging message: inout M) throws(WireError) {
        let length = try readLength()
        guard depthRemaining > 0 else { throw .tooDeep(offset: tagStart, limit: maxDepth) }
        let outerLimit = limit
        limit = position + length
        depthRemaining -= 1
        try message.decodeMessage(from: &self)
        depthRemaining += 1
        limit = outerLimit
    }

    /// Reads a message field into an optional, merging into the value already there.
    @inlinable
    public mutating func readMessage<M: Message>(into value: inout M?) throws(WireError) {
        var message: M
        if let existing = value {
            message = existing
            value = nil  // keep one reference so the merge does not copy
        } else {
            message = M()
        }
        try readMessage(merging: &message)
        value = message
    }

    /// Reads one element of a repeated message field.
    @inlinable
    public mutating func readMessage<M: Message>(appendingTo values: inout [M]) throws(WireError) {
        var message = M()
        try readMessage(merging: &message)
        values.append(message)
    }

    /// Reads a length-delimited field and runs `body` with the reader limited to its bytes,
    /// one level deeper. For hand-written decoders of nested structures.
    @inlinable
    public mutating func readLengthDelimited<T>(
        _ body: (inout ProtoReader) throws(WireError) -> T
    ) throws(WireError) -> T {
        let length = try readLength()
        guard depthRemaining > 0 else { throw .tooDeep(offset: tagStart, limit: maxDepth) }
        let outerLimit = limit
        limit = position + length
        depthRemaining -= 1
        let result = try body(&self)
        position = limit
        depthRemaining += 1
        limit = outerLimit
        return result
    }

    // MARK: Unknown fields

    /// Skips the value of the field whose tag was just read and keeps its exact bytes,
    /// tag included, in `unknownFields`.
    public mutating func skipField(tag: UInt32, into unknownFields: inout UnknownFields) throws(WireError) {
        let start = tagStart
        try skipValue(tag: tag)
        unknownFields.append(UnsafeRawBufferPointer(start: base + start, count: position - start))
    }

    /// Skips the value of the field whose tag was just read.
    public mutating func skipValue(tag: UInt32) throws(WireError) {
        switch tag & 7 {
        case 0:
            _ = try readVarint()
        case 1:
            _ = try readFixed64()
        case 2:
            position += try readLength()
        case 3:
            try skipGroup(fieldNumber: tag >> 3)
        case 4:
            throw .unmatchedEndGroup(offset: tagStart)
        case 5:
            _ = try readFixed32()
        default:
            throw .invalidWireType(offset: tagStart, wireType: UInt8(tag & 7))
        }
    }

    mutating func skipGroup(fieldNumber: UInt32) throws(WireError) {
        let start = tagStart
        guard depthRemaining > 0 else { throw .tooDeep(offset: start, limit: maxDepth) }
        depthRemaining -= 1
        while true {
            guard position < limit else { throw .truncated(offset: start) }
            let tag = try readTag()
            if tag & 7 == 4 {
                guard tag >> 3 == fieldNumber else { throw .unmatchedEndGroup(offset: tagStart) }
                break
            }
            try skipValue(tag: tag)
        }
        depthRemaining += 1
    }
}
