// `==` and hashing see every field. In the compact mode they go through the field table and
// the generated custom-field functions, not the compiler's synthesized ones, so each field of
// these messages (scalars, optionals, repeated, boxed, oneofs, maps, groups, extensions,
// unknown fields) is dropped from the encoding in turn, and the message read back must differ.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

struct EqualityTests {
    @Test func everything() throws {
        try expectEveryFieldCounts(
            Everything.self,
            Samples.otherText + "\n" + """
                f_float: 1.5 f_int64: -3 f_uint64: 4 f_fixed64: 5 f_fixed32: 6 f_bool: true f_bytes: "\\001"
                f_uint32: 7 f_sfixed32: -8 f_sfixed64: -9 f_sint32: -10 f_sint64: -11
                r_double: 1.5 r_float: 2.5 r_int64: -1 r_uint64: 2 r_fixed64: 3 r_fixed32: 4 r_bool: true
                r_bytes: "b" r_uint32: 5 r_sfixed32: -6 r_sfixed64: -7 r_sint32: -8 r_sint64: -9
                o_sign: SIGN_NEGATIVE o_double: 0.5 unpacked_fixed32: 9 unpacked_signs: SIGN_MAX field_2048: 1
                """, file: "everything.proto")
    }

    @Test func tree() throws {
        try expectEveryFieldCounts(TreeNode.self, Samples.treeText, file: "everything.proto")
    }

    @Test func maps() throws {
        try expectEveryFieldCounts(
            Maps.self,
            """
            int32_int32 { key: 1 value: 2 } int64_int64 { key: 3 value: 4 } uint32_uint32 { key: 5 value: 6 }
            uint64_uint64 { key: 7 value: 8 } sint32_sint32 { key: -1 value: -2 } sint64_sint64 { key: -3 value: -4 }
            fixed32_fixed32 { key: 9 value: 10 } fixed64_fixed64 { key: 11 value: 12 }
            sfixed32_sfixed32 { key: -5 value: -6 } sfixed64_sfixed64 { key: -7 value: -8 }
            int32_float { key: 1 value: 0.5 } int32_double { key: 2 value: 0.25 } bool_bool { key: true value: true }
            string_string { key: "a" value: "b" } string_bytes { key: "c" value: "\\000" }
            string_message { key: "m" value { name: "n" } } string_enum { key: "e" value: SIGN_MAX }
            string_self { key: "s" value { int32_int32 { key: 1 value: 1 } } }
            """, file: "collections.proto")
    }

    @Test func choices() throws {
        for kind in [
            "number: 1", "text: \"t\"", "data: \"d\"", "level { name: \"l\" }", "sign: SIGN_MAX",
            "ratio: 0.5", "flag: true", "nested { note: \"inner\" }",
        ] {
            try expectEveryFieldCounts(Choices.self, kind + " note: \"n\" name: \"second\"", file: "collections.proto")
        }
    }

    @Test func account() throws {
        try expectEveryFieldCounts(
            Legacy_Account.self,
            """
            id: 1 name: "n" level: 3 mood: MOOD_ANGRY history: MOOD_CALM packed_history: MOOD_HAPPY
            scores: 4 packed_scores: -5 Profile { bio: "b" tags: "t" } Visit { day: 6 } Visit { day: 7 }
            referrer { id: 2 name: "r" } moods { key: "k" value: MOOD_HAPPY } phone: 8
            [legacy.nickname]: "nick" [legacy.badges]: 9 [legacy.Holder.holder_rank]: 10
            """, file: "legacy.proto")
    }
}

/// Reads `text`'s encoding (made by protoc) as an `M`; checks that it equals, and hashes as, a
/// second reading; then, for each field number in the encoding, that dropping the field makes a
/// message that differs, and that an unknown field added makes one that differs.
private func expectEveryFieldCounts<M: Message>(
    _: M.Type, _ text: String, file: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let bytes = try Protoc.encode(text, as: M.protoMessageName, file: file)
    let value = try M(serializedBytes: bytes, partial: true)
    let again = try M(serializedBytes: bytes, partial: true)
    #expect(value == again, sourceLocation: sourceLocation)
    #expect(value.hashValue == again.hashValue, sourceLocation: sourceLocation)
    let fields = try topLevelFields(bytes)
    #expect(Set(fields.map(\.number)).count >= 2, "the sample sets several fields", sourceLocation: sourceLocation)
    for number in Set(fields.map(\.number)) {
        let without = fields.filter { $0.number != number }.flatMap(\.bytes)
        let other = try M(serializedBytes: without, partial: true)
        #expect(other != value, "field \(number) is compared", sourceLocation: sourceLocation)
        #expect(value != other, "field \(number) is compared", sourceLocation: sourceLocation)
    }
    let unknown = try M(serializedBytes: bytes + [0xF8, 0xFF, 0x03, 0x01], partial: true)  // field 8191, varint 1
    #expect(unknown != value, "unknown fields are compared", sourceLocation: sourceLocation)
}

/// The top-level fields of an encoding, each with its bytes (tag included), in order.
private func topLevelFields(_ bytes: [UInt8]) throws -> [(number: UInt64, bytes: ArraySlice<UInt8>)] {
    struct Malformed: Swift.Error {}
    var index = 0
    func varint() throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard index < bytes.count else { throw Malformed() }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        throw Malformed()
    }
    func skip(wireType: UInt64, number: UInt64) throws {
        switch wireType {
        case 0: _ = try varint()
        case 1: index += 8
        case 2: index += Int(try varint())
        case 3:
            while true {
                let tag = try varint()
                if tag & 7 == 4 { guard tag >> 3 == number else { throw Malformed() }; return }
                try skip(wireType: tag & 7, number: tag >> 3)
            }
        case 5: index += 4
        default: throw Malformed()
        }
        guard index <= bytes.count else { throw Malformed() }
    }
    var fields: [(number: UInt64, bytes: ArraySlice<UInt8>)] = []
    while index < bytes.count {
        let start = index
        let tag = try varint()
        try skip(wireType: tag & 7, number: tag >> 3)
        fields.append((tag >> 3, bytes[start..<index]))
    }
    return fields
}
