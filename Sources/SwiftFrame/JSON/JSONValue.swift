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

struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    private init(_ bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The one value of `bytes`, with nothing but whitespace around it.
    static func parse(_ bytes: [UInt8], maxDepth: Int) throws(JSONError) -> JSONNode {
        // Checked whole only when there is anything but ASCII (the check makes a String).
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else {
            throw JSONError(.syntax, path: "$", offset: 0, "the input is not UTF-8")
        }
        var parser = JSONParser(bytes, maxDepth: maxDepth)
        let node = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("more after the JSON value") }
        return node
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(.syntax, path: "$", offset: offset ?? index, message)
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(JSONError) -> JSONNode {
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
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
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

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
        guard matches else { throw error("expected \(word)") }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws(JSONError) -> JSONNode.Value {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("a number without digits", at: start) }
        guard integerDigits == 1 || bytes[integerStart] != 0x30 else { throw error("a number with a leading zero", at: start) }
        let integerEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("no digits after a number's '.'", at: start) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("no digits in a number's exponent", at: start) }
        }
        if index == integerEnd && integerDigits <= 19 {
            var magnitude: UInt64 = 0
            for digit in bytes[integerStart..<integerEnd] { magnitude = magnitude &* 10 &+ UInt64(digit &- 0x30) }
            return .integer(negative: integerStart > start, magnitude: magnitude)
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// A quoted string, its escapes resolved.
    private mutating func string() throws(JSONError) -> String {
        let start = index
        index += 1
        // Most strings have no escape: made from the input's bytes in one step.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[index..<end]), as: UTF8.self) }
        }
        var out = Array(bytes[index..<end])
        index = end
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
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
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
                    guard let character = Unicode.Scalar(scalar) else { throw error("a bad \\u escape", at: escapeStart) }
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
