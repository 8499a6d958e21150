import SwiftFrame
import SwiftFrameDescriptors

/// A problem in a text-format file, with its line and column (both from 1).
struct TextFormatError: Error, CustomStringConvertible {
    let line: Int
    let column: Int
    let message: String
    var description: String { "line \(line), column \(column): \(message)" }
}

/// Reads protobuf text format (`name: value`, `name { ... }`, `[a, b]` lists, `#` comments)
/// into the binary encoding of a message the schema describes, so the message's generated
/// decoder does the rest. The schema is a FileDescriptorSet, as `protoc --descriptor_set_out`
/// writes it. Repeated scalars are written unpacked, which every decoder accepts; floats,
/// doubles and groups are not read (the config has none).
struct TextFormatReader {
    private var messages: [String: Google_Protobuf_DescriptorProto] = [:]
    private var enums: [String: Google_Protobuf_EnumDescriptorProto] = [:]

    init(schema: Google_Protobuf_FileDescriptorSet) {
        func add(_ message: Google_Protobuf_DescriptorProto, scope: String) {
            let name = scope + "." + message.protoName
            messages[name] = message
            message.nestedType.forEach { add($0, scope: name) }
            message.enumType.forEach { enums[name + "." + $0.protoName] = $0 }
        }
        for file in schema.file {
            let scope = file.package.map { "." + $0 } ?? ""
            file.messageType.forEach { add($0, scope: scope) }
            file.enumType.forEach { enums[scope + "." + $0.protoName] = $0 }
        }
    }

    /// The binary encoding of `text` read as the message `fullName` (".swiftframe.Config").
    func encode(_ text: String, as fullName: String) throws(TextFormatError) -> [UInt8] {
        var tokens = Tokenizer(Array(text.utf8))
        var output: [UInt8] = []
        try readFields(of: fullName, from: &tokens, until: nil, into: &output)
        return output
    }

    private func readFields(of fullName: String, from tokens: inout Tokenizer, until end: UInt8?,
                            into output: inout [UInt8]) throws(TextFormatError) {
        guard let message = messages[fullName] else { throw tokens.error("no message \(fullName) in the schema") }
        while true {
            let token = try tokens.next()
            switch token.kind {
            case .end:
                guard end == nil else { throw tokens.error("missing '\(Character(Unicode.Scalar(end!)))'", at: token) }
                return
            case .symbol(let symbol) where symbol == end:
                return
            case .identifier(let name):
                guard let field = message.field.first(where: { $0.name == name }) else {
                    throw tokens.error("\(fullName.dropFirst()) has no field '\(name)'", at: token)
                }
                let isMessage = field.type == .message || field.type == .group
                if try tokens.peekSymbol() == UInt8(ascii: ":") {
                    _ = try tokens.next()
                } else if !isMessage {
                    throw tokens.error("expected ':' after '\(name)'", at: token)
                }
                if try tokens.peekSymbol() == UInt8(ascii: "[") {
                    guard field.label == .repeated else { throw tokens.error("'\(name)' is not repeated; it takes one value", at: token) }
                    _ = try tokens.next()
                    if try tokens.peekSymbol() == UInt8(ascii: "]") {
                        _ = try tokens.next()
                    } else {
                        while true {
                            try readValue(of: field, from: &tokens, into: &output)
                            let separator = try tokens.next()
                            if case .symbol(UInt8(ascii: "]")) = separator.kind { break }
                            guard case .symbol(UInt8(ascii: ",")) = separator.kind else {
                                throw tokens.error("expected ',' or ']' in the list of '\(name)'", at: separator)
                            }
                        }
                    }
                } else {
                    try readValue(of: field, from: &tokens, into: &output)
                }
                if let symbol = try tokens.peekSymbol(), symbol == UInt8(ascii: ";") || symbol == UInt8(ascii: ",") {
                    _ = try tokens.next()
                }
            default:
                throw tokens.error("expected a field name", at: token)
            }
        }
    }

