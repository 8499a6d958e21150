import SwiftFrame

/// The Swift snippets for one field: its type, default, and the statements that decode,
/// size and encode it. Everything here is decided by the resolved model.
struct FieldCode {
    let field: Field

    /// `self.nickName`: always qualified, so fields named like locals (`size`) are safe.
    var access: String { "self." + field.swiftName }

    /// `self._child`: the box behind a boxed field, which the codec reads and writes directly.
    var storage: String { "self._" + field.swiftName }

    /// A boxed singular message outside any oneof; its codec goes through `storage`.
    private var isStoredInBox: Bool { field.isBoxed && field.presence == .explicit }

    /// The element type (`Swift.Int32`, `UserInfo`, `[Swift.String: Swift.Int32]`).
    var baseType: String { Self.swiftType(field.kind) }

    static func swiftType(_ kind: Field.Kind) -> String {
        switch kind {
        case let .scalar(scalar): return scalar.swiftType
        case let .enumeration(enumType): return enumType.swiftPath
        case let .message(message): return message.swiftPath
        case let .map(key, value): return "[\(key.swiftType): \(swiftType(value))]"
        }
    }

    var declaredType: String {
        switch field.presence {
        case .repeated: return "[\(baseType)]"
        case .explicit: return baseType + "?"
        case .implicit, .map, .oneof: return baseType
        }
    }

    var defaultValue: String {
        switch (field.presence, field.kind) {
        case (.repeated, _): return "[]"
        case (.map, _): return "[:]"
        case (.explicit, _), (.oneof, _): return "nil"
        case let (.implicit, .scalar(scalar)): return scalar.defaultValue
        case let (.implicit, .enumeration(enumType)): return "." + enumType.defaultCase.swiftName
        case (.implicit, .message), (.implicit, .map): return "nil"
        }
    }

    // MARK: Text format

    /// The field's row in `textFormatFields`: `.init(7, "G", .group(Outer.G.self))`. A group
    /// prints under its type's name, as protobuf prints it.
    var textFormatRow: String {
        let (name, kind) = textFormat
        return ".init(\(field.number), \"\(name)\", \(kind))"
    }

    /// The field's name and kind in the text format; a group prints by its type's name.
    private var textFormat: (name: String, kind: String) {
        if field.isGroup, case let .message(type) = field.kind {
            return (type.protoName, ".group(\(type.swiftPath).self)")
        }
        return (field.protoName, Self.textFormatKind(field.kind))
    }

    /// The runtime's `TextFormatKind` case: `.sint32`, `.closedEnumeration(E.protoNames)`,
    /// `.message(M.self)`.
    static func textFormatKind(_ kind: Field.Kind) -> String {
        switch kind {
        case let .scalar(scalar): return ".\(scalar)"
        case let .enumeration(enumType):
            return "." + (enumType.isClosed ? "closedEnumeration" : "enumeration") + "(\(enumType.swiftPath).protoNames)"
        case let .message(message): return ".message(\(message.swiftPath).self)"
        case let .map(key, value): return ".map(key: .\(key), value: \(textFormatKind(value)))"
        }
    }

    // MARK: Field table (optimize_for = CODE_SIZE)

    /// Whether generated code reads and writes the field in the compact mode: oneof members,
    /// maps and groups, which the runtime's table codec leaves to the message.
    var isCustomInTable: Bool {
        if case .oneof = field.presence { return true }
        return field.isGroup
    }

