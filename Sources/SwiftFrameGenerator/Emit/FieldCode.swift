import SwiftFrame

/// The Swift snippets for one field: its type, default, and the statements that decode,
/// size and encode it. Everything here is decided by the resolved model; every switch is
/// over the field's shape, whose cases are exactly the fields protobuf allows.
struct FieldCode {
    let field: Field

    /// `self.nickName`: always qualified, so fields named like locals (`size`) are safe.
    var access: String { "self." + field.swiftName }

    /// `self._child`: the box behind a boxed field, which the codec reads and writes directly.
    var storage: String { "self._" + field.swiftName }

    /// A boxed singular message or group outside any oneof; its codec goes through `storage`.
    private var isStoredInBox: Bool {
        switch field.shape {
        case .optional(.message), .optional(.group), .required(.message), .required(.group): return true
        case .implicit, .optional(.plain), .required(.plain), .repeated, .packed, .oneofMember, .map: return false
        }
    }

    /// The element type (`Swift.Int32`, `UserInfo`, `[Swift.String: Swift.Int32]`).
    var baseType: String {
        switch field.shape {
        case let .implicit(plain): return Self.swiftType(plain)
        case let .optional(value), let .required(value), let .repeated(value), let .oneofMember(value, _):
            return Self.swiftType(value)
        case let .packed(packable): return Self.swiftType(packable.plain)
        case let .map(key, value): return "[\(key.swiftType): \(Self.swiftType(value.value))]"
        }
    }

    static func swiftType(_ plain: Field.Plain) -> String {
        switch plain {
        case let .scalar(scalar): return scalar.swiftType
        case let .enumeration(enumType): return enumType.swiftPath
        }
    }

    static func swiftType(_ value: Field.Value) -> String {
        switch value {
        case let .plain(plain): return swiftType(plain)
        case let .message(message), let .group(message): return message.swiftPath
        }
    }

    var declaredType: String {
        switch field.shape {
        case .repeated, .packed: return "[\(baseType)]"
        case .optional, .required: return baseType + "?"
        case .implicit, .map, .oneofMember: return baseType
        }
    }

    var defaultValue: String {
        switch field.shape {
        case .repeated, .packed: return "[]"
        case .map: return "[:]"
        case .optional, .required, .oneofMember: return "nil"
        case let .implicit(.scalar(scalar)): return scalar.defaultValue
        case let .implicit(.enumeration(enumType)): return "." + enumType.defaultCase.swiftName
        }
    }

    // MARK: Text format

    /// The runtime's `TextFormatField.Label` of the field, nil for `.implicit` (the default):
    /// `.optional` for presence, `.repeated` for repeated fields and maps, `.oneof(0)` for a
    /// member of the message's first oneof.
    var label: String? {
        switch field.shape {
        case .implicit: return nil
        case .optional, .required: return ".optional"
        case .repeated, .packed, .map: return ".repeated"
        case .oneofMember: return ".oneof(\(field.oneofIndex ?? 0))"
        }
    }

    /// The field's name and kind in the text format.
    private var textFormat: (name: String, kind: String) {
        switch field.shape {
        case let .optional(value), let .required(value), let .repeated(value), let .oneofMember(value, _):
            return (field.textName, Self.textFormatKind(value))
        case let .implicit(plain):
            return (field.textName, Self.textFormatKind(.plain(plain)))
        case let .packed(packable):
            return (field.textName, Self.textFormatKind(.plain(packable.plain)))
        case let .map(key, value):
            return (field.textName, ".map(key: .\(key), value: \(Self.textFormatKind(value.value)))")
        }
    }

    /// The runtime's `TextFormatKind` case: `.sint32`, `.closedEnumeration(E.protoNames)`,
    /// `.message(M.self)`, `.group(G.self)`.
    static func textFormatKind(_ value: Field.Value) -> String {
        switch value {
        case let .plain(.scalar(scalar)): return ".\(scalar)"
        case let .plain(.enumeration(enumType)):
            return "." + (enumType.isClosed ? "closedEnumeration" : "enumeration")
                + "(\(enumType.swiftPath).protoNames)"
        case let .message(message): return ".message(\(message.swiftPath).self)"
        case let .group(message): return ".group(\(message.swiftPath).self)"
        }
    }

