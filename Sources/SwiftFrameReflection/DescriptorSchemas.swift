import SwiftFrame
import SwiftFrameDescriptors

/// Why a descriptor set gives no schema for a message.
public enum ReflectionError: Error, Equatable, CustomStringConvertible {
    /// No message of the descriptor set has this full name.
    case unknownMessage(String)
    /// A field names a type (`.pkg.Name`) that no file of the set declares: the set was
    /// written without `--include_imports`, or a file is missing.
    case unresolvedType(String, field: String)
    /// The bytes given as a descriptor set do not parse as one.
    case malformedDescriptorSet(WireError)

    public var description: String {
        switch self {
        case .unknownMessage(let name): return "no message named \(name) in the descriptor set"
        case .unresolvedType(let type, let field):
            return "\(field): type \(type) is not in the descriptor set (was it written with --include_imports?)"
        case .malformedDescriptorSet(let error): return "the descriptor set does not parse: \(error)"
        }
    }
}

/// The messages of a descriptor set (what `protoc --descriptor_set_out=FILE --include_imports`
/// writes) as schemas known at run time: look one up by its full name, then print wire bytes
/// as `protoc --decode` prints them and read text format into `protoc --encode`'s bytes, with
/// no generated code.
///
/// ```swift
/// let schemas = try DescriptorSchemas(serializedDescriptorSet: bytes)
/// let common = try schemas.message(named: "im.Common")
/// print(common.textFormatString(of: payload))
/// ```
///
/// Every field kind is read: scalars, enums (open in proto3 files, closed in proto2 files:
/// a number a closed enum does not declare prints as an unknown field, as protoc prints it),
/// messages, groups, maps, packed and unpacked repeated fields, oneofs (their fields are the
/// message's fields). Extensions print by number, as generated messages print them.
public struct DescriptorSchemas: Sendable {
    private let schemas: TextFormatSchemaSet
    private let indices: [String: Int]

    /// The full names of the set's messages (`im.Common`, `im.Common.Inner`), in the order
    /// the files declare them, map entries left out.
    public let messageNames: [String]

    /// The schemas of every message of `set`; throws when a field's type is not in the set.
    public init(_ set: Google_Protobuf_FileDescriptorSet) throws(ReflectionError) {
        try self.init(DescriptorIndex(set.file))
    }

    /// The schemas of every message of the files `index` holds.
    package init(_ index: DescriptorIndex) throws(ReflectionError) {
        var builder = Builder()
        builder.declare(index)
        let messages = try builder.build()
        schemas = TextFormatSchemaSet(messages)
        indices = builder.indices
        messageNames = builder.declared.filter { !$0.isMapEntry }.map(\.fullName)
    }

    /// The schemas of the descriptor set encoded in `bytes` (a `--descriptor_set_out` file).
    public init(serializedDescriptorSet bytes: [UInt8]) throws(ReflectionError) {
        let set: Google_Protobuf_FileDescriptorSet
        do {
            set = try Google_Protobuf_FileDescriptorSet(serializedBytes: bytes)
        } catch {
            throw .malformedDescriptorSet(error)
        }
        try self.init(set)
    }

    /// The message named `fullName` (`im.Common`; a leading dot, as descriptors write type
    /// names, is accepted); throws `ReflectionError.unknownMessage` naming it when the set
    /// has none.
    public func message(named fullName: String) throws(ReflectionError) -> DynamicMessageSchema {
        let name = fullName.hasPrefix(".") ? String(fullName.dropFirst()) : fullName
        guard let index = indices[name] else { throw .unknownMessage(fullName) }
        return DynamicMessageSchema(schemas, index: index)
    }
}

/// Turns descriptors into `TextFormatSchemaSet.Message`s: first every message and enum of the
/// set gets its full name (and each message its index) from the set's `DescriptorIndex`, then each message's fields are read
/// with every type they name known.
private struct Builder {
    struct Declared {
        let fullName: String
        let descriptor: Google_Protobuf_DescriptorProto
        /// The message's features, resolved (its fields resolve theirs from them).
        let features: Features
        var isMapEntry: Bool { descriptor.options?.mapEntry == true }
    }

    struct EnumInfo {
        let names: [(number: Int32, name: String)]
        let isClosed: Bool
    }

    var declared: [Declared] = []
    var indices: [String: Int] = [:]
    var enums: [String: EnumInfo] = [:]

    mutating func declare(_ index: DescriptorIndex) {
        // A file given twice declares its types once.
        for message in index.messages where indices[message.fullName] == nil {
            indices[message.fullName] = declared.count
            declared.append(
                Declared(fullName: message.fullName, descriptor: message.descriptor, features: message.features))
        }
        // An enum is closed or open by its own features, whichever file uses it.
        for enumeration in index.enums {
            let names = enumeration.descriptor.value.map { (number: $0.number ?? 0, name: $0.name ?? "") }
            enums[enumeration.fullName] = EnumInfo(names: names, isClosed: enumeration.features.closedEnums)
        }
    }

