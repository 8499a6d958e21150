/// The C escapes of protobuf's text format, both ways.
@_documentation(visibility: internal)
public enum TextFormatEscapes {
    /// Bytes between double quotes, escaped as protobuf's CEscape does: the usual
    /// backslash escapes, and every other byte outside printable ASCII in three octal digits.
    public static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
        var text: [UInt8] = [UInt8(ascii: "\"")]
        text.reserveCapacity(bytes.count + 2)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"): text += [0x5C, UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): text += [0x5C, UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): text += [0x5C, UInt8(ascii: "t")]
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): text += [0x5C, byte]
            case 0x20..<0x7F: text.append(byte)
            default: text += [0x5C, 0x30 + byte >> 6, 0x30 + (byte >> 3) & 7, 0x30 + byte & 7]
            }
        }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a quoted string's body (text format, and `[default = ...]` in a .proto):
    /// \n \r \t \" \' \\, octal \NNN and hex \xHH; and `\uXXXX` and `\UXXXXXXXX`, written
    /// as UTF-8 (a number that is no code point, such as a lone surrogate, becomes U+FFFD,
    /// where protoc reports an error).
    public static func unescape(_ text: String) -> [UInt8] {
        unescape(text, strict: false).bytes
    }

    /// A quoted string's body that protobuf's text-format parser refuses, and why.
    struct StrictError: Error {
        let message: String
    }

    /// The bytes of a quoted string's body as protobuf's text-format parser reads them: how
    /// the reader reads strings. Unlike `unescape(_:)`, it refuses an escape protobuf does not
    /// have (`\q`, `\X`, `\8`), `\x` without a hex digit, `\u` without four hex digits and
    /// `\U` without eight, and a `\u` or `\U` escape that is no Unicode scalar (a surrogate,
    /// alone or in a pair, or a number past U+10FFFF).
    static func unescapeStrictly(_ text: String) throws(StrictError) -> [UInt8] {
        let (bytes, problem) = unescape(text, strict: true)
        if let problem { throw StrictError(message: problem) }
        return bytes
    }

    /// The bytes, and in strict mode the first problem (where reading stopped).
    private static func unescape(_ text: String, strict: Bool) -> (bytes: [UInt8], problem: String?) {
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
                if strict && digits == 0 { return (result, "\\x without a hex digit") }
                result.append(value)
            case 0x75, 0x55:  // u: four hex digits, U: eight; a code point, as UTF-8
                var value: UInt32 = 0
                var digits = 0
                while digits < (escape == 0x75 ? 4 : 8), index < bytes.count, let digit = hexValue(bytes[index]) {
                    value = value << 4 | UInt32(digit)
                    index += 1
                    digits += 1
                }
                let wanted = escape == 0x75 ? 4 : 8
                if strict && digits < wanted {
                    return (result, "\\\(escape == 0x75 ? "u" : "U") without \(wanted) hex digits")
                }
                guard let scalar = Unicode.Scalar(value) else {
                    if strict {
                        return (result, "a \\u or \\U escape that is no Unicode scalar (a surrogate, or past U+10FFFF)")
                    }
                    result += [0xEF, 0xBF, 0xBD]  // U+FFFD
                    continue
                }
                result += Array(String(Character(scalar)).utf8)
            case _ where isOctal(escape):  // up to three octal digits
                var value = Int(escape - 0x30)
                var digits = 1
                while digits < 3, index < bytes.count, isOctal(bytes[index]) {
                    value = value << 3 | Int(bytes[index] - 0x30)
                    index += 1
                    digits += 1
                }
                result.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "?"):
                result.append(escape)
            default:
                if strict { return (result, "'\\\(Character(Unicode.Scalar(escape)))' is no escape") }
                result.append(escape)
            }
        }
        return (result, nil)
    }
}
