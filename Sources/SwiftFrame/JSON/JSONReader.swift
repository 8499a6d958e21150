extension Message {
    /// Reads a message from proto3's canonical JSON mapping: fields by their JSON name
    /// (`nickName`) or proto name (`nick_name`), 64-bit integers as numbers or strings,
    /// enums by name or number, bytes in base64 (standard or URL-safe, padded or not), `null`
    /// for a field at its default, and the well-known types' own forms.
    public init(jsonString: String, options: JSONOptions = JSONOptions()) throws(JSONError) {
        self.init()
        var text = jsonString
        if let failure = text.withUTF8({ mergeJSON($0, options: options) }) { throw failure }
    }

    /// Reads a message from JSON in UTF-8 (see `init(jsonString:options:)`).
    public init(jsonUTF8Bytes bytes: [UInt8], options: JSONOptions = JSONOptions()) throws(JSONError) {
        self.init()
        if let failure = bytes.withUnsafeBufferPointer({ mergeJSON($0, options: options) }) { throw failure }
    }

    /// Reads JSON by the tree reader alone, as `init(jsonUTF8Bytes:options:)` does where the
    /// streaming reader stops: what the benchmarks weigh the streaming reader against (their
    /// JSON decode rows), so that the two readers stay only while the second is worth its code.
    @_spi(Benchmarks)
    public init(jsonUTF8BytesByTreeReader bytes: [UInt8], options: JSONOptions = JSONOptions()) throws(JSONError) {
        self.init()
        if let failure = mergeByTreeReader(bytes, options: options) { throw failure }
    }

    /// Reads the JSON into this message (just made), by the streaming reader or, where it
    /// stops, by the tree reader; the error, if any. (No generic types here: a `Result` of
    /// `Self` would look up its metadata on every read.)
    private mutating func mergeJSON(_ bytes: UnsafeBufferPointer<UInt8>, options: JSONOptions) -> JSONError? {
        if let streamed = JSONStreamReader.withEncoding(
            of: Self.self, bytes, options: options, { mergeCatching($0, maxDepth: ProtoReader.defaultMaxDepth) })
        {
            return streamed.map(Self.jsonError)
        }
        return mergeByTreeReader(Array(bytes), options: options)
    }

    /// Reads the JSON into this message by the tree reader; the error, if any.
    private mutating func mergeByTreeReader(_ bytes: [UInt8], options: JSONOptions) -> JSONError? {
        let failure: WireError?
        do throws(JSONError) {
            let encoded = try JSONReader.encoding(of: Self.self, bytes, options: options)
            failure = encoded.withUnsafeBytes { mergeCatching($0, maxDepth: ProtoReader.defaultMaxDepth) }
        } catch {
            return error
        }
        return failure.map(Self.jsonError)
    }

    /// A failure to merge the encoding the JSON was read into, as a JSON error.
    private static func jsonError(_ failure: WireError) -> JSONError {
        JSONError(.badValue, path: "$", offset: 0, "\(protoMessageName): \(failure)")
    }
}

extension JSONReader {
    /// The encoding of a message of `type` read from `bytes` through a tree of its values
    /// (what the streaming reader leaves to it).
    static func encoding(of type: any Message.Type, _ bytes: [UInt8], options: JSONOptions) throws(JSONError) -> [UInt8]
    {
        let root = try JSONParser.parse(bytes, maxDepth: options.maxDepth)
        // Read without building the path of every value; a failure (rare) is read again with
        // paths, so that its error names where it happened.
        var reader = JSONReader(options: options, tracksPath: false)
        do {
            return try reader.message(type, root, path: "$")
        } catch {
            var tracking = JSONReader(options: options, tracksPath: true)
            _ = try tracking.message(type, root, path: "$")
            throw error
        }
    }
}

/// Field numbers met so far in one object: a bit each for 1–128, which most messages use
/// (a `Set` costs more to make and grow than reading such a message), a set for the others.
struct FieldNumbers {
    private var low: (UInt64, UInt64) = (0, 0)
    private var others: Set<Int32> = []

