/// A map field of a compact message, named in its field table's type list by its key and value
/// codecs: `SwiftFrame.MapField<SwiftFrame.ProtoString, SwiftFrame.ProtoInt32>.self`. The table
/// codec reads, sizes and writes the dictionary at the field's offset through it, with the
/// runtime's generic map code: a compact message has no map code of its own.
@_documentation(visibility: internal)
public enum MapField<K: MapKeyCodec, V: MapCodec> where K.Value: Sendable, V.Value: Hashable & Sendable {}

/// A map whose values are a closed enum `E`: an entry whose number `E` does not declare is
/// kept whole in the unknown fields, as protobuf's C++ runtime keeps it.
@_documentation(visibility: internal)
public enum ClosedEnumMapField<K: MapKeyCodec, E: ClosedEnum> where K.Value: Sendable {}

/// What the table codec, `==`, hashing, the initialization check and the text format do with a
/// map field's dictionary, which they reach by its address.
protocol TableMapCodec: Sendable {
    /// Reads one entry, whose tag was just read.
    static func readEntry(
        into pointer: UnsafeMutableRawPointer, unknownFields: UnsafeMutablePointer<UnknownFields>,
        from reader: inout ProtoReader
    ) throws(WireError)
    /// The bytes the entries take, tags included; zero for an empty map.
    static func size(at pointer: UnsafeRawPointer, tagSize: Int, cache: inout SizeCache) -> Int
    /// Writes the entries in the order the size pass recorded.
    static func write(at pointer: UnsafeRawPointer, tag: UInt32, to writer: inout ProtoWriter)
    /// Calls `visitor` with the dictionary's type.
    static func visitStoredType(_ visitor: inout some StoredPropertyVisitor)
    /// The first error of the message values' `checkInitialized` (a `checked` map).
    static func checkValues(at pointer: UnsafeRawPointer) -> WireError?
    static var textFormatKind: TextFormatKind { get }
}

/// Sizing, writing and the stored type, shared by both kinds of map field: they differ only in
/// how an entry is read.
protocol TableMapEntries: TableMapCodec {
    associatedtype Key: MapKeyCodec where Key.Value: Sendable
    associatedtype Value: MapCodec where Value.Value: Hashable & Sendable
}

extension TableMapEntries {
    typealias Dictionary = [Key.Value: Value.Value]

    static func size(at pointer: UnsafeRawPointer, tagSize: Int, cache: inout SizeCache) -> Int {
        let map = pointer.assumingMemoryBound(to: Dictionary.self)
        return map.pointee.isEmpty ? 0 : cache.map(map.pointee, tagSize: tagSize, Key.self, Value.self)
    }

    static func write(at pointer: UnsafeRawPointer, tag: UInt32, to writer: inout ProtoWriter) {
        let map = pointer.assumingMemoryBound(to: Dictionary.self)
        if !map.pointee.isEmpty { writer.writeMap(map.pointee, tag: tag, Key.self, Value.self) }
    }

    static func visitStoredType(_ visitor: inout some StoredPropertyVisitor) {
        visitor.visit(Dictionary.self)
    }

    static var textFormatKind: TextFormatKind { .map(key: Key.textFormatKind, value: Value.textFormatKind) }

    static func checkValues(at pointer: UnsafeRawPointer) -> WireError? {
        for value in pointer.assumingMemoryBound(to: Dictionary.self).pointee.values {
            guard let message = value as? any Message else { return nil }
            do throws(WireError) { try message.checkInitialized() } catch { return error }
        }
        return nil
    }
}

extension MapField: TableMapEntries {
    typealias Key = K
    typealias Value = V

    static func readEntry(
        into pointer: UnsafeMutableRawPointer, unknownFields: UnsafeMutablePointer<UnknownFields>,
        from reader: inout ProtoReader
    ) throws(WireError) {
        try reader.readMapEntry(into: &pointer.assumingMemoryBound(to: Dictionary.self).pointee, K.self, V.self)
    }
}

extension ClosedEnumMapField: TableMapEntries {
    typealias Key = K
    typealias Value = ProtoClosedEnum<E>

    static func readEntry(
        into pointer: UnsafeMutableRawPointer, unknownFields: UnsafeMutablePointer<UnknownFields>,
        from reader: inout ProtoReader
    ) throws(WireError) {
        try reader.readMapEntry(
            into: &pointer.assumingMemoryBound(to: Dictionary.self).pointee, K.self, ProtoClosedEnum<E>.self,
            unknownFields: &unknownFields.pointee
        )
    }
}
