/// A map field of a compact message, as generated code lists it in its field table's `maps`:
/// `.map(SwiftFrame.ProtoString.self, SwiftFrame.ProtoInt32.self)`, or `.closedEnumMap(...)` for
/// a map whose values are a closed enum.
///
/// Sizing and writing the dictionary are closures made here, in inlinable code, so the module
/// that names the key and value codecs compiles them for those types: one copy per key and value
/// pair in the module, which the default mode's map code shares. The runtime's generic map code,
/// unspecialised, took twice the time (every entry copied through the type's value witnesses).
/// Reading an entry, `==`, hashing and the text format stay generic.
///
/// `@unchecked Sendable`: the two closures capture nothing but the key and value codecs' types
/// (constant type metadata), so calling them from any thread is safe. Declaring them
/// `@Sendable` would need the codecs' metatypes to be `SendableMetatype`, which Swift 6.1,
/// the package's oldest compiler, does not have.
public struct MapFieldCodec: @unchecked Sendable {
    let entries: any TableMapCodec.Type
    let size: (_ map: UnsafeRawPointer, _ tagSize: Int, _ cache: inout SizeCache) -> Int
    let write: (_ map: UnsafeRawPointer, _ tag: UInt32, _ writer: inout ProtoWriter) -> Void

    @usableFromInline
    init(
        entries: Any.Type,
        size: @escaping (UnsafeRawPointer, Int, inout SizeCache) -> Int,
        write: @escaping (UnsafeRawPointer, UInt32, inout ProtoWriter) -> Void
    ) {
        guard let entries = entries as? any TableMapCodec.Type else { preconditionFailure("\(entries) is not a map field") }
        (self.entries, self.size, self.write) = (entries, size, write)
    }

    /// A map from `K`'s values to `V`'s.
    @inlinable
    public static func map<K: MapKeyCodec, V: MapCodec>(_: K.Type, _: V.Type) -> MapFieldCodec
    where K.Value: Sendable, V.Value: Hashable & Sendable {
        codec(entries: MapField<K, V>.self, K.self, V.self)
    }

    /// A map whose values are the closed enum `E`: an entry whose number `E` does not declare is
    /// kept whole in the unknown fields, as protobuf's C++ runtime keeps it.
    @inlinable
    public static func closedEnumMap<K: MapKeyCodec, E: ClosedEnum>(_: K.Type, _: E.Type) -> MapFieldCodec
    where K.Value: Sendable {
        codec(entries: ClosedEnumMapField<K, E>.self, K.self, ProtoClosedEnum<E>.self)
    }

    @inlinable
    static func codec<K: MapKeyCodec, V: MapCodec>(entries: Any.Type, _: K.Type, _: V.Type) -> MapFieldCodec
    where V.Value: Hashable {
        MapFieldCodec(
            entries: entries,
            size: { pointer, tagSize, cache in
                let map = pointer.assumingMemoryBound(to: [K.Value: V.Value].self)
                return map.pointee.isEmpty ? 0 : cache.map(map.pointee, tagSize: tagSize, K.self, V.self)
            },
            write: { pointer, tag, writer in
                let map = pointer.assumingMemoryBound(to: [K.Value: V.Value].self)
                if !map.pointee.isEmpty { writer.writeMap(map.pointee, tag: tag, K.self, V.self) }
            }
        )
    }
}

/// Where a field table keeps a map field's codec: in memory allocated when the table is made and
/// kept for the program's life, like the table's other lists. A field's kind then holds one word
/// (the codec inline made every field's kind six words, and sizing and writing a message with no
/// map 40 % dearer), and reading it costs no reference counting.
///
/// `@unchecked Sendable`: the codec is written once, before the table is published, and only
/// read after.
struct KeptMapFieldCodec: @unchecked Sendable {
    let codec: UnsafePointer<MapFieldCodec>

    init(_ codec: MapFieldCodec) {
        let kept = UnsafeMutablePointer<MapFieldCodec>.allocate(capacity: 1)
        kept.initialize(to: codec)
        self.codec = UnsafePointer(kept)
    }

    var entries: any TableMapCodec.Type { codec.pointee.entries }
}

/// The entries of a map from `K`'s values to `V`'s, for what the table does with a map field
/// besides sizing and writing it.
@usableFromInline
enum MapField<K: MapKeyCodec, V: MapCodec> where K.Value: Sendable, V.Value: Hashable & Sendable {}

/// A map whose values are a closed enum `E`.
@usableFromInline
enum ClosedEnumMapField<K: MapKeyCodec, E: ClosedEnum> where K.Value: Sendable {}

/// What the table codec (reading), `==`, hashing, the initialization check and the text format
/// do with a map field's dictionary, which they reach by its address.
protocol TableMapCodec: Sendable {
    /// Reads one entry, whose tag was just read.
    static func readEntry(
        into pointer: UnsafeMutableRawPointer, unknownFields: UnsafeMutablePointer<UnknownFields>,
        from reader: inout ProtoReader
    ) throws(WireError)
    /// Calls `visitor` with the dictionary's type.
    static func visitStoredType(_ visitor: inout some StoredPropertyVisitor)
    /// The first error of the message values' `checkInitialized` (a `checked` map).
    static func checkValues(at pointer: UnsafeRawPointer) -> WireError?
    static var textFormatKind: TextFormatKind { get }
}

/// The stored type and what follows from it, shared by both kinds of map field: they differ only
/// in how an entry is read.
protocol TableMapEntries: TableMapCodec {
    associatedtype Key: MapKeyCodec where Key.Value: Sendable
    associatedtype Value: MapCodec where Value.Value: Hashable & Sendable
}

extension TableMapEntries {
    typealias Dictionary = [Key.Value: Value.Value]

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
