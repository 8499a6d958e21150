// The resolved model: every type reference linked, every Swift name decided. Emitters
// read it and print; they decide nothing.

/// The fifteen protobuf scalar types and how each is carried.
public enum ScalarType: Sendable {
    case double, float, int64, uint64, int32, fixed64, fixed32, bool, string, bytes
    case uint32, sfixed32, sfixed64, sint32, sint64

    /// How a scalar travels on the wire, which decides the reader and writer calls.
    public enum Encoding: Sendable { case varint, fixed32, fixed64, string, bytes }

    public var encoding: Encoding {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool: return .varint
        case .fixed32, .sfixed32, .float: return .fixed32
        case .fixed64, .sfixed64, .double: return .fixed64
        case .string: return .string
        case .bytes: return .bytes
        }
    }

    public var swiftType: String {
        switch self {
        case .double: return "Swift.Double"
        case .float: return "Swift.Float"
        case .int64, .sfixed64, .sint64: return "Swift.Int64"
        case .uint64, .fixed64: return "Swift.UInt64"
        case .int32, .sfixed32, .sint32: return "Swift.Int32"
        case .uint32, .fixed32: return "Swift.UInt32"
        case .bool: return "Swift.Bool"
        case .string: return "Swift.String"
        case .bytes: return "[Swift.UInt8]"
        }
    }

    /// The runtime codec type (`ProtoSInt32`, `ProtoString`).
    public var codec: String {
        switch self {
        case .double: return "ProtoDouble"
        case .float: return "ProtoFloat"
        case .int64: return "ProtoInt64"
        case .uint64: return "ProtoUInt64"
        case .int32: return "ProtoInt32"
        case .fixed64: return "ProtoFixed64"
        case .fixed32: return "ProtoFixed32"
        case .bool: return "ProtoBool"
        case .uint32: return "ProtoUInt32"
        case .sfixed32: return "ProtoSFixed32"
        case .sfixed64: return "ProtoSFixed64"
        case .sint32: return "ProtoSInt32"
        case .sint64: return "ProtoSInt64"
        case .string: return "ProtoString"
        case .bytes: return "ProtoBytes"
        }
    }

    public var defaultValue: String {
        switch self {
        case .bool: return "false"
        case .string: return "\"\""
        case .bytes: return "[]"
        default: return "0"
        }
    }
}

/// The scalars a packed field can repeat: every one but string and bytes.
public enum NumericScalar: Sendable {
    case double, float, int64, uint64, int32, fixed64, fixed32, bool, uint32, sfixed32, sfixed64, sint32, sint64

    /// How a packed run of them travels: as varints or as fixed-width words.
    public enum Encoding: Sendable { case varint, fixed32, fixed64 }

    public init?(_ scalar: ScalarType) {
        switch scalar {
        case .double: self = .double
        case .float: self = .float
        case .int64: self = .int64
        case .uint64: self = .uint64
        case .int32: self = .int32
        case .fixed64: self = .fixed64
        case .fixed32: self = .fixed32
        case .bool: self = .bool
        case .uint32: self = .uint32
        case .sfixed32: self = .sfixed32
        case .sfixed64: self = .sfixed64
        case .sint32: self = .sint32
        case .sint64: self = .sint64
        case .string, .bytes: return nil
        }
    }

    public var scalar: ScalarType {
        switch self {
        case .double: return .double
        case .float: return .float
        case .int64: return .int64
        case .uint64: return .uint64
        case .int32: return .int32
        case .fixed64: return .fixed64
        case .fixed32: return .fixed32
        case .bool: return .bool
        case .uint32: return .uint32
        case .sfixed32: return .sfixed32
        case .sfixed64: return .sfixed64
        case .sint32: return .sint32
        case .sint64: return .sint64
        }
    }

    public var encoding: Encoding {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool: return .varint
        case .fixed32, .sfixed32, .float: return .fixed32
        case .fixed64, .sfixed64, .double: return .fixed64
        }
    }
}

