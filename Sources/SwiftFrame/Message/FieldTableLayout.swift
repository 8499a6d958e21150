/// Reads the layout description of a `FieldTable` (see its initializer), line by line: gives
/// each stored property the offset the compiler reported for it (`MemoryLayout.offset(of:)` in
/// the generated table), checks that the property's type fits there, and collects the table's
/// fields and their text-format names. A line it cannot read, or an offset that cannot hold
/// its property, is a mistake in generated code, so it traps, naming the message and the line.
struct LayoutParser {
    let message: Any.Type
    let types: [Any.Type]
    let maps: [MapFieldCodec]
    let offsets: [Int]
    /// `message`'s size and alignment.
    let size: Int
    let alignment: Int
    /// The next of `types`, `maps` and `offsets` to take.
    private(set) var nextType = 0
    private(set) var nextMap = 0
    private(set) var nextOffset = 0
    /// The bytes each property takes, and its type, in layout order.
    private(set) var stored: [(range: Range<Int>, type: Any.Type)] = []
    private(set) var fields: [FieldEntry] = []
    private(set) var unknownFieldsOffset: Int?
    private(set) var extensionFieldsOffset: Int?
    /// Each field's number, its text-format name and kind when the layout names it, and its label.
    private var names: [(number: Int32, name: Substring?, kind: TextFormatKind?, label: TextFormatField.Label)] = []

    init<Root>(message: Root.Type, types: [Any.Type], maps: [MapFieldCodec], offsets: [Int]) {
        self.message = message
        self.types = types
        self.maps = maps
        self.offsets = offsets
        (size, alignment) = (MemoryLayout<Root>.size, MemoryLayout<Root>.alignment)
    }

    mutating func parse(_ words: [Substring]) {
        guard let first = words.first else { return }
        switch first {
        case "unknown": unknownFieldsOffset = place(UnknownFields.self, line: words)
        case "extensions": extensionFieldsOffset = place(UnknownFields.self, line: words)
        case "custom": _ = place(takeType(for: words), line: words)
        default:
            var rest = words.dropFirst()
            var storage = FieldStorage.implicit
            var isRequired = false, checksValues = false
            while let word = rest.first {
                if let stated = FieldStorage(word) {
                    storage = stated
                } else if word == "required" {
                    (storage, isRequired) = (.optional, true)
                } else if word == "checked" {
                    checksValues = true
                } else {
                    break
                }
                rest = rest.dropFirst()
            }
            guard let number = Int32(first), let word = rest.popFirst(), let kind = kind(word, line: words) else {
                fail(words, "is not a field")
            }
            var property = StoredType()
            _ = FieldEntry.visitStoredType(kind, storage, &property)
            let offset = place(property.type, line: words)
            fields.append(
                FieldEntry(
                    number: number, kind: kind, storage: storage, offset: offset,
                    isRequired: isRequired, checksValues: checksValues
                ))
            names.append((number, rest.first, kind.textFormatKind, FieldEntry.label(kind, storage)))
        }
    }

    /// Adds the fields of the custom properties.
    mutating func add(_ custom: [FieldTable.CustomField]) {
        for field in custom {
            fields.append(FieldEntry(number: field.number, kind: .custom, storage: .implicit, offset: 0))
            names.append((field.number, field.name.map { Substring($0) }, field.textFormat, field.label))
        }
    }

    /// The fields' text-format names, kinds and labels in number order, with the JSON names
    /// the table gives; none when the message prints its fields by number (the layout names
    /// no field).
    func textFormatFields(jsonNames: [Int32: String]) -> [TextFormatField] {
        if names.allSatisfy({ $0.name == nil }) { return [] }
        return names.sorted { $0.number < $1.number }.map { entry in
            guard let name = entry.name, let kind = entry.kind else {
                preconditionFailure("\(message): field \(entry.number) has no text-format name or kind")
            }
            return TextFormatField(entry.number, String(name), kind, entry.label, json: jsonNames[entry.number])
        }
    }

    /// The offset of the next property, of `type`: the next of `offsets`, where a value of
    /// `type` must fit inside the struct, aligned, overlapping no property placed before.
    private mutating func place(_ type: Any.Type, line: [Substring]) -> Int {
        func measure<T>(_: T.Type) -> (Int, Int) { (MemoryLayout<T>.size, MemoryLayout<T>.alignment) }
        let (size, alignment) = measure(type)
        guard nextOffset < offsets.count else { fail(line, "has no offset left in the list") }
        let offset = offsets[nextOffset]
        nextOffset += 1
        let range = offset..<(offset + size)
        guard offset >= 0, range.upperBound <= self.size, offset % alignment == 0, alignment <= self.alignment else {
            fail(
                line,
                "cannot hold a \(type) at offset \(offset) of a struct of \(self.size) bytes aligned to \(self.alignment)"
            )
        }
        if let other = stored.first(where: { $0.range.overlaps(range) }) {
            fail(line, "puts a \(type) at \(range), over the \(other.type) at \(other.range)")
        }
        stored.append((range, type))
        return offset
    }

    private mutating func takeType(for line: [Substring]) -> Any.Type {
        guard nextType < types.count else { fail(line, "has no type left in the list") }
        defer { nextType += 1 }
        return types[nextType]
    }

    private mutating func kind(_ word: Substring, line: [Substring]) -> FieldKind? {
        switch word {
        case "int32": return .int32
        case "int64": return .int64
        case "uint32": return .uint32
        case "uint64": return .uint64
        case "sint32": return .sint32
        case "sint64": return .sint64
        case "fixed32": return .fixed32
        case "fixed64": return .fixed64
        case "sfixed32": return .sfixed32
        case "sfixed64": return .sfixed64
        case "float": return .float
        case "double": return .double
        case "bool": return .bool
        case "string": return .string
        case "bytes": return .bytes
        case "enum":
            guard let type = takeType(for: line) as? any Enum.Type else { fail(line, "needs an enum type") }
            return .enumeration(type)
        case "closed_enum":
            guard let type = takeType(for: line) as? any ClosedEnum.Type else { fail(line, "needs a closed enum type") }
            return .closedEnumeration(type)
        case "message":
            guard let type = takeType(for: line) as? any Message.Type else { fail(line, "needs a message type") }
            return .message(type)
        case "map":
            guard nextMap < maps.count else { fail(line, "has no map left in the list") }
            defer { nextMap += 1 }
            return .map(KeptMapFieldCodec(maps[nextMap]))
        default: return nil
        }
    }

    private func fail(_ line: [Substring], _ problem: String) -> Never {
        preconditionFailure("\(message): layout line '\(line.joined(separator: " "))' \(problem)")
    }

    /// The type of a field's stored property.
    private struct StoredType: StoredPropertyVisitor {
        var type: Any.Type = Void.self
        mutating func visit<V: Hashable & Sendable>(_: V.Type) {
            type = V.self
        }
    }
}

extension FieldStorage {
    /// The storage a layout line states: `optional`, `repeated` or `packed`.
    init?(_ word: Substring) {
        switch word {
        case "optional": self = .optional
        case "repeated": self = .repeated
        case "packed": self = .packed
        default: return nil
        }
    }
}