    /// Adds `number`; false if it was there already.
    mutating func insert(_ number: Int32) -> Bool {
        guard number >= 1 && number <= 128 else { return others.insert(number).inserted }
        let bit = UInt64(1) << UInt64((number - 1) & 63)
        if number <= 64 {
            defer { low.0 |= bit }
            return low.0 & bit == 0
        }
        defer { low.1 |= bit }
        return low.1 & bit == 0
    }
}

/// Turns parsed JSON into the binary encoding of a message, driven by the message's
/// `JSONSchema`, so that the message's own decoder does the rest (as the text format does).
struct JSONReader: JSONPathTracking {
    let options: JSONOptions
    let tracksPath: Bool

    func bad(_ message: String, _ path: String, _ node: JSONNode) -> JSONError {
        JSONError(.badValue, path: path, offset: node.offset, message)
    }

    /// The encoding of a message of `type` from `node` (an object, or a well-known type's form).
    mutating func message(_ type: any Message.Type, _ node: JSONNode, path: String) throws(JSONError) -> [UInt8] {
        if type.fieldNamesLeftOut { throw JSONError.namesLeftOut(type, path: path, offset: node.offset) }
        let schema = JSONSchema.of(type)
        if let special = try wellKnown(schema, node, path: path) { return special }
        guard case let .object(members) = node.value else {
            throw bad("\(schema.fullName) is read from a JSON object", path, node)
        }
        return try fields(of: schema, members, path: path)
    }

    mutating func fields(
        of schema: JSONSchema, _ members: [JSONMember], path: String,
        skipping: Set<String> = []
    ) throws(JSONError) -> [UInt8] {
        var out: [UInt8] = []
        var seen = FieldNumbers()
        var unknown = Set<String>()
        var oneofSet: [Int: String] = [:]  // a oneof's index -> the name its member was given by
        let extensions = options.registry.extensions(of: schema.fullName)
        for member in members where !skipping.contains(member.key) {
            let fieldPath = self.path(path, "." + member.key)
            let known =
                schema.field(named: member.key)
                ?? extensions.first { "[" + $0.fullName + "]" == member.key }.map(JSONField.init)
            guard let field = known else {
                if options.ignoreUnknownFields {
                    // Skipped, but not twice (protobuf's C++ and Python runtimes refuse that too).
                    guard unknown.insert(member.key).inserted else {
                        throw JSONError(
                            .duplicateField, path: fieldPath, offset: member.offset, "'\(member.key)' is given twice")
                    }
                    continue
                }
                throw JSONError(
                    .unknownField, path: fieldPath, offset: member.offset,
                    "\(schema.fullName) has no field '\(member.key)'")
            }
            guard seen.insert(field.number) else {
                throw JSONError(
                    .duplicateField, path: fieldPath, offset: member.offset, "'\(member.key)' is given twice")
            }
            if case .null = member.value.value, !Self.readsNull(field.kind) { continue }
            if let oneof = field.oneof {
                if let other = oneofSet[oneof] {
                    throw JSONError(
                        .duplicateField, path: fieldPath, offset: member.offset,
                        "'\(member.key)' and '\(other)' are members of one oneof: only one may be set")
                }
                oneofSet[oneof] = member.key
            }
            try value(of: field, member.value, path: fieldPath, into: &out)
        }
        return out
    }

    /// Whether `null` is a value of the kind (google.protobuf.Value and NullValue), not its absence.
    static func readsNull(_ kind: TextFormatKind) -> Bool {
        switch kind {
        case .message(let type): return type.protoMessageName == "google.protobuf.Value"
        case .enumeration(let names): return JSONPrinter.isNullValue(names)
        default: return false
        }
    }

