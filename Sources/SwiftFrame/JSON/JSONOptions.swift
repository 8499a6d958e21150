/// How a message is printed to and read from proto3's canonical JSON mapping.
public struct JSONOptions: Sendable, Equatable {
    /// Reading: a field name the message does not have (or an enum name its enum does not
    /// have) is skipped instead of being an error; a map entry whose value is such an enum
    /// name is skipped whole, key and all.
    public var ignoreUnknownFields: Bool
    /// Printing: fields without presence that hold their default (0, "", false, an empty
    /// list or map) are printed too. Fields with presence (proto2 fields, proto3 `optional`,
    /// oneof members, messages) print only when set, as ever.
    public var emitDefaultValues: Bool
    /// Printing: field names as the .proto writes them (`nick_name`) instead of their JSON
    /// names (`nickName`). Reading always accepts both.
    public var useProtoFieldNames: Bool
    /// The message types an `Any` may hold, for its `@type` form.
    public var registry: MessageTypeRegistry
    /// How deep objects and arrays may nest in the input.
    public var maxDepth: Int

    public init(
        ignoreUnknownFields: Bool = false, emitDefaultValues: Bool = false, useProtoFieldNames: Bool = false,
        registry: MessageTypeRegistry = MessageTypeRegistry(), maxDepth: Int = 100
    ) {
        self.ignoreUnknownFields = ignoreUnknownFields
        self.emitDefaultValues = emitDefaultValues
        self.useProtoFieldNames = useProtoFieldNames
        self.registry = registry
        self.maxDepth = maxDepth
    }

    public static func == (lhs: JSONOptions, rhs: JSONOptions) -> Bool {
        lhs.ignoreUnknownFields == rhs.ignoreUnknownFields && lhs.emitDefaultValues == rhs.emitDefaultValues
            && lhs.useProtoFieldNames == rhs.useProtoFieldNames && lhs.maxDepth == rhs.maxDepth
    }
}

/// A problem reading or printing JSON: where (`$.user.login.pwd`, `$.items[2]`), the byte
/// offset in the input (0 when printing), and what.
public struct JSONError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The input is not JSON (a bad token, escape, number, or the end came too soon).
        case syntax
        /// JSON, but not a value of the field's type (a string for a number, out of range...).
        case badValue
        /// A field name the message does not have.
        case unknownField
        /// A field given twice, or two members of one oneof.
        case duplicateField
        /// Objects and arrays nested deeper than `JSONOptions.maxDepth`.
        case tooDeep
        /// A message that has no JSON form (a Timestamp or Duration out of range, an Any
        /// whose type is not registered, a FieldMask path that cannot be written in JSON).
        case unrepresentable
    }

    public let kind: Kind
    public let path: String
    public let offset: Int
    public let message: String

    public init(_ kind: Kind, path: String, offset: Int, _ message: String) {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(path) (byte \(offset)): \(message)" }
}

extension JSONError {
    /// A message generated with `TextFormat=Numbers`: it knows no field names.
    static func namesLeftOut(_ type: any Message.Type, path: String, offset: Int) -> JSONError {
        JSONError(
            .unrepresentable, path: path, offset: offset,
            "\(type.protoMessageName) was generated with TextFormat=Numbers, which leaves field names out: it has no JSON form"
        )
    }
}

/// The printer and the reader build the path of each value (`$.user.login`) only when they
/// run a second time, after a failure, to name where it happened.
protocol JSONPathTracking: ~Copyable {
    var tracksPath: Bool { get }
}

extension JSONPathTracking where Self: ~Copyable {
    /// The path of a value inside the one at `parent`, built only when paths are tracked.
    func path(_ parent: String, _ step: @autoclosure () -> String) -> String {
        tracksPath ? parent + step() : parent
    }
}
