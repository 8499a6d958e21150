/// A message that carries a table of its stored fields (`FieldTable`): every generated
/// message, in both modes. The table gives the message its `==`, `hash(into:)` and text-format
/// names through one generic walk in the runtime (`TableEquality`), where the compiler would
/// otherwise synthesize a comparison and a hash of every stored property for each message,
/// which is a large part of compiling a generated file.
public protocol FieldTableMessage: Message {
    /// The message's fields in number order, and where the struct stores them.
    @_documentation(visibility: internal)
    static var fieldTable: FieldTable { get }

    /// Whether the properties of the custom fields (oneofs, groups) equal `other`'s.
    @_documentation(visibility: internal)
    func customFieldsEqual(_ other: Self) -> Bool

    /// Feeds the properties of the custom fields into `hasher`.
    @_documentation(visibility: internal)
    func hashCustomFields(into hasher: inout Hasher)
}

extension FieldTableMessage {
    /// The table's text-format names and kinds: a message lists its fields once.
    public static var textFormatFields: [TextFormatField] { fieldTable.textFormatFields }

    /// The field names the message reserves, from its table.
    public static var textFormatReservedNames: [String] { fieldTable.reservedNames }

    /// Whether the table's `required` fields are set, and the messages in its `checked` fields
    /// initialized. The generated `checkInitialized` of a message that can hold required fields
    /// calls it (and then checks its oneof members and groups, which the table leaves to
    /// generated code); any other message keeps `Message`'s, which does nothing, so encoding it
    /// reads no table to learn that.
    @_documentation(visibility: internal)
    public func checkTableFields() throws(WireError) {
        let table = Self.fieldTable
        let error = withUnsafePointer(to: self) {
            TableCodec.checkFields(table, UnsafeRawPointer($0), message: Self.protoMessageName)
        }
        if let error { throw error }
    }
}

/// A message generated for `option optimize_for = CODE_SIZE;` (or with
/// `--swiftframe_opt=OptimizeFor=CODE_SIZE`). Instead of straight-line decode, size and encode
/// code of its own, such a message reads and writes its fields through its table, with one
/// codec in the runtime shared by every such message (`TableCodec`). The struct, its
/// properties, initializers and conformances are those of the default mode (`SPEED`), so a
/// file can switch modes without a change to the code that uses it.
public protocol CompactMessage: FieldTableMessage {
    /// Oneof members and groups, which the table leaves to generated code: reads the
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

    // Inlinable, so that each message's witness takes its own address without a call to the
    // unspecialised `withUnsafePointer`.
    @inlinable
    public func computeSize(into cache: inout SizeCache) -> Int {
        withUnsafePointer(to: self) { TableCodec.size(ofFields: $0, cache: &cache) }
    }

    @inlinable
    public func encodeMessage(to writer: inout ProtoWriter) {
        withUnsafePointer(to: self) { TableCodec.encode(fields: $0, to: &writer) }
    }
}

/// What a field holds, for the table codec: a scalar type, an enum or message type, a map's
/// key and value codecs, or `custom` for what generated code reads and writes (oneof members,
/// groups).
enum FieldKind: Sendable {
    case int32, int64, uint32, uint64, sint32, sint64
    case fixed32, fixed64, sfixed32, sfixed64, float, double, bool, string, bytes
    case enumeration(any Enum.Type)
    case closedEnumeration(any ClosedEnum.Type)
    case message(any Message.Type)
    case map(KeptMapFieldCodec)
    case custom
}

/// How the struct stores a field: the value itself (proto3 implicit presence), an optional
/// (explicit presence; a singular message is a `Boxed` optional), or an array, written unpacked
/// or packed.
enum FieldStorage: Sendable {
    case implicit, optional, repeated, packed
}

/// One field of a `FieldTable`, as the table codec reads it.
struct FieldEntry: Sendable {
    let number: Int32
    let kind: FieldKind
    /// `kind`'s case alone, which the table codec switches on (see `FieldKind.Case`).
    let kindCase: FieldKind.Case
    let storage: FieldStorage
    /// Where the stored property starts in the struct.
    let offset: Int
    /// The tag of one value (wire type of the kind), and its encoded size.
    let tag: UInt32
    let tagSize: Int
    /// A proto2 `required` field (stored as an optional), which must be set.
    let isRequired: Bool
    /// A message or map field whose messages can hold required fields, so are checked too.
    let checksValues: Bool

    init(
        number: Int32, kind: FieldKind, storage: FieldStorage, offset: Int, isRequired: Bool = false,
        checksValues: Bool = false
    ) {
        self.number = number
        self.kind = kind
        self.kindCase = kind.case
        self.storage = storage
        self.offset = offset
        self.isRequired = isRequired
        self.checksValues = checksValues
        self.tag = Wire.tag(fieldNumber: Int(number), wireType: storage == .packed ? .lengthDelimited : kind.wireType)
        self.tagSize = Wire.varintSize(tag)
    }
}

