// The tokens of protobuf's text format, for TextFormatReader.

/// The tokens of text format: identifiers, numbers, quoted strings (escapes resolved) and
/// single-character symbols (`.` and `/` for an Any's type URL); `#` comments and whitespace
/// between them.
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

    /// What stands between the `[` just read and its `]` (which it reads too): an extension's
    /// full name or an Any's type URL, as protobuf's parser reads them, the characters of a
    /// URL with the spaces and `#` comments between them dropped (`[type.googleapis.com/
    /// pkg.Type]`, `[pkg . ext]`). Any other character is refused.
    mutating func bracketedName(after open: Token) throws(TextFormatError) -> String {
        precondition(peeked == nil, "bracketedName() reads on from the '[' just returned")
        var name: [UInt8] = []
        while true {
            skipSpaceAndComments()
            guard index < bytes.count else { throw error("missing ']' after '['", at: open) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "]") {
                index += 1
                return String(decoding: name, as: UTF8.self)
            }
            guard Self.isLetter(byte) || Self.isDigit(byte) || "-.~!$&()*+,;=%/".utf8.contains(byte) else {
                throw error("unexpected character '\(Character(Unicode.Scalar(byte)))' in a name in brackets")
            }
            name.append(byte)
            index += 1
        }
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
        let startsFraction = byte == UInt8(ascii: ".") && index + 1 < bytes.count && Self.isDigit(bytes[index + 1])
        if Self.isDigit(byte) || byte == UInt8(ascii: "-") || startsFraction {
            // A '-' is a token of its own for protobuf's parser: spaces and comments may follow
            // it (`- 1`); it is kept as the number's first character.
            var sign = ""
            if byte == UInt8(ascii: "-") {
                sign = "-"
                index += 1
                skipSpaceAndComments()
            } else {
                index += 1
            }
            let start = sign.isEmpty ? index - 1 : index
            while index < bytes.count,
                Self.isLetter(bytes[index]) || Self.isDigit(bytes[index])
                    || bytes[index] == UInt8(ascii: ".") || isExponentSign(at: index, in: bytes[start..<index])
            {
                index += 1
                // A float's `f` suffix ends the number when a digit or a point follows: `1.5f2`
                // is two tokens to protobuf's tokenizer (a letter after it is one bad token).
                if endsWithSuffix(at: index, in: bytes[start..<index]) { break }
            }
            return token(.number(sign + String(decoding: bytes[start..<index], as: UTF8.self)))
        }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            return token(.string(try scanString(quote: byte)))
        }
        index += 1
        guard "{}<>:[],;./".utf8.contains(byte) else {
            throw TextFormatError(
                line: startLine, column: startColumn,
                message: "unexpected character '\(Character(Unicode.Scalar(byte)))'")
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
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), 0x0B, 0x0C:  // C's isspace
                index += 1
            case UInt8(ascii: "#"):
                // A comment ends at its line's end, or at a NUL (which is then refused, as
                // protobuf's tokenizer refuses it).
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != 0 { index += 1 }
            default:
                return
            }
        }
    }

    /// A quoted string with C escapes (`\n`, `\"`, `\\`, octal, `\x` hex), as protoc writes them;
    /// a raw newline or NUL in it is refused.
    private mutating func scanString(quote: UInt8) throws(TextFormatError) -> [UInt8] {
        let start = index
        index += 1
        var end = index
        while end < bytes.count, bytes[end] != quote {
            // A string ends at its line's end, and at a NUL, as protobuf's tokenizer ends it.
            if bytes[end] == UInt8(ascii: "\n") || bytes[end] == 0 { break }
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count, bytes[end] == quote else {
            index = start
            throw error("unterminated string")
        }
        let body = String(decoding: bytes[index..<end], as: UTF8.self)
        let value: [UInt8]
        do {
            value = try TextFormatEscapes.unescapeStrictly(body)
        } catch {
            throw self.error(error.message)
        }
        index = end + 1
        return value
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Whether `number`, just scanned up to `index`, is a decimal number that ends in an `f`
    /// or `F` suffix after a digit or a point, and a digit or a point follows it.
    private func endsWithSuffix(at index: Int, in number: ArraySlice<UInt8>) -> Bool {
        guard index < bytes.count, Self.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "."),
            number.count >= 2, number.last == UInt8(ascii: "f") || number.last == UInt8(ascii: "F")
        else { return false }
        let before = number[number.index(before: number.endIndex - 1)]
        let hex = number.starts(with: "0x".utf8) || number.starts(with: "0X".utf8)
        return !hex && (Self.isDigit(before) || before == UInt8(ascii: "."))
    }

    /// A `+` or `-` right after the `e` of a decimal number's exponent (`1.5e+20`).
    private func isExponentSign(at index: Int, in number: ArraySlice<UInt8>) -> Bool {
        let byte = bytes[index]
        guard byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-"), let last = number.last else { return false }
        let hex = number.starts(with: "0x".utf8) || number.starts(with: "0X".utf8)
        return (last == UInt8(ascii: "e") || last == UInt8(ascii: "E")) && !hex
    }
}
