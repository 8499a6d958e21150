// Map fields: `map<K, V>` is a repeated entry message { K key = 1; V value = 2; }. Each key
// and value type is a `MapCodec`, so one generic reader, sizer and writer serve every
// combination.

/// A type that can be the key or the value of a map entry.
@_documentation(visibility: internal)
public protocol MapCodec {
    associatedtype Value
    static var wireType: WireType { get }
    /// What a missing key or value decodes to.
    static var defaultValue: Value { get }
    static func read(from reader: inout ProtoReader) throws(WireError) -> Value
    /// Reads one more occurrence of the value into `value`, as protobuf reads a singular
    /// field seen again: a message is merged into the one already there, a scalar replaces
    /// it, and a closed-enum number the enum does not declare leaves it as it was.
    static func read(from reader: inout ProtoReader, merging value: inout Value?) throws(WireError)
    /// Bytes the value takes without its tag; message sizes are recorded in `cache`.
    static func size(of value: Value, cache: inout SizeCache) -> Int
    static func write(_ value: Value, to writer: inout ProtoWriter)
    /// How the text format reads and prints the key or value (for the table of a compact
    /// message, which learns a map field's kinds from its codecs).
    static var textFormatKind: TextFormatKind { get }
    /// Whether `appendJSON` prints this kind: every scalar does. A message's or an enum's
    /// value needs the JSON printer (names, well-known forms), which prints it from the
    /// map's wire entries instead.
    static var printsJSON: Bool { get }
    /// Appends the value as proto3's JSON mapping writes it; a map's key, in quotes with the
    /// comma before and the colon after (see `JSONMapText`).
    static func appendJSON(_ value: Value, asKey: Bool, to text: inout JSONMapText)
}

/// A type that can be a map key: integers, bool and string. Entries are written in key order.
@_documentation(visibility: internal)
public protocol MapKeyCodec: MapCodec where Value: Hashable {
    static func precedes(_ lhs: Value, _ rhs: Value) -> Bool
    /// The positions of `keys` in ascending order.
    static func order(of keys: [Value]) -> [Int]
}

extension MapKeyCodec {
    @inlinable public static func order(of keys: [Value]) -> [Int] {
        var order = Array(keys.indices)
        keys.withUnsafeBufferPointer { keys in order.sort { precedes(keys[$0], keys[$1]) } }
        return order
    }
}

extension MapCodec {
    @inlinable public static func read(from reader: inout ProtoReader, merging value: inout Value?) throws(WireError) {
        value = try read(from: &reader)
    }
    @inlinable public static var printsJSON: Bool { false }
    public static func appendJSON(_ value: Value, asKey: Bool, to text: inout JSONMapText) {
        preconditionFailure("\(Self.self) is printed from the encoding (printsJSON is false)")
    }
}

extension MapKeyCodec where Value: Comparable {
    @inlinable public static func precedes(_ lhs: Value, _ rhs: Value) -> Bool { lhs < rhs }
}

extension MapCodec where Self: VarintCodec {
    @inlinable public static var wireType: WireType { .varint }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> Value {
        try reader.readVarint(Self.self)
    }
    @inlinable public static func size(of value: Value, cache: inout SizeCache) -> Int { size(value) }
    @inlinable public static func write(_ value: Value, to writer: inout ProtoWriter) {
        writer.writeVarint(Self.self, value)
    }
}

extension MapCodec where Self: Fixed32Codec {
    @inlinable public static var wireType: WireType { .fixed32 }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> Value {
        try reader.readFixed32(Self.self)
    }
    @inlinable public static func size(of value: Value, cache: inout SizeCache) -> Int { 4 }
    @inlinable public static func write(_ value: Value, to writer: inout ProtoWriter) {
        writer.writeFixed32(Self.self, value)
    }
}

extension MapCodec where Self: Fixed64Codec {
    @inlinable public static var wireType: WireType { .fixed64 }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> Value {
        try reader.readFixed64(Self.self)
    }
    @inlinable public static func size(of value: Value, cache: inout SizeCache) -> Int { 8 }
    @inlinable public static func write(_ value: Value, to writer: inout ProtoWriter) {
        writer.writeFixed64(Self.self, value)
    }
}

