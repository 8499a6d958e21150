#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// What JSON needs to know about one field, read from its row in the message's
/// `textFormatFields`. A class: the printer and readers pass fields around per value, and a
/// reference costs one count where a copy of the struct cost one for each name and table.
final class JSONField: Sendable {
    let number: Int32
    let protoName: String
    let jsonName: String
    let kind: TextFormatKind
    /// A repeated field or a map.
    let isRepeated: Bool
    /// The field keeps a default value it was set to (proto2, `optional`, oneof members,
    /// messages): such a field is printed only when set, even with `emitDefaultValues`.
    let hasPresence: Bool
    /// The index of the oneof it is a member of, nil when it is in none.
    let oneof: Int?
    /// Of `kind`, kept so that reading each value does not copy the kind.
    let wireType: WireType
    let isClosedEnumeration: Bool
    /// The names as the printer writes them before a value: quoted, escaped, then `:`.
    let jsonMember: [UInt8]
    let protoMember: [UInt8]

    init(_ field: TextFormatField) {
        // A group's field is named as its type in lower case; the text format prints the type's name.
        var protoName = field.name
        if case .group = field.kind { protoName = protoName.lowercased() }
        self.number = field.number
        self.protoName = protoName
        self.jsonName = field.jsonName ?? TextFormatField.defaultJSONName(protoName)
        self.kind = field.kind
        (wireType, isClosedEnumeration) = Self.wire(field.kind)
        (jsonMember, protoMember) = (JSONPrinter.member(jsonName), JSONPrinter.member(protoName))
        switch field.label {
        case .implicit: (isRepeated, hasPresence, oneof) = (Self.isMap(field.kind), Self.isMessage(field.kind), nil)
        case .optional: (isRepeated, hasPresence, oneof) = (false, true, nil)
        case .repeated: (isRepeated, hasPresence, oneof) = (true, false, nil)
        case let .oneof(index): (isRepeated, hasPresence, oneof) = (false, true, index)
        }
    }

    /// A registered extension, named `[pkg.name]`.
    init(_ field: RegisteredExtension) {
        let name = "[" + field.fullName + "]"
        (number, protoName, jsonName, kind) = (field.number, name, name, field.kind)
        (isRepeated, hasPresence, oneof) = (field.isRepeated, true, nil)
        (wireType, isClosedEnumeration) = Self.wire(field.kind)
        (jsonMember, protoMember) = (JSONPrinter.member(name), JSONPrinter.member(name))
    }

    private static func wire(_ kind: TextFormatKind) -> (WireType, Bool) {
        if case .closedEnumeration = kind { return (kind.wireType, true) }
        return (kind.wireType, false)
    }

    /// A map is repeated and a singular message has presence whatever the row's label says
    /// (a table written by hand may leave the label out).
    private static func isMap(_ kind: TextFormatKind) -> Bool {
        if case .map = kind { return true }
        return false
    }

    private static func isMessage(_ kind: TextFormatKind) -> Bool {
        switch kind {
        case .message, .group, .schemaMessage, .schemaGroup: return true
        default: return false
        }
    }
}

/// The fields of one message type for JSON, worked out once per type and kept.
final class JSONSchema: Sendable {
    let fullName: String
    /// In number order.
    let fields: [JSONField]
    private let byName: [String: Int]
    /// The same names for lookups straight from the input's bytes.
    private let names: JSONNameTable
    /// The type is read from a form of its own (a well-known type's), not an object of its fields.
    let hasSpecialForm: Bool