/// One .proto file to generate, resolved: built complete once every name is decided.
public struct ProtoFile {
    public let name: String
    public let messages: [MessageType]
    public let enums: [EnumType]
    /// proto2 extensions declared in this file, top level and nested.
    public let extensions: [ExtensionField]
    /// `TestMessagesProto2Extensions`: the namespace of the file's top-level extensions.
    public let extensionsNamespace: String
    /// The command table of this file, when it declares commands.
    public let commandTable: CommandTable?
    /// Messages of this file whose bytes field holds a message chosen by an enum field.
    public let envelopes: [Envelope]
    /// Request → response pairs declared in this file (each pair is declared in one file).
    public let responsePairs: [(request: MessageRef, response: MessageRef)]
    /// The modules the generated file imports besides SwiftFrame.
    public let imports: [String]
    /// Messages and enums carry their proto names for the text format (`TextFormat=Names`).
    public let printsNames: Bool
    /// `optimize_for = CODE_SIZE` (or `OptimizeFor=CODE_SIZE`): messages get a field table for
    /// the runtime's shared codec instead of codec code of their own.
    public let compactCodec: Bool
    /// `Messages=SwiftProtobuf`: protoc-gen-swift declares the messages and enums; this file
    /// gives them their payload conformance and holds the tables alone.
    public let swiftProtobufMessages: Bool

    /// `path/user.proto` → `path/user.swiftframe.swift`, `path_user.swiftframe.swift` or
    /// `user.swiftframe.swift`.
    public func outputName(_ naming: GeneratorOptions.FileNaming) -> String {
        var base = name.hasSuffix(".proto") ? String(name.dropLast(6)) : name
        switch naming {
        case .FullPath: break
        case .PathToUnderscores: base = String(base.map { $0 == "/" ? "_" : $0 })
        case .DropPath: base = base.split(separator: "/").last.map(String.init) ?? base
        }
        return base + ".swiftframe.swift"
    }
}

/// A message, built complete after every message it names: an immutable object whose
/// properties can refer only to what existed before it (its fields name messages through
/// `MessageRef`), so messages that hold each other form no reference cycle. A class only so
/// that emitters and walks share it instead of copying its twenty properties.
public final class MessageType {
    public let protoName: String
    /// Fully qualified proto name without the leading dot (`im.Outer.Inner`).
    public let fullName: String
    /// The Swift name as declared (`Inner`).
    public let swiftName: String
    /// The Swift name as referenced from anywhere in the module (`Outer.Inner`).
    public let swiftPath: String
    public let comments: String?
    public let fields: [Field]
    /// Real oneofs (not the synthetic ones of proto3 `optional`), in declaration order.
    public let oneofs: [Oneof]
    /// It has `required` fields, or messages that may: it checks them after decoding.
    public let needsInitializationCheck: Bool
    public let messages: [MessageType]
    public let enums: [EnumType]
    /// The nested enum of `[default = ...]` values (`Defaults`), when there are any.
    public let defaultsName: String?
    /// Each envelope body's selecting field (proto name), enum type and decoding method, by
    /// field number.
    let envelopeBodies: [Int32: (selector: String, type: String, accessor: String)]
    /// The message's extension ranges, in order.
    public let extensionRanges: [ClosedRange<Int>]
    /// The string extensions of it declared in the run's files, by number: the decoder checks
    /// their values for UTF-8, as it checks a string field's.
    public let stringExtensions: [ExtensionField]
    /// The field names it reserves (`reserved "old_name";`), which the text format skips.
    public let reservedNames: [String]
    /// The file that declares it, and its package.
    public let fileName: String
    public let package: String
    /// `option (swiftframe.request_id)` and `(swiftframe.response_id)`.
    public let requestID: UInt32?
    public let responseID: UInt32?
    /// The values of the run's integer and enum options of `MessageOptions` set on this
    /// message (a project's own `MsgID`), by the option's field number.
    let integerOptions: [Int32: UInt64]
    /// The struct's members (computed once from the fields and oneofs).
    public let members: [Member]

    init(
        protoName: String, fullName: String, swiftName: String, swiftPath: String, comments: String?,
        fields: [Field], oneofs: [Oneof], needsInitializationCheck: Bool, messages: [MessageType], enums: [EnumType],
        defaultsName: String?, envelopeBodies: [Int32: (selector: String, type: String, accessor: String)],
        extensionRanges: [ClosedRange<Int>], stringExtensions: [ExtensionField], reservedNames: [String],
        fileName: String, package: String, requestID: UInt32?, responseID: UInt32?, integerOptions: [Int32: UInt64]
    ) {
        self.protoName = protoName
        self.fullName = fullName
        self.swiftName = swiftName
        self.swiftPath = swiftPath
        self.comments = comments
        self.fields = fields
        self.oneofs = oneofs
        self.needsInitializationCheck = needsInitializationCheck
        self.messages = messages
        self.enums = enums
        self.defaultsName = defaultsName
        self.envelopeBodies = envelopeBodies
        self.extensionRanges = extensionRanges
        self.stringExtensions = stringExtensions
        self.reservedNames = reservedNames
        self.fileName = fileName
        self.package = package
        self.requestID = requestID
        self.responseID = responseID
        self.integerOptions = integerOptions
        var oneofsByName: [String: Oneof] = [:]
        for oneof in oneofs { oneofsByName[oneof.swiftName] = oneof }
        self.members = fields.compactMap { field in
            guard let name = field.oneof else { return .field(field) }
            // The oneof's property stands where its first member does.
            return oneofsByName.removeValue(forKey: name).map(Member.oneof)
        }
    }

