/// A JSON document read into values, each with the byte offset it starts at. Strict RFC 8259:
/// no comments, no trailing commas, no leading zeros or `+`, escapes checked (a lone
/// surrogate is an error), control characters only escaped, nesting bounded.
struct JSONNode {
    // Not `indirect`: the arrays already hold their elements out of line, and an indirect
    // enum would box every value.
    enum Value {
        case null
        case bool(Bool)
        /// A number with no fraction and no exponent, of at most 19 digits (which fit 64
        /// bits): most numbers, read without making a String.
        case integer(negative: Bool, magnitude: UInt64)
        /// Any other number's text, as written (its grammar checked).
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    let value: Value
    let offset: Int
}

struct JSONMember {
    let key: String
    let offset: Int
    let value: JSONNode
}

/// A number as written: where its text is, and its value when that is quick to know.
struct JSONNumberToken {
    let start: Int
    let end: Int
    /// No fraction, no exponent, at most 19 digits (which fit 64 bits): `negative` and
    /// `mantissa` are its value.
    let isPlainInteger: Bool
    let negative: Bool
    /// The number is `mantissa` × 10^`scale` (with its sign) when `isExact`: it has at most
    /// 19 digits and an exponent of at most four digits.
    let mantissa: UInt64
    let scale: Int
    let isExact: Bool

    /// The double the number stands for when both the mantissa (at most 2^53) and the power
    /// of ten (up to 10^22 either way) are exact doubles: then one multiplication or division
    /// rounds correctly (Clinger's fast path). Nil for any other number, which
    /// `Double(String)` reads.
    var fastDouble: Double? {
        guard isExact, mantissa <= UInt64(1) << 53 else { return nil }
        var value = Double(mantissa)
        if mantissa != 0 && scale != 0 {
            guard scale >= -22, scale <= 22 else { return nil }
            value = scale < 0 ? value / Self.powersOfTen[-scale] : value * Self.powersOfTen[scale]
        }
        return negative ? -value : value
    }

    /// 10^0 ... 10^22, each exact in a double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}

/// The tokenizer of JSON text, and the reader of a value (or the whole document) into nodes.
/// The streaming reader (`JSONStreamReader`) reads its tokens with it.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let maxDepth: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0, maxDepth: Int) {
        self.bytes = bytes
        self.index = index
        self.maxDepth = maxDepth
    }