    private init(fullName: String, fields: [JSONField]) {
        self.fullName = fullName
        self.fields = fields
        var byName: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            byName[field.jsonName] = index
            byName[field.protoName] = index
        }
        self.byName = byName
        self.names = JSONNameTable(byName, inOrder: fields.map(\.jsonName))
        self.hasSpecialForm = SwiftFrame.hasSpecialForm(fullName)
    }

    func field(named name: String) -> JSONField? { byName[name].map { fields[$0] } }

    /// The index in `fields` of the field named `name` (its UTF-8), by JSON or proto name;
    /// the field at `expected` (the one after the last found: fields mostly come in order)
    /// is tried first.
    func fieldIndex(named name: UnsafeBufferPointer<UInt8>, expected: Int) -> Int? {
        names.value(of: name, expected: expected)
    }

    func field(number: Int32) -> JSONField? {
        element(numbered: number, in: fields, number: \.number)
    }

    static func of(_ type: any Message.Type) -> JSONSchema {
        cache.schema(for: type)
    }

    private static let cache = SchemaCache()

    /// The extensions of this message in `registry`, as fields named `[pkg.name]`, and the
    /// message's own fields, in number order.
    func fields(with registry: MessageTypeRegistry) -> [JSONField] {
        let extensions = registry.extensions(of: fullName)
        if extensions.isEmpty { return fields }
        return (fields + extensions.map(JSONField.init)).sorted { $0.number < $1.number }
    }

    fileprivate static func make(_ type: any Message.Type) -> JSONSchema {
        let fields = type.textFormatFields.map(JSONField.init).sorted { $0.number < $1.number }
        return JSONSchema(fullName: type.protoMessageName, fields: fields)
    }
}

/// The schemas worked out so far, by type.
private final class SchemaCache: @unchecked Sendable {
    // @unchecked: `schemas` is only read or written with `lock` held, and the lock lives at a
    // fixed address allocated once for the life of the cache.
    private var schemas: [ObjectIdentifier: JSONSchema] = [:]
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func schema(for type: any Message.Type) -> JSONSchema {
        let key = ObjectIdentifier(type)
        pthread_mutex_lock(lock)
        let known = schemas[key]
        pthread_mutex_unlock(lock)
        if let known { return known }
        // Worked out outside the lock; two threads may both work one out, and either result
        // is the same.
        let schema = JSONSchema.make(type)
        pthread_mutex_lock(lock)
        schemas[key] = schema
        pthread_mutex_unlock(lock)
        return schema
    }
}

/// Names (UTF-8) to small integers, looked up from bytes without making a String: an open
/// addressing table of FNV-1a hashes over one array of the names' bytes.
struct JSONNameTable: Sendable {
    private struct Slot: Sendable {
        var start: Int32 = 0
        var count: Int32 = -1  // -1: empty
        var value: Int32 = 0
    }

    private let slots: [Slot]
    private let text: [UInt8]
    /// For each value in order, the name to try first when it is expected (count -1: none).
    private let expected: [Slot]

    /// `inOrder[i]`, a name of value `i`, is tried first when `i` is expected.
    init(_ values: [String: Int], inOrder: [String]) {
        var size = 4
        while size < values.count * 2 { size *= 2 }
        var slots = [Slot](repeating: Slot(), count: size)
        var text: [UInt8] = []
        for (name, value) in values {
            let utf8 = Array(name.utf8)
            var slot = Int(Self.hash(utf8) & UInt64(size - 1))
            while slots[slot].count >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Slot(start: Int32(text.count), count: Int32(utf8.count), value: Int32(value))
            text += utf8
        }
        var expected: [Slot] = []
        for (value, name) in inOrder.enumerated() {
            guard values[name] == value else {
                expected.append(Slot())
                continue
            }
            expected.append(Slot(start: Int32(text.count), count: Int32(name.utf8.count), value: Int32(value)))
            text += Array(name.utf8)
        }
        self.slots = slots
        self.text = text
        self.expected = expected
    }

    private static func hash<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    func value(of name: UnsafeBufferPointer<UInt8>, expected index: Int) -> Int? {
        text.withUnsafeBufferPointer { text in
            func matches(_ entry: Slot) -> Bool {
                Int(entry.count) == name.count
                    && (name.isEmpty
                        || memcmp(name.baseAddress!, text.baseAddress! + Int(entry.start), name.count) == 0)
            }
            if index < expected.count, matches(expected[index]) { return index }
            let mask = slots.count - 1
            var slot = Int(Self.hash(name) & UInt64(mask))
            while true {
                let entry = slots[slot]
                if entry.count < 0 { return nil }
                if matches(entry) { return Int(entry.value) }
                slot = (slot + 1) & mask
            }
        }
    }
}