    /// Fields in field-number order: the order they are written in.
    public var fieldsByNumber: [Field] { fields.sorted { $0.number < $1.number } }

    /// What the Swift struct declares, in .proto order: plain fields, and each oneof as one
    /// property where its first member stands.
    public enum Member {
        case field(Field)
        case oneof(Oneof)
    }

    /// A memberwise `init` with every member defaulted, for messages of 1 to 512 members:
    /// past about 1,020 defaulted parameters Swift's symbol mangling gives two default
    /// arguments the same symbol, and no one calls such an initializer.
    public var hasMemberwiseInit: Bool { (1...512).contains(members.count) }
}

/// A message as a field, an extension, a command or an envelope names it: what the code that
/// holds it needs. It holds names only, never another model object, so messages that hold each
/// other form no reference cycle (a class so that copying a field copies one reference).
public final class MessageRef {
    public let protoName: String
    public let fullName: String
    public let swiftPath: String
    /// The file that declares it, and its package.
    public let fileName: String
    public let package: String
    /// It has required fields, or holds messages that may: holders check it after decoding.
    public let needsInitializationCheck: Bool

    init(
        protoName: String, fullName: String, swiftPath: String, fileName: String, package: String,
        needsInitializationCheck: Bool
    ) {
        self.protoName = protoName
        self.fullName = fullName
        self.swiftPath = swiftPath
        self.fileName = fileName
        self.package = package
        self.needsInitializationCheck = needsInitializationCheck
    }

    convenience init(_ message: MessageType) {
        self.init(
            protoName: message.protoName, fullName: message.fullName, swiftPath: message.swiftPath,
            fileName: message.fileName, package: message.package,
            needsInitializationCheck: message.needsInitializationCheck)
    }

    /// The same reference, knowing whether the message checks required fields.
    func checked(_ needsInitializationCheck: Bool) -> MessageRef {
        guard needsInitializationCheck != self.needsInitializationCheck else { return self }
        return MessageRef(
            protoName: protoName, fullName: fullName, swiftPath: swiftPath, fileName: fileName, package: package,
            needsInitializationCheck: needsInitializationCheck)
    }
}

/// A oneof: one optional Swift enum property whose cases are the member fields.
public struct Oneof {
    public let protoName: String
    /// The property (`choice`).
    public let swiftName: String
    /// The nested enum type (`Choice`).
    public let typeName: String
    public let comments: String?
    public let fields: [Field]
}

/// One field of a message. What it holds and how it is present are one value, `shape`,
/// whose cases are exactly the combinations protobuf allows. Immutable, and it refers only to
/// enums and `MessageRef`s built before it.
public final class Field {
    /// A value read and written by a codec: a number, bool, string, bytes or enum.
    public enum Plain {
        case scalar(ScalarType)
        case enumeration(EnumType)
    }

    /// What one value of a field is: the element of a repeated field, the content of a
    /// singular field or of a oneof case.
    public enum Value {
        case plain(Plain)
        case message(MessageRef)
        /// proto2 `group`: a message delimited by start and end tags.
        case group(MessageRef)
    }

    /// A value with a codec of its own: what a map holds and what an extension carries
    /// (neither can be a group).
    public enum Kind {
        case plain(Plain)
        case message(MessageRef)
    }

    /// What a packed field repeats: numbers, bools and enums.
    public enum Packable {
        case numeric(NumericScalar)
        case enumeration(EnumType)
    }

