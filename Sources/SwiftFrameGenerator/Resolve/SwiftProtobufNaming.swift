/// The names protoc-gen-swift (swift-protobuf 1.x) gives a file's types, for command tables
/// generated beside its output (`Messages=SwiftProtobuf`): the tables name its types, so
/// they must spell them as it does.
///
/// - A top-level type is its file's prefix followed by the proto name as written
///   (`Test_Req` stays `Test_Req`; `login_request` in package `im.user` is
///   `Im_User_login_request`). The prefix is `option swift_prefix` when the file sets it (an
///   empty one included), else the package, each dotted part upper camel case with its
///   underscores dropped, each followed by `_` (`my_app.v1` → `MyApp_V1_`).
/// - A nested type is the proto name alone, inside its parent (`Outer.Inner`).
/// - A name Swift or SwiftProtobuf's runtime already uses (`Type`, `Int`, `Extensions`, a
///   keyword) gets `Message` or `Enum` after it, as does a name of only underscores; so does a
///   name that already ends in that word once its stem has been through the same rule
///   (`TypeMessage` → `TypeMessageMessage`), so that the two cannot meet.
enum SwiftProtobufNaming {
    /// The prefix of a file's top-level types.
    static func typePrefix(package: String, swiftPrefix: String?) -> String {
        if let swiftPrefix { return swiftPrefix }
        guard !package.isEmpty else { return "" }
        var prefix = ""
        for part in package.split(separator: ".", omittingEmptySubsequences: false) {
            for word in part.split(separator: "_") {
                if prefix.isEmpty, let first = word.first, first.isASCIIDigit { prefix += "_" }
                prefix += word.prefix(1).uppercased() + word.dropFirst()
            }
            prefix += "_"
        }
        return prefix
    }

    /// A message's Swift name: `name` is the proto name, with the file's prefix for a
    /// top-level message.
    static func messageName(_ name: String) -> String {
        typeName(name, suffix: "Message")
    }

    /// An enum's Swift name, as `messageName` for messages.
    static func enumName(_ name: String) -> String {
        typeName(name, suffix: "Enum")
    }

    private static func typeName(_ name: String, suffix: String) -> String {
        if reservedTypeNames.contains(name) || (!name.isEmpty && name.allSatisfy { $0 == "_" }) {
            return name + suffix
        }
        if name.hasSuffix(suffix) {
            return typeName(String(name.dropLast(suffix.count)), suffix: suffix) + suffix
        }
        return name
    }

    /// Type names protoc-gen-swift never gives a type as they are.
    static let reservedTypeNames: Set<String> = [
        // SwiftProtobuf's module, and names its messages use for members.
        "SwiftProtobuf", "Extensions", "protoMessageName", "decodeMessage", "traverse", "isInitialized",
        "unknownFields",
        // Members every Swift value has, and names of types it relies on.
        "debugDescription", "description", "dynamicType", "hashValue", "Type", "Protocol", "Swift", "Equatable",
        "Hashable", "Sendable",
        // Keywords of declarations, statements, expressions and types.
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "static", "struct", "subscript",
        "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any", "catch", "false", "is",
        "nil", "rethrows", "super", "self", "Self", "throw", "throws", "true", "try",
        // Standard types its generated code names unqualified.
        "Bool", "Data", "Double", "Float", "Int", "Int32", "Int64", "String", "UInt", "UInt32", "UInt64",
        // The compiler's literals of old.
        "__COLUMN__", "__FILE__", "__FUNCTION__", "__LINE__",
    ]
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
