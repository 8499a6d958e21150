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
/// `textFormatFields`.
struct JSONField {
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

    init(_ field: TextFormatField) {
        // A group's field is named as its type in lower case; the text format prints the type's name.
        var protoName = field.name
        if case .group = field.kind { protoName = protoName.lowercased() }
        self.number = field.number
        self.protoName = protoName
        self.jsonName = field.jsonName ?? TextFormatField.defaultJSONName(protoName)
        self.kind = field.kind
        (wireType, isClosedEnumeration) = Self.wire(field.kind)
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

    private init(fullName: String, fields: [JSONField]) {
        self.fullName = fullName
        self.fields = fields
        var byName: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            byName[field.jsonName] = index
            byName[field.protoName] = index
        }
        self.byName = byName
    }

    func field(named name: String) -> JSONField? { byName[name].map { fields[$0] } }

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