    /// Whether `bytes` is UTF-8 (checked whole only when there is anything but ASCII: the
    /// check makes a String).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // ASCII, eight bytes at a time, unless a byte has its high bit set.
        let raw = UnsafeRawBufferPointer(bytes)
        var high: UInt64 = 0
        var index = 0
        while index + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < raw.count {
            high |= UInt64(raw[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0 || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The one value of `bytes`, with nothing but whitespace around it.
    static func parse(_ bytes: [UInt8], maxDepth: Int) throws(JSONError) -> JSONNode {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONNode, JSONError> in
            guard isUTF8(buffer) else {
                return .failure(JSONError(.syntax, path: "$", offset: 0, "the input is not UTF-8"))
            }
            var parser = JSONParser(buffer, maxDepth: maxDepth)
            do throws(JSONError) {
                let node = try parser.value(depth: 0)
                parser.skipSpace()
                guard parser.index == buffer.count else { throw parser.error("more after the JSON value") }
                return .success(node)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(.syntax, path: "$", offset: offset ?? index, message)
    }

    mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONNode {
        skipSpace()
        let start = index
        guard index < bytes.count else { throw error("the input ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else {
                throw JSONError(.tooDeep, path: "$", offset: start, "objects and arrays nested deeper than \(maxDepth)")
            }
            index += 1
            var members: [JSONMember] = []
            members.reserveCapacity(8)  // one allocation for most objects, not four as it grows
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return JSONNode(value: .object(members), offset: start)
            }
            while true {
                skipSpace()
                let keyOffset = index
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a quoted member name")
                }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("expected ':' after a member name")
                }
                index += 1
                members.append(JSONMember(key: key, offset: keyOffset, value: try value(depth: depth + 1)))
                skipSpace()
                guard index < bytes.count else { throw error("the input ends inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}' in an object") }
                index += 1
                return JSONNode(value: .object(members), offset: start)
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else {
                throw JSONError(.tooDeep, path: "$", offset: start, "objects and arrays nested deeper than \(maxDepth)")
            }
            index += 1
            var elements: [JSONNode] = []
            elements.reserveCapacity(8)
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return JSONNode(value: .array(elements), offset: start)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw error("the input ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']' in an array") }
                index += 1
                return JSONNode(value: .array(elements), offset: start)
            }
        case UInt8(ascii: "\""):
            return JSONNode(value: .string(try string()), offset: start)
        case UInt8(ascii: "t"):
            try literal("true")
            return JSONNode(value: .bool(true), offset: start)
        case UInt8(ascii: "f"):
            try literal("false")
            return JSONNode(value: .bool(false), offset: start)
        case UInt8(ascii: "n"):
            try literal("null")
            return JSONNode(value: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: try number(), offset: start)
        default:
            throw error("unexpected character where a value should be")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
        guard matches else { throw error("expected \(word)") }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, its digits gathered as it goes.
    mutating func numberToken() throws(JSONError) -> JSONNumberToken {
        let start = index
        let end = bytes.count
        var position = index
        let negative = position < end && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        // Every digit goes into the mantissa (a leading zero adds nothing); more than 19 may
        // not fit, and make the number inexact.
        var mantissa: UInt64 = 0
        var scale = 0
        let integerStart = position
        while position < end {
            let digit = bytes[position] &- 0x30
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            position += 1
        }
        let integerDigits = position - integerStart
        guard integerDigits > 0 else { throw error("a number without digits", at: start) }
        guard integerDigits == 1 || bytes[integerStart] != 0x30 else {
            throw error("a number with a leading zero", at: start)
        }
        var isPlainInteger = integerDigits <= 19
        var fractionDigits = 0
        if position < end, bytes[position] == UInt8(ascii: ".") {
            isPlainInteger = false
            position += 1
            let fractionStart = position
            while position < end {
                let digit = bytes[position] &- 0x30
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                position += 1
            }
            guard position > fractionStart else { throw error("no digits after a number's '.'", at: start) }
            fractionDigits = position - fractionStart
            scale = -fractionDigits
        }
        var exponentFits = true
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isPlainInteger = false
            position += 1
            let exponentNegative = position < end && bytes[position] == UInt8(ascii: "-")
            if position < end, exponentNegative || bytes[position] == UInt8(ascii: "+") { position += 1 }
            let exponentStart = position
            var exponent = 0
            while position < end {
                let digit = bytes[position] &- 0x30
                guard digit < 10 else { break }
                if exponent < 10_000 { exponent = exponent * 10 + Int(digit) } else { exponentFits = false }
                position += 1
            }
            guard position > exponentStart else { throw error("no digits in a number's exponent", at: start) }
            scale += exponentNegative ? -exponent : exponent
        }
        index = position
        return JSONNumberToken(
            start: start, end: position, isPlainInteger: isPlainInteger, negative: negative,
            mantissa: mantissa, scale: scale, isExact: integerDigits + fractionDigits <= 19 && exponentFits)
    }

    private mutating func number() throws(JSONError) -> JSONNode.Value {
        let token = try numberToken()
        if token.isPlainInteger { return .integer(negative: token.negative, magnitude: token.mantissa) }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self))
    }

    /// The content of the quoted string at `index` when it has no escape (most strings), the
    /// index moved past it; nil, the index left at the quote, when it has one.
    mutating func plainString() -> Range<Int>? {
        var end = index + 1
        // Eight bytes at a time while none is a quote, a backslash or a control character.
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while end + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: end, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                // A byte is zero (or below 0x20) where subtracting sets its high bit, which was
                // clear; the lowest such byte is one (a borrow may mark only bytes above it).
                let found =
                    ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word)
                    & highs
                if found != 0 {
                    end += found.trailingZeroBitCount / 8
                    break
                }
                end += 8
            }
        }
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20
        {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        defer { index = end + 1 }
        return index + 1..<end
    }

    /// A quoted string, its escapes resolved.
    mutating func string() throws(JSONError) -> String {
        // Most strings have no escape: made from the input's bytes in one step.
        if let plain = plainString() {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[plain]), as: UTF8.self)
        }
        let start = index
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escapeStart = index
                index += 1
                guard index < bytes.count else { throw error("unterminated string", at: start) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(escapeStart)
                    if scalar >= 0xD800, scalar < 0xDC00 {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a high surrogate escape without its low surrogate", at: escapeStart) }
                        index += 2
                        let low = try hex4(escapeStart)
                        guard low >= 0xDC00, low < 0xE000 else {
                            throw error("a high surrogate escape without its low surrogate", at: escapeStart)
                        }
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    } else if scalar >= 0xDC00, scalar < 0xE000 {
                        throw error("a low surrogate escape on its own", at: escapeStart)
                    }
                    guard let character = Unicode.Scalar(scalar) else {
                        throw error("a bad \\u escape", at: escapeStart)
                    }
                    out += Array(String(Character(character)).utf8)
                default:
                    throw error("a bad escape in a string", at: escapeStart)
                }
            case 0..<0x20:
                throw error("a control character in a string must be escaped")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    private mutating func hex4(_ escapeStart: Int) throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits", at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw error("a \\u escape needs four hex digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
