// The tokens of protobuf's text format, for TextFormatReader.

/// The tokens of text format: identifiers, numbers, quoted strings (escapes resolved) and
/// single-character symbols; `#` comments and whitespace between them.
struct TextFormatTokenizer {
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

    /// The text up to the next `]`, which it consumes, without surrounding spaces: the name
    /// in `[type.googleapis.com/pkg.Type]`, right after its `[` was read.
    mutating func bracketedName() throws(TextFormatError) -> String {
        precondition(peeked == nil, "bracketedName() follows next(), never peek()")
        skipSpaceAndComments()
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "]"), bytes[index] != UInt8(ascii: "\n") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "]") else { throw error("missing ']'") }
        var end = index
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        index += 1
        return String(decoding: bytes[start..<end], as: UTF8.self)
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
            while index < bytes.count, Self.isLetter(bytes[index]) || Self.isDigit(bytes[index])
                || bytes[index] == UInt8(ascii: ".") || isExponentSign(at: index, in: bytes[start..<index]) {
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
        guard let value = TextFormatEscapes.unescapeStrictly(body) else {
            throw error("a \\u or \\U escape that is no Unicode scalar (a surrogate, or past U+10FFFF)")
        }
        index = end + 1
        return value
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A `+` or `-` right after the `e` of a decimal number's exponent (`1.5e+20`).
    private func isExponentSign(at index: Int, in number: ArraySlice<UInt8>) -> Bool {
        let byte = bytes[index]
        guard byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-"), let last = number.last else { return false }
        let hex = number.starts(with: "0x".utf8) || number.starts(with: "-0x".utf8) || number.starts(with: "0X".utf8)
        return (last == UInt8(ascii: "e") || last == UInt8(ascii: "E")) && !hex
    }
}