    private mutating func value(
        of field: JSONField, _ node: JSONNode, path: String,
        into out: inout [UInt8]
    ) throws(JSONError) {
        if case let .map(keyKind, valueKind) = field.kind {
            guard case let .object(entries) = node.value else {
                throw bad("a map is read from a JSON object", path, node)
            }
            var keys = Set<String>()
            for entry in entries {
                let entryPath = self.path(path, "[\"" + entry.key + "\"]")
                guard keys.insert(entry.key).inserted else {
                    throw JSONError(
                        .duplicateField, path: entryPath, offset: entry.offset, "the map key is given twice")
                }
                var body: [UInt8] = []
                let keyNode = JSONNode(value: .string(entry.key), offset: entry.offset)
                try single(keyKind, number: 1, keyNode, path: entryPath, into: &body, mapKey: true)
                if case .null = entry.value.value, !Self.readsNull(valueKind) {
                    throw bad("a map value cannot be null", entryPath, entry.value)
                }
                let valueStart = body.count
                try single(valueKind, number: 2, entry.value, path: entryPath, into: &body)
                // A value that wrote nothing is an enum name the enum does not have, ignored
                // with the unknown fields: the whole entry goes with it.
                guard body.count > valueStart else { continue }
                JSONWire.delimited(field.number, body, to: &out)
            }
            return
        }
        if field.isRepeated {
            guard case let .array(elements) = node.value else {
                throw bad("a repeated field is read from a JSON array", path, node)
            }
            for (index, element) in elements.enumerated() {
                let elementPath = self.path(path, "[\(index)]")
                if case .null = element.value, !Self.readsNull(field.kind) {
                    throw bad("a repeated field's element cannot be null", elementPath, element)
                }
                try single(field.kind, number: field.number, element, path: elementPath, into: &out)
            }
            return
        }
        try single(field.kind, number: field.number, node, path: path, into: &out)
    }

