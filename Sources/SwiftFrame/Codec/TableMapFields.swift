/// A map field of a compact message, as generated code lists it in its field table's `maps`:
/// `.map(SwiftFrame.ProtoString.self, SwiftFrame.ProtoInt32.self)`, or `.closedEnumMap(...)` for
/// a map whose values are a closed enum.
///
/// Reading an entry, sizing the dictionary and writing it are closures made here, in inlinable
/// code, so the module that names the key and value codecs compiles them for those types: one
/// copy per key and value pair in the module, which the default mode's map code shares. The
/// runtime's generic map code, unspecialised, was much slower to encode and decode (every
/// entry copied through its types' value witnesses). `==`, hashing and
/// the text format stay generic.
///
/// `@unchecked Sendable`: the closures capture nothing but the key and value codecs' types
/// (constant type metadata), so calling them from any thread is safe. Declaring them
/// `@Sendable` would need the codecs' metatypes to be `SendableMetatype`, which Swift 6.1,
/// the package's oldest compiler, does not have.
public struct MapFieldCodec: @unchecked Sendable {
    let entries: any TableMapCodec.Type
    let read:
        (
            _ map: UnsafeMutableRawPointer, _ unknownFields: UnsafeMutablePointer<UnknownFields>,
            _ reader: inout ProtoReader
        ) throws(WireError) -> Void
    let size: (_ map: UnsafeRawPointer, _ tagSize: Int, _ cache: inout SizeCache) -> Int
    let write: (_ map: UnsafeRawPointer, _ tag: UInt32, _ writer: inout ProtoWriter) -> Void

    /// A map from `K`'s values to `V`'s.
    @inlinable
    public static func map<K: MapKeyCodec, V: MapCodec>(_: K.Type, _: V.Type) -> MapFieldCodec
    where K.Value: Sendable, V.Value: Hashable & Sendable {
        MapFieldCodec(K.self, V.self) { pointer, _, reader throws(WireError) in
            try reader.readMapEntry(
                into: &pointer.assumingMemoryBound(to: [K.Value: V.Value].self).pointee, K.self, V.self)
        }
    }

    /// A map whose values are the closed enum `E`: an entry whose number `E` does not declare is
    /// kept whole in the unknown fields, as protobuf's C++ runtime keeps it.
    @inlinable
    public static func closedEnumMap<K: MapKeyCodec, E: ClosedEnum>(_: K.Type, _: E.Type) -> MapFieldCodec
    where K.Value: Sendable {
        MapFieldCodec(K.self, ProtoClosedEnum<E>.self) { pointer, unknownFields, reader throws(WireError) in
            try reader.readMapEntry(
                into: &pointer.assumingMemoryBound(to: [K.Value: E].self).pointee, K.self, ProtoClosedEnum<E>.self,
                unknownFields: &unknownFields.pointee
            )
        }
    }

    @inlinable
    init<K: MapKeyCodec, V: MapCodec>(
        _: K.Type, _: V.Type,
        read:
            @escaping (UnsafeMutableRawPointer, UnsafeMutablePointer<UnknownFields>, inout ProtoReader)
            throws(WireError) -> Void
    ) where K.Value: Sendable, V.Value: Hashable & Sendable {
        self.init(
            K.self, V.self,
            read: read,
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

    /// Not inlinable: `entries`, what the rest of the runtime needs of the map's type, is
    /// internal to the runtime and stays unspecialised.
    @usableFromInline
    init<K: MapKeyCodec, V: MapCodec>(
        _: K.Type, _: V.Type,
        read:
            @escaping (UnsafeMutableRawPointer, UnsafeMutablePointer<UnknownFields>, inout ProtoReader)
            throws(WireError) -> Void,
        size: @escaping (UnsafeRawPointer, Int, inout SizeCache) -> Int,
        write: @escaping (UnsafeRawPointer, UInt32, inout ProtoWriter) -> Void
    ) where K.Value: Sendable, V.Value: Hashable & Sendable {
        (self.entries, self.read, self.size, self.write) = (MapField<K, V>.self, read, size, write)
    }
}

/// Where a field table keeps a map field's codec: in memory allocated when the table is made and
/// kept for the program's life, like the table's other lists. A field's kind then holds one word
/// (the closures inline made every field's kind several words larger, and sizing and writing
/// even a message with no map dearer), and reading it costs no reference counting.
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

/// What `==`, hashing, the initialization check and the text format do with a map field's
/// dictionary, which they reach by its address: generic code, compiled once in the runtime.
protocol TableMapCodec: Sendable {
    /// Calls `visitor` with the dictionary's type.
    static func visitStoredType(_ visitor: inout some StoredPropertyVisitor)
    /// The first error of the message values' `checkInitialized` (a `checked` map).
    static func checkValues(at pointer: UnsafeRawPointer) -> WireError?
    static var textFormatKind: TextFormatKind { get }
}

/// The map from `K`'s values to `V`'s, as the runtime's generic code sees it.
enum MapField<K: MapKeyCodec, V: MapCodec>: TableMapCodec where K.Value: Sendable, V.Value: Hashable & Sendable {
    typealias Dictionary = [K.Value: V.Value]

    static func visitStoredType(_ visitor: inout some StoredPropertyVisitor) {
        visitor.visit(Dictionary.self)
    }

    static var textFormatKind: TextFormatKind { .map(key: K.textFormatKind, value: V.textFormatKind) }

    static func checkValues(at pointer: UnsafeRawPointer) -> WireError? {
        for value in pointer.assumingMemoryBound(to: Dictionary.self).pointee.values {
            guard let message = value as? any Message else { return nil }
            do throws(WireError) { try message.checkInitialized() } catch { return error }
        }
        return nil
    }
}