    /// The field's line in `fieldTable`'s layout, `11 optional message child` (the name left
    /// out when the file prints fields by number), and the Swift type the line takes, if any.
    func layoutLine(withNames: Bool) -> (line: String, type: String?) {
        var words = ["\(field.number)"]
        switch field.presence {
        case .implicit, .map: break
        case .explicit: words.append(field.isRequired ? "required" : "optional")
        case .repeated(packed: true): words.append("packed")
        case .repeated(packed: false): words.append("repeated")
        case .oneof: preconditionFailure("\(field.protoName): a custom field")
        }
        if needsInitializationCheck { words.append("checked") }
        var type: String?
        switch field.kind {
        case let .scalar(scalar): words.append("\(scalar)")
        case let .enumeration(enumType):
            words.append(enumType.isClosed ? "closed_enum" : "enum")
            type = enumType.swiftPath
        case let .message(message):
            words.append("message")
            type = message.swiftPath
        case let .map(key, value):
            words.append("map")
            let keyCodec = Self.codec(.scalar(key))
            if case let .enumeration(enumType) = value, enumType.isClosed {
                type = "SwiftFrame.ClosedEnumMapField<\(keyCodec), \(enumType.swiftPath)>"
            } else {
                type = "SwiftFrame.MapField<\(keyCodec), \(Self.codec(value))>"
            }
        }
        if withNames { words.append(textFormat.name) }
        return (words.joined(separator: " "), type)
    }

    /// Whether the field holds messages that can hold required fields, which
    /// `checkInitialized` checks in turn.
    var needsInitializationCheck: Bool {
        field.kind.containedMessage?.needsInitializationCheck == true
    }

    /// The row in `fieldTable`'s `custom` list of a field the table leaves to generated code:
    /// `.init(7, "name", .string)`, or `.init(7)` when the file prints fields by number.
    func customFieldRow(withNames: Bool) -> String {
        withNames ? ".init(\(field.number), \"\(textFormat.name)\", \(textFormat.kind))" : ".init(\(field.number))"
    }

    /// The type of the stored property that holds the field: `SwiftFrame.Boxed<G>?` for a
    /// boxed group.
    var storedType: String {
        isStoredInBox ? "SwiftFrame.Boxed<\(baseType)>?" : declaredType
    }

    /// The stored property that holds the field: `_child` for a boxed message, the oneof's
    /// property for a member of a oneof.
    var storedProperty: String {
        if let oneof = field.oneof { return oneof.swiftName }
        return isStoredInBox ? "_" + field.swiftName : field.swiftName
    }

    // MARK: Wire details

    private enum Family { case varint, fixed32, fixed64, string, bytes, message, map }

    private static func family(_ kind: Field.Kind) -> Family {
        switch kind {
        case let .scalar(scalar):
            switch scalar.encoding {
            case .varint: return .varint
            case .fixed32: return .fixed32
            case .fixed64: return .fixed64
            case .string: return .string
            case .bytes: return .bytes
            }
        case .enumeration: return .varint
        case .message: return .message
        case .map: return .map
        }
    }

    private var family: Family { Self.family(field.kind) }

    /// The runtime codec type of a value of `kind` (`SwiftFrame.ProtoSInt32`).
    static func codec(_ kind: Field.Kind) -> String {
        switch kind {
        case .scalar(.string): return "SwiftFrame.ProtoString"
        case .scalar(.bytes): return "SwiftFrame.ProtoBytes"
        case let .scalar(scalar):
            guard let codec = scalar.codec else { preconditionFailure("\(scalar) has no varint or fixed codec") }
            return "SwiftFrame." + codec
        case let .enumeration(enumType) where enumType.isClosed: return "SwiftFrame.ProtoClosedEnum<\(enumType.swiftPath)>"
        case let .enumeration(enumType): return "SwiftFrame.ProtoEnum<\(enumType.swiftPath)>"
        case let .message(message): return "SwiftFrame.ProtoMessage<\(message.swiftPath)>"
        case .map: preconditionFailure("a map has no single codec; its key and value have")
        }
    }

    /// The closed enum a field (or map value) holds, whose unknown numbers go to unknown fields.
    private static func closedEnum(_ kind: Field.Kind) -> EnumType? {
        switch kind {
        case let .enumeration(enumType) where enumType.isClosed: return enumType
        case let .map(_, value): return closedEnum(value)
        default: return nil
        }
    }

    private var codec: String { Self.codec(field.kind) }

