/// A problem in text-format input, with its line and column (both from 1).
public struct TextFormatError: Error, CustomStringConvertible, Equatable {
    public let line: Int
    public let column: Int
    public let message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}

extension Message {
    /// Reads a message from protobuf's text format, as `protoc --encode` reads it:
    /// `nick_name: "neo" port: 8080 user_info { uid: 42 }`, one field per line or not, with
    /// `#` comments, `[a, b]` lists and `< >` or `{ }` around messages. Fields may also be given
    /// by number, as `protoc --decode_raw` and `TextFormat=Numbers` messages print them; a
    /// group by its type name or its field name (`Data` or `data`). A field of a name the
    /// message reserves is skipped. Extensions (`[pkg.name]`) are read when `registry` holds
    /// them. As protobuf's parser, it refuses a singular field given twice (a proto3 field
    /// without presence may be given again after its default) and two members of one oneof.
    /// An `Any` may be written in its expanded form, `[type.googleapis.com/pkg.Type] { ... }`
    /// (any URL prefix), when `registry` holds the type its URL names.
    /// - Parameters:
    ///   - text: the message in text format.
    ///   - partial: accept a message whose proto2 `required` fields are not all set.
    ///   - registry: the types an `Any` may hold in its expanded form, and the extensions read.
    public init(
        textFormat text: String, partial: Bool = false,
        registry: MessageTypeRegistry = MessageTypeRegistry()
    ) throws(TextFormatError) {
        var tokens = TextFormatTokenizer(Array(text.utf8))
        var bytes: [UInt8] = []
        try TextFormatReader.readFields(
            TextFormatTable(Self.self, registry: registry), schemas: nil, from: &tokens,
            until: nil, into: &bytes, registry: registry)
        do {
            try self.init(serializedBytes: bytes, partial: partial)
        } catch {
            throw TextFormatError(line: 1, column: 1, message: "\(Self.protoMessageName): \(error)")
        }
    }
}

/// Reads text format into the binary encoding of a message, driven by the message's
/// `textFormatFields`, so that the message's own decoder does the rest. Repeated scalars are
/// written unpacked, which every decoder accepts. A schema read from data
/// (`DynamicMessageSchema`) is read by the same code, its nested messages found in `schemas`;
/// `TextFormatSchemaSet.canonicalBytes` then writes the result as protoc would.
enum TextFormatReader {
    typealias Tokens = TextFormatTokenizer

    /// How deep messages may nest in text (protobuf's default recursion limit).
    static let maxDepth = 100

