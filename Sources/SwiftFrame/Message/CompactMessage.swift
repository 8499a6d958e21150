/// A message generated for `option optimize_for = CODE_SIZE;` (or with
/// `--swiftframe_opt=OptimizeFor=CODE_SIZE`). Instead of straight-line decode, size and encode
/// code of its own, such a message carries a table of its fields, and one codec in the runtime,
/// shared by every such message, reads and writes them (`TableCodec`). The struct, its
/// properties, initializers and conformances are those of the default mode (`SPEED`), so a
/// file can switch modes without a change to the code that uses it.
public protocol CompactMessage: Message {
    /// The message's fields in number order, and where the struct stores them.
    @_documentation(visibility: internal)
    static var fieldTable: FieldTable { get }

    /// Oneof members, maps and groups, which the table leaves to generated code: reads the
    /// field whose tag was just read; false when the tag's wire type is not the field's.
    @_documentation(visibility: internal)
    mutating func decodeCustomField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) -> Bool

    /// The encoded size of the table's custom field `number`, with its tag.
    @_documentation(visibility: internal)
    func customFieldSize(number: Int32, cache: inout SizeCache) -> Int

    /// Writes the table's custom field `number`, if it is set.
    @_documentation(visibility: internal)
    func encodeCustomField(number: Int32, to writer: inout ProtoWriter)
}

extension CompactMessage {
    public mutating func decodeCustomField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) -> Bool {
        false
    }

    public func customFieldSize(number: Int32, cache: inout SizeCache) -> Int { 0 }

    public func encodeCustomField(number: Int32, to writer: inout ProtoWriter) {}

    public mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        try TableCodec.decode(&self, from: &reader)
    }

    public func computeSize(into cache: inout SizeCache) -> Int {
        TableCodec.size(of: self, cache: &cache)
    }

    public func encodeMessage(to writer: inout ProtoWriter) {
        TableCodec.encode(self, to: &writer)
    }
}

/// What a field holds, for the table codec: a scalar type, an enum or message type, or
/// `custom` for what generated code reads and writes (oneof members, maps, groups).
@_documentation(visibility: internal)
public enum FieldKind: Sendable {
    case int32, int64, uint32, uint64, sint32, sint64
    case fixed32, fixed64, sfixed32, sfixed64, float, double, bool, string, bytes
    case enumeration(any Enum.Type)
    case closedEnumeration(any ClosedEnum.Type)
    case message(any Message.Type)
    case custom
}

/// How the struct stores a field: the value itself (proto3 implicit presence), an optional
/// (explicit presence; a singular message is a `Boxed` optional), or an array, written unpacked
/// or packed.
@_documentation(visibility: internal)
public enum FieldStorage: Sendable {
    case implicit, optional, repeated, packed
}

/// One field of a `FieldTable`, as the table codec reads it.
struct FieldEntry: Sendable {
    let number: Int32
    let kind: FieldKind
    let storage: FieldStorage
    /// Where the stored property starts in the struct.
    let offset: Int
    /// The tag of one value (wire type of the kind), and its encoded size.
    let tag: UInt32
    let tagSize: Int

    init(number: Int32, kind: FieldKind, storage: FieldStorage, offset: Int) {
        self.number = number
        self.kind = kind
        self.storage = storage
        self.offset = offset
        self.tag = Wire.tag(fieldNumber: Int(number), wireType: storage == .packed ? .lengthDelimited : kind.wireType)
        self.tagSize = Wire.varintSize(tag)
    }

    /// The Swift type of the stored property for a field of `kind` kept as `storage`.
    static func storedType(_ kind: FieldKind, _ storage: FieldStorage) -> Any.Type? {
        func shaped<V>(_: V.Type) -> Any.Type {
            switch storage {
            case .implicit: return V.self
            case .optional: return V?.self
            case .repeated, .packed: return [V].self
            }
        }
        func boxed<M: Message>(_: M.Type) -> Any.Type {
            storage == .optional ? Boxed<M>?.self : shaped(M.self)
        }
        switch kind {
        case .int32, .sint32, .sfixed32: return shaped(Int32.self)
        case .int64, .sint64, .sfixed64: return shaped(Int64.self)
        case .uint32, .fixed32: return shaped(UInt32.self)
        case .uint64, .fixed64: return shaped(UInt64.self)
        case .float: return shaped(Float.self)
        case .double: return shaped(Double.self)
        case .bool: return shaped(Bool.self)
        case .string: return shaped(String.self)
        case .bytes: return shaped([UInt8].self)
        case let .enumeration(type): return shaped(type)
        case let .closedEnumeration(type): return shaped(type)
        case let .message(type): return boxed(type)
        case .custom: return nil
        }
    }
}

extension FieldKind {
    /// The wire type of one value.
    var wireType: WireType {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration, .closedEnumeration: return .varint
        case .fixed32, .sfixed32, .float: return .fixed32
        case .fixed64, .sfixed64, .double: return .fixed64
        case .string, .bytes, .message, .custom: return .lengthDelimited
        }
    }
}

