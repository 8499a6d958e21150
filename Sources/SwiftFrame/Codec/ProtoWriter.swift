/// Writes protobuf wire data into memory sized beforehand by `Message.computeSize(into:)`.
///
/// Encoding is two passes. The size pass walks the message once and records, in order,
/// the size of every nested message and packed varint field in a `SizeCache`. The write
/// pass reads those sizes back in the same order, so no message is sized twice, however
/// deep it is nested. Every write is bounds-checked: a generator bug cannot write past
/// the buffer. Writer and cache are noncopyable: the cache owns the storage of its sizes.
@_documentation(visibility: internal)
public struct ProtoWriter: ~Copyable {
    @usableFromInline var cursor: UnsafeMutableRawPointer
    @usableFromInline var end: UnsafeMutableRawPointer
    @usableFromInline var sizes: SizeCache

    /// A writer over `buffer`, using the sizes recorded by the size pass.
    @inlinable
    public init(buffer: UnsafeMutableRawBufferPointer, sizes: consuming SizeCache) {
        (cursor, end) = ProtoWriter.bounds(of: buffer)
        self.sizes = sizes
    }

    /// A writer with no buffer yet, whose own `sizes` the size pass fills, so that the cache
    /// is never moved into it (a move copies the whole cache, inline sizes and all).
    @inlinable
    init(sizes: consuming SizeCache = SizeCache()) {
        self.init(buffer: UnsafeMutableRawBufferPointer(start: nil, count: 0), sizes: sizes)
    }

    /// Points the writer at `buffer`, keeping its sizes.
    @inlinable
    mutating func retarget(_ buffer: UnsafeMutableRawBufferPointer) {
        (cursor, end) = ProtoWriter.bounds(of: buffer)
    }