    static func readFields(
        _ table: TextFormatTable, schemas: TextFormatSchemaSet?,
        from tokens: inout Tokens, until end: UInt8?,
        into output: inout [UInt8], registry: MessageTypeRegistry? = nil,
        depth: Int = 0
    ) throws(TextFormatError) {
        let (fields, messageName) = (table.fields, table.name)
        if depth > maxDepth {
            throw tokens.error("messages nested deeper than \(maxDepth) levels")
        }
        let context = Context(schemas: schemas, registry: registry, depth: depth)
        // The singular fields already given and the oneofs already set: protobuf's parser
        // refuses a second value for either (a proto3 field without presence counts as given
        // only once its value is not the default, as protobuf's HasField says).
        var given: Set<Int32> = []
        var oneofsSet: [Int: String] = [:]
        while true {
            let token = try tokens.next()
            let field: TextFormatField?
            let number: Int32
            switch token.kind {
            case .end:
                guard end == nil else { throw tokens.error("missing '\(Character(Unicode.Scalar(end!)))'", at: token) }
                return
            case .symbol(let symbol) where symbol == end:
                return
            case .identifier(let name):
                if table.reservedNames.contains(name) {
                    try skipReserved(name, from: &tokens)
                    continue
                }
                guard let named = fields.first(where: { $0.name == name }) ?? groupNamed(name, in: fields) else {
                    throw tokens.error("\(messageName) has no field '\(name)'", at: token)
                }
                (field, number) = (named, named.number)
            case .number(let text):
                // Decimal, as protobuf reads a field number; a leading zero before an 8 or a 9 is
                // refused, as its tokenizer refuses every such number.
                let octalMistake = text.count > 1 && text.hasPrefix("0") && text.contains { $0 == "8" || $0 == "9" }
                guard !octalMistake, let value = Int32(text), value > 0, value < 1 << 29 else {
                    throw tokens.error("expected a field name or number", at: token)
                }
                (field, number) = (fields.first { $0.number == value }, value)
            case .symbol(UInt8(ascii: "[")) where messageName == "google.protobuf.Any":
                // Its type_url and value, which neither may already be given, nor given after.
                guard !given.contains(1), !given.contains(2) else {
                    throw tokens.error("the Any's fields are given twice", at: token)
                }
                let url = try tokens.bracketedName(after: token)
                let holdsValue = try readExpandedAny(url, at: token, context: context, from: &tokens, into: &output)
                given.insert(1)
                if holdsValue { given.insert(2) }  // an empty value is the default, as `value: ""`
                continue
            case .symbol(UInt8(ascii: "[")):
                let name = try tokens.bracketedName(after: token)
                guard !name.contains("/") else {
                    throw tokens.error("'[\(name)]': an extension's name has no '/'", at: token)
                }
                guard let named = fields.first(where: { $0.name == "[" + name + "]" }) else {
                    throw tokens.error(
                        "'[\(name)]' is no extension of \(messageName) that the registry holds", at: token)
                }
                (field, number) = (named, named.number)
            default:
                throw tokens.error("expected a field name", at: token)
            }
            let label = field?.name ?? String(number)
            if let field {
                if given.contains(field.number) {
                    throw tokens.error("'\(label)' is a singular field given twice", at: token)
                }
                if case .oneof(let oneof) = field.label, let other = oneofsSet[oneof] {
                    throw tokens.error("'\(label)' is given with '\(other)', a member of the same oneof", at: token)
                }
            }
            let start = output.count
            let opensBrace = try tokens.peekSymbol() == UInt8(ascii: "{")
            let takesMessage = field.map { $0.kind.isMessage } ?? opensBrace
            if try tokens.peekSymbol() == UInt8(ascii: ":") {
                _ = try tokens.next()
            } else if !takesMessage {
                throw tokens.error("expected ':' after '\(label)'", at: token)
            }
            if try tokens.peekSymbol() == UInt8(ascii: "["), field.map(\.isRepeated) ?? true {
                _ = try tokens.next()
                if try tokens.peekSymbol() == UInt8(ascii: "]") {
                    _ = try tokens.next()
                } else {
                    while true {
                        try readValue(field, number: number, context: context, from: &tokens, into: &output)
                        let separator = try tokens.next()
                        if case .symbol(UInt8(ascii: "]")) = separator.kind { break }
                        guard case .symbol(UInt8(ascii: ",")) = separator.kind else {
                            throw tokens.error("expected ',' or ']' in the list of '\(label)'", at: separator)
                        }
                    }
                }
            } else {
                try readValue(field, number: number, context: context, from: &tokens, into: &output)
            }
            if let field, !field.isRepeated {
                switch field.label {
                case .repeated: break
                case .oneof(let oneof): oneofsSet[oneof] = label; given.insert(field.number)
                case .optional: given.insert(field.number)
                case .implicit:
                    if !Self.holdsDefault(output[start...]) { given.insert(field.number) }
                }
            }
            if let symbol = try tokens.peekSymbol(), symbol == UInt8(ascii: ";") || symbol == UInt8(ascii: ",") {
                _ = try tokens.next()
            }
        }
    }

    /// Whether `field`, one field (its tag and value) as FieldWriter wrote it, holds its kind's
    /// default: after the tag, nothing but zero bytes (a zero varint, fixed zeros, an empty
    /// length); -0.0 is not the default, as for protobuf.
    private static func holdsDefault(_ field: ArraySlice<UInt8>) -> Bool {
        guard let tagEnd = field.firstIndex(where: { $0 & 0x80 == 0 }) else { return false }
        return field[(tagEnd + 1)...].allSatisfy { $0 == 0 }
    }

