/// Reads JSON straight into a message's binary encoding as it tokenizes it, with no tree of
/// JSON values: field names are looked up from the input's bytes, scalars converted and
/// written as they are met, a nested message's length filled in after its body, repeated
/// numbers packed.
///
/// It is the fast path of `init(jsonUTF8Bytes:)`. It accepts only what the tree reader
/// (`JSONParser` and `JSONReader`) accepts, and writes an encoding of the same message; on
/// anything else it stops (`Stop`), and the tree reader reads the input again, to read it or
/// to say what is wrong with it and where. Values whose JSON needs lookahead (the well-known
/// types' own forms, such as an `Any` whose `@type` may come last) are read into a tree here
/// too, and written by `JSONReader`.
struct JSONStreamReader: ~Copyable {
    /// The input needs the tree reader.
    struct Stop: Error {}

    private var json: JSONParser
    private let options: JSONOptions
    private var out: ByteOutput

    private init(_ bytes: UnsafeBufferPointer<UInt8>, options: JSONOptions) {
        json = JSONParser(bytes, maxDepth: options.maxDepth)
        self.options = options
        out = ByteOutput(capacity: bytes.count)
    }

    /// `body` of the encoding of a message of `type` read from `bytes`; nil, without calling
    /// `body`, where the tree reader must read it.
    static func withEncoding<R>(
        of type: any Message.Type, _ bytes: UnsafeBufferPointer<UInt8>, options: JSONOptions,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R? {
        let schema = JSONSchema.of(type)
        guard !schema.hasSpecialForm, !type.fieldNamesLeftOut, JSONParser.isUTF8(bytes) else { return nil }
        var reader = JSONStreamReader(bytes, options: options)
        do throws(Stop) {
            reader.json.skipSpace()
            try reader.object(schema, depth: 0)
            reader.json.skipSpace()
            guard reader.json.index == bytes.count else { return nil }
        } catch {
            return nil
        }
        return reader.out.withBytes { body(UnsafeRawBufferPointer($0)) }
    }

    /// The encoding of a message of `type` read from `bytes`; nil where the tree reader must read it.
    static func encoding(of type: any Message.Type, _ bytes: [UInt8], options: JSONOptions) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { withEncoding(of: type, $0, options: options, Array.init) }
    }

    // MARK: Tokens

    private var next: UInt8? { json.index < json.bytes.count ? json.bytes[json.index] : nil }

    /// Skips space and then `byte`.
    private mutating func expect(_ byte: UInt8) throws(Stop) {
        json.skipSpace()
        guard next == byte else { throw Stop() }
        json.index += 1
    }

    /// After space, the byte that ends a member or an element (`,` or `closer`): true for `,`.
    private mutating func separator(_ closer: UInt8) throws(Stop) -> Bool {
        json.skipSpace()
        guard let byte = next else { throw Stop() }
        json.index += 1
        if byte == UInt8(ascii: ",") { return true }
        guard byte == closer else { throw Stop() }
        return false
    }

    /// At `[` or `{`: steps in; true when it is empty (and steps past its end too).
    private mutating func open(_ opener: UInt8, _ closer: UInt8, depth: Int) throws(Stop) -> Bool {
        json.skipSpace()
        guard next == opener, depth < options.maxDepth else { throw Stop() }
        json.index += 1
        json.skipSpace()
        guard next == closer else { return false }
        json.index += 1
        return true
    }

    /// A string's content: a span of the input when it has no escape.
    private enum Text {
        case span(Range<Int>)
        case decoded(String)

        func withBytes<R>(in input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            switch self {
            case .span(let span): return body(UnsafeBufferPointer(rebasing: input[span]))
            case .decoded(var string): return string.withUTF8(body)
            }
        }
    }

    private mutating func string() throws(Stop) -> Text {
        json.skipSpace()
        guard next == UInt8(ascii: "\"") else { throw Stop() }
        if let span = json.plainString() { return .span(span) }
        do throws(JSONError) { return .decoded(try json.string()) } catch { throw Stop() }
    }

    private mutating func number() throws(Stop) -> JSONNumberToken {
        do throws(JSONError) { return try json.numberToken() } catch { throw Stop() }
    }

    /// Whether the next value is `null` (not stepped past).
    private mutating func atNull() -> Bool {
        json.skipSpace()
        return next == UInt8(ascii: "n")
    }