    // MARK: Field table

    /// How the field appears in `fieldTable`: a `custom` line for the fields generated code
    /// reads and writes (oneof members and groups, which the runtime's table codec leaves to the
    /// message), else its own line.
    enum TableEntry {
        /// `custom <property>`, with the stored property's type.
        case custom(property: String, type: String)
        /// `11 optional message child` (the name left out when the file prints fields by
        /// number), and the Swift type the line takes, if any.
        case line(String, type: String?)
        /// `3 map scores`, with the map's codec in the table's `maps` list.
        case map(String, codec: String)
    }

    func tableEntry(withNames: Bool) -> TableEntry {
        let presence: String?
        let kind: Field.Kind
        switch field.shape {
        case .oneofMember, .optional(.group), .required(.group), .repeated(.group):
            return .custom(property: storedProperty, type: storedType)
        case let .map(key, value):
            return .map(
                tableLine(presence: nil, kind: "map", withNames: withNames),
                codec: Self.mapFieldCodec(key: key, value: value))
        case let .implicit(plain): (presence, kind) = (nil, .plain(plain))
        case let .optional(.plain(plain)): (presence, kind) = ("optional", .plain(plain))
        case let .optional(.message(message)): (presence, kind) = ("optional", .message(message))
        case let .required(.plain(plain)): (presence, kind) = ("required", .plain(plain))
        case let .required(.message(message)): (presence, kind) = ("required", .message(message))
        case let .packed(packable): (presence, kind) = ("packed", .plain(packable.plain))
        case let .repeated(.plain(plain)): (presence, kind) = ("repeated", .plain(plain))
        case let .repeated(.message(message)): (presence, kind) = ("repeated", .message(message))
        }
        switch kind {
        case let .plain(.scalar(scalar)):
            return .line(tableLine(presence: presence, kind: "\(scalar)", withNames: withNames), type: nil)
        case let .plain(.enumeration(enumType)):
            let kind = enumType.isClosed ? "closed_enum" : "enum"
            return .line(tableLine(presence: presence, kind: kind, withNames: withNames), type: enumType.swiftPath)
        case let .message(message):
            return .line(tableLine(presence: presence, kind: "message", withNames: withNames), type: message.swiftPath)
        }
    }

    private func tableLine(presence: String?, kind: String, withNames: Bool) -> String {
        var words = ["\(field.number)"]
        if let presence { words.append(presence) }
        if needsInitializationCheck { words.append("checked") }
        words.append(kind)
        if withNames { words.append(textFormat.name) }
        return words.joined(separator: " ")
    }

    /// `.map(SwiftFrame.ProtoString.self, SwiftFrame.ProtoInt32.self)`.
    private static func mapFieldCodec(key: ScalarType, value: Field.Kind) -> String {
        let keyCodec = codec(.scalar(key))
        if case let .plain(.enumeration(enumType)) = value, enumType.isClosed {
            return ".closedEnumMap(\(keyCodec).self, \(enumType.swiftPath).self)"
        }
        return ".map(\(keyCodec).self, \(codec(value)).self)"
    }

    /// Whether generated code reads and writes the field in the compact mode.
    var isCustomInTable: Bool {
        if case .custom = tableEntry(withNames: false) { return true }
        return false
    }

    /// Whether the field holds messages that can hold required fields, which
    /// `checkInitialized` checks in turn.
    var needsInitializationCheck: Bool {
        field.shape.containedMessage?.needsInitializationCheck == true
    }

    /// The row in `fieldTable`'s `custom` list of a field the table leaves to generated code:
    /// `.init(7, "name", .string, .oneof(0))`, or `.init(7)` when the file prints fields by
    /// number.
    func customFieldRow(withNames: Bool) -> String {
        guard withNames else { return ".init(\(field.number))" }
        return ".init(\(field.number), \"\(textFormat.name)\", \(textFormat.kind)\(label.map { ", " + $0 } ?? ""))"
    }