    /// One value of a kind, written as field `number`.
    mutating func single(
        _ kind: TextFormatKind, number: Int32, _ node: JSONNode, path: String,
        into out: inout [UInt8], mapKey: Bool = false
    ) throws(JSONError) {
        switch kind {
        case .int32:
            JSONWire.varint(
                number,
                UInt64(bitPattern: Int64(try integer(node, path, min: Int64(Int32.min), max: Int64(Int32.max)))),
                to: &out)
        case .int64:
            JSONWire.varint(number, UInt64(bitPattern: try integer(node, path, min: .min, max: .max)), to: &out)
        case .sint32:
            JSONWire.varint(
                number,
                UInt64(Wire.zigZag(Int32(try integer(node, path, min: Int64(Int32.min), max: Int64(Int32.max))))),
                to: &out)
        case .sint64: JSONWire.varint(number, Wire.zigZag(try integer(node, path, min: .min, max: .max)), to: &out)
        case .sfixed32:
            JSONWire.fixed(
                number,
                UInt64(
                    UInt32(bitPattern: Int32(try integer(node, path, min: Int64(Int32.min), max: Int64(Int32.max))))),
                bytes: 4, to: &out)
        case .sfixed64:
            JSONWire.fixed(
                number, UInt64(bitPattern: try integer(node, path, min: .min, max: .max)), bytes: 8, to: &out)
        case .uint32: JSONWire.varint(number, try unsigned(node, path, max: UInt64(UInt32.max)), to: &out)
        case .uint64: JSONWire.varint(number, try unsigned(node, path, max: .max), to: &out)
        case .fixed32: JSONWire.fixed(number, try unsigned(node, path, max: UInt64(UInt32.max)), bytes: 4, to: &out)
        case .fixed64: JSONWire.fixed(number, try unsigned(node, path, max: .max), bytes: 8, to: &out)
        case .float:
            // In range when it rounds to a finite float: the largest float prints (shortest) as
            // 3.4028235e+38, a little above its exact value, and must read back.
            let value = try floating(node, path)
            guard value.isNaN || value.isInfinite || Float(value).isFinite else {
                throw bad("the number is out of a float's range", path, node)
            }
            JSONWire.fixed(number, UInt64(Float(value).bitPattern), bytes: 4, to: &out)
        case .double: JSONWire.fixed(number, try floating(node, path).bitPattern, bytes: 8, to: &out)
        case .bool:
            switch node.value {
            case .bool(let value): JSONWire.varint(number, value ? 1 : 0, to: &out)
            case .string("true") where mapKey: JSONWire.varint(number, 1, to: &out)
            case .string("false") where mapKey: JSONWire.varint(number, 0, to: &out)
            default: throw bad("a bool is true or false", path, node)
            }
        case .string:
            guard case let .string(text) = node.value else {
                throw bad("a string field is read from a JSON string", path, node)
            }
            JSONWire.delimited(number, text, to: &out)
        case .bytes:
            guard case let .string(text) = node.value, let bytes = Base64.decode(text) else {
                throw bad("a bytes field is read from a base64 string", path, node)
            }
            JSONWire.delimited(number, bytes, to: &out)
        case .enumeration(let names), .closedEnumeration(let names):
            switch node.value {
            case .string(let name):
                guard let value = names.first(where: { $0.name == name }) else {
                    // A number in a string (`"2"`, `"-1"`) reads as that number, as protobuf's C++
                    // and Python runtimes read it.
                    let digits = name.utf8.drop { $0 == UInt8(ascii: "-") }
                    if !digits.isEmpty, name.utf8.count - digits.count <= 1,
                        digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                        let numeric = Int32(name)
                    {
                        JSONWire.varint(number, UInt64(bitPattern: Int64(numeric)), to: &out)
                        return
                    }
                    if options.ignoreUnknownFields { return }
                    throw bad("'\(name)' is no value of the enum", path, node)
                }
                JSONWire.varint(number, UInt64(bitPattern: Int64(value.number)), to: &out)
            case .integer, .number:
                let value = try integer(node, path, min: Int64(Int32.min), max: Int64(Int32.max))
                JSONWire.varint(number, UInt64(bitPattern: value), to: &out)
            case .null where JSONPrinter.isNullValue(names):
                JSONWire.varint(number, 0, to: &out)
            default:
                throw bad("an enum is read from a name or a number", path, node)
            }
        case .message(let type):
            JSONWire.delimited(number, try message(type, node, path: path), to: &out)
        case .group(let type):
            JSONWire.group(number, try message(type, node, path: path), to: &out)
        case .schemaMessage, .schemaGroup, .map:
            throw bad("a message whose schema is data has no JSON form here", path, node)
        }
    }

    // MARK: Numbers

    /// The text of a number given as a JSON number or a string (no spaces allowed).
    private func numberText(_ node: JSONNode, _ path: String) throws(JSONError) -> String {
        switch node.value {
        case .integer(let negative, let magnitude): return (negative ? "-" : "") + String(magnitude)
        case .number(let text): return text
        case .string(let text):
            guard JSONNumbers.isNumber(text) else { throw bad("'\(text)' is not a number", path, node) }
            return text
        default: throw bad("expected a number", path, node)
        }
    }

    /// The integer a number stands for exactly, as a sign and a magnitude.
    private func exactInteger(_ node: JSONNode, _ path: String) throws(JSONError) -> (negative: Bool, magnitude: UInt64)
    {
        if case let .integer(negative, magnitude) = node.value { return (negative, magnitude) }
        let text = try numberText(node, path)
        guard let integer = JSONNumbers.exactInteger(text) else { throw bad("'\(text)' is not an integer", path, node) }
        return integer
    }

