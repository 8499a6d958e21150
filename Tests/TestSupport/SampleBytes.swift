// Wire bytes with a value in every field of a message, made from its text-format field table.

import SwiftFrame

/// Wire bytes with a value in every field of a field table: the generic way to fill any message
/// (generated, from its `textFormatFields`, or a schema read from data), nested messages two
/// levels deep.
public enum SampleBytes {
    /// A value in each of `fields`; `schemas` holds the messages `.schemaMessage` and
    /// `.schemaGroup` fields refer to.
    public static func fields(_ fields: [TextFormatField], depth: Int, schemas: TextFormatSchemaSet? = nil) -> [UInt8] {
        fields.flatMap { field($0.number, $0.kind, depth: depth, schemas: schemas) }
    }

    static func field(_ number: Int32, _ kind: TextFormatKind, depth: Int, schemas: TextFormatSchemaSet?) -> [UInt8] {
        let field = UInt32(number)
        func nested(_ nestedFields: [TextFormatField]) -> [UInt8] {
            depth < 2 ? fields(nestedFields, depth: depth + 1, schemas: schemas) : []
        }
        switch kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64: return tag(field, .varint) + varint(150)
        case .bool: return tag(field, .varint) + [1]
        case .enumeration(let names), .closedEnumeration(let names):  // a declared value
            return tag(field, .varint) + varint(signed: Int64(names.last?.number ?? 1))
        case .fixed32, .sfixed32: return tag(field, .fixed32) + le32(7)
        case .float: return tag(field, .fixed32) + le32(Float(1.5).bitPattern)
        case .fixed64, .sfixed64: return tag(field, .fixed64) + le64(9)
        case .double: return tag(field, .fixed64) + le64(Double(1.5).bitPattern)
        case .string, .bytes: return delimited(field, "v\(number)")
        case .message(let type): return delimited(field, nested(type.textFormatFields))
        case .group(let type): return group(field, nested(type.textFormatFields))
        case .schemaMessage(let index): return delimited(field, nested(schemas?.messages[index].fields ?? []))
        case .schemaGroup(let index): return group(field, nested(schemas?.messages[index].fields ?? []))
        case .map(let key, let value):
            return delimited(
                field,
                self.field(1, key, depth: depth, schemas: schemas)
                    + self.field(2, value, depth: depth, schemas: schemas))
        }
    }
}
