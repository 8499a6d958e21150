import SwiftFrame

/// The Swift snippets for one field: its type, default, and the statements that decode,
/// size and encode it. Everything here is decided by the resolved model.
struct FieldCode {
    let field: Field

    /// `self.nickName`: always qualified, so fields named like locals (`size`) are safe.
    var access: String { "self." + field.swiftName }

    /// The element type (`Swift.Int32`, `UserInfo`).
    var baseType: String {
        switch field.kind {
        case let .scalar(scalar): return scalar.swiftType
        case let .enumeration(enumType): return enumType.swiftPath
        case let .message(message): return message.swiftPath
        }
    }

    var declaredType: String {
        switch field.presence {
        case .repeated: return "[\(baseType)]"
        case .explicit: return baseType + "?"
        case .implicit: return baseType
        }
    }

    var defaultValue: String {
        switch (field.presence, field.kind) {
        case (.repeated, _): return "[]"
        case (.explicit, _): return "nil"
        case let (.implicit, .scalar(scalar)): return scalar.defaultValue
        case let (.implicit, .enumeration(enumType)): return "." + enumType.defaultCase.swiftName
        case (.implicit, .message): return "nil"
        }
    }

    // MARK: Wire details

    private enum Family { case varint, fixed32, fixed64, string, bytes, message }

    private var family: Family {
        switch field.kind {
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
        }
    }

    private var codec: String {
        switch field.kind {
        case let .scalar(scalar): return "SwiftFrame." + (scalar.codec ?? "")
        case let .enumeration(enumType): return "SwiftFrame.ProtoEnum<\(enumType.swiftPath)>"
        case .message: return ""
        }
    }

    private var wireType: WireType {
        switch family {
        case .varint: return .varint
        case .fixed32: return .fixed32
        case .fixed64: return .fixed64
        case .string, .bytes, .message: return .lengthDelimited
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

    // MARK: Decoding

    /// `try reader.readString()`: reads one value of the field's type.
    private var readValue: String {
        switch family {
        case .varint: return "try reader.readVarint(\(codec).self)"
        case .fixed32: return "try reader.readFixed32(\(codec).self)"
        case .fixed64: return "try reader.readFixed64(\(codec).self)"
        case .string: return "try reader.readString()"
        case .bytes: return "try reader.readBytes()"
        case .message: return ""
        }
    }

    /// The `case` lines of the decode switch: tag and statement.
    var decodeCases: [(tag: UInt32, statement: String)] {
        if family == .message {
            let into = field.isRepeated ? "appendingTo" : "into"
            return [(tag(.lengthDelimited), "try reader.readMessage(\(into): &\(access))")]
        }
        guard field.isRepeated else {
            return [(tag(wireType), "\(access) = \(readValue)")]
        }
        var cases = [(tag(wireType), "\(access).append(\(readValue))")]
        // Packable fields accept both packed and unpacked input, whatever they write.
        switch family {
        case .varint, .fixed32, .fixed64:
            let packed = family == .varint ? "Varint" : family == .fixed32 ? "Fixed32" : "Fixed64"
            cases.append((tag(.lengthDelimited), "try reader.readPacked\(packed)(into: &\(access), \(codec).self)"))
        default:
            break
        }
        return cases.sorted { $0.0 < $1.0 }
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
        case .fixed32, .fixed64: return ""
        }
    }

    /// `size += 1 + …`, folding constants.
    private func addSize(_ value: String) -> String {
        if let fixedSize { return "size += \(tagSize + fixedSize)" }
        return "size += \(tagSize) + \(valueSize(value))"
    }

    /// The condition under which a proto3 implicit-presence field is written.
    private var isSet: String {
        switch field.kind {
        case .scalar(.bool): return access
        case .scalar(.string), .scalar(.bytes): return "!\(access).isEmpty"
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
            return "if let value = \(access) { \(addSize("value")) }"
        case .repeated(packed: true):
            let packedTag = Wire.varintSize(tag(.lengthDelimited))
            if family == .varint {
                return "if !\(access).isEmpty { size += \(packedTag) + cache.packedVarint(\(access), \(codec).self) }"
            }
            return "if !\(access).isEmpty { size += \(packedTag) + SwiftFrame.Wire.lengthDelimitedSize(\(access).count &* \(fixedSize ?? 0)) }"
        case .repeated(packed: false):
            if let fixedSize { return "size += \(access).count &* \(tagSize + fixedSize)" }
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
        }
    }

    /// The header of the block that writes the field, and the statements inside it.
    var encodeBlock: (header: String, body: [String]) {
        let writeTag = "writer.writeTag(\(tag(wireType)))"
        switch field.presence {
        case .implicit:
            return ("if \(isSet)", [writeTag, writeValue(access)])
        case .explicit:
            return ("if let value = \(access)", [writeTag, writeValue("value")])
        case .repeated(packed: true):
            let packed = family == .varint ? "Varint" : family == .fixed32 ? "Fixed32" : "Fixed64"
            return ("if !\(access).isEmpty", [
                "writer.writeTag(\(tag(.lengthDelimited)))",
                "writer.writePacked\(packed)(\(access), \(codec).self)",
            ])
        case .repeated(packed: false):
            return ("for value in \(access)", [writeTag, writeValue("value")])
        }
    }
}
