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

    /// Whether the properties of the custom fields (oneofs, maps, groups) equal `other`'s.
    @_documentation(visibility: internal)
    func customFieldsEqual(_ other: Self) -> Bool

    /// Feeds the properties of the custom fields into `hasher`.
    @_documentation(visibility: internal)
    func hashCustomFields(into hasher: inout Hasher)
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

    /// The table's text-format names and kinds: a compact message lists its fields once.
    public static var textFormatFields: [TextFormatField] { Array(fieldTable.textFormatFields) }
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
}

extension FieldKind {
    /// How the text format reads and prints a value of this kind; nil for a custom field, whose
    /// row gives its text-format kind.
    var textFormatKind: TextFormatKind? {
        switch self {
        case .int32: return .int32
        case .int64: return .int64
        case .uint32: return .uint32
        case .uint64: return .uint64
        case .sint32: return .sint32
        case .sint64: return .sint64
        case .fixed32: return .fixed32
        case .fixed64: return .fixed64
        case .sfixed32: return .sfixed32
        case .sfixed64: return .sfixed64
        case .float: return .float
        case .double: return .double
        case .bool: return .bool
        case .string: return .string
        case .bytes: return .bytes
        case let .enumeration(type): return .enumeration(type.protoNames)
        case let .closedEnumeration(type): return .closedEnumeration(type.protoNames)
        case let .message(type): return .message(type)
        case .custom: return nil
        }
    }

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
    /// The fields' text-format names and kinds (`CompactMessage.textFormatFields`).
    let textFormatFields: UnsafeBufferPointer<TextFormatField>

    /// One field as generated code lists it: number, kind, storage, and the stored property.
    /// (A key path the table turns into an offset when it is made: listed as `AnyKeyPath`, and
    /// with the row built in place (`@inlinable`), a row takes a few stores of code; a generic
    /// row would look up the property's type for each field.)
    public struct Row {
        @usableFromInline let number: Int32
        @usableFromInline let kind: FieldKind
        @usableFromInline let storage: FieldStorage
        @usableFromInline let place: Place

        /// Where a field is kept: a stored property the codec reaches by offset, or in generated
        /// code (with how the text format reads and prints it, unless the message prints by number).
        @usableFromInline
        enum Place {
            case stored(AnyKeyPath)
            case custom(TextFormatKind?)
        }

        @inlinable
        public init(_ number: Int32, _ kind: FieldKind, _ storage: FieldStorage, _ path: AnyKeyPath) {
            (self.number, self.kind, self.storage, self.place) = (number, kind, storage, .stored(path))
        }

        /// A field that generated code reads and writes (`CompactMessage.decodeCustomField`),
        /// read and printed in the text format as `textFormat`.
        @inlinable
        public init(custom number: Int32, _ textFormat: TextFormatKind? = nil) {
            (self.number, self.kind, self.storage, self.place) = (number, .custom, .implicit, .custom(textFormat))
        }

        /// How the text format reads and prints the field, if the row says.
        var textFormatKind: TextFormatKind? {
            switch place {
            case .stored: return kind.textFormatKind
            case let .custom(kind): return kind
            }
        }
    }

    /// The table of `Root`'s fields. Each row's key path must name a stored property of `Root`
    /// of the type that the row's kind and storage call for: checked here, so that a mismatch
    /// traps when the table is made, naming the field, instead of the codec writing a value of
    /// the wrong type. `names` are the fields' text-format names, in the rows' order, separated
    /// by spaces (one string: a list would take code per name); nil for a message that prints
    /// its fields by number.
    public init<Root>(
        unknownFields path: KeyPath<Root, UnknownFields>,
        extensionFields extensionPath: KeyPath<Root, UnknownFields>? = nil, extensionRanges: [ClosedRange<Int>] = [],
        names: String? = nil, _ rows: [Row]
    ) {
        let fields = rows.map { row -> FieldEntry in
            guard case let .stored(path) = row.place else { return FieldEntry(number: row.number, kind: .custom, storage: .implicit, offset: 0) }
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
        self.textFormatFields = permanent(Self.textFormatFields(rows, names: names, of: Root.self))
    }

    /// Each row's name and text-format kind.
    private static func textFormatFields(_ rows: [Row], names: String?, of root: Any.Type) -> [TextFormatField] {
        guard let names else { return [] }
        let split = names.split(separator: " ")
        precondition(split.count == rows.count, "\(root): \(split.count) names for \(rows.count) fields")
        return zip(rows, split).map { row, name in
            guard let kind = row.textFormatKind else { preconditionFailure("\(root): field \(row.number) has a name but no text-format kind") }
            return TextFormatField(row.number, String(name), kind)
        }
    }

    /// The unknown fields of the message at `message`.
    func unknownFields(in message: UnsafeRawPointer) -> UnsafePointer<UnknownFields> {
        (message + unknownFieldsOffset).assumingMemoryBound(to: UnknownFields.self)
    }

    /// The extension fields of the message at `message`, if it is extensible.
    func extensionFields(in message: UnsafeRawPointer) -> UnsafePointer<UnknownFields>? {
        extensionFieldsOffset.map { (message + $0).assumingMemoryBound(to: UnknownFields.self) }
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