    private var wireType: WireType {
        if field.isGroup { return .startGroup }
        switch family {
        case .varint: return .varint
        case .fixed32: return .fixed32
        case .fixed64: return .fixed64
        case .string, .bytes, .message, .map: return .lengthDelimited
        }
    }

    private func tag(_ wireType: WireType) -> UInt32 {
        Wire.tag(fieldNumber: Int(field.number), wireType: wireType)
    }

    private var tagSize: Int { Wire.varintSize(tag(wireType)) }

    /// Bytes a value of fixed width takes, without its tag.
    private var fixedSize: Int? {
        switch family {
        case .fixed32: return 4
        case .fixed64: return 8
        default:
            if case .scalar(.bool) = field.kind { return 1 }
            return nil
        }
    }

    /// The oneof of a oneof member.
    private var oneof: Oneof {
        guard let oneof = field.oneof else { preconditionFailure("\(field.protoName) is in no oneof") }
        return oneof
    }

    /// The key and value types of a map field.
    private var mapTypes: (key: ScalarType, value: Field.Kind) {
        guard case let .map(key, value) = field.kind else { preconditionFailure("\(field.protoName) is no map") }
        return (key, value)
    }

    /// `case let .name(value)? = self.choice`: the pattern that binds a oneof member.
    private var oneofPattern: String {
        "case let .\(field.swiftName)(value)? = self.\(oneof.swiftName)"
    }

    // MARK: Decoding

    /// `try reader.readString()`: reads one value of the field's type.
    private var readValue: String {
        switch family {
        case .varint: return "try reader.readVarint(\(codec).self)"
        case .fixed32: return "try reader.readFixed32(\(codec).self)"
        case .fixed64: return "try reader.readFixed64(\(codec).self)"
        case .string: return "try reader.readString()"
        case .bytes: return "try reader.readBytes()"
        case .message, .map: preconditionFailure("\(field.protoName): messages and maps have readers of their own")
        }
    }

    /// The `case` lines of the decode switch: tag and statements.
    var decodeCases: [(tag: UInt32, statements: [String])] {
        if field.isGroup { return groupDecodeCases }
        if let closed = Self.closedEnum(field.kind) { return closedEnumDecodeCases(closed) }
        switch (field.presence, family) {
        case (.map, _):
            let (key, value) = mapTypes
            return [(tag(.lengthDelimited),
                     ["try reader.readMapEntry(into: &\(access), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self)"])]
        case (.oneof, .message):
            // A message seen again in the same oneof case merges, as a singular message does.
            return [(tag(.lengthDelimited), [
                "var value = \(baseType)()",
                "if case let .\(field.swiftName)(existing)? = self.\(oneof.swiftName) { value = existing }",
                "try reader.readMessage(merging: &value)",
                "self.\(oneof.swiftName) = .\(field.swiftName)(value)",
            ])]
        case (.oneof, _):
            return [(tag(wireType), ["self.\(oneof.swiftName) = .\(field.swiftName)(\(readValue))"])]
        case (_, .message):
            let into = field.isRepeated ? "appendingTo" : "into"
            return [(tag(.lengthDelimited), ["try reader.readMessage(\(into): &\(isStoredInBox ? storage : access))"])]
        case (.repeated, _):
            var cases = [(tag(wireType), ["\(access).append(\(readValue))"])]
            // Packable fields accept both packed and unpacked input, whatever they write.
            if let packed = packedFamilyName {
                cases.append((tag(.lengthDelimited), ["try reader.readPacked\(packed)(into: &\(access), \(codec).self)"]))
            }
            return cases.sorted { $0.0 < $1.0 }
        default:
            return [(tag(wireType), ["\(access) = \(readValue)"])]
        }
    }

    /// What a decode case reads, for the comment beside it (`rDouble = 21, packed`).
    func decodeComment(tag: UInt32) -> String {
        let packed = field.isRepeated && field.kind.isPackable && tag & 7 == 2
        return "\(field.protoName) = \(field.number)" + (packed ? ", packed" : "")
    }

