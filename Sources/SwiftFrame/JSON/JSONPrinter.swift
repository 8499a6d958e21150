#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

extension Message {
    /// The message in proto3's canonical JSON mapping, on one line: fields by their JSON name
    /// in number order, 64-bit integers as strings, enums by name, bytes in base64, floats
    /// with `"NaN"` and `"Infinity"`, the well-known types in their own forms; unknown fields
    /// are left out. Throws for a message that has no JSON form (a Timestamp out of range...).
    public func jsonString(options: JSONOptions = JSONOptions()) throws(JSONError) -> String {
        String(decoding: try jsonUTF8Bytes(options: options), as: UTF8.self)
    }

    /// The message in JSON, as UTF-8 (see `jsonString(options:)`).
    public func jsonUTF8Bytes(options: JSONOptions = JSONOptions()) throws(JSONError) -> [UInt8] {
        let bytes = (try? serializedBytes(partial: true)) ?? []
        // Printed without building the path of every value; a failure (rare) is printed again
        // with paths, so that its error names where it happened.
        var printer = JSONPrinter(options: options, tracksPath: false)
        printer.output.reserveCapacity(2 * bytes.count + 16)
        if let failure = printer.print(Self.self, bytes) {
            var tracking = JSONPrinter(options: options, tracksPath: true)
            throw tracking.print(Self.self, bytes) ?? failure
        }
        return printer.output
    }
}

/// Prints JSON by walking a message's encoding with its `JSONSchema`, as the text format's
/// printer walks it with the message's `textFormatFields`.
struct JSONPrinter: JSONPathTracking {
    var output: [UInt8] = []
    let options: JSONOptions
    /// Whether paths (`$.user.login`) are built for errors; see `jsonUTF8Bytes(options:)`.
    let tracksPath: Bool

    init(options: JSONOptions, tracksPath: Bool) {
        self.options = options
        self.tracksPath = tracksPath
    }

    /// Prints a message of `type` from its encoding; the error, if it has no JSON form.
    mutating func print(_ type: any Message.Type, _ bytes: [UInt8]) -> JSONError? {
        // withUnsafeBytes rethrows untyped errors: the error comes out as a value.
        bytes.withUnsafeBytes { buffer in
            do throws(JSONError) {
                try message(type, buffer, path: "$")
                return nil
            } catch {
                return error
            }
        }
    }

    /// One value of a field as it lies on the wire.
    enum Raw {
        case varint(UInt64)
        case fixed32(UInt32)
        case fixed64(UInt64)
        case bytes(UnsafeRawBufferPointer)
    }

    static func fail(_ path: String, _ message: String) -> JSONError {
        JSONError(.unrepresentable, path: path, offset: 0, message)
    }

    /// Whether an enum is google.protobuf.NullValue, printed as `null`.
    static func isNullValue(_ names: [(number: Int32, name: String)]) -> Bool {
        names.count == 1 && names[0].number == 0 && names[0].name == "NULL_VALUE"
    }

    /// The values of each known field of an encoded message, by index in the schema (for the
    /// well-known types); left out as by `collectInOrder`.
    static func collect(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) -> [Int: [Raw]] {
        var values: [Int: [Raw]] = [:]
        for (field, raw) in try collectInOrder(schema.fields, buffer, path: path) {
            values[field, default: []].append(raw)
        }
        return values
    }

