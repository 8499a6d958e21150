import SwiftFrame

/// Every rule that turns a proto name into a Swift name. The resolver calls these once per
/// element; emitters only print the result.
public enum Naming {
    /// Message and enum names: the parts between underscores, each with its first letter
    /// upper-cased, joined (`login_request` → `LoginRequest`, `Cs_20001` → `Cs20001`).
    /// The rest of each part is kept as written (`HTTPRequest` stays `HTTPRequest`).
    /// A name that would start with a digit (`4fun.Foo` → `_4fun_Foo`) starts with `_`.
    public static func typeName(_ protoName: String, prefix: String = "") -> String {
        let words = words(protoName).map(capitalizedFirst).joined()
        let joined = prefix + (words.isEmpty ? "_" : words)
        return safe(joined.first?.isNumber == true ? "_" + joined : joined, reserved: reservedTypeNames)
    }

    /// Names of the module's top-level types: `typeName`, followed by `Message` or `Enum` when
    /// it would be a standard-library or Foundation type that app code names unqualified
    /// (`Error` → `ErrorMessage`, `Result` → `ResultEnum`). A top-level type of the generated
    /// module hides the library's in every file that imports the module; a nested type hides
    /// nothing at module scope, and a package prefix (`Im_Error`) makes the name another.
    public static func topLevelTypeName(_ protoName: String, prefix: String = "", isEnum: Bool = false) -> String {
        let name = typeName(protoName, prefix: prefix)
        return libraryTypeNames.contains(name) ? name + (isEnum ? "Enum" : "Message") : name
    }

    /// Prefix for the top-level types of a file in a package: each dotted component as a
    /// type name, joined and ended with underscores (`im.user` → `Im_User_`).
    public static func packagePrefix(_ package: String) -> String {
        guard !package.isEmpty else { return "" }
        return package.split(separator: ".").map { words(String($0)).map(capitalizedFirst).joined() + "_" }.joined()
    }

    /// A .proto file's name without its folders and extension: `user.proto` → `user`,
    /// `a/b/c.proto` → `c` (the file's helper types and a dissector are named after it).
    public static func stem(of fileName: String) -> String {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        return base.hasSuffix(".proto") ? String(base.dropLast(6)) : base
    }

    /// A field's JSON name as the generated table states it: protoc's `json_name`, or nil when
    /// it is the name protoc derives from the proto name (`nick_name` → `nickName`), which the
    /// runtime derives the same way (`TextFormatField.defaultJSONName`).
    public static func jsonName(_ given: String?, of protoName: String) -> String? {
        guard let given, given != TextFormatField.defaultJSONName(protoName) else { return nil }
        return given
    }

    /// Field names: lowerCamelCase (`nick_name` → `nickName`, `isSuc` → `isSuc`,
    /// `PLAYER_ID` → `playerId`).
    public static func fieldName(_ protoName: String) -> String {
        safe(lowerCamel(protoName), reserved: reservedFieldNames)
    }

    /// Enum case names: lowerCamelCase after dropping the enum's name when the value starts
    /// with it (`User_cmd_login` in `User_cmd` → `login`, `CMD_TEST` in `CommandEnum` →
    /// `cmdTest`). The prefix stays when dropping it would leave nothing or a leading digit.
    public static func caseName(_ valueName: String, enumName: String) -> String {
        safe(lowerCamel(strippingPrefix(enumName, from: valueName) ?? valueName), reserved: reservedCaseNames)
    }

    /// Case name without prefix stripping, used for every case of an enum when stripping
    /// would make two cases collide.
    public static func unstrippedCaseName(_ valueName: String) -> String {
        safe(lowerCamel(valueName), reserved: reservedCaseNames)
    }

    /// `valueName` with `enumName` removed from its front, compared case-insensitively and
    /// ignoring underscores; nil when it is not a prefix or stripping is not possible.
    static func strippingPrefix(_ enumName: String, from valueName: String) -> String? {
        let prefix = Array(enumName.lowercased().filter { $0 != "_" })
        var matched = 0
        var index = valueName.startIndex
        while matched < prefix.count, index < valueName.endIndex {
            let character = valueName[index]
            if character == "_" {
                index = valueName.index(after: index)
                continue
            }
            guard Character(character.lowercased()) == prefix[matched] else { return nil }
            matched += 1
            index = valueName.index(after: index)
        }
        guard matched == prefix.count, index < valueName.endIndex, index > valueName.startIndex else {
            return nil
        }
        // The prefix must end at a word boundary: an underscore, or a capital after a
        // small letter (`ColorRed`); `COLORFUL` does not start with the word `Color`.
        let next = valueName[index]
        let previous = valueName[valueName.index(before: index)]
        guard next == "_" || (next.isUppercase && previous.isLowercase) else { return nil }
        let rest = valueName[index...].drop { $0 == "_" }
        guard let first = rest.first, !first.isNumber else { return nil }
        return String(rest)
    }