/// The fields of a `CompactMessage` in number order, where its struct stores them, and where it
/// keeps its unknown fields. Made once per message type, as a `static let`.
///
/// The table is a plain value that holds no references: its lists live in memory allocated once
/// and never freed (a table lives as long as the program). Every encode and decode reads the
/// table; with arrays, or as a class, each read would retain and release them, atomically.
@_documentation(visibility: internal)
public struct FieldTable: @unchecked Sendable {  // the buffers are written in `init` only, never changed or freed
    let fields: UnsafeBufferPointer<FieldEntry>
    let unknownFieldsOffset: Int
    /// An extensible message's `extensionFields`, and its extension ranges in order.
    let extensionFieldsOffset: Int?
    let extensionRanges: UnsafeBufferPointer<ClosedRange<Int>>
    /// Field number → index + 1 into `fields` for numbers below its count (0: no such field);
    /// larger numbers are found by binary search.
    let slots: UnsafeBufferPointer<UInt16>

    /// One field as generated code lists it: number, kind, storage, and the stored property.
    /// (A key path the table turns into an offset when it is made: listed as `AnyKeyPath`, a
    /// row takes a few bytes of code to build; a generic row would look up the property's type
    /// for each field.)
    public struct Row {
        let number: Int32
        let kind: FieldKind
        let storage: FieldStorage
        let path: AnyKeyPath?

        public init(_ number: Int32, _ kind: FieldKind, _ storage: FieldStorage, _ path: AnyKeyPath) {
            (self.number, self.kind, self.storage, self.path) = (number, kind, storage, path)
        }

        /// A field that generated code reads and writes (`CompactMessage.decodeCustomField`).
        public init(custom number: Int32) {
            (self.number, self.kind, self.storage, self.path) = (number, .custom, .implicit, nil)
        }
    }

    /// The table of `Root`'s fields. Each row's key path must name a stored property of `Root`
    /// of the type that the row's kind and storage call for: checked here, so that a mismatch
    /// traps when the table is made, naming the field, instead of the codec writing a value of
    /// the wrong type.
    public init<Root>(
        unknownFields path: KeyPath<Root, UnknownFields>,
        extensionFields extensionPath: KeyPath<Root, UnknownFields>? = nil, extensionRanges: [ClosedRange<Int>] = [],
        _ rows: [Row]
    ) {
        let fields = rows.map { row -> FieldEntry in
            guard let path = row.path else { return FieldEntry(number: row.number, kind: .custom, storage: .implicit, offset: 0) }
            guard let typed = path as? PartialKeyPath<Root>, let offset = MemoryLayout<Root>.offset(of: typed) else {
                preconditionFailure("\(Root.self): field \(row.number) is not a stored property of \(Root.self)")
            }
            if let expected = FieldEntry.storedType(row.kind, row.storage) {
                let stored = type(of: path).valueType
                precondition(expected == stored, "\(Root.self): field \(row.number) is stored as \(stored), not \(expected)")
            }
            return FieldEntry(number: row.number, kind: row.kind, storage: row.storage, offset: offset)
        }
        func offset(_ path: KeyPath<Root, UnknownFields>) -> Int {
            guard let offset = MemoryLayout<Root>.offset(of: path) else {
                preconditionFailure("\(Root.self): \(path) is not a stored property")
            }
            return offset
        }
        precondition(zip(fields, fields.dropFirst()).allSatisfy { $0.number < $1.number }, "\(Root.self): fields out of order")
        precondition(extensionRanges.isEmpty == (extensionPath == nil), "\(Root.self): extension ranges without extensionFields")
        func permanent<T>(_ values: [T]) -> UnsafeBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values)
            return UnsafeBufferPointer(buffer)
        }
        self.fields = permanent(fields)
        self.unknownFieldsOffset = offset(path)
        self.extensionFieldsOffset = extensionPath.map(offset)
        self.extensionRanges = permanent(extensionRanges)
        let direct = min(Int(fields.last?.number ?? 0) + 1, 256)
        var slots = [UInt16](repeating: 0, count: direct)
        for (index, field) in fields.enumerated() where Int(field.number) < direct {
            slots[Int(field.number)] = UInt16(index + 1)
        }
        self.slots = permanent(slots)
    }

    /// The address of the entry at `index`: the codec reads an entry in place, only what it
    /// needs of it, rather than copying all of it.
    @inline(__always)
    func entry(_ index: Int) -> UnsafePointer<FieldEntry> {
        fields.baseAddress.unsafelyUnwrapped + index
    }

    /// The index of field `number`, if the message has one.
    @inline(__always)
    func index(of number: UInt32) -> Int? {
        if number < UInt32(slots.count) {
            let slot = Int(slots[Int(number)])
            return slot == 0 ? nil : slot - 1
        }
        var low = 0, high = fields.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = UInt32(bitPattern: fields[middle].number)
            if candidate == number { return middle }
            if candidate < number { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}