    /// The type of the stored property that holds the field: `SwiftFrame.Boxed<G>?` for a
    /// boxed group.
    var storedType: String {
        isStoredInBox ? "SwiftFrame.Boxed<\(baseType)>?" : declaredType
    }

    /// The stored property that holds the field: `_child` for a boxed message, the oneof's
    /// property for a member of a oneof.
    var storedProperty: String {
        if let oneof = field.oneof { return oneof }
        return isStoredInBox ? "_" + field.swiftName : field.swiftName
    }

    // MARK: Wire details

    /// The runtime codec type of a value (`SwiftFrame.ProtoSInt32`).
    static func codec(_ plain: Field.Plain) -> String {
        switch plain {
        case let .scalar(scalar): return "SwiftFrame." + scalar.codec
        case let .enumeration(enumType) where enumType.isClosed:
            return "SwiftFrame.ProtoClosedEnum<\(enumType.swiftPath)>"
        case let .enumeration(enumType): return "SwiftFrame.ProtoEnum<\(enumType.swiftPath)>"
        }
    }

    static func codec(_ kind: Field.Kind) -> String {
        switch kind {
        case let .plain(plain): return codec(plain)
        case let .message(message): return "SwiftFrame.ProtoMessage<\(message.swiftPath)>"
        }
    }

    private static func encoding(_ plain: Field.Plain) -> ScalarType.Encoding {
        switch plain {
        case let .scalar(scalar): return scalar.encoding
        case .enumeration: return .varint
        }
    }

    private static func wireType(_ plain: Field.Plain) -> WireType {
        switch encoding(plain) {
        case .varint: return .varint
        case .fixed32: return .fixed32
        case .fixed64: return .fixed64
        case .string, .bytes: return .lengthDelimited
        }
    }

    /// The wire type of one value of the field (a map entry is length-delimited).
    private var wireType: WireType {
        switch field.shape {
        case let .implicit(plain): return Self.wireType(plain)
        case let .packed(packable): return Self.wireType(packable.plain)
        case let .optional(value), let .required(value), let .repeated(value), let .oneofMember(value, _):
            switch value {
            case let .plain(plain): return Self.wireType(plain)
            case .message: return .lengthDelimited
            case .group: return .startGroup
            }
        case .map: return .lengthDelimited
        }
    }

    private func tag(_ wireType: WireType) -> UInt32 {
        Wire.tag(fieldNumber: Int(field.number), wireType: wireType)
    }

    private var tagSize: Int { Wire.varintSize(tag(wireType)) }

    /// Bytes a value of fixed width takes, without its tag.
    private static func fixedSize(_ plain: Field.Plain) -> Int? {
        switch encoding(plain) {
        case .fixed32: return 4
        case .fixed64: return 8
        case .varint:
            if case .scalar(.bool) = plain { return 1 }
            return nil
        case .string, .bytes: return nil
        }
    }

    /// The name of the packed reader and writer: `Varint`, `Fixed32`, `Fixed64`.
    private static func packedName(_ packable: Field.Packable) -> String {
        switch packable {
        case let .numeric(numeric):
            switch numeric.encoding {
            case .varint: return "Varint"
            case .fixed32: return "Fixed32"
            case .fixed64: return "Fixed64"
            }
        case .enumeration: return "Varint"
        }
    }

    /// `case let .name(value)? = self.choice`: the pattern that binds a oneof member.
    private func oneofPattern(_ oneof: String) -> String {
        "case let .\(field.swiftName)(value)? = self.\(oneof)"
    }

    // MARK: Decoding

    /// `try reader.readString()`: reads one value of the field's type; with `access`, one
    /// value of an unpacked repeated field appended to it
    /// (`try reader.readString(appendingTo: &self.tags)`).
    private static func readValue(_ plain: Field.Plain, appendingTo access: String? = nil) -> String {
        let method: String
        var codecArgument: String? = "\(codec(plain)).self"
        switch encoding(plain) {
        case .varint: method = "readVarint"
        case .fixed32: method = "readFixed32"
        case .fixed64: method = "readFixed64"
        case .string: (method, codecArgument) = ("readString", nil)
        case .bytes: (method, codecArgument) = ("readBytes", nil)
        }
        let arguments = [access.map { "appendingTo: &\($0)" }, codecArgument].compactMap { $0 }
        return "try reader.\(method)(\(arguments.joined(separator: ", ")))"
    }

