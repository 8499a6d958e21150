/// What a message's text format needs to know about one of its fields: the number it has
/// on the wire, the name to print and how to read its value. Generated messages list theirs
/// in `textFormatFields`, in number order; a field not listed prints by number, as
/// `protoc --decode_raw` prints every field.
///
/// The row also says what JSON needs and the text format does not: how the field is present
/// (`label`), and its JSON name when the .proto gives it one of its own (`json_name`).
@_documentation(visibility: internal)
public struct TextFormatField: Sendable {
    public let number: Int32
    /// The proto field name (`nick_name`); for a group, its type name (`OptionalGroup`).
    public let name: String
    public let kind: TextFormatKind
    public let label: Label
    /// The field's `json_name` when it is not the one protoc derives from the proto name
    /// (`nick_name` → `nickName`); nil when it is.
    public let jsonName: String?

    /// How a field is present in a message.
    public enum Label: Sendable, Equatable {
        /// A proto3 singular field without presence: its default value is not kept.
        case implicit
        /// A singular field with presence: proto2 `optional` and `required`, proto3
        /// `optional`, a message or a group.
        case optional
        /// A repeated field or a map.
        case repeated
        /// A member of the message's oneof at this index (in declaration order); it has presence.
        case oneof(Int)
    }

    /// protoc's JSON name for a field without `json_name`: each `_` dropped and the letter
    /// after it upper-cased (`nick_name` → `nickName`). The generator writes a row's `json`
    /// only when it differs from this; JSON derives the others from it.
    public static func defaultJSONName(_ protoName: String) -> String {
        var result = ""
        var upperNext = false
        for character in protoName {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }

    // Three initializers rather than one with defaulted parameters: unoptimized code calls a
    // function for each default argument of each row, which made a debug build's code grow
    // with every row (optimized code is the same either way).

    @inlinable
    public init(_ number: Int32, _ name: String, _ kind: TextFormatKind) {
        self.init(number, name, kind, .implicit, json: nil)
    }

    @inlinable
    public init(_ number: Int32, _ name: String, _ kind: TextFormatKind, _ label: Label) {
        self.init(number, name, kind, label, json: nil)
    }

    @inlinable
    public init(_ number: Int32, _ name: String, _ kind: TextFormatKind, _ label: Label = .implicit, json: String?) {
        self.number = number
        self.name = name
        self.kind = kind
        self.label = label
        self.jsonName = json
    }
}

/// How a field's value is read and printed.
@_documentation(visibility: internal)
public enum TextFormatKind: Sendable {
    case int32, int64, uint32, uint64, sint32, sint64
    case fixed32, fixed64, sfixed32, sfixed64, float, double, bool, string, bytes
    /// An open (proto3) enum, printed by its value's name, or its number when it has none:
    /// the enum's `protoNames`.
    case enumeration([(number: Int32, name: String)])
    /// A closed (proto2) enum: a number it does not declare is an unknown field, and prints
    /// as one.
    case closedEnumeration([(number: Int32, name: String)])
    case message(any Message.Type)
    /// A proto2 group: a message between start and end tags.
    case group(any Message.Type)
    /// A message whose schema is data: the message at this index in the `TextFormatSchemaSet`
    /// the text is printed or read with (see `DynamicMessageSchema`). Types refer to one
    /// another by index, so a recursive message (`message Tree { Tree left = 1; }`) needs no
    /// reference cycle.
    case schemaMessage(Int)
    /// A group whose schema is data, as `schemaMessage`.
    case schemaGroup(Int)
    /// A map: its entries print as messages with a `key` and a `value`, sorted by key.
    /// (Only this case is `indirect`: with the whole enum `indirect`, LeakSanitizer reports
    /// the payload boxes held by the generated static tables as leaks; with one indirect case
    /// it does not.)
    indirect case map(key: TextFormatKind, value: TextFormatKind)

    /// The wire type a single value of this kind is written with.
    var wireType: WireType {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration, .closedEnumeration: return .varint
        case .fixed32, .sfixed32, .float: return .fixed32
        case .fixed64, .sfixed64, .double: return .fixed64
        case .string, .bytes, .message, .schemaMessage, .map: return .lengthDelimited
        case .group, .schemaGroup: return .startGroup
        }
    }
}

/// One message as the text format reads and prints it: its full name, its fields in number
/// order, with the extensions a registry holds for it (named `[pkg.name]`, as protobuf prints
/// them), and the field names it reserves, which the reader skips as protobuf's parser does.
struct TextFormatTable {
    let name: String
    let fields: [TextFormatField]
    let reservedNames: [String]