    /// The field's kind and presence together.
    public enum Shape {
        /// proto3 singular, no presence: written unless it holds the default (never a message).
        case implicit(Plain)
        /// Explicit presence (proto2 `optional`, proto3 `optional`, message fields): a Swift optional.
        case optional(Value)
        /// proto2 `required`: a Swift optional that decoding and encoding check.
        case required(Value)
        /// `repeated`, each element with its own tag.
        case repeated(Value)
        /// `repeated`, written as one length-delimited run.
        case packed(Packable)
        /// A member of a oneof (its property `oneof`): a case of the oneof's enum.
        case oneofMember(Value, oneof: String)
        /// `map<K, V>`: a Swift dictionary. `key` is an integer, bool or string scalar.
        case map(key: ScalarType, value: Kind)
    }

    public let protoName: String
    /// Its name in the text format: `protoName`, or for a group its type's name.
    public let textName: String
    public let number: Int32
    public let swiftName: String
    public let shape: Shape
    public let comments: String?
    /// proto2 `[default = ...]`, as protoc wrote it.
    public let declaredDefault: String?
    /// The field's `json_name` when it is not the one protoc derives from the proto name
    /// (`json_name = "nick"` on `nick_name`); nil when it is.
    public let jsonName: String?
    /// For a oneof member, the index of its oneof among the message's `oneofs`.
    public let oneofIndex: Int?

    init(
        protoName: String, textName: String, number: Int32, swiftName: String, shape: Shape, comments: String?,
        declaredDefault: String?, jsonName: String?, oneofIndex: Int?
    ) {
        self.protoName = protoName
        self.textName = textName
        self.number = number
        self.swiftName = swiftName
        self.shape = shape
        self.comments = comments
        self.declaredDefault = declaredDefault
        self.jsonName = jsonName
        self.oneofIndex = oneofIndex
    }

    /// A singular message or group field: stored out of line, behind an immutable box (or as
    /// an `indirect` oneof case). A struct then holds one reference per sub-message instead of
    /// the sub-message itself, so a message may contain itself, and copying, comparing and
    /// destroying a message costs the same however deep its sub-messages nest.
    public var isBoxed: Bool {
        switch shape {
        case .optional(.message), .optional(.group), .required(.message), .required(.group),
            .oneofMember(.message, _), .oneofMember(.group, _):
            return true
        default: return false
        }
    }

    /// proto2 `required`: decoding and encoding fail while it is unset.
    public var isRequired: Bool {
        if case .required = shape { return true }
        return false
    }

    /// The enum a singular field (not repeated, not a map) holds.
    var singularEnum: EnumType? {
        switch shape {
        case let .implicit(.enumeration(enumType)), let .optional(.plain(.enumeration(enumType))),
            let .required(.plain(.enumeration(enumType))), let .oneofMember(.plain(.enumeration(enumType)), _):
            return enumType
        default: return nil
        }
    }

    /// The field with each message it names replaced by `transform`'s; itself when
    /// `transform` changes nothing.
    func mapMessages(_ transform: (MessageRef) -> MessageRef) -> Field {
        var changed = false
        func map(_ message: MessageRef) -> MessageRef {
            let mapped = transform(message)
            if mapped !== message { changed = true }
            return mapped
        }
        func value(_ value: Value) -> Value {
            switch value {
            case .plain: return value
            case let .message(message): return .message(map(message))
            case let .group(message): return .group(map(message))
            }
        }
        let shape: Shape
        switch self.shape {
        case .implicit, .packed: return self
        case let .optional(element): shape = .optional(value(element))
        case let .required(element): shape = .required(value(element))
        case let .repeated(element): shape = .repeated(value(element))
        case let .oneofMember(element, oneof): shape = .oneofMember(value(element), oneof: oneof)
        case let .map(key, .message(message)): shape = .map(key: key, value: .message(map(message)))
        case .map: return self
        }
        guard changed else { return self }
        return Field(
            protoName: protoName, textName: textName, number: number, swiftName: swiftName, shape: shape,
            comments: comments, declaredDefault: declaredDefault, jsonName: jsonName, oneofIndex: oneofIndex)
    }

    /// The property of the oneof this field is a member of.
    public var oneof: String? {
        if case let .oneofMember(_, oneof) = shape { return oneof }
        return nil
    }
}

extension Field.Plain {
    var value: Field.Value { .plain(self) }
}

extension Field.Kind {
    var value: Field.Value {
        switch self {
        case let .plain(plain): return .plain(plain)
        case let .message(message): return .message(message)
        }
    }
}