    /// The `case` lines of the decode switch: tag and statements.
    var decodeCases: [(tag: UInt32, statements: [String])] {
        switch field.shape {
        case let .map(key, value):
            let codecs = "\(Self.codec(.scalar(key))).self, \(Self.codec(value)).self"
            if case let .plain(.enumeration(enumType)) = value, enumType.isClosed {
                return [
                    (
                        tag(.lengthDelimited),
                        [
                            "try reader.readMapEntry(into: &\(access), \(codecs), unknownFields: &self.unknownFields)"
                        ]
                    )
                ]
            }
            return [(tag(.lengthDelimited), ["try reader.readMapEntry(into: &\(access), \(codecs))"])]
        case let .oneofMember(.group, oneof):
            return [
                (
                    tag(.startGroup),
                    mergingOneofCase(oneof, read: "try reader.readGroup(fieldNumber: \(field.number), merging: &value)")
                )
            ]
        case let .oneofMember(.message, oneof):
            // A message seen again in the same oneof case merges, as a singular message does.
            return [(tag(.lengthDelimited), mergingOneofCase(oneof, read: "try reader.readMessage(merging: &value)"))]
        case .optional(.group), .required(.group):
            return [(tag(.startGroup), ["try reader.readGroup(fieldNumber: \(field.number), into: &\(access))"])]
        case .repeated(.group):
            return [(tag(.startGroup), ["try reader.readGroup(fieldNumber: \(field.number), appendingTo: &\(access))"])]
        case .optional(.message), .required(.message):
            return [(tag(.lengthDelimited), ["try reader.readMessage(into: &\(storage))"])]
        case .repeated(.message):
            return [(tag(.lengthDelimited), ["try reader.readMessage(appendingTo: &\(access))"])]
        case let .oneofMember(.plain(plain), oneof):
            if let closed = Self.closedEnum(plain) {
                return [
                    (
                        tag(.varint),
                        ["if let value = \(readClosed(closed)) { self.\(oneof) = .\(field.swiftName)(value) }"]
                    )
                ]
            }
            return [(tag(wireType), ["self.\(oneof) = .\(field.swiftName)(\(Self.readValue(plain)))"])]
        case let .implicit(plain), let .optional(.plain(plain)), let .required(.plain(plain)):
            if let closed = Self.closedEnum(plain) {
                return [(tag(.varint), ["if let value = \(readClosed(closed)) { \(access) = value }"])]
            }
            return [(tag(wireType), ["\(access) = \(Self.readValue(plain))"])]
        case let .packed(packable):
            return repeatedDecodeCases(packable.plain, packable: packable)
        case let .repeated(.plain(plain)):
            return repeatedDecodeCases(plain, packable: Field.Packable(plain))
        }
    }

    /// A oneof member that merges with what the oneof holds: a message or a group.
    private func mergingOneofCase(_ oneof: String, read: String) -> [String] {
        [
            "var value = \(baseType)()",
            "if case let .\(field.swiftName)(existing)? = self.\(oneof) { value = existing }",
            read,
            "self.\(oneof) = .\(field.swiftName)(value)",
        ]
    }

    /// Repeated numbers, strings, bytes and enums. Packable fields accept both packed and
    /// unpacked input, whatever they write; a closed enum's unknown numbers go to unknown fields.
    private func repeatedDecodeCases(_ plain: Field.Plain, packable: Field.Packable?) -> [(
        tag: UInt32, statements: [String]
    )] {
        if let closed = Self.closedEnum(plain) {
            return [
                (tag(.varint), ["if let value = \(readClosed(closed)) { \(access).append(value) }"]),
                (
                    tag(.lengthDelimited),
                    [
                        "try reader.readPackedClosedEnum(into: &\(access), \(closed.swiftPath).self, fieldNumber: \(field.number), unknownFields: &self.unknownFields)"
                    ]
                ),
            ]
        }
        var cases = [(tag(wireType), [Self.readValue(plain, appendingTo: access)])]
        if let packable {
            cases.append(
                (
                    tag(.lengthDelimited),
                    [
                        "try reader.readPacked\(Self.packedName(packable))(into: &\(access), \(Self.codec(plain)).self)"
                    ]
                ))
        }
        return cases.sorted { $0.0 < $1.0 }
    }

