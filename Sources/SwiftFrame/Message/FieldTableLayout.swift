/// Reads the layout description of a `FieldTable` (see its initializer), line by line: places
/// each stored property after the previous one, as Swift lays out a struct, and collects the
/// table's fields and their text-format names. A line it cannot read is a mistake in generated
/// code, so it traps, naming the message and the line.
struct LayoutParser {
    let message: Any.Type
    let types: [Any.Type]
    let maps: [MapFieldCodec]
    /// The next of `types` and of `maps` to take.
    private(set) var nextType = 0
    private(set) var nextMap = 0
    /// Where the last property placed ends, and the largest alignment so far: the struct's
    /// size and alignment once every property is placed.
    private(set) var end = 0
    private(set) var alignment = 1
    private(set) var fields: [FieldEntry] = []
    private(set) var unknownFieldsOffset: Int?
    private(set) var extensionFieldsOffset: Int?
    /// Each field's number, its text-format name and kind when the layout names it, and its label.
    private var names: [(number: Int32, name: Substring?, kind: TextFormatKind?, label: TextFormatField.Label)] = []

    init(message: Any.Type, types: [Any.Type], maps: [MapFieldCodec]) {
        self.message = message
        self.types = types
        self.maps = maps
    }

    mutating func parse(_ words: [Substring]) {
        guard let first = words.first else { return }
        switch first {
        case "unknown": unknownFieldsOffset = place(UnknownFields.self)
        case "extensions": extensionFieldsOffset = place(UnknownFields.self)
        case "custom": _ = place(takeType(for: words))
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
            var measure = Measure()
            _ = FieldEntry.visitStoredType(kind, storage, &measure)
            let offset = place(size: measure.size, alignment: measure.alignment)
            fields.append(FieldEntry(
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

    private mutating func place(_ type: Any.Type) -> Int {
        func measure<T>(_: T.Type) -> (Int, Int) { (MemoryLayout<T>.size, MemoryLayout<T>.alignment) }
        let (size, alignment) = measure(type)
        return place(size: size, alignment: alignment)
    }

    /// The offset of a property of `size` bytes placed after the last one.
    private mutating func place(size: Int, alignment: Int) -> Int {
        let offset = (end + alignment - 1) / alignment * alignment
        end = offset + size
        self.alignment = max(self.alignment, alignment)
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

    /// The size and alignment of a field's stored property.
    private struct Measure: StoredPropertyVisitor {
        var size = 0, alignment = 1
        mutating func visit<V: Hashable & Sendable>(_: V.Type) {
            (size, alignment) = (MemoryLayout<V>.size, MemoryLayout<V>.alignment)
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