    /// Start and end of `buffer`; an empty buffer may have no address, and nothing is stored there.
    @inlinable
    static func bounds(of buffer: UnsafeMutableRawBufferPointer) -> (UnsafeMutableRawPointer, UnsafeMutableRawPointer) {
        let start = buffer.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 0x10)!
        return (start, start + buffer.count)
    }

    /// Bytes still free in the buffer.
    public var remaining: Int { end - cursor }

    @inlinable
    mutating func require(_ count: Int) {
        precondition(end - cursor >= count, "ProtoWriter: size pass and write pass disagree")
    }

    // MARK: Varints and tags

    @inlinable
    public mutating func writeVarint(_ value: UInt64) {
        if value < 0x80 && cursor < end {
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            cursor += 1
        } else {
            writeLongVarint(value)
        }
    }

    @usableFromInline
    mutating func writeLongVarint(_ value: UInt64) {
        require(Wire.varintSize(value))
        cursor = ProtoWriter.storeVarint(value, at: cursor)
    }

    /// Stores a varint with no bounds check (the caller made sure that it fits) and returns
    /// the address after it.
    @inlinable @inline(__always)
    static func storeVarint(_ value: UInt64, at cursor: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        if value < 0x80 {
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            return cursor + 1
        }
        var value = value
        var cursor = cursor
        repeat {
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, as: UInt8.self)
            cursor += 1
            value &>>= 7
        } while value >= 0x80
        cursor.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        return cursor + 1
    }

    /// `storeVarint` two bytes a step, for the values of packed runs, most of which take two or
    /// more bytes: half as many turns of a loop whose exit depends on the value, so half as
    /// many mispredicted exits. (One store of three or eight bytes for the whole varint, which
    /// the next varint then partly overwrites, took fewer instructions but more time.) The
    /// caller made sure that ten bytes fit.
    @inlinable @inline(__always)
    static func storeVarintInPairs(_ value: UInt64, at cursor: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var value = value
        var cursor = cursor
        while value >= 0x4000 {
            let pair = UInt16(truncatingIfNeeded: value & 0x7F | (value & 0x3F80) &<< 1) | 0x8080
            cursor.storeBytes(of: pair.littleEndian, as: UInt16.self)
            cursor += 2
            value &>>= 14
        }
        if value < 0x80 {
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            return cursor + 1
        }
        let pair = UInt16(truncatingIfNeeded: value & 0x7F | (value & 0x3F80) &<< 1) | 0x80
        cursor.storeBytes(of: pair.littleEndian, as: UInt16.self)
        return cursor + 2
    }

    @inlinable
    public mutating func writeTag(_ tag: UInt32) {
        writeVarint(UInt64(tag))
    }

    @inlinable
    public mutating func writeVarint<C: VarintCodec>(_: C.Type, _ value: C.Value) {
        writeVarint(C.wire(value))
    }

    // MARK: A field's tag and value in one call
    //
    // Generated code writes each value of a field with its tag through one of these (or
    // through the string and bytes writers below): the tag and the value after one bounds
    // check, where `writeTag` and a value's write would make two. The conversion to the wire
    // value is inlined, the write is a call kept out of line: inlined into every field of a
    // message's encode, the write made the compiler's -O work per field grow (see
    // `ProtoReader.readVarint(_:)`). The table codec stores with the inlined
    // `storeVarintField` and `storeFixed`.

    /// A varint field: `tag`, then `value`.
    @inlinable
    public mutating func writeVarint<C: VarintCodec>(_: C.Type, _ value: C.Value, tag: UInt32) {
        writeVarintField(C.wire(value), tag: tag)
    }

    @usableFromInline @inline(never)
    mutating func writeVarintField(_ value: UInt64, tag: UInt32) {
        storeVarintField(value, tag: tag)
    }

    @inline(__always)
    mutating func storeVarintField(_ value: UInt64, tag: UInt32) {
        if tag < 0x80 && value < 0x80 && end - cursor >= 2 {
            // Both one byte: one store of two.
            cursor.storeBytes(
                of: (UInt16(truncatingIfNeeded: value) &<< 8 | UInt16(truncatingIfNeeded: tag)).littleEndian,
                as: UInt16.self)
            cursor += 2
        } else {
            writeLongVarint(value, tag: tag)
        }
    }

    @usableFromInline
    mutating func writeLongVarint(_ value: UInt64, tag: UInt32) {
        guard tag < 0x80 else {
            writeTag(tag)
            writeVarint(value)
            return
        }
        require(1 &+ Wire.varintSize(value))
        cursor.storeBytes(of: UInt8(truncatingIfNeeded: tag), as: UInt8.self)
        cursor = ProtoWriter.storeVarint(value, at: cursor + 1)
    }

    /// A fixed32, sfixed32 or float field: `tag`, then the value's four bytes.
    @inlinable
    public mutating func writeFixed32<C: Fixed32Codec>(_: C.Type, _ value: C.Value, tag: UInt32) {
        writeFixed32Field(C.wire(value), tag: tag)
    }

    @usableFromInline @inline(never)
    mutating func writeFixed32Field(_ value: UInt32, tag: UInt32) {
        storeFixed(value, tag: tag)
    }

    /// A fixed64, sfixed64 or double field: `tag`, then the value's eight bytes.
    @inlinable
    public mutating func writeFixed64<C: Fixed64Codec>(_: C.Type, _ value: C.Value, tag: UInt32) {
        writeFixed64Field(C.wire(value), tag: tag)
    }

    @usableFromInline @inline(never)
    mutating func writeFixed64Field(_ value: UInt64, tag: UInt32) {
        storeFixed(value, tag: tag)
    }

    /// Bytes of `tag`, with no bit count for the one-byte tags of fields 1 to 15.
    @inlinable @inline(__always)
    static func tagSize(_ tag: UInt32) -> Int {
        tag < 0x80 ? 1 : Wire.varintSize(tag)
    }

    @inlinable @inline(__always)
    mutating func storeFixed<Raw: FixedWidthInteger>(_ raw: Raw, tag: UInt32) {
        require(ProtoWriter.tagSize(tag) &+ MemoryLayout<Raw>.size)
        let next = ProtoWriter.storeVarint(UInt64(tag), at: cursor)
        next.storeBytes(of: raw.littleEndian, as: Raw.self)
        cursor = next + MemoryLayout<Raw>.size
    }

    // MARK: Fixed width

    @inlinable
    public mutating func writeFixed32(_ value: UInt32) {
        require(4)
        cursor.storeBytes(of: value.littleEndian, as: UInt32.self)
        cursor += 4
    }

    @inlinable
    public mutating func writeFixed64(_ value: UInt64) {
        require(8)
        cursor.storeBytes(of: value.littleEndian, as: UInt64.self)
        cursor += 8
    }

    @inlinable
    public mutating func writeFixed32<C: Fixed32Codec>(_: C.Type, _ value: C.Value) {
        writeFixed32(C.wire(value))
    }

    @inlinable
    public mutating func writeFixed64<C: Fixed64Codec>(_: C.Type, _ value: C.Value) {
        writeFixed64(C.wire(value))
    }

    // MARK: Length-delimited

    /// Copies raw bytes with no length prefix.
    @inlinable
    public mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        require(bytes.count)
        copyBytes(from: source, to: cursor, count: bytes.count)
        cursor += bytes.count
    }

    @inlinable
    public mutating func writeBytes(_ bytes: [UInt8]) {
        writeVarint(UInt64(bytes.count))
        bytes.withUnsafeBytes { writeRaw($0) }
    }

    @inlinable
    public mutating func writeString(_ string: String) {
        let utf8 = string.utf8
        writeVarint(UInt64(utf8.count))
        let done: Void? = utf8.withContiguousStorageIfAvailable { writeRaw(UnsafeRawBufferPointer($0)) }
        if done == nil { writeNonContiguous(utf8) }
    }

    // The writers of a string or bytes field are not inlinable, unlike the scalar writers:
    // every module of generated code compiled its own copy of their bodies, for little of the
    // encode's time.

    /// A `bytes` field: `tag`, then the length and the bytes.
    public mutating func writeBytes(_ bytes: [UInt8], tag: UInt32) {
        bytes.withUnsafeBytes { storeLengthDelimited($0, tag: tag) }
    }

    /// A proto3 `bytes` field without presence: as `writeBytes(_:tag:)`, and nothing when empty.
    @inlinable
    public mutating func writeBytesUnlessEmpty(_ bytes: [UInt8], tag: UInt32) {
        if !bytes.isEmpty { writeBytes(bytes, tag: tag) }
    }

    /// A `string` field: `tag`, then the length and the UTF-8 bytes.
    public mutating func writeString(_ string: String, tag: UInt32) {
        storeString(string, tag: tag, unlessEmpty: false)
    }

    /// A proto3 `string` field without presence: as `writeString(_:tag:)`, and nothing when
    /// empty. One call for the test and the write, so the string's length is found once.
    public mutating func writeStringUnlessEmpty(_ string: String, tag: UInt32) {
        storeString(string, tag: tag, unlessEmpty: true)
    }

    /// A string after `tag`: the body of `writeString(_:tag:)` and `writeStringUnlessEmpty`,
    /// and of the loop of `writeRepeatedString`.
    @inlinable @inline(__always)
    mutating func storeString(_ string: String, tag: UInt32, unlessEmpty: Bool) {
        let utf8 = string.utf8
        let done: Void? = utf8.withContiguousStorageIfAvailable { buffer in
            if unlessEmpty && buffer.isEmpty { return }
            storeLengthDelimited(UnsafeRawBufferPointer(buffer), tag: tag)
        }
        if done == nil {
            let count = utf8.count
            if unlessEmpty && count == 0 { return }
            writeTag(tag)
            writeVarint(UInt64(count))
            writeNonContiguous(utf8)
        }
    }

    /// Tag, length and bytes of a length-delimited value, after one bounds check for all
    /// three: the string and bytes fields of a message are most of its writes, and a check
    /// for each part costs more than storing a short tag or length.
    @inlinable @inline(__always)
    mutating func storeLengthDelimited(_ bytes: UnsafeRawBufferPointer, tag: UInt32) {
        let count = bytes.count
        require(ProtoWriter.tagSize(tag) &+ Wire.varintSize(UInt64(count)) &+ count)
        var next = ProtoWriter.storeVarint(UInt64(tag), at: cursor)
        next = ProtoWriter.storeVarint(UInt64(count), at: next)
        if let source = bytes.baseAddress { copyBytes(from: source, to: next, count: count) }
        cursor = next + count
    }

    /// The bytes of a string without contiguous UTF-8 (bridged from Objective-C), one by one.
    @usableFromInline
    mutating func writeNonContiguous(_ utf8: String.UTF8View) {
        require(utf8.count)
        for byte in utf8 {
            cursor.storeBytes(of: byte, as: UInt8.self)
            cursor += 1
        }
    }

    // MARK: Repeated length-delimited fields
    //
    // A loop over a repeated field in generated code copies each element out of the array to
    // pass it to the writer: a retain and a release per string, bytes or message (per stored
    // reference inside a message), which cost more than writing a short string. These loops
    // read each element in place.

    /// Writes every string of a repeated field, each after `tag`.
    public mutating func writeRepeatedString(_ values: [String], tag: UInt32) {
        for value in values {
            storeString(value, tag: tag, unlessEmpty: false)
        }
    }

    /// Writes every value of a repeated `bytes` field, each after `tag`.
    public mutating func writeRepeatedBytes(_ values: [[UInt8]], tag: UInt32) {
        for value in values {
            writeBytes(value, tag: tag)
        }
    }

    /// Writes every message of a repeated field, each after `tag` and the length recorded by
    /// `SizeCache.repeatedMessage`.
    @inlinable @inline(never)
    public mutating func writeRepeatedMessage<M: Message>(_ values: [M], tag: UInt32) {
        values.withUnsafeBufferPointer { messages in
            for index in messages.indices {
                writeTagAndRecordedLength(tag)
                messages[index].encodeMessage(to: &self)
            }
        }
    }

    /// An element's tag and the length the size pass recorded for it: one function for the
    /// loops of every message type, which would otherwise each carry a copy, compiled again for
    /// each; the call costs nested encoding a little time.
    @usableFromInline @inline(never)
    mutating func writeTagAndRecordedLength(_ tag: UInt32) {
        writeTag(tag)
        writeVarint(UInt64(sizes.take()))
    }

    /// Writes the length recorded for `message` by the size pass, then the message.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func writeMessage<M: Message>(_ message: M) {
        writeVarint(UInt64(sizes.take()))
        message.encodeMessage(to: &self)
    }

    // MARK: Packed repeated scalars

    @inlinable @inline(never)
    public mutating func writePackedVarint<C: VarintCodec>(_ values: [C.Value], _: C.Type) {
        writeVarint(UInt64(sizes.take()))
        var cursor = self.cursor
        let safeEnd = end - 10  // up to here any varint fits: one check per value
        for value in values {
            if cursor > safeEnd {
                self.cursor = cursor
                require(C.size(value))
            }
            cursor = ProtoWriter.storeVarintInPairs(C.wire(value), at: cursor)
        }
        self.cursor = cursor
    }

    @inlinable @inline(never)
    public mutating func writePackedFixed32<C: Fixed32Codec>(_ values: [C.Value], _: C.Type) {
        writePackedFixed(values, C.wire)
    }

    @inlinable @inline(never)
    public mutating func writePackedFixed64<C: Fixed64Codec>(_ values: [C.Value], _: C.Type) {
        writePackedFixed(values, C.wire)
    }

    /// A length prefix, then each value as little-endian `Raw`.
    @inlinable
    mutating func writePackedFixed<Raw: FixedWidthInteger, Value>(_ values: [Value], _ convert: (Value) -> Raw) {
        let length = values.count &* MemoryLayout<Raw>.size
        writeVarint(UInt64(length))
        require(length)
        #if _endian(little)
        // Every fixed-width codec's wire value is its value's bit pattern (UInt32, Int32, Float,
        // UInt64, Int64, Double), so on a little-endian machine the run is the array's memory.
        precondition(
            MemoryLayout<Value>.size == MemoryLayout<Raw>.size && MemoryLayout<Value>.stride == MemoryLayout<Raw>.size)
        if length > 0 { values.withUnsafeBytes { copyBytes(from: $0.baseAddress!, to: cursor, count: length) } }
        cursor += length
        #else
        for value in values {
            cursor.storeBytes(of: convert(value).littleEndian, as: Raw.self)
            cursor += MemoryLayout<Raw>.size
        }
        #endif
    }

    /// Re-emits unknown fields byte for byte. Inline only the check: most messages have none.
    @inlinable @inline(__always)
    public mutating func writeUnknownFields(_ fields: UnknownFields) {
        if !fields.isEmpty { writeAll(fields.bytes) }
    }

    @usableFromInline
    mutating func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeRaw($0) }
    }
}