    init(
        name: String, fields: [TextFormatField], reservedNames: [String] = [], registry: MessageTypeRegistry? = nil
    ) {
        self.name = name
        self.reservedNames = reservedNames
        let extensions = registry?.extensions(of: name) ?? []
        self.fields =
            extensions.isEmpty
            ? fields : (fields + extensions.map(TextFormatField.init)).sorted { $0.number < $1.number }
    }

    /// A generated message's.
    init(_ type: any Message.Type, registry: MessageTypeRegistry?) {
        self.init(
            name: type.protoMessageName, fields: type.textFormatFields, reservedNames: type.textFormatReservedNames,
            registry: registry)
    }

    /// The table of a message or group kind: a generated type's, or a schema's in `schemas`;
    /// an empty one for any other kind.
    init(kind: TextFormatKind, schemas: TextFormatSchemaSet?, registry: MessageTypeRegistry?) {
        switch kind {
        case .message(let type), .group(let type):
            self.init(type, registry: registry)
        case .schemaMessage(let index), .schemaGroup(let index):
            guard let message = schemas?.message(at: index) else {
                self.init(name: "", fields: [])
                return
            }
            self.init(
                name: message.fullName, fields: message.fields, reservedNames: message.reservedNames,
                registry: registry)
        default:
            self.init(name: "", fields: [])
        }
    }
}

extension TextFormatField {
    /// A registered extension as a field of its container: `[pkg.name]`.
    init(_ registered: RegisteredExtension) {
        self.init(
            registered.number, "[" + registered.fullName + "]", registered.kind,
            registered.isRepeated ? .repeated : .optional)
    }
}

extension Message {
    /// Messages generated with `TextFormat=Numbers` list no fields: they print by number.
    public static var textFormatFields: [TextFormatField] { [] }

    /// No reserved names: only messages that reserve some list them.
    public static var textFormatReservedNames: [String] { [] }

    public static var fieldNamesLeftOut: Bool { false }

    /// The message in protobuf's text format, one field per line, exactly as
    /// `protoc --decode=Type` prints the message's encoding.
    public func textFormatString() -> String {
        TextFormatPrinter.print(self, multiline: true)
    }

    /// The message in protobuf's text format, one field per line; with `includeUnknownFields`
    /// false, fields the message's table does not list (unknown fields, and fields
    /// that arrived with another wire type) are left out, as protobuf's printer does unless
    /// told to print them.
    public func textFormatString(includeUnknownFields: Bool) -> String {
        TextFormatPrinter.print(self, multiline: true, printUnknownFields: includeUnknownFields)
    }

    /// The message in protobuf's text format, one field per line, with the extensions
    /// `registry` holds for its messages printed by name (`[pkg.extension_name]: 1`), as
    /// protobuf prints extensions it knows; other extensions print by number.
    public func textFormatString(includeUnknownFields: Bool = true, registry: MessageTypeRegistry) -> String {
        TextFormatPrinter.print(self, multiline: true, printUnknownFields: includeUnknownFields, registry: registry)
    }

    /// The message in protobuf's text format on one line (`nick_name: "neo" port: 8080`),
    /// as protobuf's `ShortDebugString` prints it: what `print(message)` shows.
    public var debugDescription: String {
        TextFormatPrinter.print(self, multiline: false)
    }
}

extension Enum {
    /// Enums generated with `TextFormat=Numbers` know no names.
    public static var protoNames: [(number: Int32, name: String)] { [] }

    /// The proto name of the value numbered `number` (its first name, if it has aliases).
    public static func protoName(forNumber number: Int32) -> String? { TextFormatKind.name(of: number, in: protoNames) }

    /// The proto name of the value (`USER_CMD_LOGIN`), or its number when it has none.
    public var debugDescription: String { Self.protoName(forNumber: rawValue) ?? String(rawValue) }
}

extension ClosedEnum {
    /// Enums generated with `TextFormat=Numbers` know no names.
    public static var protoNames: [(number: Int32, name: String)] { [] }

    /// The proto name of the value numbered `number` (its first name, if it has aliases).
    public static func protoName(forNumber number: Int32) -> String? { TextFormatKind.name(of: number, in: protoNames) }

    /// The proto name of the value (`USER_CMD_LOGIN`), or its number when it has none.
    public var debugDescription: String { Self.protoName(forNumber: rawValue) ?? String(rawValue) }
}

extension TextFormatKind {
    static func name(of number: Int32, in names: [(number: Int32, name: String)]) -> String? {
        names.first { $0.number == number }?.name
    }
}