    /// One value of `field` (nil: a field given by number that the table does not list, read
    /// as `protoc --decode_raw` prints it).
    private static func readValue(
        _ field: TextFormatField?, number: Int32, context: Context,
        from tokens: inout Tokens, into output: inout [UInt8]
    ) throws(TextFormatError) {
        let schemas = context.schemas
        let token = try tokens.next()
        let writer = FieldWriter(number: number)
        let name = field?.name ?? String(number)
        guard let field else {
            switch token.kind {
            case .number(let text) where text.hasPrefix("0x") && text.count == 10:
                writer.fixed(try integer(text, signed: false, bits: 32, name, token, &tokens), bytes: 4, to: &output)
            case .number(let text) where text.hasPrefix("0x") && text.count == 18:
                writer.fixed(try integer(text, signed: false, bits: 64, name, token, &tokens), bytes: 8, to: &output)
            case .number(let text):
                let value = try integer(text, signed: true, bits: 64, name, token, &tokens, unsigned64: true)
                writer.varint(value, to: &output)
            case .string:
                writer.lengthDelimited(try strings(token, name, &tokens), to: &output)
            case .symbol(UInt8(ascii: "{")):
                var body: [UInt8] = []
                try readFields(
                    TextFormatTable(name: name, fields: []), schemas: nil, from: &tokens, until: UInt8(ascii: "}"),
                    into: &body, registry: context.registry, depth: context.depth + 1)
                writer.lengthDelimited(body, to: &output)
            default:
                throw tokens.error("'\(name)' takes a number, a quoted string or a message in braces", at: token)
            }
            return
        }
        switch field.kind {
        case .message, .group, .schemaMessage, .schemaGroup:
            guard case let .symbol(open) = token.kind, open == UInt8(ascii: "{") || open == UInt8(ascii: "<") else {
                throw tokens.error("'\(name)' takes a message in braces", at: token)
            }
            var body: [UInt8] = []
            try readFields(
                TextFormatTable(kind: field.kind, schemas: schemas, registry: context.registry), schemas: schemas,
                from: &tokens,
                until: open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">"), into: &body,
                registry: context.registry, depth: context.depth + 1)
            if field.kind.wireType == .startGroup {
                writer.group(body, to: &output)
            } else {
                writer.lengthDelimited(body, to: &output)
            }
        case .map(let key, let value):
            guard case let .symbol(open) = token.kind, open == UInt8(ascii: "{") || open == UInt8(ascii: "<") else {
                throw tokens.error("'\(name)' takes a map entry in braces", at: token)
            }
            var body: [UInt8] = []
            // An entry's key and value have presence: each may be given once.
            let entryFields = [
                TextFormatField(1, "key", key, .optional), TextFormatField(2, "value", value, .optional),
            ]
            try readFields(
                TextFormatTable(name: name + " entry", fields: entryFields), schemas: schemas, from: &tokens,
                until: open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">"), into: &body,
                registry: context.registry, depth: context.depth + 1)
            writer.lengthDelimited(body, to: &output)
        case .string, .bytes:
            let bytes = try strings(token, name, &tokens)
            if case .string = field.kind, String(validating: bytes, as: UTF8.self) == nil {
                throw tokens.error("'\(name)' is not valid UTF-8", at: token)
            }
            writer.lengthDelimited(bytes, to: &output)
        case .bool:
            switch token.kind {
            case .identifier("true"), .identifier("True"), .identifier("t"):
                writer.varint(1, to: &output)
            case .identifier("false"), .identifier("False"), .identifier("f"):
                writer.varint(0, to: &output)
            case .number(let text) where !text.hasPrefix("-"):
                // 1 and 0 in any of the integer forms (01, 0x1), as protobuf reads them.
                guard let value = try? integer(text, signed: false, bits: 64, name, token, &tokens), value <= 1 else {
                    throw tokens.error("'\(name)' takes true or false", at: token)
                }
                writer.varint(value, to: &output)
            default: throw tokens.error("'\(name)' takes true or false", at: token)
            }
        case .enumeration(let names), .closedEnumeration(let names):
            if case let .identifier(word) = token.kind, let value = names.first(where: { $0.name == word }) {
                writer.varint(UInt64(bitPattern: Int64(value.number)), to: &output)
            } else if case .number = token.kind {
                let number = try integer(token, signed: true, bits: 32, name, &tokens)
                // A closed (proto2) enum takes only the numbers it declares, as protobuf's parser.
                if case .closedEnumeration = field.kind,
                    !names.contains(where: { $0.number == Int32(truncatingIfNeeded: number) })
                {
                    throw tokens.error(
                        "'\(name)' has no value numbered \(Int32(truncatingIfNeeded: number))", at: token)
                }
                writer.varint(number, to: &output)
            } else {
                throw tokens.error("'\(name)' takes one of \(names.map(\.name).joined(separator: ", "))", at: token)
            }
        default:
            try readNumber(field.kind, token, name, &tokens, writer, &output)
        }
    }

    /// What reading one message passes on to the messages inside it.
    struct Context {
        let schemas: TextFormatSchemaSet?
        let registry: MessageTypeRegistry?
        let depth: Int
    }

    /// An Any's expanded form, after its bracketed type URL (`url`, as the tokenizer read it):
    /// `{ fields }` (the `:` before it is optional), written as the Any's type_url (1) and
    /// value (2). As for protobuf's parser, the URL is a prefix ending in `/` (any prefix, its
    /// `%` escapes well formed) and the type's full name, which `registry` must hold.
    /// Returns whether the value is not empty.
    private static func readExpandedAny(
        _ url: String, at open: Tokens.Token, context: Context, from tokens: inout Tokens,
        into output: inout [UInt8]
    ) throws(TextFormatError) -> Bool {
        let bytes = Array(url.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0, bytes[0] != UInt8(ascii: "/") else {
            throw tokens.error("the Any's type URL '\(url)' has no prefix before its type name", at: open)
        }
        var index = 0
        while index < slash {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < slash, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    throw tokens.error("the Any's type URL '\(url)' has a '%' not followed by two hex digits", at: open)
                }
            }
            index += 1
        }
        let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        guard name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isIdentifier) else {
            throw tokens.error("the Any's type URL '\(url)' does not end in a type's full name", at: open)
        }
        guard let type = context.registry?.type(named: name) else {
            throw tokens.error("the Any's type URL '\(url)' names no registered message type", at: open)
        }
        if try tokens.peekSymbol() == UInt8(ascii: ":") { _ = try tokens.next() }
        let brace = try tokens.next()
        guard case let .symbol(symbol) = brace.kind, symbol == UInt8(ascii: "{") || symbol == UInt8(ascii: "<") else {
            throw tokens.error("expected '{' after the Any's type URL", at: brace)
        }
        var body: [UInt8] = []
        try readFields(
            TextFormatTable(type, registry: context.registry), schemas: nil, from: &tokens,
            until: symbol == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">"), into: &body,
            registry: context.registry, depth: context.depth + 1)
        FieldWriter(number: 1).lengthDelimited(bytes, to: &output)
        FieldWriter(number: 2).lengthDelimited(body, to: &output)
        return !body.isEmpty
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    /// A letter or `_`, then letters, digits and `_`.
    private static func isIdentifier(_ part: Substring) -> Bool {
        guard let first = part.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return part.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
    }

    /// The group (or group-like delimited field) whose field name is `name`: its type name,
    /// which the table gives it, lower-cased (`data` for `Data`), as protobuf's parser accepts.
    private static func groupNamed(_ name: String, in fields: [TextFormatField]) -> TextFormatField? {
        fields.first { field in
            switch field.kind {
            case .group, .schemaGroup: return field.name.lowercased() == name
            default: return false
            }
        }
    }

    /// A field of a reserved name, after its name: read and dropped, as protobuf's parser
    /// skips it. Its value is a scalar (quoted strings joined), a list in brackets, or a
    /// message in braces or angle brackets (the `:` before it optional), whatever is inside.
    private static func skipReserved(_ name: String, from tokens: inout Tokens) throws(TextFormatError) {
        let colon = try tokens.peekSymbol() == UInt8(ascii: ":")
        if colon { _ = try tokens.next() }
        let token = try tokens.next()
        func closer(_ open: UInt8) -> UInt8? {
            switch open {
            case UInt8(ascii: "{"): return UInt8(ascii: "}")
            case UInt8(ascii: "<"): return UInt8(ascii: ">")
            case UInt8(ascii: "["): return UInt8(ascii: "]")
            default: return nil
            }
        }
        switch token.kind {
        case .symbol(let open) where closer(open) != nil && (colon || open != UInt8(ascii: "[")):
            // The closers still awaited, innermost last: the nesting costs no recursion.
            var awaited = [closer(open)!]
            while let expected = awaited.last {
                let next = try tokens.next()
                switch next.kind {
                case .end:
                    throw tokens.error("missing '\(Character(Unicode.Scalar(expected)))' in '\(name)'", at: next)
                case .symbol(let symbol) where symbol == expected:
                    awaited.removeLast()
                case .symbol(let symbol) where closer(symbol) != nil:
                    awaited.append(closer(symbol)!)
                case .symbol(let symbol) where "}>]".utf8.contains(symbol):
                    throw tokens.error("unexpected '\(Character(Unicode.Scalar(symbol)))' in '\(name)'", at: next)
                default:
                    continue
                }
            }
        case .number where colon, .identifier where colon:
            break
        case .string where colon:
            while case .string? = try tokens.peek()?.kind { _ = try tokens.next() }
        default:
            throw tokens.error("'\(name)' takes a value after ':' or a message in braces", at: token)
        }
        if let symbol = try tokens.peekSymbol(), symbol == UInt8(ascii: ";") || symbol == UInt8(ascii: ",") {
            _ = try tokens.next()
        }
    }

    /// A value of a numeric kind.
    private static func readNumber(
        _ kind: TextFormatKind, _ token: Tokens.Token, _ name: String, _ tokens: inout Tokens,
        _ writer: FieldWriter, _ output: inout [UInt8]
    ) throws(TextFormatError) {
        func int(signed: Bool, bits: Int) throws(TextFormatError) -> UInt64 {
            try integer(token, signed: signed, bits: bits, name, &tokens)
        }
        switch kind {
        case .uint32: writer.varint(try int(signed: false, bits: 32), to: &output)
        case .uint64: writer.varint(try int(signed: false, bits: 64), to: &output)
        case .int32: writer.varint(try int(signed: true, bits: 32), to: &output)
        case .int64: writer.varint(try int(signed: true, bits: 64), to: &output)
        case .sint32: writer.varint(Wire.zigZag(Int64(bitPattern: try int(signed: true, bits: 32))), to: &output)
        case .sint64: writer.varint(Wire.zigZag(Int64(bitPattern: try int(signed: true, bits: 64))), to: &output)
        case .fixed32: writer.fixed(try int(signed: false, bits: 32), bytes: 4, to: &output)
        case .fixed64: writer.fixed(try int(signed: false, bits: 64), bytes: 8, to: &output)
        case .sfixed32: writer.fixed(try int(signed: true, bits: 32), bytes: 4, to: &output)
        case .sfixed64: writer.fixed(try int(signed: true, bits: 64), bytes: 8, to: &output)
        case .float: writer.fixed(UInt64(Float(try floating(token, name, &tokens)).bitPattern), bytes: 4, to: &output)
        case .double: writer.fixed(try floating(token, name, &tokens).bitPattern, bytes: 8, to: &output)
        default: throw tokens.error("'\(name)' cannot be read", at: token)  // every other kind is read above
        }
    }

    /// A quoted string and the quoted strings right after it, joined (`"ab" "cd"`).
    private static func strings(
        _ token: Tokens.Token, _ name: String,
        _ tokens: inout Tokens
    ) throws(TextFormatError) -> [UInt8] {
        guard case let .string(first) = token.kind else {
            throw tokens.error("'\(name)' takes a quoted string", at: token)
        }
        var bytes = first
        while case let .string(more)? = try tokens.peek()?.kind {
            bytes += more
            _ = try tokens.next()
        }
        return bytes
    }

    private static func integer(
        _ token: Tokens.Token, signed: Bool, bits: Int, _ name: String,
        _ tokens: inout Tokens
    ) throws(TextFormatError) -> UInt64 {
        guard case let .number(text) = token.kind else {
            throw tokens.error("'\(name)' takes \(signed ? "an" : "a non-negative") integer of \(bits) bits", at: token)
        }
        return try integer(text, signed: signed, bits: bits, name, token, &tokens)
    }

    /// A decimal, `0x` hexadecimal or `0` octal integer that fits, as the bits of a varint
    /// (negative numbers as their 64-bit two's complement, as protobuf writes int32 and int64).
    /// `unsigned64` also accepts up to 2^64 - 1 for a signed field (an unknown varint).
    private static func integer(
        _ text: String, signed: Bool, bits: Int, _ name: String, _ token: Tokens.Token,
        _ tokens: inout Tokens, unsigned64: Bool = false
    ) throws(TextFormatError) -> UInt64 {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : Substring(text)
        let magnitude: UInt64?
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            magnitude = UInt64(digits.dropFirst(2), radix: 16)
        } else if digits.count > 1, digits.hasPrefix("0") {
            magnitude = UInt64(digits.dropFirst(), radix: 8)
        } else {
            magnitude = UInt64(digits, radix: 10)
        }
        let limit =
            unsigned64 || !signed
            ? (bits == 64 ? UInt64.max : (UInt64(1) << bits) - 1) : (UInt64(1) << (bits - 1)) - 1
        guard let magnitude, negative ? signed && magnitude <= UInt64(1) << (bits - 1) : magnitude <= limit else {
            throw tokens.error("'\(name)' takes \(signed ? "an" : "a non-negative") integer of \(bits) bits", at: token)
        }
        return negative ? 0 &- magnitude : magnitude  // two's complement; -2^63 has no positive Int64
    }

    /// A float or double as text format writes it: a decimal number with an optional exponent
    /// and `f` suffix, `inf`, `-inf`, `infinity`, `nan` (in any case).
    private static func floating(
        _ token: Tokens.Token, _ name: String,
        _ tokens: inout Tokens
    ) throws(TextFormatError) -> Double {
        var text: Substring
        switch token.kind {
        case .number(let number): text = Substring(number)
        case .identifier(let word): text = Substring(word)
        default: throw tokens.error("'\(name)' takes a number", at: token)
        }
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        // protobuf reads a float's digits as decimal only: no hexadecimal, no leading zero.
        if case .number = token.kind, text.count > 1, text.first == "0",
            let second = text.dropFirst().first, second.isNumber || second == "x" || second == "X"
        {
            throw tokens.error("'\(name)' takes a decimal number", at: token)
        }
        let lowered = text.lowercased()
        var value: Double?
        switch lowered {
        case "inf", "infinity": value = .infinity
        case "nan": value = .nan
        default:
            // An `f` suffix follows digits or a point (`1f`, `1.f`), never a word (`inff`).
            let suffixed = lowered.hasSuffix("f") && lowered.dropLast().last.map { $0.isNumber || $0 == "." } == true
            let digits = suffixed && !lowered.hasPrefix("0x") ? lowered.dropLast() : Substring(lowered)
            value = lowered.hasPrefix("0x") ? UInt64(digits.dropFirst(2), radix: 16).map(Double.init) : Double(digits)
        }
        guard let value else { throw tokens.error("'\(name)' takes a number", at: token) }
        return negative ? -value : value
    }
}