    /// The closed enum a value is, whose unknown numbers go to unknown fields.
    private static func closedEnum(_ plain: Field.Plain) -> EnumType? {
        if case let .enumeration(enumType) = plain, enumType.isClosed { return enumType }
        return nil
    }

    private func readClosed(_ closed: EnumType) -> String {
        "try reader.readClosedEnum(\(closed.swiftPath).self, unknownFields: &self.unknownFields)"
    }

    /// What a decode case reads, for the comment beside it (`rDouble = 21, packed`).
    func decodeComment(tag: UInt32) -> String {
        let isPackable: Bool
        switch field.shape {
        case .packed: isPackable = true
        case let .repeated(.plain(plain)): isPackable = Field.Packable(plain) != nil
        default: isPackable = false
        }
        let packed = isPackable && tag & 7 == 2
        return "\(field.protoName) = \(field.number)" + (packed ? ", packed" : "")
    }

    // MARK: Sizing

    /// Bytes a value takes without its tag, as an expression.
    private static func valueSize(_ plain: Field.Plain, _ value: String) -> String {
        if let fixedSize = fixedSize(plain) { return String(fixedSize) }
        switch encoding(plain) {
        case .varint, .fixed32, .fixed64: return "\(codec(plain)).size(\(value))"
        case .string: return "SwiftFrame.Wire.lengthDelimitedSize(\(value).utf8.count)"
        case .bytes: return "SwiftFrame.Wire.lengthDelimitedSize(\(value).count)"
        }
    }

    /// `size.add(1, …)`, folding constants. (`MessageSize`'s methods, not integer operators:
    /// those are slow to type-check.)
    private func addSize(_ element: Field.Value, _ value: String) -> String {
        switch element {
        case .group: return "size.add(\(2 * tagSize), cache.group(\(value)))"
        case .message: return "size.add(\(tagSize), cache.message(\(value)))"
        case let .plain(plain):
            if let fixedSize = Self.fixedSize(plain) { return "size.add(\(tagSize + fixedSize))" }
            return "size.add(\(tagSize), \(Self.valueSize(plain, value)))"
        }
    }

    /// The condition under which a proto3 implicit-presence field is written.
    private func isSet(_ plain: Field.Plain) -> String {
        switch plain {
        case .scalar(.bool): return access
        case .scalar(.string), .scalar(.bytes): return "!\(access).isEmpty"
        case .scalar(.float), .scalar(.double): return "\(access).bitPattern != 0"  // -0.0 is written
        case .scalar: return "\(access) != 0"
        case .enumeration: return "\(access).rawValue != 0"
        }
    }

    var sizeStatement: String {
        switch field.shape {
        case let .implicit(plain):
            return "if \(isSet(plain)) { \(addSize(.plain(plain), access)) }"
        case let .optional(element), let .required(element):
            if case let .plain(plain) = element, Self.fixedSize(plain) != nil {
                return "if \(access) != nil { \(addSize(element, "")) }"
            }
            if isStoredInBox { return "if let box = \(storage) { \(addSize(element, "box.value")) }" }
            return "if let value = \(access) { \(addSize(element, "value")) }"
        case let .oneofMember(element, oneof):
            if case let .plain(plain) = element, Self.fixedSize(plain) != nil {
                return "if case .\(field.swiftName)? = self.\(oneof) { \(addSize(element, "")) }"
            }
            return "if \(oneofPattern(oneof)) { \(addSize(element, "value")) }"
        case let .map(key, value):
            return
                "if !\(access).isEmpty { size.add(cache.map(\(access), tagSize: \(tagSize), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self)) }"
        case let .packed(packable):
            let packedTag = Wire.varintSize(tag(.lengthDelimited))
            switch packable {
            case let .numeric(numeric) where numeric.encoding != .varint:
                let width = numeric.encoding == .fixed32 ? 4 : 8
                return "if !\(access).isEmpty { size.addPacked(\(packedTag), count: \(access).count, width: \(width)) }"
            case .numeric, .enumeration:
                return
                    "if !\(access).isEmpty { size.add(\(packedTag), cache.packedVarint(\(access), \(Self.codec(packable.plain)).self)) }"
            }
        case let .repeated(element):
            switch element {
            case let .plain(plain):
                if let fixedSize = Self.fixedSize(plain) {
                    return "size.add(\(access).count, each: \(tagSize + fixedSize))"
                }
            case .message:
                return "size.add(cache.repeatedMessage(\(access), tagSize: \(tagSize)))"
            case .group:
                break
            }
            return "for value in \(access) { \(addSize(element, "value")) }"
        }
    }