    private mutating func skipNull() throws(Stop) {
        do throws(JSONError) { try json.literal("null") } catch { throw Stop() }
    }

    /// A name that is not ASCII may equal a field's or an enum value's name as a String
    /// (canonically equivalent: U+212A KELVIN SIGN is "K"), as the tree reader compares them.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }

    // MARK: Messages

    /// The fields of an object, at `{`.
    private mutating func object(_ schema: JSONSchema, depth: Int) throws(Stop) {
        if try open(UInt8(ascii: "{"), UInt8(ascii: "}"), depth: depth) { return }
        var seen = FieldNumbers()
        var oneofs = FieldNumbers()
        var unknown = JSONKeyHashes()
        var expected = 0
        repeat {
            let name = try string()
            try expect(UInt8(ascii: ":"))
            if let index = name.withBytes(in: json.bytes, { schema.fieldIndex(named: $0, expected: expected) }) {
                expected = index + 1
                // Read in parts: a copy of the whole field costs more than reading its value.
                let number = schema.fields[index].number
                guard seen.insert(number) else { throw Stop() }
                try member(
                    schema.fields[index].kind, number, isRepeated: schema.fields[index].isRepeated,
                    oneof: schema.fields[index].oneof, oneofs: &oneofs, depth: depth)
            } else if let field = name.withBytes(in: json.bytes, { extensionField(schema, $0) }) {
                guard seen.insert(field.number) else { throw Stop() }
                try member(
                    field.kind, field.number, isRepeated: field.isRepeated, oneof: field.oneof, oneofs: &oneofs,
                    depth: depth)
            } else {
                guard options.ignoreUnknownFields, name.withBytes(in: json.bytes, { unknown.insert($0) }) else {
                    throw Stop()
                }
                _ = try tree(depth: depth + 1)
            }
        } while try separator(UInt8(ascii: "}"))
    }

    /// The value of a field of an object at `depth`.
    private mutating func member(
        _ kind: TextFormatKind, _ number: Int32, isRepeated: Bool, oneof: Int?,
        oneofs: inout FieldNumbers, depth: Int
    ) throws(Stop) {
        if atNull(), !JSONReader.readsNull(kind) {
            try skipNull()
            return
        }
        if let oneof, !oneofs.insert(Int32(oneof) + 1) { throw Stop() }
        try value(kind, number, isRepeated: isRepeated, depth: depth + 1)
    }

    /// A registered extension named `[pkg.name]`.
    private func extensionField(_ schema: JSONSchema, _ name: UnsafeBufferPointer<UInt8>) -> JSONField? {
        guard name.first == UInt8(ascii: "[") else { return nil }
        let text = String(decoding: name, as: UTF8.self)
        return options.registry.extensions(of: schema.fullName).first { "[" + $0.fullName + "]" == text }.map(
            JSONField.init)
    }

    private mutating func value(_ kind: TextFormatKind, _ number: Int32, isRepeated: Bool, depth: Int) throws(Stop) {
        if case let .map(keyKind, valueKind) = kind {
            try map(number, keyKind, valueKind, depth: depth)
        } else if isRepeated {
            if try open(UInt8(ascii: "["), UInt8(ascii: "]"), depth: depth) { return }
            let packed = Self.packs(kind)
            var lengthAt = 0
            if packed {
                out.tag(number, .lengthDelimited)
                lengthAt = out.beginLength()
            }
            repeat {
                if atNull(), !JSONReader.readsNull(kind) { throw Stop() }
                try single(kind, number, tagged: !packed, depth: depth + 1)
            } while try separator(UInt8(ascii: "]"))
            if packed { out.endLength(lengthAt) }
        } else {
            try single(kind, number, tagged: true, depth: depth)
        }
    }