extension FieldKind {
    /// The case without its type, one byte. A switch on `FieldKind` itself finds the case in two
    /// steps (the cases that carry a type apart from the others, then which), where a switch on
    /// this byte takes one.
    enum Case: UInt8 {
        case int32, int64, uint32, uint64, sint32, sint64
        case fixed32, fixed64, sfixed32, sfixed64, float, double, bool, string, bytes
        case typed, custom
    }

    var `case`: Case {
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
        case .enumeration, .closedEnumeration, .message, .map: return .typed
        case .custom: return .custom
        }
    }

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
        case let .map(kept): return kept.entries.textFormatKind
        case .custom: return nil
        }
    }

    /// The wire type of one value.
    var wireType: WireType {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration, .closedEnumeration: return .varint
        case .fixed32, .sfixed32, .float: return .fixed32
        case .fixed64, .sfixed64, .double: return .fixed64
        case .string, .bytes, .message, .map, .custom: return .lengthDelimited
        }
    }
}

extension FieldEntry {
    /// The text-format label of a table field stored this way: a map is repeated, and an
    /// optional (a `required` field too) has presence.
    static func label(_ kind: FieldKind, _ storage: FieldStorage) -> TextFormatField.Label {
        if case .map = kind { return .repeated }
        switch storage {
        case .implicit: return .implicit
        case .optional: return .optional
        case .repeated, .packed: return .repeated
        }
    }
}

/// The fields of a `FieldTableMessage` in number order, where its struct stores them, and where it
/// keeps its unknown fields. Made once per message type, as a `static let`.
///
/// The table is one pointer to memory allocated once and never freed (a table lives as long as
/// the program). Every encode and decode of a compact message reads the table's lists, which
/// are plain buffers: with arrays, or as a class, each read would retain and release them,
/// atomically. Only the text-format list, which the codec never reads, is an array.
@_documentation(visibility: internal)
public struct FieldTable: @unchecked Sendable {  // the parts are written in `init` only, never changed or freed
    /// The table is one pointer, so that the generated `static let`, its getter and its
    /// protocol witness each copy one word (the parts take 112 bytes).
    private let parts: UnsafePointer<Parts>

    private struct Parts {
        let fields: UnsafeBufferPointer<FieldEntry>
        let unknownFieldsOffset: Int
        let extensionFieldsOffset: Int?
        let extensionRanges: UnsafeBufferPointer<ClosedRange<Int>>
        let stringExtensions: UnsafeBufferPointer<Int32>
        let slots: UnsafeBufferPointer<UInt16>
        /// An array, so that `textFormatFields` hands it out without a copy; the codec's
        /// reads never touch it.
        let textFormatFields: [TextFormatField]
        let reservedNames: [String]
        /// The type of each stored property the layout describes, in its order.
        let storedTypes: [Any.Type]
    }

    var fields: UnsafeBufferPointer<FieldEntry> { parts.pointee.fields }
    var unknownFieldsOffset: Int { parts.pointee.unknownFieldsOffset }
    /// An extensible message's `extensionFields`, and its extension ranges in order.
    var extensionFieldsOffset: Int? { parts.pointee.extensionFieldsOffset }
    var extensionRanges: UnsafeBufferPointer<ClosedRange<Int>> { parts.pointee.extensionRanges }
    /// The numbers of the string extensions the generator knew of: checked for UTF-8 as they
    /// are read.
    var stringExtensions: UnsafeBufferPointer<Int32> { parts.pointee.stringExtensions }
    /// Field number → index + 1 into `fields` for numbers below its count (0: no such field);
    /// larger numbers are found by binary search.
    var slots: UnsafeBufferPointer<UInt16> { parts.pointee.slots }
    /// The fields' text-format names, kinds, labels and JSON names (`FieldTableMessage.textFormatFields`).
    var textFormatFields: [TextFormatField] { parts.pointee.textFormatFields }
    /// The field names the message reserves (`FieldTableMessage.textFormatReservedNames`).
    var reservedNames: [String] { parts.pointee.reservedNames }
    /// The type of each stored property, in declaration order, as the layout describes it.
    var storedTypes: [Any.Type] { parts.pointee.storedTypes }

    /// A field the table leaves to generated code (a oneof member, a group): its number,
    /// the name and kind the text format reads and prints it with (none when the message
    /// prints its fields by number), and its label.
    public struct CustomField {
        @usableFromInline let number: Int32
        @usableFromInline let name: String?
        @usableFromInline let textFormat: TextFormatKind?
        @usableFromInline let label: TextFormatField.Label

        @inlinable
        public init(
            _ number: Int32, _ name: String? = nil, _ textFormat: TextFormatKind? = nil,
            _ label: TextFormatField.Label = .implicit
        ) {
            (self.number, self.name, self.textFormat, self.label) = (number, name, textFormat, label)
        }
    }

