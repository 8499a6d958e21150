#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// What JSON needs to know about one field, derived from the message's `textFormatFields`
/// and, where those do not say, from the message's own decoder (see `JSONSchema.probe`).
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
    /// The fields of the same oneof (numbers), empty when it is in none.
    var oneofSiblings: [Int32]
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
        return (fields + extensions.map {
            JSONField(number: $0.number, protoName: "[" + $0.fullName + "]", jsonName: "[" + $0.fullName + "]",
                      kind: $0.kind, isRepeated: $0.isRepeated, hasPresence: true, oneofSiblings: [])
        }).sorted { $0.number < $1.number }
    }

    /// protoc's default JSON name: each `_` dropped and the letter after it capitalised.
    static func jsonName(_ protoName: String) -> String {
        var result = ""
        var capitalizeNext = false
        for character in protoName {
            if character == "_" {
                capitalizeNext = true
            } else if capitalizeNext {
                result += character.uppercased()
                capitalizeNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }

    fileprivate static func make<M: Message>(_ type: M.Type) -> JSONSchema {
        var fields: [JSONField] = []
        for field in M.textFormatFields {
            var protoName = field.name
            if case .group = field.kind { protoName = protoName.lowercased() }  // a group's field is its type's name in lower case
            let (repeated, presence) = probe(type, field)
            fields.append(JSONField(number: field.number, protoName: protoName, jsonName: jsonName(protoName),
                                    kind: field.kind, isRepeated: repeated, hasPresence: presence, oneofSiblings: []))
        }
        fields.sort { $0.number < $1.number }
        findOneofs(type, &fields)
        return JSONSchema(fullName: M.protoMessageName, fields: fields)
    }

    /// Whether a field is repeated, and whether it has presence, as the message's own code
    /// treats it: two values decoded and encoded again stay two only in a repeated field; a
    /// default value decoded is encoded again only by a field with presence. (The generated
    /// tables carry neither; see the report on issue 37.)
    private static func probe<M: Message>(_ type: M.Type, _ field: TextFormatField) -> (repeated: Bool, presence: Bool) {
        if case .map = field.kind { return (true, false) }
        guard let one = sample(field.kind, number: field.number, zero: false),
              let zero = sample(field.kind, number: field.number, zero: true) else { return (false, true) }
        let twice = count(field, in: roundTrip(M.self, one + one))
        if twice >= 2 { return (true, false) }
        let defaults = count(field, in: roundTrip(M.self, zero))
        return (false, defaults >= 1)
    }

    /// Members of one oneof: of every singular field with presence set in one message, in
    /// number order, the message keeps only the last of each oneof; each field lost is then
    /// paired with the later fields to find its own oneof.
    private static func findOneofs<M: Message>(_ type: M.Type, _ fields: inout [JSONField]) {
        let candidates = fields.indices.filter { fields[$0].hasPresence && !fields[$0].isRepeated }
        guard candidates.count > 1 else { return }
        func samples(_ indices: [Int]) -> [UInt8] {
            indices.flatMap { sample(fields[$0].kind, number: fields[$0].number, zero: false) ?? [] }
        }
        let all = roundTrip(M.self, samples(candidates))
        let lost = candidates.filter { count(TextFormatField(fields[$0].number, "", fields[$0].kind), in: all) == 0 }
        guard !lost.isEmpty else { return }
        var groups: [[Int]] = []
        var grouped = Set<Int>()
        for index in lost where !grouped.contains(index) {
            var group = [index]
            for other in candidates where other > index && !grouped.contains(other) {
                let bytes = roundTrip(M.self, samples([index, other]))
                if count(TextFormatField(fields[index].number, "", fields[index].kind), in: bytes) == 0 {
                    group.append(other)
                }
            }
            grouped.formUnion(group)
            groups.append(group)
        }
        for group in groups {
            let numbers = group.map { fields[$0].number }
            for index in group { fields[index].oneofSiblings = numbers }
        }
    }

    private static func roundTrip<M: Message>(_ type: M.Type, _ bytes: [UInt8]) -> [UInt8] {
        guard let message = try? M(serializedBytes: bytes, partial: true) else { return [] }
        return (try? message.serializedBytes(partial: true)) ?? []
    }

    /// One encoded value of the kind (`zero`: its default), with its tag.
    private static func sample(_ kind: TextFormatKind, number: Int32, zero: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        let value: UInt64 = zero ? 0 : 1
        switch kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration:
            JSONWire.varint(number, value, to: &out)
        case .closedEnumeration(let names):
            guard let first = names.first else { return nil }
            JSONWire.varint(number, UInt64(bitPattern: Int64(first.number)), to: &out)
        case .fixed32, .sfixed32, .float: JSONWire.fixed(number, value, bytes: 4, to: &out)
        case .fixed64, .sfixed64, .double: JSONWire.fixed(number, value, bytes: 8, to: &out)
        case .string, .bytes: JSONWire.delimited(number, zero ? [] : [0x61], to: &out)
        case .message: JSONWire.delimited(number, [], to: &out)
        case .group: JSONWire.group(number, [], to: &out)
        case .schemaMessage, .schemaGroup, .map: return nil
        }
        return out
    }

    /// How many values of the field the encoding holds (a packed run counts its elements).
    private static func count(_ field: TextFormatField, in bytes: [UInt8]) -> Int {
        var total = 0
        bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            while reader.hasRemaining {
                guard let tag = try? reader.readTag() else { return }
                let start = reader.offset
                guard (try? reader.skipValue(tag: tag)) != nil else { return }
                guard tag >> 3 == UInt32(field.number) else { continue }
                if tag & 7 == UInt32(WireType.lengthDelimited.rawValue), field.kind.wireType != .lengthDelimited {
                    var run = ProtoReader(buffer: UnsafeRawBufferPointer(rebasing: buffer[start..<reader.offset]))
                    _ = try? run.readLength()
                    while run.hasRemaining, (try? run.skipValue(tag: UInt32(field.kind.wireType.rawValue))) != nil {
                        total += 1
                    }
                } else {
                    total += 1
                }
            }
        }
        return total
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
        // Worked out outside the lock (it decodes messages, which may need other schemas);
        // two threads may both work one out, and either result is the same.
        let schema = JSONSchema.make(type)
        pthread_mutex_lock(lock)
        schemas[key] = schema
        pthread_mutex_unlock(lock)
        return schema
    }
}

/// Writes fields in the binary encoding.
enum JSONWire {
    static func tag(_ number: Int32, _ wireType: WireType, to out: inout [UInt8]) {
        Wire.appendVarint(UInt64(Wire.tag(fieldNumber: Int(number), wireType: wireType)), to: &out)
    }

    static func varint(_ number: Int32, _ value: UInt64, to out: inout [UInt8]) {
        tag(number, .varint, to: &out)
        Wire.appendVarint(value, to: &out)
    }

    static func fixed(_ number: Int32, _ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        tag(number, bytes == 4 ? .fixed32 : .fixed64, to: &out)
        for index in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    static func delimited(_ number: Int32, _ bytes: [UInt8], to out: inout [UInt8]) {
        tag(number, .lengthDelimited, to: &out)
        Wire.appendVarint(UInt64(bytes.count), to: &out)
        out += bytes
    }

    static func group(_ number: Int32, _ body: [UInt8], to out: inout [UInt8]) {
        tag(number, .startGroup, to: &out)
        out += body
        tag(number, .endGroup, to: &out)
    }
}