    func integer(_ node: JSONNode, _ path: String, min: Int64, max: Int64) throws(JSONError) -> Int64 {
        let (negative, magnitude) = try exactInteger(node, path)
        if negative {
            guard magnitude <= UInt64(bitPattern: 0 &- min) || (min == .min && magnitude == UInt64(1) << 63) else {
                throw bad("\(try numberText(node, path)) is out of range", path, node)
            }
            return magnitude == UInt64(1) << 63 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(max) else { throw bad("\(try numberText(node, path)) is out of range", path, node) }
        return Int64(magnitude)
    }

    func unsigned(_ node: JSONNode, _ path: String, max: UInt64) throws(JSONError) -> UInt64 {
        let (negative, magnitude) = try exactInteger(node, path)
        guard !negative || magnitude == 0, magnitude <= max else {
            throw bad("\(try numberText(node, path)) is out of range", path, node)
        }
        return magnitude
    }

    func floating(_ node: JSONNode, _ path: String) throws(JSONError) -> Double {
        switch node.value {
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .integer(let negative, let magnitude):
            // Rounded to the nearest double, as reading the digits as a double rounds them.
            return negative ? -Double(magnitude) : Double(magnitude)
        default:
            let text = try numberText(node, path)
            guard let value = Double(text), value.isFinite else {
                throw bad("\(text) is out of a double's range", path, node)
            }
            return value
        }
    }
}

/// Numbers in JSON text.
enum JSONNumbers {
    /// Whether `text` is a JSON number exactly (no spaces, no `+`, no leading zeros).
    static func isNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integer = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !integer.isEmpty, integer.count == 1 || integer.first != 0x30 else { return false }
        bytes = bytes.dropFirst(integer.count)
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            let fraction = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !fraction.isEmpty else { return false }
            bytes = bytes.dropFirst(fraction.count)
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !exponent.isEmpty else { return false }
            bytes = bytes.dropFirst(exponent.count)
        }
        return bytes.isEmpty
    }

    /// The integer a JSON number's text stands for exactly (`1e5`, `100.000` too), as a sign
    /// and a magnitude; nil when it has a fraction or does not fit 64 bits.
    static func exactInteger(_ text: String) -> (negative: Bool, magnitude: UInt64)? {
        if let plain = plainInteger(text) { return plain }
        var bytes = Array(text.utf8)[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var pointAt: Int?
        var exponent = 0
        while let byte = bytes.first {
            if byte == UInt8(ascii: ".") {
                pointAt = digits.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                let rest = String(decoding: bytes.dropFirst(), as: UTF8.self)
                guard let value = Int(rest.hasPrefix("+") ? String(rest.dropFirst()) : rest), value > -1000,
                    value < 1000
                else { return nil }
                exponent = value
                break
            } else {
                digits.append(byte - 0x30)
            }
            bytes = bytes.dropFirst()
        }
        // The value is digits × 10^(exponent − fraction digits).
        let scale = exponent - (pointAt.map { digits.count - $0 } ?? 0)
        if scale < 0 {
            let cut = -scale
            guard cut <= digits.count ? digits.suffix(cut).allSatisfy({ $0 == 0 }) : digits.allSatisfy({ $0 == 0 })
            else { return nil }
            digits = Array(digits.dropLast(min(cut, digits.count)))
        } else if digits.contains(where: { $0 != 0 }) {
            guard scale <= 20 else { return nil }
            digits += [UInt8](repeating: 0, count: scale)
        }
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        return (negative, magnitude)
    }
}

extension JSONNumbers {
    /// The common case of `exactInteger`: an optional `-` and at most 19 digits, which fit
    /// 64 bits; nil for any other text.
    private static func plainInteger(_ text: String) -> (negative: Bool, magnitude: UInt64)? {
        var text = text
        return text.withUTF8 { utf8 in
            let negative = utf8.first == UInt8(ascii: "-")
            let start = negative ? 1 : 0
            guard utf8.count > start, utf8.count - start <= 19 else { return nil }
            var magnitude: UInt64 = 0
            for byte in utf8[start...] {
                let digit = byte &- 0x30
                guard digit < 10 else { return nil }
                magnitude = magnitude &* 10 &+ UInt64(digit)
            }
            return (negative, magnitude)
        }
    }
}

