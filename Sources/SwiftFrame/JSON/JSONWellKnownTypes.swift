// The JSON forms of protobuf's well-known types, printed from and read into their encodings
// by full name, so the runtime needs no dependency on the generated types.

private let wrapperNames: Set<String> = [
    "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
    "google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
    "google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue",
]

/// The types whose JSON is not an object of their fields (inside an Any, under `"value"`).
func hasSpecialForm(_ fullName: String) -> Bool {
    wrapperNames.contains(fullName)
        || [
            "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
            "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any",
        ].contains(fullName)
}

/// Seconds of the range Timestamp allows: 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59Z.
private let minTimestampSeconds: Int64 = -62_135_596_800
private let maxTimestampSeconds: Int64 = 253_402_300_799
/// About 10,000 years, the range Duration allows.
private let maxDurationSeconds: Int64 = 315_576_000_000

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
private func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// The civil date of a day since 1970-01-01.
private func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

private func padded(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

/// `.123`, `.123456` or `.123456789`: the fewest groups of three digits that hold the nanos.
private func fraction(_ nanos: Int64) -> String {
    if nanos == 0 { return "" }
    if nanos % 1_000_000 == 0 { return "." + padded(nanos / 1_000_000, 3) }
    if nanos % 1000 == 0 { return "." + padded(nanos / 1000, 6) }
    return "." + padded(nanos, 9)
}

extension JSONPrinter {
    /// The fields of a well-known type's encoding by number: the last varint or fixed value.
    private static func scalars(_ buffer: UnsafeRawBufferPointer) -> [Int32: UInt64] {
        var values: [Int32: UInt64] = [:]
        var reader = ProtoReader(buffer: buffer)
        while reader.hasRemaining, let tag = try? reader.readTag() {
            let number = Int32(bitPattern: tag >> 3)
            switch WireType(rawValue: UInt8(tag & 7)) {
            case .varint?: values[number] = try? reader.readVarint()
            case .fixed64?: values[number] = try? reader.readFixed64()
            case .fixed32?: values[number] = (try? reader.readFixed32()).map(UInt64.init)
            default: if (try? reader.skipValue(tag: tag)) == nil { return values }
            }
        }
        return values
    }

    /// Prints a well-known type's own form; false for any other type.
    mutating func wellKnown(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError)
        -> Bool
    {
        guard schema.hasSpecialForm else { return false }
        let name = schema.fullName
        switch name {
        case "google.protobuf.Timestamp":
            let values = Self.scalars(buffer)
            let seconds = Int64(bitPattern: values[1] ?? 0)
            let nanos = Int64(Int32(truncatingIfNeeded: values[2] ?? 0))
            guard seconds >= minTimestampSeconds, seconds <= maxTimestampSeconds, nanos >= 0, nanos <= 999_999_999
            else {
                throw Self.fail(path, "a Timestamp out of range (seconds \(seconds), nanos \(nanos))")
            }
            let day = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
            let secondOfDay = seconds - day * 86400
            let date = civil(day)
            string(
                padded(date.year, 4) + "-" + padded(date.month, 2) + "-" + padded(date.day, 2) + "T"
                    + padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":"
                    + padded(secondOfDay % 60, 2)
                    + fraction(nanos) + "Z")
        case "google.protobuf.Duration":
            let values = Self.scalars(buffer)
            let seconds = Int64(bitPattern: values[1] ?? 0)
            let nanos = Int64(Int32(truncatingIfNeeded: values[2] ?? 0))
            // No abs(seconds): Int64.min has no absolute value.
            guard seconds >= -maxDurationSeconds, seconds <= maxDurationSeconds, abs(nanos) <= 999_999_999,
                seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0)
            else {
                throw Self.fail(path, "a Duration out of range (seconds \(seconds), nanos \(nanos))")
            }
            let negative = seconds < 0 || nanos < 0
            string((negative ? "-" : "") + String(abs(seconds)) + fraction(abs(nanos)) + "s")
        case "google.protobuf.FieldMask":
            var paths: [String] = []
            for raw in try Self.collect(schema, buffer, path: path)[0] ?? [] {
                guard case let .bytes(bytes) = raw else { continue }
                let snake = String(decoding: bytes, as: UTF8.self)
                let camel = TextFormatField.defaultJSONName(snake)
                guard FieldMaskNames.snake(camel) == snake else {
                    throw Self.fail(path, "the FieldMask path '\(snake)' has no JSON form")
                }
                paths.append(camel)
            }
            string(paths.joined(separator: ","))
        case _ where wrapperNames.contains(name):
            guard let field = schema.field(number: 1) else { return false }
            let raws = try Self.collect(schema, buffer, path: path)[0] ?? []
            try value(field.kind, raws.last ?? Self.zero(field.kind), path: path)
        case "google.protobuf.Struct":
            guard let field = schema.field(number: 1), case let .map(key, valueKind) = field.kind else { return false }
            try printMap(try Self.collect(schema, buffer, path: path)[0] ?? [], key: key, value: valueKind, path: path)
        case "google.protobuf.ListValue":
            guard let field = schema.field(number: 1) else { return false }
            output.append(UInt8(ascii: "["))
            for (position, raw) in (try Self.collect(schema, buffer, path: path)[0] ?? []).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try value(field.kind, raw, path: self.path(path, "[\(position)]"))
            }
            output.append(UInt8(ascii: "]"))
        case "google.protobuf.Value":
            let values = try Self.collect(schema, buffer, path: path)
            guard let (index, raws) = values.max(by: { $0.key < $1.key }), let raw = raws.last else {
                throw Self.fail(path, "a Value with none of its kinds set")
            }
            let field = schema.fields[index]
            if field.number == 2, case let .fixed64(bits) = raw, !Double(bitPattern: bits).isFinite {
                throw Self.fail(path, "a Value's number_value is NaN or infinite, which JSON cannot hold")
            }
            try value(field.kind, raw, path: path)
        case "google.protobuf.Any":
            try any(schema, buffer, path: path)
        default:
            return false
        }
        return true
    }

    private mutating func any(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) {
        let values = try Self.collect(schema, buffer, path: path)
        var url = ""
        var body = UnsafeRawBufferPointer(start: nil, count: 0)
        if let index = schema.fields.firstIndex(where: { $0.number == 1 }),
            case let .bytes(bytes)? = values[index]?.last
        {
            url = String(decoding: bytes, as: UTF8.self)
        }
        if let index = schema.fields.firstIndex(where: { $0.number == 2 }),
            case let .bytes(bytes)? = values[index]?.last
        {
            body = bytes
        }
        if url.isEmpty && body.isEmpty {
            append("{}")
            return
        }
        guard let type = options.registry.type(forURL: url) else {
            throw Self.fail(path, "the Any's type URL '\(url)' names no registered message type")
        }
        let inner = JSONSchema.of(type)
        let mapsWerePrinted = mapsPrinted
        mapsPrinted = false  // the value's bytes are as they came
        defer { mapsPrinted = mapsWerePrinted }
        output.append(UInt8(ascii: "{"))
        var first = true
        key("@type", first: &first)
        string(url)
        if hasSpecialForm(inner.fullName) {
            // No bytes: the message at its default, which has no "value" (as protobuf's C++
            // runtime prints it; a Value with no kind set has no JSON form).
            if !body.isEmpty {
                key("value", first: &first)
                try message(type, body, path: self.path(path, ".value"))
            }
        } else {
            try fields(inner, body, path: path, first: &first)
        }
        output.append(UInt8(ascii: "}"))
    }
}