    private func readValue(of field: Google_Protobuf_FieldDescriptorProto, from tokens: inout Tokenizer,
                           into output: inout [UInt8]) throws(TextFormatError) {
        let name = field.protoName
        let token = try tokens.next()
        func tag(_ wireType: WireType) {
            Self.appendVarint(UInt64(Wire.tag(fieldNumber: Int(field.number ?? 0), wireType: wireType)), to: &output)
        }
        func varint(_ value: UInt64) {
            tag(.varint)
            Self.appendVarint(value, to: &output)
        }
        func fixed(_ value: UInt64, bytes: Int) {
            tag(bytes == 4 ? .fixed32 : .fixed64)
            for index in 0..<bytes { output.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
        }
        func lengthDelimited(_ bytes: [UInt8]) {
            tag(.lengthDelimited)
            Self.appendVarint(UInt64(bytes.count), to: &output)
            output += bytes
        }
        func integer(signed: Bool, bits: Int) throws(TextFormatError) -> UInt64 {
            guard case let .number(text) = token.kind, let value = Self.integer(text, signed: signed, bits: bits) else {
                throw tokens.error("'\(name)' takes \(signed ? "an" : "a non-negative") integer of \(bits) bits", at: token)
            }
            return value
        }
        switch field.type {
        case .message?:
            guard case let .symbol(open) = token.kind, open == UInt8(ascii: "{") || open == UInt8(ascii: "<") else {
                throw tokens.error("'\(name)' takes a message in braces", at: token)
            }
            var body: [UInt8] = []
            try readFields(of: field.typeName ?? "", from: &tokens, until: open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">"),
                           into: &body)
            lengthDelimited(body)
        case .string?, .bytes?:
            guard case let .string(first) = token.kind else { throw tokens.error("'\(name)' takes a quoted string", at: token) }
            var bytes = first
            while case let .string(more)? = try tokens.peek()?.kind {
                bytes += more
                _ = try tokens.next()
            }
            if field.type == .string, String(validating: bytes, as: UTF8.self) == nil {
                throw tokens.error("'\(name)' is not valid UTF-8", at: token)
            }
            lengthDelimited(bytes)
        case .bool?:
            guard case let .identifier(word) = token.kind, word == "true" || word == "false" else {
                throw tokens.error("'\(name)' takes true or false", at: token)
            }
            varint(word == "true" ? 1 : 0)
        case .enum_?:
            let values = enums[field.typeName ?? ""]?.value ?? []
            if case let .identifier(word) = token.kind, let value = values.first(where: { $0.name == word }) {
                varint(UInt64(bitPattern: Int64(value.number ?? 0)))
            } else {
                let known = values.compactMap(\.name).joined(separator: ", ")
                throw tokens.error("'\(name)' takes one of \(known)", at: token)
            }
        case .uint32?: varint(try integer(signed: false, bits: 32))
        case .uint64?: varint(try integer(signed: false, bits: 64))
        case .int32?, .int64?: varint(try integer(signed: true, bits: field.type == .int32 ? 32 : 64))
        case .sint32?, .sint64?:
            varint(SwiftFrame.Wire.zigZag(Int64(bitPattern: try integer(signed: true, bits: field.type == .sint32 ? 32 : 64))))
        case .fixed32?: fixed(try integer(signed: false, bits: 32), bytes: 4)
        case .fixed64?: fixed(try integer(signed: false, bits: 64), bytes: 8)
        case .sfixed32?: fixed(try integer(signed: true, bits: 32), bytes: 4)
        case .sfixed64?: fixed(try integer(signed: true, bits: 64), bytes: 8)
        case .float?, .double?, .group?, nil:
            throw tokens.error("'\(name)' has a type the config reader does not read", at: token)
        }
    }

    /// A decimal or `0x` number that fits, as the bits of a varint (negative numbers as their
    /// 64-bit two's complement, as protobuf writes int32 and int64).
    private static func integer(_ text: String, signed: Bool, bits: Int) -> UInt64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : Substring(text)
        let magnitude = digits.hasPrefix("0x") || digits.hasPrefix("0X")
            ? UInt64(digits.dropFirst(2), radix: 16) : UInt64(digits, radix: 10)
        guard let magnitude else { return nil }
        if negative {
            guard signed, magnitude <= UInt64(1) << (bits - 1) else { return nil }
            return 0 &- magnitude  // two's complement; -2^63 has no positive Int64
        }
        let limit = signed ? (UInt64(1) << (bits - 1)) - 1 : (bits == 64 ? UInt64.max : (UInt64(1) << bits) - 1)
        return magnitude <= limit ? magnitude : nil
    }

    private static func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        output.append(UInt8(value))
    }
}

/// The tokens of text format: identifiers, numbers, quoted strings (escapes resolved) and
/// single-character symbols; `#` comments and whitespace between them.
private struct Tokenizer {
    struct Token {
        enum Kind {
            case identifier(String)
            case number(String)
            case string([UInt8])
            case symbol(UInt8)
            case end
        }
        let kind: Kind
        let line: Int
        let column: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var peeked: Token?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String, at token: Token? = nil) -> TextFormatError {
        TextFormatError(line: token?.line ?? line, column: token?.column ?? index - lineStart + 1, message: message)
    }

    mutating func peek() throws(TextFormatError) -> Token? {
        if peeked == nil { peeked = try scan() }
        return peeked
    }

    mutating func peekSymbol() throws(TextFormatError) -> UInt8? {
        if case let .symbol(symbol)? = try peek()?.kind { return symbol }
        return nil
    }

    mutating func next() throws(TextFormatError) -> Token {
        if let token = peeked {
            peeked = nil
            return token
        }
        return try scan()
    }

    private mutating func scan() throws(TextFormatError) -> Token {
        skipSpaceAndComments()
        let (startLine, startColumn) = (line, index - lineStart + 1)
        func token(_ kind: Token.Kind) -> Token { Token(kind: kind, line: startLine, column: startColumn) }
        guard index < bytes.count else { return token(.end) }
        let byte = bytes[index]
        if Self.isLetter(byte) {
            let start = index
            while index < bytes.count, Self.isLetter(bytes[index]) || Self.isDigit(bytes[index]) { index += 1 }
            return token(.identifier(String(decoding: bytes[start..<index], as: UTF8.self)))
        }
        if Self.isDigit(byte) || byte == UInt8(ascii: "-") {
            let start = index
            index += 1
            while index < bytes.count, Self.isLetter(bytes[index]) || Self.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
                index += 1
            }
            return token(.number(String(decoding: bytes[start..<index], as: UTF8.self)))
        }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            return token(.string(try scanString(quote: byte)))
        }
        index += 1
        guard "{}<>:[],;".utf8.contains(byte) else {
            throw TextFormatError(line: startLine, column: startColumn, message: "unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
        return token(.symbol(byte))
    }

    private mutating func skipSpaceAndComments() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            default:
                return
            }
        }
    }

    /// A quoted string with C escapes (`\n`, `\"`, `\\`, octal, `\x` hex), as protoc writes them.
    private mutating func scanString(quote: UInt8) throws(TextFormatError) -> [UInt8] {
        let start = index
        index += 1
        var end = index
        while end < bytes.count, bytes[end] != quote {
            if bytes[end] == UInt8(ascii: "\n") { break }
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count, bytes[end] == quote else {
            index = start
            throw error("unterminated string")
        }
        let body = String(decoding: bytes[index..<end], as: UTF8.self)
        index = end + 1
        return DefaultValues.unescapeC(body)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