    /// The table of `Root`'s fields, from a description of its stored properties: `layout` has
    /// one line per property, in the order the struct declares them:
    ///
    ///     1 int32 id                   a field: number, storage, kind, text-format name
    ///     2 optional message child     (storage: optional, repeated, packed or required; none:
    ///                                  implicit; `checked` before the kind: a message or map
    ///                                  field whose messages can hold required fields)
    ///     3 map scores                 a map
    ///     custom choice                a property generated code reads and writes
    ///     unknown                      `unknownFields`
    ///     extensions                   `extensionFields`
    ///
    /// `enum`, `closed_enum` and `message` fields and `custom` properties take their Swift type
    /// from `types`, in order, and `map` fields their codec from `maps` (`.map(K.self, V.self)`,
    /// see ``MapFieldCodec``); `custom` lists the fields of the custom properties (oneof
    /// members, groups). The name is left out when the message prints its fields by number.
    /// `jsonNames` holds the JSON name of each field, by number, whose `json_name` is not the one
    /// protoc derives from its proto name. `reservedNames` lists the field names the message
    /// reserves (the text format skips them). `stringExtensions` lists the numbers of the string
    /// extensions of the message declared in the files generated with it: their values are
    /// checked for UTF-8 as the message is decoded, as a string field's are.
    ///
    /// `offsets` gives each line's property its offset in `Root`, in the same order, as the
    /// compiler reports it: the generated table writes `Swift.MemoryLayout<Self>.offset(of: \.name)!`
    /// for each, which an optimized build folds to a constant. The table never works a layout
    /// out for itself, since Swift does not promise one. Each property's type, as its line
    /// implies it, must fit at its offset inside `Root`, aligned, overlapping no other; a table
    /// that breaks this, or has a type, map or offset left over, traps when it is made, naming
    /// the message. (That each line's type is its property's own is checked by the tests,
    /// against the declared types of every generated message: `storedTypes`.)
    ///
    /// A string costs no code per field, where a list of rows with key paths would cost code
    /// for each. The defaults are `.init()` rather than `[]` and `[:]`: a literal's code would
    /// be copied into every message's table initializer.
    public init<Root>(
        of root: Root.Type, layout: String, offsets: [Int], types: [Any.Type] = .init(),
        maps: [MapFieldCodec] = .init(),
        custom: [CustomField] = .init(), jsonNames: [Int32: String] = .init(), reservedNames: [String] = .init(),
        extensionRanges: [ClosedRange<Int>] = .init(), stringExtensions: [Int32] = .init()
    ) {
        var parser = LayoutParser(message: Root.self, types: types, maps: maps, offsets: offsets)
        for line in layout.split(separator: "\n") {
            parser.parse(line.split(separator: " "))
        }
        parser.add(custom)
        precondition(parser.nextType == types.count, "\(Root.self): \(types.count - parser.nextType) types left over")
        precondition(parser.nextMap == maps.count, "\(Root.self): \(maps.count - parser.nextMap) maps left over")
        precondition(
            parser.nextOffset == offsets.count, "\(Root.self): \(offsets.count - parser.nextOffset) offsets left over")
        guard let unknownFieldsOffset = parser.unknownFieldsOffset else {
            preconditionFailure("\(Root.self): no unknown fields in the layout")
        }
        precondition(
            extensionRanges.isEmpty == (parser.extensionFieldsOffset == nil),
            "\(Root.self): extension ranges without extension fields")
        precondition(
            stringExtensions.allSatisfy { number in extensionRanges.contains { $0.contains(Int(number)) } },
            "\(Root.self): a string extension outside the extension ranges")
        let fields = parser.fields.sorted { $0.number < $1.number }
        precondition(
            zip(fields, fields.dropFirst()).allSatisfy { $0.number < $1.number }, "\(Root.self): a field number twice")
        precondition(
            jsonNames.keys.allSatisfy { number in fields.contains { $0.number == number } },
            "\(Root.self): a JSON name for a field the table does not have")
        func permanent<T>(_ values: [T]) -> UnsafeBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values)
            return UnsafeBufferPointer(buffer)
        }
        let direct = min(Int(fields.last?.number ?? 0) + 1, 256)
        var slots = [UInt16](repeating: 0, count: direct)
        for (index, field) in fields.enumerated() where Int(field.number) < direct {
            slots[Int(field.number)] = UInt16(index + 1)
        }
        let parts = UnsafeMutablePointer<Parts>.allocate(capacity: 1)
        parts.initialize(
            to: Parts(
                fields: permanent(fields), unknownFieldsOffset: unknownFieldsOffset,
                extensionFieldsOffset: parser.extensionFieldsOffset, extensionRanges: permanent(extensionRanges),
                stringExtensions: permanent(stringExtensions),
                slots: permanent(slots), textFormatFields: parser.textFormatFields(jsonNames: jsonNames),
                reservedNames: reservedNames,
                storedTypes: parser.stored.map(\.type)
            ))
        self.parts = UnsafePointer(parts)
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
