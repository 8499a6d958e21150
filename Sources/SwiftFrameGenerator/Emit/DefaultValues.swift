import SwiftFrame

/// Swift literals for proto2 `[default = ...]` values, from the text protoc puts in the
/// descriptor: numbers as written, `inf`/`-inf`/`nan` for floats, strings unescaped,
/// bytes C-escaped, enums by value name.
enum DefaultValues {
    static func literal(_ text: String, for value: Field.Value) -> String? {
        switch value {
        case .plain(.scalar(.float)): return floating(text, type: "Swift.Float")
        case .plain(.scalar(.double)): return floating(text, type: "Swift.Double")
        case .plain(.scalar(.bool)): return text == "true" ? "true" : "false"
        case .plain(.scalar(.string)): return stringLiteral(text)
        case .plain(.scalar(.bytes)):
            return "[" + TextFormatEscapes.unescape(text).map(String.init).joined(separator: ", ") + "]"
        case .plain(.scalar): return text
        case let .plain(.enumeration(enumType)):
            if let match = enumType.cases.first(where: { $0.protoName == text }) { return "." + match.swiftName }
            if let alias = enumType.aliases.first(where: { $0.protoName == text }) { return "." + alias.swiftName }
            return nil
        case .message, .group: return nil
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
}