/// Writes fields of one number.
private struct FieldWriter {
    let number: Int32

    private func tag(_ wireType: WireType, to output: inout [UInt8]) {
        Wire.appendVarint(UInt64(Wire.tag(fieldNumber: Int(number), wireType: wireType)), to: &output)
    }

    func varint(_ value: UInt64, to output: inout [UInt8]) {
        tag(.varint, to: &output)
        Wire.appendVarint(value, to: &output)
    }

    func fixed(_ value: UInt64, bytes: Int, to output: inout [UInt8]) {
        tag(bytes == 4 ? .fixed32 : .fixed64, to: &output)
        for index in 0..<bytes { output.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    func lengthDelimited(_ bytes: [UInt8], to output: inout [UInt8]) {
        tag(.lengthDelimited, to: &output)
        Wire.appendVarint(UInt64(bytes.count), to: &output)
        output += bytes
    }

    func group(_ body: [UInt8], to output: inout [UInt8]) {
        tag(.startGroup, to: &output)
        output += body
        tag(.endGroup, to: &output)
    }
}

extension TextFormatField {
    /// Whether the field is repeated: its label says so, or it is a map (which a table
    /// written by hand may leave without its label).
    var isRepeated: Bool {
        if case .map = kind { return true }
        return label == .repeated
    }
}

extension TextFormatKind {
    /// Written in braces: a message, a group or a map entry.
    var isMessage: Bool {
        switch self {
        case .message, .group, .schemaMessage, .schemaGroup, .map: return true
        default: return false
        }
    }
}