/// FieldMask paths: snake_case in the message, lowerCamelCase in JSON.
enum FieldMaskNames {
    /// `fooBar` -> `foo_bar`; nil when the name has a `_` (which JSON's form cannot hold).
    static func snake(_ camel: String) -> String? {
        var result = ""
        for character in camel {
            if character == "_" { return nil }
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension JSONReader {
    /// The encoding of a well-known type read from its own form; nil for any other type.
    mutating func wellKnown(_ schema: JSONSchema, _ node: JSONNode, path: String) throws(JSONError) -> [UInt8]? {
        let fullName = schema.fullName
        guard fullName.hasPrefix("google.protobuf.") else { return nil }
        var out: [UInt8] = []
        switch fullName {
        case "google.protobuf.Timestamp":
            guard case let .string(text) = node.value, let (seconds, nanos) = Self.timestamp(text) else {
                throw bad("a Timestamp is an RFC 3339 string (1972-01-01T10:00:20.021Z)", path, node)
            }
            guard seconds >= minTimestampSeconds, seconds <= maxTimestampSeconds else {
                throw bad("the Timestamp is out of range", path, node)
            }
            if seconds != 0 { JSONWire.varint(1, UInt64(bitPattern: seconds), to: &out) }
            if nanos != 0 { JSONWire.varint(2, UInt64(bitPattern: nanos), to: &out) }
        case "google.protobuf.Duration":
            guard case let .string(text) = node.value, let (seconds, nanos) = Self.duration(text) else {
                throw bad("a Duration is a string of seconds ending in 's' (1.5s)", path, node)
            }
            guard abs(seconds) <= maxDurationSeconds else { throw bad("the Duration is out of range", path, node) }
            if seconds != 0 { JSONWire.varint(1, UInt64(bitPattern: seconds), to: &out) }
            if nanos != 0 { JSONWire.varint(2, UInt64(bitPattern: nanos), to: &out) }
        case "google.protobuf.FieldMask":
            guard case let .string(text) = node.value else { throw bad("a FieldMask is a string of paths", path, node) }
            if !text.isEmpty {
                for camel in text.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let snake = FieldMaskNames.snake(String(camel)) else {
                        throw bad("the FieldMask path '\(camel)' is not in lowerCamelCase", path, node)
                    }
                    JSONWire.delimited(1, snake, to: &out)
                }
            }
        case _ where wrapperNames.contains(fullName):
            guard let field = schema.field(number: 1) else { return nil }
            if case .null = node.value { return [] }
            if case .object = node.value {
                throw bad("\(fullName) is its bare value in JSON, not an object", path, node)
            }
            try single(field.kind, number: 1, node, path: path, into: &out)
        case "google.protobuf.Struct":
            guard let field = schema.field(number: 1), case let .map(_, valueKind) = field.kind else { return nil }
            guard case let .object(members) = node.value else { throw bad("a Struct is a JSON object", path, node) }
            var keys = Set<String>()
            for member in members {
                guard keys.insert(member.key).inserted else {
                    throw JSONError(
                        .duplicateField, path: path + "." + member.key, offset: member.offset,
                        "'\(member.key)' is given twice")
                }
                var entry: [UInt8] = []
                JSONWire.delimited(1, member.key, to: &entry)
                try single(valueKind, number: 2, member.value, path: self.path(path, "." + member.key), into: &entry)
                JSONWire.delimited(1, entry, to: &out)
            }
        case "google.protobuf.ListValue":
            guard let field = schema.field(number: 1) else { return nil }
            guard case let .array(elements) = node.value else { throw bad("a ListValue is a JSON array", path, node) }
            for (index, element) in elements.enumerated() {
                try single(field.kind, number: 1, element, path: self.path(path, "[\(index)]"), into: &out)
            }
        case "google.protobuf.Value":
            switch node.value {
            case .null: JSONWire.varint(1, 0, to: &out)
            case .integer, .number: JSONWire.fixed(2, try floating(node, path).bitPattern, bytes: 8, to: &out)
            case .string(let text): JSONWire.delimited(3, text, to: &out)
            case .bool(let value): JSONWire.varint(4, value ? 1 : 0, to: &out)
            case .object:
                guard let field = schema.field(number: 5) else { return nil }
                try single(field.kind, number: 5, node, path: path, into: &out)
            case .array:
                guard let field = schema.field(number: 6) else { return nil }
                try single(field.kind, number: 6, node, path: path, into: &out)
            }
        case "google.protobuf.Any":
            return try any(node, path: path)
        default:
            return nil
        }
        return out
    }

    private mutating func any(_ node: JSONNode, path: String) throws(JSONError) -> [UInt8] {
        guard case let .object(members) = node.value else { throw bad("an Any is a JSON object", path, node) }
        if members.isEmpty { return [] }
        guard let typeMember = members.first(where: { $0.key == "@type" }) else {
            throw bad("an Any needs its \"@type\"", path, node)
        }
        for name in ["@type", "value"] {
            if let second = members.filter({ $0.key == name }).dropFirst().first {
                throw JSONError(
                    .duplicateField, path: path + "." + name, offset: second.offset, "'\(name)' is given twice")
            }
        }
        guard case let .string(url) = typeMember.value.value else {
            throw bad("an Any's \"@type\" is a string", path, typeMember.value)
        }
        guard let type = options.registry.type(forURL: url) else {
            throw JSONError(
                .unrepresentable, path: path + ".@type", offset: typeMember.value.offset,
                "the type URL '\(url)' names no registered message type")
        }
        let inner = JSONSchema.of(type)
        var body: [UInt8]
        if hasSpecialForm(inner.fullName) {
            for member in members where member.key != "@type" && member.key != "value" {
                throw JSONError(
                    .unknownField, path: path + "." + member.key, offset: member.offset,
                    "an Any holding \(inner.fullName) has only \"@type\" and \"value\"")
            }
            // Without "value", the message at its default: protobuf's C++ runtime prints an Any
            // holding no bytes so.
            guard let value = members.first(where: { $0.key == "value" }) else {
                body = []; return Self.anyBytes(url, body)
            }
            body = try message(type, value.value, path: self.path(path, ".value"))
        } else {
            body = try fields(of: inner, members, path: path, skipping: ["@type"])
        }
        body = try Self.canonical(type, body, path: path, node)
        return Self.anyBytes(url, body)
    }

    private static func anyBytes(_ url: String, _ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWire.delimited(1, url, to: &out)
        JSONWire.delimited(2, body, to: &out)
        return out
    }

    /// The bytes as the type's own encoder writes them.
    private static func canonical(
        _ type: any Message.Type, _ bytes: [UInt8], path: String,
        _ node: JSONNode
    ) throws(JSONError) -> [UInt8] {
        func reencode<M: Message>(_: M.Type) -> [UInt8]? {
            guard let message = try? M(serializedBytes: bytes, partial: true) else { return nil }
            return try? message.serializedBytes(partial: true)
        }
        guard let result = reencode(type) else {
            throw JSONError(.badValue, path: path, offset: node.offset, "the Any's message does not decode")
        }
        return result
    }

    /// `1972-01-01T10:00:20.021Z`, or with an offset (`+01:30`) instead of the `Z`.
    static func timestamp(_ text: String) -> (seconds: Int64, nanos: Int64)? {
        let bytes = Array(text.utf8)
        func digits(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, let year = digits(0, 4), bytes[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = digits(8, 2), bytes[10] == UInt8(ascii: "T"),
            let hour = digits(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = digits(14, 2),
            bytes[16] == UInt8(ascii: ":"), let second = digits(17, 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60 else { return nil }
        let monthDays: [Int64] = [
            31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
        ]
        guard day <= monthDays[Int(month - 1)] else { return nil }
        var index = 19
        var nanos: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var count = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                guard count < 9 else { return nil }
                nanos = nanos * 10 + Int64(bytes[index] - 0x30)
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "Z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            guard let hours = digits(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let minutes = digits(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second - offset
        return (seconds, nanos)
    }

    /// `-1.5s`: seconds, up to nine fraction digits, and an `s`.
    static func duration(_ text: String) -> (seconds: Int64, nanos: Int64)? {
        var bytes = Array(text.utf8)[...]
        guard bytes.last == UInt8(ascii: "s") else { return nil }
        bytes = bytes.dropLast()
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let whole = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !whole.isEmpty, whole.count <= 12, let seconds = Int64(String(decoding: whole, as: UTF8.self)) else {
            return nil
        }
        bytes = bytes.dropFirst(whole.count)
        var nanos: Int64 = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            let fraction = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !fraction.isEmpty, fraction.count <= 9 else { return nil }
            for byte in fraction { nanos = nanos * 10 + Int64(byte - 0x30) }
            for _ in fraction.count..<9 { nanos *= 10 }
            bytes = bytes.dropFirst(fraction.count)
        }
        guard bytes.isEmpty else { return nil }
        return negative ? (-seconds, -nanos) : (seconds, nanos)
    }
}