extension ProtoInt32: MapKeyCodec {
    @inlinable public static var defaultValue: Int32 { 0 }
    public static var textFormatKind: TextFormatKind { .int32 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int32, asKey: Bool, to text: inout JSONMapText) {
        text.integer(Int64(value), asKey: asKey)
    }
}
extension ProtoInt64: MapKeyCodec {
    @inlinable public static var defaultValue: Int64 { 0 }
    public static var textFormatKind: TextFormatKind { .int64 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int64, asKey: Bool, to text: inout JSONMapText) {
        text.integer(value, asKey: asKey, quoted: true)
    }
}
extension ProtoUInt32: MapKeyCodec {
    @inlinable public static var defaultValue: UInt32 { 0 }
    public static var textFormatKind: TextFormatKind { .uint32 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: UInt32, asKey: Bool, to text: inout JSONMapText) {
        text.unsigned(UInt64(value), asKey: asKey)
    }
}
extension ProtoUInt64: MapKeyCodec {
    @inlinable public static var defaultValue: UInt64 { 0 }
    public static var textFormatKind: TextFormatKind { .uint64 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: UInt64, asKey: Bool, to text: inout JSONMapText) {
        text.unsigned(value, asKey: asKey, quoted: true)
    }
}
extension ProtoSInt32: MapKeyCodec {
    @inlinable public static var defaultValue: Int32 { 0 }
    public static var textFormatKind: TextFormatKind { .sint32 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int32, asKey: Bool, to text: inout JSONMapText) {
        text.integer(Int64(value), asKey: asKey)
    }
}
extension ProtoSInt64: MapKeyCodec {
    @inlinable public static var defaultValue: Int64 { 0 }
    public static var textFormatKind: TextFormatKind { .sint64 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int64, asKey: Bool, to text: inout JSONMapText) {
        text.integer(value, asKey: asKey, quoted: true)
    }
}
extension ProtoBool: MapKeyCodec {
    @inlinable public static var defaultValue: Bool { false }
    public static var textFormatKind: TextFormatKind { .bool }
    @inlinable public static func precedes(_ lhs: Bool, _ rhs: Bool) -> Bool { !lhs && rhs }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Bool, asKey: Bool, to text: inout JSONMapText) {
        text.bool(value, asKey: asKey)
    }
}
extension ProtoEnum: MapCodec {
    @inlinable public static var defaultValue: E { E() }
    public static var textFormatKind: TextFormatKind { .enumeration(E.protoNames) }
}
extension ProtoFixed32: MapKeyCodec {
    @inlinable public static var defaultValue: UInt32 { 0 }
    public static var textFormatKind: TextFormatKind { .fixed32 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: UInt32, asKey: Bool, to text: inout JSONMapText) {
        text.unsigned(UInt64(value), asKey: asKey)
    }
}
extension ProtoSFixed32: MapKeyCodec {
    @inlinable public static var defaultValue: Int32 { 0 }
    public static var textFormatKind: TextFormatKind { .sfixed32 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int32, asKey: Bool, to text: inout JSONMapText) {
        text.integer(Int64(value), asKey: asKey)
    }
}
extension ProtoFloat: MapCodec {
    @inlinable public static var defaultValue: Float { 0 }
    public static var textFormatKind: TextFormatKind { .float }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Float, asKey: Bool, to text: inout JSONMapText) {
        text.float(value)
    }
}
extension ProtoFixed64: MapKeyCodec {
    @inlinable public static var defaultValue: UInt64 { 0 }
    public static var textFormatKind: TextFormatKind { .fixed64 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: UInt64, asKey: Bool, to text: inout JSONMapText) {
        text.unsigned(value, asKey: asKey, quoted: true)
    }
}
extension ProtoSFixed64: MapKeyCodec {
    @inlinable public static var defaultValue: Int64 { 0 }
    public static var textFormatKind: TextFormatKind { .sfixed64 }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Int64, asKey: Bool, to text: inout JSONMapText) {
        text.integer(value, asKey: asKey, quoted: true)
    }
}
extension ProtoDouble: MapCodec {
    @inlinable public static var defaultValue: Double { 0 }
    public static var textFormatKind: TextFormatKind { .double }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: Double, asKey: Bool, to text: inout JSONMapText) {
        text.double(value)
    }
}

@_documentation(visibility: internal)
public enum ProtoString: MapKeyCodec {
    /// UTF-8 byte order, as protobuf's C++ runtime sorts string keys (`String`'s own `<`
    /// compares normalized Unicode, which is slower and, for text that is not in NFC, another
    /// order).
    @inlinable public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        StringOrder.precedes(lhs, rhs)
    }
    @inlinable public static func order(of keys: [String]) -> [Int] {
        StringOrder.order(of: keys)
    }
    @inlinable public static var wireType: WireType { .lengthDelimited }
    @inlinable public static var defaultValue: String { "" }
    public static var textFormatKind: TextFormatKind { .string }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> String {
        try reader.readString()
    }
    @inlinable public static func size(of value: String, cache: inout SizeCache) -> Int {
        Wire.lengthDelimitedSize(value.utf8.count)
    }
    @inlinable public static func write(_ value: String, to writer: inout ProtoWriter) {
        writer.writeString(value)
    }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: String, asKey: Bool, to text: inout JSONMapText) {
        text.string(value, asKey: asKey)
    }
}