    /// A group: read up to its end tag.
    private var groupDecodeCases: [(tag: UInt32, statements: [String])] {
        let number = field.number
        if field.oneof != nil {
            return [(tag(.startGroup), [
                "var value = \(baseType)()",
                "if case let .\(field.swiftName)(existing)? = self.\(oneof.swiftName) { value = existing }",
                "try reader.readGroup(fieldNumber: \(number), merging: &value)",
                "self.\(oneof.swiftName) = .\(field.swiftName)(value)",
            ])]
        }
        let into = field.isRepeated ? "appendingTo" : "into"
        return [(tag(.startGroup), ["try reader.readGroup(fieldNumber: \(number), \(into): &\(access))"])]
    }

    /// A closed enum: an unknown number goes to unknown fields, never into the field.
    private func closedEnumDecodeCases(_ closed: EnumType) -> [(tag: UInt32, statements: [String])] {
        let read = "try reader.readClosedEnum(\(closed.swiftPath).self, unknownFields: &self.unknownFields)"
        switch field.presence {
        case .map:
            let (key, value) = mapTypes
            return [(tag(.lengthDelimited), [
                "try reader.readMapEntry(into: &\(access), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self, unknownFields: &self.unknownFields)",
            ])]
        case .repeated:
            return [
                (tag(.varint), ["if let value = \(read) { \(access).append(value) }"]),
                (tag(.lengthDelimited), [
                    "try reader.readPackedClosedEnum(into: &\(access), \(closed.swiftPath).self, fieldNumber: \(field.number), unknownFields: &self.unknownFields)",
                ]),
            ]
        case .oneof:
            return [(tag(.varint), ["if let value = \(read) { self.\(oneof.swiftName) = .\(field.swiftName)(value) }"])]
        case .explicit, .implicit:
            return [(tag(.varint), ["if let value = \(read) { \(access) = value }"])]
        }
    }

    private var packedName: String {
        guard let name = packedFamilyName else { preconditionFailure("\(field.protoName): \(field.kind) cannot be packed") }
        return name
    }

    private var packedFamilyName: String? {
        switch family {
        case .varint: return "Varint"
        case .fixed32: return "Fixed32"
        case .fixed64: return "Fixed64"
        default: return nil
        }
    }

    // MARK: Sizing

    /// Bytes `value` takes without its tag, as an expression.
    private func valueSize(_ value: String) -> String {
        if let fixedSize { return String(fixedSize) }
        switch family {
        case .varint: return "\(codec).size(\(value))"
        case .string: return "SwiftFrame.Wire.lengthDelimitedSize(\(value).utf8.count)"
        case .bytes: return "SwiftFrame.Wire.lengthDelimitedSize(\(value).count)"
        case .message: return "cache.message(\(value))"
        case .fixed32, .fixed64: preconditionFailure("fixed-width values have a constant size")
        case .map: preconditionFailure("\(field.protoName): a map is sized entry by entry")
        }
    }

    /// `size += 1 + …`, folding constants.
    private func addSize(_ value: String) -> String {
        if field.isGroup { return "size += \(2 * tagSize) + cache.group(\(value))" }
        if let fixedSize { return "size += \(tagSize + fixedSize)" }
        return "size += \(tagSize) + \(valueSize(value))"
    }

    /// The condition under which a proto3 implicit-presence field is written.
    private var isSet: String {
        switch field.kind {
        case .scalar(.bool): return access
        case .scalar(.string), .scalar(.bytes), .map: return "!\(access).isEmpty"
        case .scalar(.float), .scalar(.double): return "\(access).bitPattern != 0"  // -0.0 is written
        case .scalar: return "\(access) != 0"
        case .enumeration: return "\(access).rawValue != 0"
        case .message: return "\(access) != nil"
        }
    }