    func build() throws(ReflectionError) -> [TextFormatSchemaSet.Message] {
        var messages: [TextFormatSchemaSet.Message] = []
        messages.reserveCapacity(declared.count)
        for message in declared {
            var fields: [TextFormatField] = []
            var packed: Set<Int32> = []
            var implicitPresence: Set<Int32> = []
            for field in message.descriptor.field {
                let number = field.number ?? 0
                let place = message.fullName + "." + (field.name ?? "")
                let features = message.features.field(field, in: message.descriptor)
                let (name, kind) = try self.kind(of: field, features: features, in: message.fullName, place: place)
                let repeated = field.label == .repeated
                let isScalar = kind.isPackable
                if repeated, isScalar, features.packed { packed.insert(number) }
                let implicit =
                    !repeated && (isScalar || kind.isStringOrBytes) && features.presence == .implicit
                if implicit { implicitPresence.insert(number) }
                // The label, as generated tables give it (the text reader refuses a singular
                // field given twice, the printer reads packed runs of repeated fields only).
                let label: TextFormatField.Label
                if repeated {
                    label = .repeated
                } else if let oneof = field.oneofIndex, field.proto3Optional != true {
                    label = .oneof(Int(oneof))
                } else {
                    label = implicit ? .implicit : .optional
                }
                fields.append(TextFormatField(number, name, kind, label))
            }
            messages.append(
                TextFormatSchemaSet.Message(
                    fullName: message.fullName, fields: fields, packed: packed,
                    implicitPresence: implicitPresence, reservedNames: message.descriptor.reservedName))
        }
        return messages
    }

    /// The field's text-format name and kind.
    private func kind(
        of field: Google_Protobuf_FieldDescriptorProto, features: Features, in scope: String, place: String
    ) throws(ReflectionError) -> (String, TextFormatKind) {
        let name = field.name ?? ""
        switch field.type {
        case .double: return (name, .double)
        case .float: return (name, .float)
        case .int64: return (name, .int64)
        case .uint64: return (name, .uint64)
        case .int32: return (name, .int32)
        case .fixed64: return (name, .fixed64)
        case .fixed32: return (name, .fixed32)
        case .bool: return (name, .bool)
        case .string: return (name, .string)
        case .bytes: return (name, .bytes)
        case .uint32: return (name, .uint32)
        case .sfixed32: return (name, .sfixed32)
        case .sfixed64: return (name, .sfixed64)
        case .sint32: return (name, .sint32)
        case .sint64: return (name, .sint64)
        case .enum_: return (name, try enumKind(field.typeName, place: place))
        case .group:
            let index = try messageIndex(field.typeName, place: place)
            return (field.textFormatName(isDelimited: true, scope: scope), .schemaGroup(index))
        case .message, nil:
            let typeName = field.typeName ?? ""
            if field.type == nil, enums[Self.stripped(typeName)] != nil {
                return (name, try enumKind(typeName, place: place))
            }
            let index = try messageIndex(typeName, place: place)
            let entry = declared[index]
            if entry.isMapEntry, field.label == .repeated {
                let entryFields = entry.descriptor.field
                guard let key = entryFields.first(where: { $0.number == 1 }),
                    let value = entryFields.first(where: { $0.number == 2 })
                else {
                    return (name, .schemaMessage(index))  // not a well-formed entry: its fields as they are
                }
                let entryPlace = entry.fullName
                let entryFeatures = entry.features
                return (
                    name,
                    .map(
                        key: try kind(
                            of: key, features: entryFeatures.field(key, in: entry.descriptor), in: entryPlace,
                            place: entryPlace + ".key"
                        ).1,
                        value: try kind(
                            of: value, features: entryFeatures.field(value, in: entry.descriptor), in: entryPlace,
                            place: entryPlace + ".value"
                        ).1)
                )
            }
            // A message field of `message_encoding = DELIMITED` travels as a group does.
            if features.delimited {
                return (field.textFormatName(isDelimited: true, scope: scope), .schemaGroup(index))
            }
            return (name, .schemaMessage(index))
        }
    }

    private func enumKind(_ typeName: String?, place: String) throws(ReflectionError) -> TextFormatKind {
        guard let info = enums[Self.stripped(typeName ?? "")] else {
            throw .unresolvedType(typeName ?? "", field: place)
        }
        return info.isClosed ? .closedEnumeration(info.names) : .enumeration(info.names)
    }

    private func messageIndex(_ typeName: String?, place: String) throws(ReflectionError) -> Int {
        guard let index = indices[Self.stripped(typeName ?? "")] else {
            throw .unresolvedType(typeName ?? "", field: place)
        }
        return index
    }

    /// protoc writes type names fully qualified, with a leading dot.
    private static func stripped(_ typeName: String) -> String {
        typeName.hasPrefix(".") ? String(typeName.dropFirst()) : typeName
    }
}

extension TextFormatKind {
    /// A scalar that a repeated field may write packed: numbers, bools and enums.
    fileprivate var isPackable: Bool {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .fixed32, .fixed64, .sfixed32, .sfixed64,
            .float, .double, .bool, .enumeration, .closedEnumeration:
            return true
        case .string, .bytes, .message, .group, .schemaMessage, .schemaGroup, .map:
            return false
        }
    }

    fileprivate var isStringOrBytes: Bool {
        switch self {
        case .string, .bytes: return true
        default: return false
        }
    }
}