/// Sizes recorded by the size pass for the write pass, in the order both passes meet them.
@_documentation(visibility: internal)
public struct SizeCache: ~Copyable, @unchecked Sendable {  // unchecked for `printedMaps`: see there
    @usableFromInline var sizes: SizeList
    @usableFromInline var nextIndex: Int
    /// For the encoding `jsonString()` prints from, and nil for the binary encoding: where the
    /// size pass keeps the maps of scalars it printed as JSON objects (`JSONMapText`), for the
    /// write pass to copy. `jsonString()` owns the list and keeps it for both passes; a plain
    /// pointer, so that the binary encoding's cache costs nothing more to make and destroy
    /// (an optional array here was made and destroyed on every encode). The cache stays
    /// Sendable: a cache that holds the pointer is made, used and consumed inside that one
    /// call, and never leaves it.
    @usableFromInline var printedMaps: UnsafeMutablePointer<[[UInt8]]>?

    // Every property set here, none by a default value: a default is a function of its own,
    // called from the initializer where it is inlined.
    @inlinable
    public init() {
        sizes = SizeList()
        nextIndex = 0
        printedMaps = nil
    }

    /// The size pass of the encoding `jsonString()` prints from.
    init(printingMapsInto printedMaps: UnsafeMutablePointer<[[UInt8]]>) {
        self.init()
        self.printedMaps = printedMaps
    }