    /// The values of the known fields of an encoded message, grouped by field in schema order
    /// and in wire order within a field: one array for the whole message. Fields with another
    /// wire type, and closed-enum numbers the enum lacks, are unknown fields: left out.
    static func collectInOrder(_ fields: [JSONField], _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) -> [(field: Int, raw: Raw)] {
        var values: [(field: Int, raw: Raw)] = []
        values.reserveCapacity(Swift.min(fields.count, buffer.count))
        var inOrder = true
        var reader = ProtoReader(buffer: buffer)
        do throws(WireError) {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                let number = Int32(bitPattern: tag >> 3)
                guard let index = index(numbered: number, in: fields, number: \.number) else {
                    try reader.skipValue(tag: tag)
                    continue
                }
                let field = fields[index]
                let expected = field.kind.wireType
                let before = values.count
                switch UInt8(tag & 7) {
                case expected.rawValue where expected == .varint:
                    let value = try reader.readVarint()
                    if case .closedEnumeration(let names) = field.kind,
                       TextFormatKind.name(of: Int32(truncatingIfNeeded: value), in: names) == nil { continue }
                    values.append((index, .varint(value)))
                case expected.rawValue where expected == .fixed32:
                    values.append((index, .fixed32(try reader.readFixed32())))
                case expected.rawValue where expected == .fixed64:
                    values.append((index, .fixed64(try reader.readFixed64())))
                case expected.rawValue where expected == .lengthDelimited:
                    values.append((index, .bytes(try reader.readDelimitedBuffer())))
                case expected.rawValue where expected == .startGroup:
                    values.append((index, .bytes(try reader.readGroupBuffer(fieldNumber: tag >> 3))))
                case WireType.lengthDelimited.rawValue where expected != .startGroup:
                    var run = ProtoReader(buffer: try reader.readDelimitedBuffer())
                    while run.hasRemaining {
                        switch expected {
                        case .varint: values.append((index, .varint(try run.readVarint())))
                        case .fixed32: values.append((index, .fixed32(try run.readFixed32())))
                        default: values.append((index, .fixed64(try run.readFixed64())))
                        }
                    }
                default:
                    try reader.skipValue(tag: tag)
                }
                if before > 0, values.count > before, values[before - 1].field > index { inOrder = false }
            }
        } catch {
            throw fail(path, "the message's encoding does not parse: \(error)")
        }
        if !inOrder {
            // Stable: values of one field keep their wire order (the last of a singular field wins).
            let order = values.indices.sorted { (values[$0].field, $0) < (values[$1].field, $1) }
            values = order.map { values[$0] }
        }
        return values
    }

    mutating func message(_ type: any Message.Type, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) {
        if type.fieldNamesLeftOut { throw JSONError.namesLeftOut(type, path: path, offset: 0) }
        let schema = JSONSchema.of(type)
        if try wellKnown(schema, buffer, path: path) { return }
        output.append(UInt8(ascii: "{"))
        var first = true
        try fields(schema, buffer, path: path, first: &first)
        output.append(UInt8(ascii: "}"))
    }

    /// The members of a message's object, without its braces.
    mutating func fields(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String,
                         first: inout Bool) throws(JSONError) {
        let all = schema.fields(with: options.registry)
        let values = try Self.collectInOrder(all, buffer, path: path)
        var next = 0
        for (index, field) in all.enumerated() {
            let start = next
            while next < values.count && values[next].field == index { next += 1 }
            let name = options.useProtoFieldNames ? field.protoName : field.jsonName
            let fieldPath = self.path(path, "." + name)
            guard next > start else {
                guard options.emitDefaultValues, !field.hasPresence else { continue }
                key(name, first: &first)
                if case .map = field.kind {
                    append("{}")
                } else if field.isRepeated {
                    append("[]")
                } else {
                    try value(field.kind, Self.zero(field.kind), path: fieldPath)
                }
                continue
            }
            key(name, first: &first)
            if case let .map(keyKind, valueKind) = field.kind {
                try printMap(values[start..<next].lazy.map(\.raw), key: keyKind, value: valueKind, path: fieldPath)
            } else if field.isRepeated {
                output.append(UInt8(ascii: "["))
                for position in start..<next {
                    if position > start { output.append(UInt8(ascii: ",")) }
                    try value(field.kind, values[position].raw, path: self.path(fieldPath, "[\(position - start)]"))
                }
                output.append(UInt8(ascii: "]"))
            } else {
                try value(field.kind, values[next - 1].raw, path: fieldPath)
            }
        }
    }

    /// Appends ASCII text that needs no escaping.
    mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func key(_ name: String, first: inout Bool) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        output.append(UInt8(ascii: ":"))
    }

    static func zero(_ kind: TextFormatKind) -> Raw {
        switch kind.wireType {
        case .fixed32: return .fixed32(0)
        case .fixed64: return .fixed64(0)
        case .lengthDelimited: return .bytes(UnsafeRawBufferPointer(start: nil, count: 0))
        default: return .varint(0)
        }
    }

    mutating func printMap(_ raws: some Collection<Raw>, key keyKind: TextFormatKind, value valueKind: TextFormatKind,
                           path: String) throws(JSONError) {
        var entries: [(key: Raw, value: Raw)] = []
        entries.reserveCapacity(raws.count)
        let keyTag = 1 << 3 | UInt32(keyKind.wireType.rawValue)
        let valueTag = 2 << 3 | UInt32(valueKind.wireType.rawValue)
        for raw in raws {
            guard case let .bytes(body) = raw else { continue }
            var key = Self.zero(keyKind)
            var value = Self.zero(valueKind)
            var reader = ProtoReader(buffer: body)
            do throws(WireError) {
                while reader.hasRemaining {
                    let tag = try reader.readTag()
                    if tag == keyTag {
                        key = try Self.read(keyKind.wireType, from: &reader)
                    } else if tag == valueTag {
                        value = try Self.read(valueKind.wireType, from: &reader)
                    } else {
                        try reader.skipValue(tag: tag)
                    }
                }
            } catch {
                throw Self.fail(path, "a map entry's encoding does not parse: \(error)")
            }
            entries.append((key, value))
        }
        // A later entry of a key replaces an earlier one. Maps this runtime encodes come in
        // increasing key order, so no key repeats; other encodings are checked key by key.
        if !Self.increasing(entries) { entries = lastOfEachKey(entries, keyKind) }
        output.append(UInt8(ascii: "{"))
        for (position, entry) in entries.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            if case let .bytes(bytes) = entry.key {
                string(bytes)
            } else {
                output.append(UInt8(ascii: "\""))
                if case let .varint(flag) = entry.key, case .bool = keyKind {
                    flag != 0 ? append("true") : append("false")
                } else {
                    integer(keyKind, entry.key)
                }
                output.append(UInt8(ascii: "\""))
            }
            output.append(UInt8(ascii: ":"))
            try value(valueKind, entry.value, path: self.path(path, "[\"" + keyText(keyKind, entry.key) + "\"]"))
        }
        output.append(UInt8(ascii: "}"))
    }

    /// One value of a wire type.
    private static func read(_ wireType: WireType, from reader: inout ProtoReader) throws(WireError) -> Raw {
        switch wireType {
        case .varint: return .varint(try reader.readVarint())
        case .fixed32: return .fixed32(try reader.readFixed32())
        case .fixed64: return .fixed64(try reader.readFixed64())
        default: return .bytes(try reader.readDelimitedBuffer())
        }
    }

    /// Whether each key is greater than the one before (bytes compared as bytes, numbers as
    /// their wire value): then no key repeats.
    private static func increasing(_ entries: [(key: Raw, value: Raw)]) -> Bool {
        for index in entries.indices.dropFirst() {
            switch (entries[index - 1].key, entries[index].key) {
            case let (.varint(a), .varint(b)), let (.fixed64(a), .fixed64(b)):
                if a >= b { return false }
            case let (.fixed32(a), .fixed32(b)):
                if a >= b { return false }
            case let (.bytes(a), .bytes(b)):
                let common = Swift.min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                if order > 0 || (order == 0 && a.count >= b.count) { return false }
            default:
                return false
            }
        }
        return true
    }

    /// The entries with the last value of each key, at the place the key first appeared.
    private func lastOfEachKey(_ entries: [(key: Raw, value: Raw)], _ keyKind: TextFormatKind) -> [(key: Raw, value: Raw)] {
        var kept: [(key: Raw, value: Raw)] = []
        var positions: [String: Int] = [:]
        for entry in entries {
            let text = keyText(keyKind, entry.key)
            if let position = positions[text] {
                kept[position].value = entry.value
            } else {
                positions[text] = kept.count
                kept.append(entry)
            }
        }
        return kept
    }

    /// A map key as its JSON member name: the key's value, a number unquoted.
    private func keyText(_ kind: TextFormatKind, _ raw: Raw) -> String {
        var scratch = JSONPrinter(options: options, tracksPath: false)
        switch (kind, raw) {
        case (.bool, .varint(let flag)): return flag != 0 ? "true" : "false"
        case (.string, .bytes(let bytes)): return String(decoding: bytes, as: UTF8.self)
        default: scratch.integer(kind, raw)
        }
        return String(decoding: scratch.output, as: UTF8.self)
    }

    mutating func value(_ kind: TextFormatKind, _ raw: Raw, path: String) throws(JSONError) {
        switch (kind, raw) {
        case (.string, .bytes(let bytes)):
            string(bytes)
        case (.bytes, .bytes(let bytes)):
            output.append(UInt8(ascii: "\""))
            Base64.encode(bytes, into: &output)
            output.append(UInt8(ascii: "\""))
        case (.enumeration(let names), .varint(let value)), (.closedEnumeration(let names), .varint(let value)):
            let number = Int32(truncatingIfNeeded: value)
            if Self.isNullValue(names) {
                append("null")
            } else if let name = TextFormatKind.name(of: number, in: names) {
                string(name)
            } else {
                decimal(Int64(number))
            }
        case (.message(let type), .bytes(let body)), (.group(let type), .bytes(let body)):
            try message(type, body, path: path)
        case (.schemaMessage, _), (.schemaGroup, _):
            throw Self.fail(path, "a message whose schema is data has no JSON form here")
        case (.int64, _), (.uint64, _), (.sint64, _), (.fixed64, _), (.sfixed64, _):
            output.append(UInt8(ascii: "\""))
            integer(kind, raw)
            output.append(UInt8(ascii: "\""))
        case (.int32, _), (.uint32, _), (.sint32, _), (.fixed32, _), (.sfixed32, _):
            integer(kind, raw)
        case (.bool, .varint(let value)): value != 0 ? append("true") : append("false")
        case (.float, .fixed32(let value)):
            let float = Float(bitPattern: value)
            floating(float.isFinite ? float.description : "", Double(float))
        case (.double, .fixed64(let value)):
            let double = Double(bitPattern: value)
            floating(double.isFinite ? double.description : "", double)
        default:
            output.append(UInt8(ascii: "0"))
        }
    }

    /// An integer kind's value, unquoted (`0` for a value of another wire type, which the
    /// collecting left out).
    mutating func integer(_ kind: TextFormatKind, _ raw: Raw) {
        switch (kind, raw) {
        case (.int32, .varint(let value)): decimal(Int64(Int32(truncatingIfNeeded: value)))
        case (.int64, .varint(let value)): decimal(Int64(bitPattern: value))
        case (.uint32, .varint(let value)): decimal(UInt64(UInt32(truncatingIfNeeded: value)))
        case (.uint64, .varint(let value)): decimal(value)
        case (.sint32, .varint(let value)): decimal(Int64(Wire.unZigZag(UInt32(truncatingIfNeeded: value))))
        case (.sint64, .varint(let value)): decimal(Wire.unZigZag(value))
        case (.fixed32, .fixed32(let value)): decimal(UInt64(value))
        case (.sfixed32, .fixed32(let value)): decimal(Int64(Int32(bitPattern: value)))
        case (.fixed64, .fixed64(let value)): decimal(value)
        case (.sfixed64, .fixed64(let value)): decimal(Int64(bitPattern: value))
        default: output.append(UInt8(ascii: "0"))
        }
    }

    mutating func decimal(_ value: Int64) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    /// Digits written straight into the output (no String made on the way).
    mutating func decimal(_ value: UInt64) {
        if value < 10 {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A float in its shortest form (`description`) without a trailing `.0`; NaN and the
    /// infinities as strings.
    private mutating func floating(_ shortest: String, _ value: Double) {
        if value.isNaN { return append("\"NaN\"") }
        if value.isInfinite { return value < 0 ? append("\"-Infinity\"") : append("\"Infinity\"") }
        var text = shortest
        text.withUTF8 { utf8 in
            let integral = utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
            output.append(contentsOf: integral ? UnsafeBufferPointer(rebasing: utf8.dropLast(2)) : utf8)
        }
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\n` or `\u00XX`.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { escaped($0) }
    }

    /// A string field's bytes from the wire as a JSON string. Bytes that are not UTF-8 (a
    /// message inside an Any's value is not checked when it is set) print as U+FFFD, as
    /// `String(decoding:as:)` repairs them.
    mutating func string(_ bytes: UnsafeRawBufferPointer) {
        let utf8 = bytes.bindMemory(to: UInt8.self)
        if utf8.allSatisfy({ $0 < 0x80 }) {
            escaped(utf8)
        } else {
            string(String(decoding: utf8, as: UTF8.self))
        }
    }

    /// UTF-8 in quotes: runs of bytes that need no escape are copied whole.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                let hex: StaticString = "0123456789abcdef"
                append("\\u00")
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 15)])
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        output.append(UInt8(ascii: "\""))
    }
}