/// Base64, RFC 4648: written in the standard alphabet with padding; read in the standard or
/// the URL-safe alphabet, with or without padding.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// How many characters `encode` writes for `count` bytes.
    static func encodedCount(_ count: Int) -> Int {
        (count + 2) / 3 * 4
    }

    /// Writes the base64 of `bytes` (standard alphabet, padded) at `text`, which has room for
    /// `encodedCount(bytes.count)` characters.
    static func encode(_ bytes: UnsafeRawBufferPointer, to text: UnsafeMutablePointer<UInt8>) {
        alphabet.withUnsafeBufferPointer { alphabet in
            var index = 0
            var next = 0
            while index + 3 <= bytes.count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                text[next] = alphabet[Int(value >> 18)]
                text[next + 1] = alphabet[Int(value >> 12 & 63)]
                text[next + 2] = alphabet[Int(value >> 6 & 63)]
                text[next + 3] = alphabet[Int(value & 63)]
                index += 3
                next += 4
            }
            let rest = bytes.count - index
            if rest > 0 {
                let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                text[next] = alphabet[Int(value >> 18)]
                text[next + 1] = alphabet[Int(value >> 12 & 63)]
                text[next + 2] = rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "=")
                text[next + 3] = UInt8(ascii: "=")
            }
        }
    }

    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { symbols -> [UInt8]? in
            guard let count = decodedCount(symbols) else { return nil }
            if count == 0 { return [] }
            var valid = false
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                valid = decode(symbols, into: buffer.baseAddress!)
                initialized = valid ? count : 0
            }
            return valid ? bytes : nil
        }
    }

    /// The number of bytes the base64 `text` decodes to; nil when its padding is wrong or its
    /// length leaves a symbol over that holds no whole byte.
    static func decodedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var symbols = text.count
        while symbols > 0, text[symbols - 1] == UInt8(ascii: "=") { symbols -= 1 }
        let padding = text.count - symbols
        guard padding <= 2, padding == 0 || text.count % 4 == 0, symbols % 4 != 1 else { return nil }
        return symbols / 4 * 3 + [0, 0, 1, 2][symbols % 4]
    }

    /// Decodes `text` (its count checked by `decodedCount`) to `out`, which has room for
    /// `decodedCount(text)` bytes; false when a symbol is not base64.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        var symbols = text.count
        while symbols > 0, text[symbols - 1] == UInt8(ascii: "=") { symbols -= 1 }
        return symbolValues.withUnsafeBufferPointer { values in
            var next = 0
            var index = 0
            while index + 4 <= symbols {
                let a = values[Int(text[index])], b = values[Int(text[index + 1])]
                let c = values[Int(text[index + 2])], d = values[Int(text[index + 3])]
                guard (a | b | c | d) & 0x40 == 0 else { return false }
                let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                out[next] = UInt8(truncatingIfNeeded: value >> 16)
                out[next + 1] = UInt8(truncatingIfNeeded: value >> 8)
                out[next + 2] = UInt8(truncatingIfNeeded: value)
                index += 4
                next += 3
            }
            var value: UInt32 = 0
            var bits = 0
            while index < symbols {
                let symbol = values[Int(text[index])]
                guard symbol & 0x40 == 0 else { return false }
                value = value << 6 | UInt32(symbol)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out[next] = UInt8(truncatingIfNeeded: value >> UInt32(bits))
                    next += 1
                }
                index += 1
            }
            return true
        }
    }

    /// Each byte's value as a base64 symbol of either alphabet; 0x40 for any other byte.
    private static let symbolValues: [UInt8] = {
        var values = [UInt8](repeating: 0x40, count: 256)
        for (value, symbol) in alphabet.enumerated() { values[Int(symbol)] = UInt8(value) }
        values[Int(UInt8(ascii: "-"))] = 62
        values[Int(UInt8(ascii: "_"))] = 63
        return values
    }()
}