    /// Sizes a nested message once, records its size, and returns the bytes its length
    /// prefix and body take.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func message<M: Message>(_ message: M) -> Int {
        Wire.lengthDelimitedSize(record(message))
    }

    /// Sizes `message` and records its size (in the slot taken before sizing it, so that the
    /// sizes stay in the order the write pass meets them); returns the size.
    @inlinable @inline(__always)
    mutating func record<M: Message>(_ message: M) -> Int {
        let slot = takeSlot()
        let size = message.computeSize(into: &self)
        sizes[slot] = size
        return size
    }

    /// Appends a slot for a size yet to be found and returns its position: one function for
    /// every message type, whose sizing would otherwise each carry a copy (see
    /// `ProtoWriter.writeTagAndRecordedLength`).
    @usableFromInline @inline(never)
    mutating func takeSlot() -> Int {
        sizes.append(0)
        return sizes.count &- 1
    }

    /// Sizes every message of a repeated field once, as `message` does, and returns the bytes
    /// the field takes with `tagSize` bytes of tag before each.
    @inlinable @inline(never)
    public mutating func repeatedMessage<M: Message>(_ values: [M], tagSize: Int) -> Int {
        var size = values.count &* tagSize
        values.withUnsafeBufferPointer { messages in
            for index in messages.indices {
                size &+= Wire.lengthDelimitedSize(record(messages[index]))
            }
        }
        return size
    }

    /// Sizes a packed varint field once, records its payload size, and returns the bytes
    /// its length prefix and payload take.
    @inlinable @inline(never)
    public mutating func packedVarint<C: VarintCodec>(_ values: [C.Value], _: C.Type) -> Int {
        let size = C.packedSize(values)
        sizes.append(size)
        return Wire.lengthDelimitedSize(size)
    }

    @inlinable
    mutating func take() -> Int {
        let size = sizes[nextIndex]
        nextIndex &+= 1
        return size
    }
}