    var sizeStatement: String {
        switch field.presence {
        case .implicit:
            return "if \(isSet) { \(addSize(access)) }"
        case .explicit:
            if fixedSize != nil { return "if \(access) != nil { \(addSize("")) }" }
            if isStoredInBox { return "if let box = \(storage) { \(addSize("box.value")) }" }
            return "if let value = \(access) { \(addSize("value")) }"
        case .oneof:
            if fixedSize != nil { return "if case .\(field.swiftName)? = self.\(oneof.swiftName) { \(addSize("")) }" }
            return "if \(oneofPattern) { \(addSize("value")) }"
        case .map:
            let (key, value) = mapTypes
            return "if \(isSet) { size += cache.map(\(access), tagSize: \(tagSize), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self) }"
        case .repeated(packed: true):
            let packedTag = Wire.varintSize(tag(.lengthDelimited))
            if family == .varint {
                return "if !\(access).isEmpty { size += \(packedTag) + cache.packedVarint(\(access), \(codec).self) }"
            }
            return "if !\(access).isEmpty { size += \(packedTag) + SwiftFrame.Wire.lengthDelimitedSize(\(access).count &* \(fixedSize ?? 0)) }"
        case .repeated(packed: false):
            if let fixedSize { return "size += \(access).count &* \(tagSize + fixedSize)" }
            if family == .message && !field.isGroup { return "size += cache.repeatedMessage(\(access), tagSize: \(tagSize))" }
            return "for value in \(access) { \(addSize("value")) }"
        }
    }

    // MARK: Encoding

    private func writeValue(_ value: String) -> String {
        switch family {
        case .varint: return "writer.writeVarint(\(codec).self, \(value))"
        case .fixed32: return "writer.writeFixed32(\(codec).self, \(value))"
        case .fixed64: return "writer.writeFixed64(\(codec).self, \(value))"
        case .string: return "writer.writeString(\(value))"
        case .bytes: return "writer.writeBytes(\(value))"
        case .message: return "writer.writeMessage(\(value))"
        case .map: preconditionFailure("\(field.protoName): a map is written entry by entry")
        }
    }

    /// The header of the block that writes the field, and the statements inside it; no
    /// header when the statements stand alone.
    var encodeBlock: (header: String?, body: [String]) {
        if field.isGroup {
            let write = ["writer.writeGroup(value, fieldNumber: \(field.number))"]
            switch field.presence {
            case .oneof: return ("if \(oneofPattern)", write)
            case .repeated: return ("for value in \(access)", write)
            default: return ("if let value = \(access)", write)
            }
        }
        let writeTag = "writer.writeTag(\(tag(wireType)))"
        switch field.presence {
        case .implicit:
            return ("if \(isSet)", [writeTag, writeValue(access)])
        case .explicit:
            if isStoredInBox { return ("if let box = \(storage)", [writeTag, writeValue("box.value")]) }
            return ("if let value = \(access)", [writeTag, writeValue("value")])
        case .oneof:
            return ("if \(oneofPattern)", [writeTag, writeValue("value")])
        case .map:
            let (key, value) = mapTypes
            return ("if \(isSet)", [
                "writer.writeMap(\(access), tag: \(tag(.lengthDelimited)), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self)",
            ])
        case .repeated(packed: true):
            return ("if !\(access).isEmpty", [
                "writer.writeTag(\(tag(.lengthDelimited)))",
                "writer.writePacked\(packedName)(\(access), \(codec).self)",
            ])
        case .repeated(packed: false):
            switch family {
            case .string: return (nil, ["writer.writeRepeatedString(\(access), tag: \(tag(wireType)))"])
            case .bytes: return (nil, ["writer.writeRepeatedBytes(\(access), tag: \(tag(wireType)))"])
            case .message: return (nil, ["writer.writeRepeatedMessage(\(access), tag: \(tag(wireType)))"])
            default: return ("for value in \(access)", [writeTag, writeValue("value")])
            }
        }
    }
}