    static func lowerCamel(_ name: String) -> String {
        if let ascii = asciiLowerCamel(name) { return ascii }
        let parts = words(name)
        guard let first = parts.first else { return "_" }
        let result = lowerFirstWord(first) + parts.dropFirst().map(capitalized).joined()
        return result.first?.isNumber == true ? "_" + result : result
    }

    /// `lowerCamel` byte by byte for an ASCII name (nearly every name), with the same rules;
    /// nil for any other name.
    private static func asciiLowerCamel(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
        func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        func lowered(_ byte: UInt8) -> UInt8 { isUpper(byte) ? byte | 0x20 : byte }
        func uppered(_ byte: UInt8) -> UInt8 { isLower(byte) ? byte & ~0x20 : byte }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 1)
        for (index, word) in bytes.split(separator: UInt8(ascii: "_")).enumerated() {
            let allCaps = word.contains(where: isUpper) && !word.contains(where: isLower)
            if index == 0 {
                // `URL` → `url`, `HTTPServer` → `httpServer`, `Name` → `name`.
                let upperRun = word.prefix(while: isUpper).count
                let lowerCount = allCaps ? word.count : upperRun > 1 && upperRun < word.count ? upperRun - 1 : upperRun
                result += word.prefix(lowerCount).map(lowered)
                result += word.dropFirst(lowerCount)
            } else {
                result.append(uppered(word[word.startIndex]))
                result += allCaps ? word.dropFirst().map(lowered) : Array(word.dropFirst())
            }
        }
        guard let first = result.first else { return "_" }
        if first >= 0x30 && first <= 0x39 { result.insert(UInt8(ascii: "_"), at: 0) }
        return String(decoding: result, as: UTF8.self)
    }

    /// The parts of a name between underscores.
    static func words(_ name: String) -> [String] {
        name.split(separator: "_").map(String.init)
    }

    /// First letter upper-cased, the rest as written.
    static func capitalizedFirst(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// First letter upper-cased; an all-caps word (`TEST`) becomes `Test`.
    static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        let rest = word.dropFirst()
        return first.uppercased() + (isAllCaps(word) ? rest.lowercased() : String(rest))
    }

    /// The leading capitals lower-cased: `Name` → `name`, `URL` → `url`,
    /// `HTTPServer` → `httpServer`.
    static func lowerFirstWord(_ word: String) -> String {
        if isAllCaps(word) { return word.lowercased() }
        let characters = Array(word)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        // In `HTTPServer` the last capital of the run starts the next word.
        let lowered = upperRun > 1 && upperRun < characters.count ? upperRun - 1 : upperRun
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    static func isAllCaps(_ word: String) -> Bool {
        word.contains { $0.isLetter } && !word.contains { $0.isLowercase }
    }

    /// A name that is a Swift keyword or clashes with generated API gets a trailing `_`.
    static func safe(_ name: String, reserved: Set<String>) -> String {
        reserved.contains(name) ? name + "_" : name
    }

    /// Swift keywords that cannot be used as plain identifiers.
    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "_",
    ]

    /// `Type` and `Protocol` are members of every type; the module names must stay reachable.
    static let reservedTypeNames: Set<String> = swiftKeywords.union([
        "Type", "Protocol", "Swift", "SwiftFrame",
    ])

    /// Standard-library and Foundation types (and the Foundation module) that a generated
    /// top-level type must not hide. `Any`, `Type`, `Protocol` and `Self` are in the keyword
    /// rule instead.
    static let libraryTypeNames: Set<String> = [
        "Error", "Result", "Optional", "Never", "Void", "AnyObject", "AnyHashable",
        "String", "Substring", "Character", "Unicode", "Bool", "Double", "Float",
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Array", "Dictionary", "Set", "Range", "ClosedRange", "Sequence", "Collection",
        "Equatable", "Hashable", "Hasher", "Comparable", "Identifiable", "CaseIterable", "RawRepresentable",
        "CustomStringConvertible", "Codable", "Encodable", "Decodable", "Encoder", "Decoder",
        "Sendable", "Task", "Actor", "MainActor", "Duration", "Mirror",
        "Foundation", "Data", "Date", "URL", "UUID", "Decimal",
    ]

    /// Members every generated message has.
    static let reservedFieldNames: Set<String> = swiftKeywords.union([
        "unknownFields", "protoMessageName", "decodeMessage", "decodeField", "computeSize", "encodeMessage",
        "serializedBytes", "serializedSize", "serialize", "merge", "hashValue", "hash",
        "description", "debugDescription", "textFormatString",
    ])

    /// Members every generated enum has.
    static let reservedCaseNames: Set<String> = swiftKeywords.union([
        "unrecognized", "rawValue", "allCases", "hashValue", "hash", "description", "debugDescription", "protoNames",
    ])
}