/// The list of sizes in a `SizeCache`: the first eight in the struct itself, so that encoding
/// a message with few nested messages and packed fields allocates nothing but its output; the
/// rest in memory the list allocates and frees itself. Not an array: destroying an empty
/// array still releases the shared empty storage, through an outlined destroy, on every
/// encode of a message whose list stays inline.
///
/// Noncopyable, so the storage has one owner, which frees it; that is also why it may cross
/// tasks (`@unchecked Sendable`): a list is moved, never shared.
@usableFromInline
struct SizeList: ~Copyable, @unchecked Sendable {
    @usableFromInline static let inlineCount = 8
    @usableFromInline var inline: (Int, Int, Int, Int, Int, Int, Int, Int)
    @usableFromInline var overflow: UnsafeMutablePointer<Int>?
    @usableFromInline var overflowCapacity: Int
    @usableFromInline var count: Int

    @inlinable
    init() {
        inline = (0, 0, 0, 0, 0, 0, 0, 0)
        overflow = nil
        overflowCapacity = 0
        count = 0
    }

    @inlinable deinit { overflow?.deallocate() }

    @inlinable
    mutating func append(_ size: Int) {
        if count < SizeList.inlineCount {
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: size, toByteOffset: count &* 8, as: Int.self) }
        } else {
            let index = count &- SizeList.inlineCount
            if index == overflowCapacity { grow(to: Swift.max(56, 2 &* overflowCapacity)) }
            overflow.unsafelyUnwrapped[index] = size
        }
        count &+= 1
    }

    /// Makes room for `additional` more sizes at once.
    @inlinable
    mutating func reserve(_ additional: Int) {
        let needed = count &+ additional &- SizeList.inlineCount
        if needed > overflowCapacity { grow(to: Swift.max(56, needed)) }
    }

    /// Moves the sizes past the inline ones to new storage of `capacity` sizes.
    @usableFromInline
    mutating func grow(to capacity: Int) {
        let storage = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
        if let old = overflow {
            storage.initialize(from: old, count: Swift.max(0, count &- SizeList.inlineCount))
            old.deallocate()
        }
        overflow = storage
        overflowCapacity = capacity
    }

    @inlinable
    subscript(index: Int) -> Int {
        get {
            precondition(index >= 0 && index < count, "SizeCache: no size recorded at this position")
            switch index {
            case 0: return inline.0
            case 1: return inline.1
            case 2: return inline.2
            case 3: return inline.3
            case 4: return inline.4
            case 5: return inline.5
            case 6: return inline.6
            case 7: return inline.7
            default: return overflow.unsafelyUnwrapped[index &- SizeList.inlineCount]
            }
        }
        set {
            precondition(index >= 0 && index < count, "SizeCache: no size recorded at this position")
            if index < SizeList.inlineCount {
                withUnsafeMutableBytes(of: &inline) {
                    $0.storeBytes(of: newValue, toByteOffset: index &* 8, as: Int.self)
                }
            } else {
                overflow.unsafelyUnwrapped[index &- SizeList.inlineCount] = newValue
            }
        }
    }
}