extension Field.Packable {
    var plain: Field.Plain {
        switch self {
        case let .numeric(numeric): return .scalar(numeric.scalar)
        case let .enumeration(enumType): return .enumeration(enumType)
        }
    }

    init?(_ plain: Field.Plain) {
        switch plain {
        case let .scalar(scalar):
            guard let numeric = NumericScalar(scalar) else { return nil }
            self = .numeric(numeric)
        case let .enumeration(enumType): self = .enumeration(enumType)
        }
    }
}

extension Field.Shape {
    /// What one value of the field is; nil for a map, whose entries are a key and a value.
    var value: Field.Value? {
        switch self {
        case let .implicit(plain): return .plain(plain)
        case let .optional(value), let .required(value), let .repeated(value), let .oneofMember(value, _): return value
        case let .packed(packable): return .plain(packable.plain)
        case .map: return nil
        }
    }

    /// The message a field of this shape holds (singular, repeated, as a group or as a map
    /// value), which may need its required fields checked.
    var containedMessage: MessageRef? {
        switch self {
        case let .map(_, .message(message)): return message
        case .map: return nil
        default:
            switch value {
            case let .message(message)?, let .group(message)?: return message
            case .plain?, nil: return nil
            }
        }
    }

    /// The enum a field of this shape holds, directly or as a map value.
    var containedEnum: EnumType? {
        switch self {
        case let .map(_, .plain(.enumeration(enumType))): return enumType
        case .map: return nil
        default:
            if case let .plain(.enumeration(enumType))? = value { return enumType }
            return nil
        }
    }
}

/// An enum, built complete with its cases; immutable, and it refers to no other model object.
public final class EnumType {
    public struct Case {
        public let protoName: String
        public let number: Int32
        public let swiftName: String
        public let comments: String?
        /// Its swiftframe options.
        public let options: ValueOptions
    }

    /// swiftframe's options on an enum value: the command it names, or what an envelope's body
    /// holds when it is selected.
    public struct ValueOptions {
        /// `(swiftframe.request)`, `(swiftframe.response)`, `(swiftframe.holds)`: message names.
        public let request: String?
        public let response: String?
        public let holds: String?
        /// `(swiftframe.error_reply)`, `(swiftframe.heartbeat)`.
        public let isErrorReply: Bool
        public let isHeartbeat: Bool

    }

    /// A second name for a number (`allow_alias`), generated as a static constant.
    public struct Alias {
        public let protoName: String
        public let swiftName: String
        public let target: Case
    }

    public let protoName: String
    public let fullName: String
    public let swiftName: String
    public let swiftPath: String
    public let comments: String?
    /// One case per distinct number, in declaration order.
    public let cases: [Case]
    public let aliases: [Alias]
    /// Names spelled in Swift like another name of the same number (`MOO` and `moo`): no
    /// constant of their own, but the text format and JSON read them.
    public let spellings: [(protoName: String, number: Int32)]
    /// The file that declares it.
    public let fileName: String

    /// A proto2 enum: unknown numbers go to unknown fields, so it has no `unrecognized`.
    public let isClosed: Bool
    /// `option (swiftframe.command_table) = true`: its values are command ids.
    public let isCommandTable: Bool

    init(
        protoName: String, fullName: String, swiftName: String, swiftPath: String, comments: String?,
        cases: [Case], aliases: [Alias], spellings: [(protoName: String, number: Int32)], fileName: String,
        isClosed: Bool, isCommandTable: Bool
    ) {
        self.cases = cases
        self.aliases = aliases
        self.spellings = spellings
        self.fileName = fileName
        self.isClosed = isClosed
        self.isCommandTable = isCommandTable
        self.protoName = protoName
        self.fullName = fullName
        self.swiftName = swiftName
        self.swiftPath = swiftPath
        self.comments = comments
    }

    /// The first declared value, which proto3 requires to be zero.
    public var defaultCase: Case { cases[0] }
}

/// A typed accessor for a proto2 extension field.
public struct ExtensionField {
    public let protoName: String
    public let fullName: String
    public let swiftName: String
    public let number: Int32
    public let container: MessageRef
    public let kind: Field.Kind
    public let isRepeated: Bool
    /// A group, or an editions message extension written delimited: its message stands
    /// between a start and an end tag (never repeated here).
    public let isGroup: Bool
    public let isPacked: Bool
    public let comments: String?
    /// The message whose body declares it (nil for a top-level `extend`).
    public let scope: MessageRef?
}