/// Sorting string keys by their UTF-8 bytes.
@usableFromInline
enum StringOrder {
    @usableFromInline
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let result = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                // Byte-wise: the shorter one first when one is a prefix of the other.
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
        return (result ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Sorts by the first eight bytes as one number (most keys differ there, or are no
    /// longer), then compares bytes only where those are equal.
    @usableFromInline
    static func order(of keys: [String]) -> [Int] {
        var keyed = keys.indices.map { index in Keyed(prefix: leadingBytes(keys[index]), index: index) }
        keyed.withUnsafeMutableBufferPointer { sortByPrefix($0) }
        var order = keyed.map(\.index)
        var start = 0
        while start < keyed.count {
            var end = start + 1
            while end < keyed.count && keyed[end].prefix == keyed[start].prefix { end += 1 }
            if end - start > 1 { order[start..<end].sort { precedes(keys[$0], keys[$1]) } }
            start = end
        }
        return order
    }

    struct Keyed {
        let prefix: UInt64
        let index: Int
    }

    /// A merge sort by prefix (runs of eight sorted by insertion first): the standard library's
    /// sort through a comparing closure does more work per comparison.
    private static func sortByPrefix(_ keyed: UnsafeMutableBufferPointer<Keyed>) {
        let count = keyed.count
        let run = 8
        for start in stride(from: 0, to: count, by: run) {
            let end = Swift.min(start + run, count)
            for next in (start + 1)..<end {
                let moving = keyed[next]
                var place = next
                while place > start && keyed[place - 1].prefix > moving.prefix {
                    keyed[place] = keyed[place - 1]
                    place -= 1
                }
                keyed[place] = moving
            }
        }
        guard count > run else { return }
        let scratch = UnsafeMutableBufferPointer<Keyed>.allocate(capacity: count)
        defer { scratch.deallocate() }
        var (source, target) = (keyed, scratch)
        var width = run
        while width < count {
            for low in stride(from: 0, to: count, by: 2 * width) {
                let middle = Swift.min(low + width, count), high = Swift.min(low + 2 * width, count)
                var (left, right, out) = (low, middle, low)
                while left < middle && right < high {
                    if source[right].prefix < source[left].prefix {
                        target[out] = source[right]
                        right += 1
                    } else {
                        target[out] = source[left]
                        left += 1
                    }
                    out += 1
                }
                while left < middle {
                    target[out] = source[left]
                    (left, out) = (left + 1, out + 1)
                }
                while right < high {
                    target[out] = source[right]
                    (right, out) = (right + 1, out + 1)
                }
            }
            swap(&source, &target)
            width *= 2
        }
        if source.baseAddress != keyed.baseAddress {
            _ = keyed.update(fromContentsOf: source)
        }
    }

    /// The first eight UTF-8 bytes as a big-endian number, zeros after a shorter string.
    @usableFromInline
    static func leadingBytes(_ string: String) -> UInt64 {
        func number(_ bytes: some Sequence<UInt8>) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 56
            for byte in bytes {
                result |= UInt64(byte) &<< shift
                shift &-= 8
            }
            return result
        }
        return string.utf8.withContiguousStorageIfAvailable { number($0.prefix(8)) } ?? number(string.utf8.prefix(8))
    }
}

@_documentation(visibility: internal)
public enum ProtoBytes: MapCodec {
    @inlinable public static var wireType: WireType { .lengthDelimited }
    @inlinable public static var defaultValue: [UInt8] { [] }
    public static var textFormatKind: TextFormatKind { .bytes }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> [UInt8] {
        try reader.readBytes()
    }
    @inlinable public static func size(of value: [UInt8], cache: inout SizeCache) -> Int {
        Wire.lengthDelimitedSize(value.count)
    }
    @inlinable public static func write(_ value: [UInt8], to writer: inout ProtoWriter) {
        writer.writeBytes(value)
    }
    @inlinable public static var printsJSON: Bool { true }
    public static func appendJSON(_ value: [UInt8], asKey: Bool, to text: inout JSONMapText) {
        text.bytes(value)
    }
}

@_documentation(visibility: internal)
public enum ProtoMessage<M: Message>: MapCodec {
    @inlinable public static var wireType: WireType { .lengthDelimited }
    @inlinable public static var defaultValue: M { M() }
    public static var textFormatKind: TextFormatKind { .message(M.self) }
    @inlinable public static func read(from reader: inout ProtoReader) throws(WireError) -> M {
        var message = M()
        try reader.readMessage(merging: &message)
        return message
    }
    @inlinable public static func read(from reader: inout ProtoReader, merging value: inout M?) throws(WireError) {
        var message = value ?? M()
        value = nil  // keep one reference so the merge does not copy
        try reader.readMessage(merging: &message)
        value = message
    }
    @inlinable public static func size(of value: M, cache: inout SizeCache) -> Int {
        cache.message(value)
    }
    @inlinable public static func write(_ value: M, to writer: inout ProtoWriter) {
        writer.writeMessage(value)
    }
}

extension ProtoReader {
    /// Reads one map entry into `map`. A missing key or value takes its default; a key
    /// seen again replaces the earlier value, as in protobuf's C++ runtime. Inside one
    /// entry a message value seen twice is merged, as any singular message field is.
    @inlinable @inline(never)
    public mutating func readMapEntry<K: MapKeyCodec, V: MapCodec>(
        into map: inout [K.Value: V.Value], _: K.Type, _: V.Type
    ) throws(WireError) {
        let keyTag = Wire.tag(fieldNumber: 1, wireType: K.wireType)
        let valueTag = Wire.tag(fieldNumber: 2, wireType: V.wireType)
        // The key and value are kept outside the closure rather than returned as a pair: a
        // generic pair costs a run-time type lookup where this runs unspecialised.
        var key = K.defaultValue
        var value: V.Value? = nil
        try readLengthDelimited { (reader: inout ProtoReader) throws(WireError) in
            while reader.hasRemaining {
                let tag = try reader.readTag()
                if tag == keyTag {
                    key = try K.read(from: &reader)
                } else if tag == valueTag {
                    try V.read(from: &reader, merging: &value)
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
        }
        // Not `map[key] = ...`: the subscript's setter takes an optional and carries the
        // removal of a key too, which would be compiled into every module for each map type.
        map.updateValue(value ?? V.defaultValue, forKey: key)
    }
}

extension SizeCache {
    /// Sizes every entry of a map field, tags included. Entries are written sorted by key;
    /// the sort happens here, once: for each entry in key order the cache records where the
    /// entry comes in the map's own order, then its size, and the write pass follows that.
    @inlinable @inline(never)
    public mutating func map<K: MapKeyCodec, V: MapCodec>(
        _ map: [K.Value: V.Value], tagSize: Int, _: K.Type, _: V.Type
    ) -> Int {
        // Keys and values in two arrays rather than one of (key, value) pairs: where this runs
        // unspecialised (the table codec of a compact message), every use of a generic pair
        // looks its tuple type up at run time, which was most of the time.
        let keys = Array(map.keys), values = Array(map.values)
        if V.printsJSON, let printed = printedMaps {
            // For jsonString(): the map as its JSON object, which the write pass finds by the
            // position recorded here.
            let text = JSONMapText.object(keys, values, order: K.order(of: keys), K.self, V.self)
            sizes.append(printed.pointee.count)
            printed.pointee.append(text)
            return tagSize &+ Wire.lengthDelimitedSize(text.count)
        }
        sizes.reserve(2 &* keys.count)
        var total = 0
        for index in K.order(of: keys) {
            sizes.append(index)
            let slot = sizes.count
            sizes.append(0)
            let entry = 1 + K.size(of: keys[index], cache: &self) + 1 + V.size(of: values[index], cache: &self)
            sizes[slot] = entry
            total &+= tagSize &+ Wire.lengthDelimitedSize(entry)
        }
        return total
    }
}

extension ProtoWriter {
    /// Writes a map field's entries sorted by key (deterministic output), key and value
    /// always present, as protobuf's C++ runtime writes them. The order comes from the size
    /// pass (`SizeCache.map`).
    @inlinable @inline(never)
    public mutating func writeMap<K: MapKeyCodec, V: MapCodec>(
        _ map: [K.Value: V.Value], tag: UInt32, _: K.Type, _: V.Type
    ) {
        if V.printsJSON, let printed = sizes.printedMaps {
            writeTag(tag)
            writeBytes(printed.pointee[sizes.take()])
            return
        }
        let keyTag = Wire.tag(fieldNumber: 1, wireType: K.wireType)
        let valueTag = Wire.tag(fieldNumber: 2, wireType: V.wireType)
        let keys = Array(map.keys), values = Array(map.values)
        for _ in 0..<keys.count {
            let index = sizes.take()
            writeTag(tag)
            writeVarint(UInt64(sizes.take()))
            writeTag(keyTag)
            K.write(keys[index], to: &self)
            writeTag(valueTag)
            V.write(values[index], to: &self)
        }
    }
}