    // MARK: Encoding

    /// Writes one value bound as `value` after `tag`, in one call: one bounds check for the
    /// tag and the value.
    private static func writePlain(_ plain: Field.Plain, _ value: String, tag: UInt32) -> String {
        switch encoding(plain) {
        case .varint: return "writer.writeVarint(\(codec(plain)).self, \(value), tag: \(tag))"
        case .fixed32: return "writer.writeFixed32(\(codec(plain)).self, \(value), tag: \(tag))"
        case .fixed64: return "writer.writeFixed64(\(codec(plain)).self, \(value), tag: \(tag))"
        case .string: return "writer.writeString(\(value), tag: \(tag))"
        case .bytes: return "writer.writeBytes(\(value), tag: \(tag))"
        }
    }

    /// The tag and the value of one element bound as `value`.
    private func writeElement(_ element: Field.Value, _ value: String) -> [String] {
        switch element {
        case .group: return ["writer.writeGroup(\(value), fieldNumber: \(field.number))"]
        case .message: return [writeTag, "writer.writeMessage(\(value))"]
        case let .plain(plain): return [Self.writePlain(plain, value, tag: tag(wireType))]
        }
    }

    private var writeTag: String { "writer.writeTag(\(tag(wireType)))" }

    /// The header of the block that writes the field, and the statements inside it; no
    /// header when the statements stand alone.
    var encodeBlock: (header: String?, body: [String]) {
        switch field.shape {
        case .implicit(.scalar(.string)):
            // The writer tests for empty where it has the length at hand.
            return (nil, ["writer.writeStringUnlessEmpty(\(access), tag: \(tag(.lengthDelimited)))"])
        case .implicit(.scalar(.bytes)):
            return (nil, ["writer.writeBytesUnlessEmpty(\(access), tag: \(tag(.lengthDelimited)))"])
        case let .implicit(plain):
            return ("if \(isSet(plain))", writeElement(.plain(plain), access))
        case let .optional(.message(message)), let .required(.message(message)):
            return ("if let box = \(storage)", writeElement(.message(message), "box.value"))
        case let .optional(element), let .required(element):
            return ("if let value = \(access)", writeElement(element, "value"))
        case let .oneofMember(element, oneof):
            return ("if \(oneofPattern(oneof))", writeElement(element, "value"))
        case let .map(key, value):
            return (
                "if !\(access).isEmpty",
                [
                    "writer.writeMap(\(access), tag: \(tag(.lengthDelimited)), \(Self.codec(.scalar(key))).self, \(Self.codec(value)).self)"
                ]
            )
        case let .packed(packable):
            return (
                "if !\(access).isEmpty",
                [
                    "writer.writeTag(\(tag(.lengthDelimited)))",
                    "writer.writePacked\(Self.packedName(packable))(\(access), \(Self.codec(packable.plain)).self)",
                ]
            )
        case .repeated(.plain(.scalar(.string))):
            return (nil, ["writer.writeRepeatedString(\(access), tag: \(tag(wireType)))"])
        case .repeated(.plain(.scalar(.bytes))):
            return (nil, ["writer.writeRepeatedBytes(\(access), tag: \(tag(wireType)))"])
        case .repeated(.message):
            return (nil, ["writer.writeRepeatedMessage(\(access), tag: \(tag(wireType)))"])
        case let .repeated(element):
            return ("for value in \(access)", writeElement(element, "value"))
        }
    }
}