    /// Kinds the binary format packs when repeated.
    private static func packs(_ kind: TextFormatKind) -> Bool {
        switch kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .fixed32, .fixed64, .sfixed32, .sfixed64,
            .float, .double, .bool, .enumeration:
            return true
        default:
            return false
        }
    }

    private mutating func map(
        _ number: Int32, _ keyKind: TextFormatKind, _ valueKind: TextFormatKind,
        depth: Int
    ) throws(Stop) {
        if try open(UInt8(ascii: "{"), UInt8(ascii: "}"), depth: depth) { return }
        var keys = JSONKeyHashes()
        repeat {
            let key = try string()
            guard key.withBytes(in: json.bytes, { keys.insert($0) }) else { throw Stop() }
            try expect(UInt8(ascii: ":"))
            let entryStart = out.count
            out.tag(number, .lengthDelimited)
            let lengthAt = out.beginLength()
            try mapKey(key, keyKind)
            if atNull(), !JSONReader.readsNull(valueKind) { throw Stop() }
            let valueStart = out.count
            try single(valueKind, 2, tagged: true, depth: depth + 1)
            // A value that wrote nothing is an enum name the enum does not have, ignored with
            // the unknown fields: the whole entry goes with it.
            if out.count == valueStart {
                out.truncate(to: entryStart)
                continue
            }
            out.endLength(lengthAt)
        } while try separator(UInt8(ascii: "}"))
    }

    /// A map's key, written as field 1: the key's text is its value.
    private mutating func mapKey(_ key: Text, _ kind: TextFormatKind) throws(Stop) {
        switch kind {
        case .string:
            key.withBytes(in: json.bytes) { bytes in delimited(1, bytes) }
        case .bool:
            let value: UInt64? = key.withBytes(in: json.bytes) { bytes in
                if bytes.elementsEqual("true".utf8) { return 1 }
                if bytes.elementsEqual("false".utf8) { return 0 }
                return nil
            }
            guard let value else { throw Stop() }
            varint(1, value, tagged: true)
        default:
            let parsed = key.withBytes(in: json.bytes) { bytes in
                Self.numberToken(in: bytes).flatMap { Self.integer($0, in: bytes) }
            }
            guard let (negative, magnitude) = parsed else { throw Stop() }
            try integer(kind, 1, tagged: true, negative: negative, magnitude: magnitude)
        }
    }

    // MARK: Values

    /// One value of a kind, written as field `number` (its tag left out when `tagged` is false:
    /// an element of a packed field).
    private mutating func single(_ kind: TextFormatKind, _ number: Int32, tagged: Bool, depth: Int) throws(Stop) {
        switch kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .fixed32, .fixed64, .sfixed32, .sfixed64:
            let (negative, magnitude) = try exactInteger()
            try integer(kind, number, tagged: tagged, negative: negative, magnitude: magnitude)
        case .float:
            // In range when it rounds to a finite float (as the tree reader checks).
            let value = try floating()
            guard value.isNaN || value.isInfinite || Float(value).isFinite else { throw Stop() }
            fixed(number, UInt64(Float(value).bitPattern), bytes: 4, tagged: tagged)
        case .double:
            fixed(number, try floating().bitPattern, bytes: 8, tagged: tagged)
        case .bool:
            json.skipSpace()
            let value = next == UInt8(ascii: "t")
            do throws(JSONError) { try json.literal(value ? "true" : "false") } catch { throw Stop() }
            varint(number, value ? 1 : 0, tagged: tagged)
        case .string:
            let text = try string()
            text.withBytes(in: json.bytes) { bytes in delimited(number, bytes) }
        case .bytes:
            let text = try string()
            let written = text.withBytes(in: json.bytes) { symbols in
                guard let count = Base64.decodedCount(symbols) else { return false }
                out.tag(number, .lengthDelimited)
                out.varint(UInt64(count))
                return out.append(size: count) { Base64.decode(symbols, into: $0) }
            }
            guard written else { throw Stop() }
        case .enumeration(let names), .closedEnumeration(let names):
            try enumeration(names, number, tagged: tagged)
        case .message(let type):
            let schema = JSONSchema.of(type)
            guard !schema.hasSpecialForm, !type.fieldNamesLeftOut else {
                return try written(kind, number, tagged: tagged, depth: depth)
            }
            out.tag(number, .lengthDelimited)
            let lengthAt = out.beginLength()
            try object(schema, depth: depth)
            out.endLength(lengthAt)
        case .group(let type):
            let schema = JSONSchema.of(type)
            guard !schema.hasSpecialForm, !type.fieldNamesLeftOut else {
                return try written(kind, number, tagged: tagged, depth: depth)
            }
            out.tag(number, .startGroup)
            try object(schema, depth: depth)
            out.tag(number, .endGroup)
        case .schemaMessage, .schemaGroup, .map:
            throw Stop()
        }
    }

    private mutating func enumeration(_ names: [(number: Int32, name: String)], _ number: Int32, tagged: Bool)
        throws(Stop)
    {
        json.skipSpace()
        switch next ?? 0 {
        case UInt8(ascii: "\""):
            let text = try string()
            let found = text.withBytes(in: json.bytes) { bytes in
                names.first { $0.name.utf8.elementsEqual(bytes) }?.number
            }
            if let found {
                varint(number, UInt64(bitPattern: Int64(found)), tagged: tagged)
                return
            }
            // A number in a string (`"2"`, `"-1"`) reads as that number; a name the enum does
            // not have is skipped when unknown names are ignored.
            guard text.withBytes(in: json.bytes, Self.isASCII) else { throw Stop() }
            if let numeric = text.withBytes(in: json.bytes, Self.enumNumber(_:)) {
                varint(number, UInt64(bitPattern: Int64(numeric)), tagged: tagged)
                return
            }
            guard options.ignoreUnknownFields else { throw Stop() }
        case UInt8(ascii: "n"):
            guard JSONPrinter.isNullValue(names) else { throw Stop() }
            try skipNull()
            varint(number, 0, tagged: tagged)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (negative, magnitude) = try exactInteger()
            try integer(.int32, number, tagged: tagged, negative: negative, magnitude: magnitude)
        default:
            throw Stop()
        }
    }

    /// `-?[0-9]+` in the range of Int32 (as the tree reader reads a number in a string).
    private static func enumNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = bytes.dropFirst(negative ? 1 : 0)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self))
    }

    /// A value read into a tree and written by `JSONReader` (a well-known type's own form).
    private mutating func written(_ kind: TextFormatKind, _ number: Int32, tagged: Bool, depth: Int) throws(Stop) {
        guard tagged else { throw Stop() }
        let node = try tree(depth: depth)
        var reader = JSONReader(options: options, tracksPath: false)
        var encoded: [UInt8] = []
        do throws(JSONError) { try reader.single(kind, number: number, node, path: "$", into: &encoded) } catch {
            throw Stop()
        }
        encoded.withUnsafeBufferPointer { out.append($0) }
    }

    /// The next value as a tree (also to skip an unknown field's value).
    private mutating func tree(depth: Int) throws(Stop) -> JSONNode {
        do throws(JSONError) { return try json.value(depth: depth) } catch { throw Stop() }
    }

    // MARK: Numbers

    /// The number that is all of `text` (a string's content), as a token of `text`'s bytes.
    private static func numberToken(in text: UnsafeBufferPointer<UInt8>) -> JSONNumberToken? {
        var scanner = JSONParser(text, maxDepth: 0)
        guard let token = try? scanner.numberToken(), scanner.index == text.count else { return nil }
        return token
    }

    /// The integer a number token of `text` stands for exactly (`1e5` and `100.000` too).
    private static func integer(_ token: JSONNumberToken, in text: UnsafeBufferPointer<UInt8>) -> (
        negative: Bool, magnitude: UInt64
    )? {
        if token.isPlainInteger { return (token.negative, token.mantissa) }
        return JSONNumbers.exactInteger(
            String(decoding: UnsafeBufferPointer(rebasing: text[token.start..<token.end]), as: UTF8.self))
    }

    /// The double a number token of `text` stands for, rounded to the nearest.
    private static func double(_ token: JSONNumberToken, in text: UnsafeBufferPointer<UInt8>) -> Double? {
        if token.isPlainInteger { return token.negative ? -Double(token.mantissa) : Double(token.mantissa) }
        if let value = token.fastDouble { return value }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: text[token.start..<token.end]), as: UTF8.self))
    }

    /// The integer the next value stands for exactly: a number, or a string holding one.
    private mutating func exactInteger() throws(Stop) -> (negative: Bool, magnitude: UInt64) {
        json.skipSpace()
        if next == UInt8(ascii: "\"") {
            let text = try string()
            let integer = text.withBytes(in: json.bytes) { bytes in
                Self.numberToken(in: bytes).flatMap { Self.integer($0, in: bytes) }
            }
            guard let integer else { throw Stop() }
            return integer
        }
        guard let integer = Self.integer(try number(), in: json.bytes) else { throw Stop() }
        return integer
    }

    /// Writes an integer kind's value, in its range (as the tree reader checks it).
    private mutating func integer(
        _ kind: TextFormatKind, _ number: Int32, tagged: Bool,
        negative: Bool, magnitude: UInt64
    ) throws(Stop) {
        func signed(_ min: Int64, _ max: Int64) throws(Stop) -> Int64 {
            if negative {
                guard magnitude <= UInt64(bitPattern: 0 &- min) || (min == .min && magnitude == UInt64(1) << 63) else {
                    throw Stop()
                }
                return magnitude == UInt64(1) << 63 ? .min : -Int64(magnitude)
            }
            guard magnitude <= UInt64(max) else { throw Stop() }
            return Int64(magnitude)
        }
        func unsigned(_ max: UInt64) throws(Stop) -> UInt64 {
            guard !negative || magnitude == 0, magnitude <= max else { throw Stop() }
            return magnitude
        }
        switch kind {
        case .int32: varint(number, UInt64(bitPattern: try signed(Int64(Int32.min), Int64(Int32.max))), tagged: tagged)
        case .int64: varint(number, UInt64(bitPattern: try signed(.min, .max)), tagged: tagged)
        case .sint32:
            varint(number, UInt64(Wire.zigZag(Int32(try signed(Int64(Int32.min), Int64(Int32.max))))), tagged: tagged)
        case .sint64: varint(number, Wire.zigZag(try signed(.min, .max)), tagged: tagged)
        case .sfixed32:
            let value = Int32(try signed(Int64(Int32.min), Int64(Int32.max)))
            fixed(number, UInt64(UInt32(bitPattern: value)), bytes: 4, tagged: tagged)
        case .sfixed64: fixed(number, UInt64(bitPattern: try signed(.min, .max)), bytes: 8, tagged: tagged)
        case .uint32: varint(number, try unsigned(UInt64(UInt32.max)), tagged: tagged)
        case .uint64: varint(number, try unsigned(.max), tagged: tagged)
        case .fixed32: fixed(number, try unsigned(UInt64(UInt32.max)), bytes: 4, tagged: tagged)
        case .fixed64: fixed(number, try unsigned(.max), bytes: 8, tagged: tagged)
        default: throw Stop()
        }
    }

    /// The next value as a double: a number, a string holding one, or NaN and the infinities
    /// by name.
    private mutating func floating() throws(Stop) -> Double {
        json.skipSpace()
        let value: Double?
        if next == UInt8(ascii: "\"") {
            let text = try string()
            value = text.withBytes(in: json.bytes) { bytes in
                if bytes.elementsEqual("NaN".utf8) { return .nan }
                if bytes.elementsEqual("Infinity".utf8) { return .infinity }
                if bytes.elementsEqual("-Infinity".utf8) { return -.infinity }
                guard let token = Self.numberToken(in: bytes), let value = Self.double(token, in: bytes), value.isFinite
                else { return nil }
                return value
            }
        } else {
            value = Self.double(try number(), in: json.bytes).flatMap { $0.isFinite ? $0 : nil }
        }
        guard let value else { throw Stop() }
        return value
    }

    // MARK: Writing

    private mutating func varint(_ number: Int32, _ value: UInt64, tagged: Bool) {
        if tagged { out.tag(number, .varint) }
        out.varint(value)
    }

    private mutating func fixed(_ number: Int32, _ value: UInt64, bytes: Int, tagged: Bool) {
        if tagged { out.tag(number, bytes == 4 ? .fixed32 : .fixed64) }
        out.fixed(value, bytes: bytes)
    }

    private mutating func delimited(_ number: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        out.tag(number, .lengthDelimited)
        out.varint(UInt64(bytes.count))
        out.append(bytes)
    }
}

/// Hashes of the names or keys of one object met so far, to find one given twice: two that
/// hash alike stop the streaming reader, and the tree reader compares them. A name that is not
/// ASCII stops it too: the tree reader compares Strings, equal when canonically equivalent.
private struct JSONKeyHashes {
    private var slots: [UInt64] = []  // 0: empty
    private var count = 0

    /// Adds `key`; false if a key with its hash was there already, or it is not ASCII.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var high: UInt8 = 0
        for byte in key {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            high |= byte
        }
        guard high < 0x80 else { return false }
        if count * 2 >= slots.count { grow() }
        return place(hash | 1)
    }

    private mutating func place(_ hash: UInt64) -> Bool {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash >> 7) & mask
        while slots[slot] != 0 {
            if slots[slot] == hash { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = hash
        count += 1
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: max(16, old.count * 2))
        count = 0
        for hash in old where hash != 0 { _ = place(hash) }
    }
}
