/// Reads protobuf wire data from a contiguous buffer.
///
/// A reader is a cursor over memory it does not own: make one inside
/// `withUnsafeBytes` (as `Message.init(serializedBytes:)` does) and do not let it escape.
/// Every read is checked against the end of the enclosing message, lengths are checked
/// against the remaining bytes before anything is allocated, and every error carries the
/// offset from the start of the buffer.
@_documentation(visibility: internal)
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
        if limit &- start >= 10 {
            // Ten bytes are there, so no byte needs its own bounds check.
            var end = start
            guard let value = ProtoReader.decodeVarint(base, at: &end) else { throw .malformedVarint(offset: start) }
            position = end
            return value
        }
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

    /// Decodes the varint at `base + offset` and moves `offset` past it, without bounds checks:
    /// the caller knows that the varint ends within reach (ten bytes remain, or a byte below
    /// 0x80 lies ahead inside the buffer). Nil when ten bytes all have the continuation bit.
    @inlinable @inline(__always)
    static func decodeVarint(_ base: UnsafeRawPointer, at offset: inout Int) -> UInt64? {
        var byte = UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        if byte < 0x80 {
            offset &+= 1
            return byte
        }
        var result = byte & 0x7F
        byte = UInt64(base.load(fromByteOffset: offset &+ 1, as: UInt8.self))
        if byte < 0x80 {
            offset &+= 2
            return result | byte << 7
        }
        result |= (byte & 0x7F) << 7
        var index = 2
        while index < 10 {
            byte = UInt64(base.load(fromByteOffset: offset &+ index, as: UInt8.self))
            result |= (byte & 0x7F) &<< UInt64(7 &* index)
            index &+= 1
            if byte < 0x80 {
                offset &+= index
                return result
            }
        }
        return nil
    }

    /// Number of varints that end in `count` bytes at `start`: the bytes below 0x80.
    @usableFromInline
    static func countVarintEnds(_ start: UnsafeRawPointer, _ count: Int) -> Int {
        var ends = 0
        var index = 0
        while count &- index >= 8 {
            // One per byte below 0x80, summed across the word by the multiplication.
            let word = start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            ends &+= Int(truncatingIfNeeded: (((~word & 0x8080_8080_8080_8080) &>> 7) &* 0x0101_0101_0101_0101) &>> 56)
            index &+= 8
        }
        while index < count {
            if start.load(fromByteOffset: index, as: UInt8.self) < 0x80 { ends &+= 1 }
            index &+= 1
        }
        return ends
    }

    /// Reads the next tag; rejects field number 0, field numbers above 2^29 - 1, wire types 6
    /// and 7, and tags longer than 5 bytes.
    @inlinable
    public mutating func readTag() throws(WireError) -> UInt32 {
        // Inline only the common case, a one-byte valid tag: the checks and their errors stay
        // out of every message's decode loop.
        if position < limit {
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            if byte < 0x80, byte >= 8, byte & 7 < 6 {
                tagStart = position
                position &+= 1
                return UInt32(byte)
            }
        }
        return try readTagSlow()
    }

    @usableFromInline
    mutating func readTagSlow() throws(WireError) -> UInt32 {
        tagStart = position
        let raw = try readVarint()
        // A tag is a 32-bit varint of at most 5 bytes. A longer encoding (a small value padded
        // with 0x80 bytes) is refused, as protobuf refuses it; kept, it would be written back as
        // read into unknown fields that protobuf cannot parse. A value past 32 bits is a field
        // number above 2^29 - 1, which no message can declare: refused too (protobuf's C++
        // runtime drops the high bits instead; upb and the conformance suite refuse).
        guard position - tagStart <= 5 else { throw .invalidTag(offset: tagStart) }
        guard raw <= UInt64(UInt32.max) else { throw .fieldNumberTooLarge(offset: tagStart) }
        let tag = UInt32(truncatingIfNeeded: raw)
        guard tag >= 8 else { throw .fieldNumberZero(offset: tagStart) }
        guard tag & 7 < 6 else { throw .invalidWireType(offset: tagStart, wireType: UInt8(tag & 7)) }
        return tag
    }

    /// Reads a length prefix and checks it against the bytes left in the current message. Like
    /// a tag, a length is a 32-bit varint of at most 5 bytes, as protobuf's C++ runtime reads it.
    @inlinable @inline(__always)
    public mutating func readLength() throws(WireError) -> Int {
        let start = position
        let length = try readVarint()
        let remaining = limit &- position  // never negative: no read moves past `limit`
        guard length <= UInt64(truncatingIfNeeded: remaining) else {
            throw .lengthPastEnd(offset: start, length: length, remaining: remaining)
        }
        guard position &- start <= 5 else { throw .invalidLength(offset: start) }
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

    // A field's value as generated code reads it: the conversion from the wire value inline,
    // the read itself a call, kept out of line (without `@inline(never)` the optimiser copies
    // a small function into the caller's module all the same). Inlined into each case of a
    // message's decode switch, the read cost the compiler several times as much at -O as the
    // call does (the optimiser weighs each case's loads and stores of the reader against every
    // other's); the call costs a few nanoseconds per field read, the price decoding pays
    // for the shorter compile. The table codec and the
    // repeated-field readers below read with the inlined `readVarint()` and `readFixed32()`;
    // a map entry's scalar goes through these calls too.

    @inlinable
    public mutating func readVarint<C: VarintCodec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readVarintValue())
    }

    @inlinable
    public mutating func readFixed32<C: Fixed32Codec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readFixed32Value())
    }

    @inlinable
    public mutating func readFixed64<C: Fixed64Codec>(_: C.Type) throws(WireError) -> C.Value {
        C.value(try readFixed64Value())
    }

    @usableFromInline @inline(never)
    mutating func readVarintValue() throws(WireError) -> UInt64 {
        try readVarint()
    }

    @usableFromInline @inline(never)
    mutating func readFixed32Value() throws(WireError) -> UInt32 {
        try readFixed32()
    }

    @usableFromInline @inline(never)
    mutating func readFixed64Value() throws(WireError) -> UInt64 {
        try readFixed64()
    }

    /// Reads a length-delimited `string`, rejecting invalid UTF-8.
    public mutating func readString() throws(WireError) -> String {
        let length = try readLength()
        let string = try ProtoReader.string(UnsafeRawBufferPointer(start: base + position, count: length), at: position)
        position &+= length
        return string
    }

    /// Makes the String with one copy, and throws `invalidUTF8` at the first bad byte. The
    /// standard library validates UTF-8 whichever way a String is made, replacing what is not
    /// UTF-8, so the check here only asks whether it changed anything: ASCII never changes
    /// (one word-at-a-time pass), and other text is valid when it came through byte for byte.
    /// (Not `String(validating:as:)`, which returns nil instead: the standard library does not
    /// specialise it, and it looks up metadata on every call.)
    @usableFromInline
    static func string(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WireError) -> String {
        let count = bytes.count
        let string: String
        if count > 15 {
            // Too long to be stored in the String itself: this way does least besides the copy.
            string = String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        } else {
            string = String(unsafeUninitializedCapacity: count) { buffer in
                if count > 0 {
                    copyBytes(from: bytes.baseAddress!, to: UnsafeMutableRawPointer(buffer.baseAddress!), count: count)
                }
                return count
            }
        }
        if !UTF8Validation.isASCII(bytes), !UTF8Validation.holds(string, bytes) {
            throw .invalidUTF8(offset: offset + (UTF8Validation.firstInvalidIndex(bytes) ?? 0))
        }
        return string
    }

    /// Throws `invalidUTF8` at the first bad byte of `bytes`, which start at `offset`. ASCII, the
    /// common case, costs one word-at-a-time pass; anything else gets the full check.
    @inline(__always)
    static func checkUTF8(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WireError) {
        if !UTF8Validation.isASCII(bytes), let bad = UTF8Validation.firstInvalidIndex(bytes) {
            throw .invalidUTF8(offset: offset + bad)
        }
    }

    /// Reads a length-delimited `bytes` value.
    @inlinable @inline(never)
    public mutating func readBytes() throws(WireError) -> [UInt8] {
        let length = try readLength()
        let bytes = [UInt8](UnsafeRawBufferPointer(start: base + position, count: length))
        position &+= length
        return bytes
    }

    // MARK: Repeated scalars (unpacked)
    //
    // Generated code reads each value of an unpacked repeated field through one of these, one
    // call per case of its decode switch, where an `append` in the case copied the array's
    // growth into each (specialised once per codec type instead).

    @inlinable @inline(never)
    public mutating func readVarint<C: VarintCodec>(appendingTo values: inout [C.Value], _: C.Type) throws(WireError) {
        values.append(C.value(try readVarint()))
    }

    @inlinable @inline(never)
    public mutating func readFixed32<C: Fixed32Codec>(appendingTo values: inout [C.Value], _: C.Type) throws(WireError)
    {
        values.append(C.value(try readFixed32()))
    }

    @inlinable @inline(never)
    public mutating func readFixed64<C: Fixed64Codec>(appendingTo values: inout [C.Value], _: C.Type) throws(WireError)
    {
        values.append(C.value(try readFixed64()))
    }

    public mutating func readString(appendingTo values: inout [String]) throws(WireError) {
        values.append(try readString())
    }

    public mutating func readBytes(appendingTo values: inout [[UInt8]]) throws(WireError) {
        values.append(try readBytes())
    }

    // MARK: Repeated scalars (packed)

    /// Reads a packed run of varints, appending to `values`.
    @inlinable @inline(never)
    public mutating func readPackedVarint<C: VarintCodec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        let length = try readLength()
        let end = position &+ length
        if length > 0, base.load(fromByteOffset: end &- 1, as: UInt8.self) < 0x80 {
            // The run's last byte ends a varint, so every varint in it ends inside it: count
            // them, make room once, and decode with no bounds checks.
            let count = ProtoReader.countVarintEnds(base + position, length)
            var offset = position
            if values.isEmpty && count >= 64 {
                // A long run into an empty array: each value is written in place, with no
                // capacity check per value. `Array(unsafeUninitializedCapacity:)` looks up the
                // array's metadata on every call (the standard library does not specialise it),
                // which a short run would notice.
                var malformed = false
                values = Array(unsafeUninitializedCapacity: count) { buffer, initialized in
                    while initialized < count {
                        guard let raw = ProtoReader.decodeVarint(base, at: &offset) else {
                            malformed = true
                            return
                        }
                        (buffer.baseAddress! + initialized).initialize(to: C.value(raw))
                        initialized &+= 1
                    }
                }
                // `offset` is where the varint of more than ten bytes starts.
                if malformed { throw .malformedVarint(offset: offset) }
                position = end
                return
            }
            values.reserveCapacity(values.count &+ count)
            for _ in 0..<count {
                // Nil for more than ten bytes; `offset` is then where that varint starts.
                guard let raw = ProtoReader.decodeVarint(base, at: &offset) else {
                    throw .malformedVarint(offset: offset)
                }
                values.append(C.value(raw))
            }
            position = end
            return
        }
        let outerLimit = limit
        limit = position + length
        while position < limit {
            values.append(C.value(try readVarint()))
        }
        limit = outerLimit
    }

    @inlinable @inline(never)
    public mutating func readPackedFixed32<C: Fixed32Codec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        let (source, count) = try readPackedFixedRun(width: 4)
        values.append(contentsOf: PackedFixed32<C>(source: source, count: count))
    }

    @inlinable @inline(never)
    public mutating func readPackedFixed64<C: Fixed64Codec>(
        into values: inout [C.Value], _: C.Type
    ) throws(WireError) {
        let (source, count) = try readPackedFixedRun(width: 8)
        values.append(contentsOf: PackedFixed64<C>(source: source, count: count))
    }

    /// Reads the length of a packed run of `width`-byte values, which must be a whole number of
    /// them, and moves past the run; returns where it starts and how many values it holds.
    @inlinable
    mutating func readPackedFixedRun(width: Int) throws(WireError) -> (UnsafeRawPointer, Int) {
        let start = position
        let length = try readLength()
        guard length % width == 0 else { throw .malformedPackedField(offset: start, length: length) }
        let source = base + position
        position &+= length
        return (source, length / width)
    }

    // MARK: Messages

    /// Reads a length-delimited message and merges it into `message` (protobuf semantics:
    /// a singular message seen twice is merged).
    /// Only the call of `decodeMessage` is specialised per message type: the length, the depth
    /// and the limits are one function for all of them.
    @inlinable
    public mutating func readMessage<M: Message>(merging message: inout M) throws(WireError) {
        let outerLimit = try enterLengthDelimited()
        try message.decodeMessage(from: &self)
        leaveLengthDelimited(restoring: outerLimit)
    }

    /// Reads the length of a length-delimited field and limits the reader to its bytes, one
    /// level deeper; returns the limit that `leaveLengthDelimited(restoring:)` puts back.
    @usableFromInline
    mutating func enterLengthDelimited() throws(WireError) -> Int {
        let length = try readLength()
        guard depthRemaining > 0 else { throw .tooDeep(offset: tagStart, limit: maxDepth) }
        let outerLimit = limit
        limit = position + length
        depthRemaining -= 1
        return outerLimit
    }

    /// Leaves the field entered by `enterLengthDelimited()`, at its end.
    @inlinable
    mutating func leaveLengthDelimited(restoring outerLimit: Int) {
        position = limit
        depthRemaining += 1
        limit = outerLimit
    }

    /// Reads a message field into an optional, merging into the value already there.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
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

    /// Reads a boxed message field (how generated code stores sub-messages), merging into
    /// the message already there. The old box is released before the merge, so a message
    /// nobody else shares is merged in place, not copied.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func readMessage<M: Message>(into box: inout Boxed<M>?) throws(WireError) {
        var message = box?.value ?? M()
        box = nil
        try readMessage(merging: &message)
        box = Boxed(message)
    }

    /// Reads one element of a repeated message field.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func readMessage<M: Message>(appendingTo values: inout [M]) throws(WireError) {
        if values.isEmpty {
            // Make room once for every element of the field that follows in this message, not
            // one growth after another.
            let count = countFieldRepeats()
            if count > 1 { values.reserveCapacity(count) }
        }
        var message = M()
        try readMessage(merging: &message)
        values.append(message)
    }

    /// How many fields from the one whose tag was just read to the end of the current message
    /// have that same tag (at most 4096). Only tags and lengths are read; the count stops early
    /// at anything it cannot skip (a group, bad data), which the decoding then reports.
    @usableFromInline
    func countFieldRepeats() -> Int {
        var offset = tagStart
        guard let tag = ProtoReader.checkedVarint(base, at: &offset, limit: limit) else { return 0 }
        var count = 0
        offset = tagStart
        while offset < limit && count < 4096 {
            guard let next = ProtoReader.checkedVarint(base, at: &offset, limit: limit) else { break }
            if next == tag { count &+= 1 }
            switch next & 7 {
            case 0:
                guard ProtoReader.checkedVarint(base, at: &offset, limit: limit) != nil else { return count }
            case 1:
                offset &+= 8
            case 2:
                guard let length = ProtoReader.checkedVarint(base, at: &offset, limit: limit),
                    length <= UInt64(limit &- offset)
                else { return count }
                offset &+= Int(length)
            case 5:
                offset &+= 4
            default:
                return count
            }
        }
        return count
    }

    /// The varint at `offset` if it ends before `limit` within ten bytes; moves `offset` past it.
    @usableFromInline
    static func checkedVarint(_ base: UnsafeRawPointer, at offset: inout Int, limit: Int) -> UInt64? {
        var result: UInt64 = 0
        var index = offset
        var shift: UInt64 = 0
        while index < limit && shift < 70 {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            result |= UInt64(byte & 0x7F) &<< shift
            index &+= 1
            if byte < 0x80 {
                offset = index
                return result
            }
            shift &+= 7
        }
        return nil
    }

    /// Reads a length-delimited field and runs `body` with the reader limited to its bytes,
    /// one level deeper. For hand-written decoders of nested structures.
    @inlinable
    public mutating func readLengthDelimited<T>(
        _ body: (inout ProtoReader) throws(WireError) -> T
    ) throws(WireError) -> T {
        let outerLimit = try enterLengthDelimited()
        let result = try body(&self)
        leaveLengthDelimited(restoring: outerLimit)
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

    /// Keeps the field whose tag was just read, a length-delimited string extension, in
    /// `extensionFields` as its exact bytes, tag included, once its value is checked to be
    /// UTF-8: an extension is kept as bytes until it is read, and a bad string fails the
    /// decode as a string field's does.
    public mutating func keepStringExtension(into extensionFields: inout UnknownFields) throws(WireError) {
        let start = tagStart
        let length = try readLength()
        try Self.checkUTF8(UnsafeRawBufferPointer(start: base + position, count: length), at: position)
        position &+= length
        extensionFields.append(UnsafeRawBufferPointer(start: base + start, count: position - start))
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

/// `count` little-endian 4-byte values at `source`, for `Array.append(contentsOf:)`, which
/// then allocates once and writes each value in place.
@usableFromInline
struct PackedFixed32<C: Fixed32Codec>: Sequence, IteratorProtocol {
    @usableFromInline let source: UnsafeRawPointer
    @usableFromInline var index = 0
    @usableFromInline let count: Int

    @inlinable
    init(source: UnsafeRawPointer, count: Int) {
        self.source = source
        self.count = count
    }

    @inlinable
    var underestimatedCount: Int { count }

    @inlinable
    mutating func next() -> C.Value? {
        guard index < count else { return nil }
        let raw = source.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self)
        index &+= 1
        return C.value(UInt32(littleEndian: raw))
    }
}

/// `count` little-endian 8-byte values at `source`, for `Array.append(contentsOf:)`.
@usableFromInline
struct PackedFixed64<C: Fixed64Codec>: Sequence, IteratorProtocol {
    @usableFromInline let source: UnsafeRawPointer
    @usableFromInline var index = 0
    @usableFromInline let count: Int

    @inlinable
    init(source: UnsafeRawPointer, count: Int) {
        self.source = source
        self.count = count
    }

    @inlinable
    var underestimatedCount: Int { count }

    @inlinable
    mutating func next() -> C.Value? {
        guard index < count else { return nil }
        let raw = source.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self)
        index &+= 1
        return C.value(UInt64(littleEndian: raw))
    }
}
