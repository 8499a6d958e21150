/// Swift literals for proto2 `[default = ...]` values, from the text protoc puts in the
/// descriptor: numbers as written, `inf`/`-inf`/`nan` for floats, strings unescaped,
/// bytes C-escaped, enums by value name.
enum DefaultValues {
    static func literal(_ text: String, for kind: Field.Kind) -> String? {
        switch kind {
        case .scalar(.float): return floating(text, type: "Swift.Float")
        case .scalar(.double): return floating(text, type: "Swift.Double")
        case .scalar(.bool): return text == "true" ? "true" : "false"
        case .scalar(.string): return stringLiteral(text)
        case .scalar(.bytes): return "[" + unescapeC(text).map(String.init).joined(separator: ", ") + "]"
        case .scalar: return text
        case let .enumeration(enumType):
            if let match = enumType.cases.first(where: { $0.protoName == text }) { return "." + match.swiftName }
            if let alias = enumType.aliases.first(where: { $0.protoName == text }) { return "." + alias.swiftName }
            return nil
        case .message, .map: return nil
        }
    }

    private static func floating(_ text: String, type: String) -> String {
        switch text {
        case "inf": return "\(type).infinity"
        case "-inf": return "-\(type).infinity"
        case "nan": return "\(type).nan"
        default: return text
        }
    }

    /// A Swift string literal: quotes, backslashes and anything not printable ASCII escaped.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case " "..."~": result.unicodeScalars.append(scalar)
            default: result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result + "\""
    }

    /// protoc's C escaping of bytes defaults: \n \r \t \" \' \\, octal \NNN and hex \xHH; and
    /// text format's `\uXXXX` and `\UXXXXXXXX`, written as UTF-8 (a number that is no code
    /// point, such as a lone surrogate, becomes U+FFFD, where protoc reports an error).
    static func unescapeC(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        func isOctal(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x37 }
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x61...0x66: return byte - 0x61 + 10
            case 0x41...0x46: return byte - 0x41 + 10
            default: return nil
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0x5C, index < bytes.count else {
                result.append(byte)
                continue
            }
            let escape = bytes[index]
            index += 1
            switch escape {
            case 0x6E: result.append(0x0A)  // n
            case 0x72: result.append(0x0D)  // r
            case 0x74: result.append(0x09)  // t
            case 0x61: result.append(0x07)  // a
            case 0x62: result.append(0x08)  // b
            case 0x66: result.append(0x0C)  // f
            case 0x76: result.append(0x0B)  // v
            case 0x78:  // x: up to two hex digits
                var value: UInt8 = 0
                var digits = 0
                while digits < 2, index < bytes.count, let digit = hexValue(bytes[index]) {
                    value = value << 4 | digit
                    index += 1
                    digits += 1
                }
                result.append(value)
            case 0x75, 0x55:  // u: four hex digits, U: eight; a code point, as UTF-8
                var value: UInt32 = 0
                var digits = 0
                while digits < (escape == 0x75 ? 4 : 8), index < bytes.count, let digit = hexValue(bytes[index]) {
                    value = value << 4 | UInt32(digit)
                    index += 1
                    digits += 1
                }
                result += Array(String(Unicode.Scalar(value).map(Character.init) ?? "\u{FFFD}").utf8)
            case _ where isOctal(escape):  // up to three octal digits
                var value = Int(escape - 0x30)
                var digits = 1
                while digits < 3, index < bytes.count, isOctal(bytes[index]) {
                    value = value << 3 | Int(bytes[index] - 0x30)
                    index += 1
                    digits += 1
                }
                result.append(UInt8(truncatingIfNeeded: value))
            default: result.append(escape)  // \" \' \\ \?
            }
        }
        return result
    }
}
