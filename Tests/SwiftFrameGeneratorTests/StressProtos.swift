/// .proto sources full of names that are hard to turn into Swift: every Swift keyword and
/// common standard-library type, the names generated code declares itself, names that differ
/// only in case or underscores, and leading underscores and digits. Used as message, nested
/// type, enum, enum value, field, oneof and extension names, in proto2 and proto3.
enum StressProtos {
    static let keywords = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
        "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws",
        "true", "try", "_", "async", "actor", "borrowing", "consuming", "nonisolated", "isolated", "some", "any",
        "package", "macro", "each", "discard", "convenience", "dynamic", "final", "lazy", "mutating",
        "nonmutating", "optional", "override", "required", "unowned", "weak", "willSet", "didSet", "get", "set",
        "indirect", "infix", "prefix", "postfix", "Type", "Protocol", "throw", "sending",
    ]

    static let standardLibrary = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt32", "UInt64", "Float", "Double",
        "Bool", "Character", "Array", "Dictionary", "Set", "Optional", "Result", "Error", "Never", "Void",
        "AnyObject", "AnyHashable", "Sendable", "Hashable", "Equatable", "Comparable", "Codable", "Identifiable",
        "CaseIterable", "RawRepresentable", "Sequence", "Collection", "Range", "ObjectIdentifier", "Substring",
        "Hasher", "Encoder", "Decoder", "Task", "Actor", "Swift", "SwiftFrame", "Foundation", "Data",
    ]

    /// Members and types that generated code declares or calls.
    static let generated = [
        "Message", "Enum", "ClosedEnum", "Boxed", "UnknownFields", "Extension", "ProtoReader", "ProtoWriter",
        "WireError", "SizeCache", "unknownFields", "extensionFields", "protoMessageName", "decodeMessage",
        "computeSize", "encodeMessage", "serializedBytes", "serializedSize", "serialize", "merge", "hashValue",
        "hash", "description", "debugDescription", "checkInitialized", "rawValue", "allCases", "unrecognized",
        "Defaults", "defaults", "commandID", "Response", "ID", "Inbound", "Request", "decode", "decodeRequest",
        "encode", "layout", "unknown", "other", "value", "reader", "writer", "tag", "size", "cache", "box",
        "existing", "number", "newValue", "Body", "body", "decodedBody", "decoded_body",
    ]

    /// Names that differ only in case or underscores, and leading underscores and digits.
    static let lookalikes = [
        "foo_bar", "fooBar", "FooBar", "foo__bar", "_foo_bar", "FOO_BAR", "Foo_Bar", "foobar",
        "__", "_1st", "_2", "a1", "_a", "A_", "a_1", "a__1", "URL", "url", "Url", "HTTPServer", "http_server",
    ]

    static var allNames: [String] {
        var seen: Set<String> = []
        return (keywords + standardLibrary + generated + lookalikes).filter { seen.insert($0).inserted }
    }

    /// One file. Field, enum-value and nested-type names live in scopes of their own, so each
    /// list can use every name.
    static func file(syntax: String, package: String) -> String {
        let names = allNames
        let label = syntax == "proto2" ? "optional " : ""
        // proto3 rejects fields and enum values whose names differ only in case and
        // underscores; proto2 accepts them.
        var seen: Set<String> = []
        let folded =
            syntax == "proto2" ? names : names.filter { seen.insert($0.lowercased().filter { $0 != "_" }).inserted }
        var lines = ["syntax = \"\(syntax)\";", "package \(package);", ""]
        // Top-level messages, each with a field of its own name and one of its own type.
        for name in names {
            lines.append("message \(name) { \(label)int32 \(name) = 1; \(label).\(package).\(name) self_ref = 2; }")
        }
        // Every name as a field, as a nested message and as a nested enum's value.
        lines.append("message Fields {")
        for (index, name) in folded.enumerated() { lines.append("  \(label)int32 \(name) = \(index + 1);") }
        lines.append("}")
        lines.append("message Nested {")
        for name in names { lines.append("  message \(name) { \(label)string text = 1; }") }
        lines.append("  \(label)Fields fields = 1;")
        lines.append("}")
        lines.append("message Values {")
        lines.append("  enum Cases {")
        for (index, name) in folded.enumerated() { lines.append("    \(name) = \(index);") }
        lines.append("  }")
        lines.append("  \(label)Cases first = 1;")
        lines.append("  repeated Cases all = 2;")
        lines.append("}")
        // Every name as a oneof member, and oneofs named like the message's own members.
        lines.append("message Choices {")
        lines.append("  oneof choice {")
        for (index, name) in folded.enumerated() { lines.append("    int32 \(name) = \(index + 1);") }
        lines.append("  }")
        lines.append("  oneof unknown_fields { string uf_member = 2001; }")
        lines.append("  message Choice {}")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// proto2 only: defaults, extensions named like everything else, groups.
    static func extensions(package: String) -> String {
        let names = allNames
        var lines = ["syntax = \"proto2\";", "package \(package);", ""]
        lines.append("message Extended { extensions 100 to max; optional int32 defaults = 1 [default = 7]; }")
        lines.append("extend Extended {")
        for (index, name) in names.enumerated() { lines.append("  optional int32 \(name) = \(index + 100);") }
        lines.append("}")
        lines.append("message Scope {")
        lines.append("  message defaults_ {}")
        lines.append("  optional string text = 1 [default = \"x\"];")
        lines.append("  extend Extended {")
        for (index, name) in names.enumerated() { lines.append("    optional string \(name) = \(index + 1000);") }
        lines.append("  }")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
