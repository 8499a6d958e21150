import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

/// Maps and oneofs against protoc. Map entries are written sorted by key, so the text
/// below lists them in key order for byte-for-byte comparison.
@Suite struct CollectionsTests {
    static let level = Everything.Level1(name: "l1", child: .init(value: 7))

    @Test func everyMapKeyAndValueKind() throws {
        let maps = Maps(
            int32Int32: [-1: -2, 3: 4], int64Int64: [Int64.min: Int64.max], uint32Uint32: [0: UInt32.max],
            uint64Uint64: [UInt64.max: 1], sint32Sint32: [Int32.min: -1], sint64Sint64: [-5: Int64.min],
            fixed32Fixed32: [1: 2], fixed64Fixed64: [3: 4], sfixed32Sfixed32: [-3: -4], sfixed64Sfixed64: [-5: -6],
            int32Float: [1: 1.5], int32Double: [2: -0.25], boolBool: [false: true, true: false],
            stringString: ["": "empty key", "b": "", "é": "ü"], stringBytes: ["k": [0, 255]],
            stringMessage: ["m": Self.level], stringEnum: ["neg": .negative, "zero": .zero],
            stringSelf: ["child": Maps(int32Int32: [1: 1])])
        let text = """
            int32_int32 { key: -1 value: -2 } int32_int32 { key: 3 value: 4 }
            int64_int64 { key: -9223372036854775808 value: 9223372036854775807 }
            uint32_uint32 { key: 0 value: 4294967295 }
            uint64_uint64 { key: 18446744073709551615 value: 1 }
            sint32_sint32 { key: -2147483648 value: -1 }
            sint64_sint64 { key: -5 value: -9223372036854775808 }
            fixed32_fixed32 { key: 1 value: 2 } fixed64_fixed64 { key: 3 value: 4 }
            sfixed32_sfixed32 { key: -3 value: -4 } sfixed64_sfixed64 { key: -5 value: -6 }
            int32_float { key: 1 value: 1.5 } int32_double { key: 2 value: -0.25 }
            bool_bool { key: false value: true } bool_bool { key: true value: false }
            string_string { key: "" value: "empty key" } string_string { key: "b" value: "" }
            string_string { key: "é" value: "ü" }
            string_bytes { key: "k" value: "\\000\\377" }
            string_message { key: "m" value { name: "l1" child { value: 7 } } }
            string_enum { key: "neg" value: SIGN_NEGATIVE } string_enum { key: "zero" value: SIGN_ZERO }
            string_self { key: "child" value { int32_int32 { key: 1 value: 1 } } }
            """
        try expectRoundTrip(maps, text: text, file: "collections.proto")
    }

    @Test func stringKeysAreWrittenInUTF8ByteOrder() throws {
        let keys = [
            "z", "key-10", "key-9", "a", "", "ab", "a\u{0}", "日本", "é", "Z", "~",
            "shared-prefix-2", "shared-prefix-10", "shared-prefix-1", "shared-p", "shared-prefiy",
        ]
        let maps = Maps(stringString: Dictionary(uniqueKeysWithValues: keys.map { ($0, $0) }))
        let bytes = try maps.serializedBytes()
        var written: [String] = []
        try bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            while reader.hasRemaining {
                #expect(try reader.readTag() == 14 << 3 | 2)
                written.append(
                    try reader.readLengthDelimited { (entry: inout ProtoReader) throws(WireError) in
                        _ = try entry.readTag()
                        return try entry.readString()
                    })
            }
        }
        #expect(written == keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(try Maps(serializedBytes: bytes) == maps)
    }

    @Test func mapEntriesWithMissingKeyOrValueDecodeToDefaults() throws {
        // field 1 entries: {value: 5} (no key), {key: 7} (no value), {} and an unknown field 3 inside.
        let bytes: [UInt8] = [
            0x0A, 0x02, 0x10, 0x05, 0x0A, 0x02, 0x08, 0x07, 0x0A, 0x00, 0x0A, 0x04, 0x08, 0x09, 0x18, 0x01,
        ]
        let maps = try Maps(serializedBytes: bytes)
        #expect(maps.int32Int32 == [0: 0, 7: 0, 9: 0])
        // A key seen again replaces the earlier value.
        let twice: [UInt8] = [0x0A, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0A, 0x04, 0x08, 0x01, 0x10, 0x03]
        #expect(try Maps(serializedBytes: twice).int32Int32 == [1: 3])
        // protoc agrees on the missing key and value.
        let text = try Protoc.decode(bytes, as: "Maps", file: "collections.proto")
        #expect(text.contains("key: 7") && text.contains("value: 5"))
    }

    @Test(arguments: [
        (Choices(kind: .number(0)), "number: 0"),
        (Choices(kind: .text("hé")), "text: \"hé\""),
        (Choices(kind: .data([])), "data: \"\""),
        (Choices(kind: .level(CollectionsTests.level)), "level { name: \"l1\" child { value: 7 } }"),
        (Choices(kind: .sign(.min)), "sign: SIGN_MIN"),
        (Choices(kind: .ratio(-0.0)), "ratio: -0"),
        (Choices(kind: .flag(false)), "flag: false"),
        (
            Choices(kind: .nested(Choices(kind: .nested(Choices(kind: .flag(true)))))),
            "nested { nested { flag: true } }"
        ),
        (Choices(kind: .text("t"), note: "n", second: .id(9)), "text: \"t\" note: \"n\" id: 9"),
        (Choices(note: "only", second: .name("x")), "note: \"only\" name: \"x\""),
    ])
    func oneofMembersAreWrittenEvenAtTheirDefault(value: Choices, text: String) throws {
        try expectRoundTrip(value, text: text, file: "collections.proto")
    }

    @Test func theLastOneofMemberOnTheWireWins() throws {
        let first = try Protoc.encode("number: 5", as: "Choices", file: "collections.proto")
        let second = try Protoc.encode("text: \"later\"", as: "Choices", file: "collections.proto")
        #expect(try Choices(serializedBytes: first + second).kind == .text("later"))
        #expect(try Choices(serializedBytes: second + first).kind == .number(5))
        // The same message member twice merges, as a singular message field does.
        let a = try Protoc.encode("level { name: \"a\" }", as: "Choices", file: "collections.proto")
        let b = try Protoc.encode("level { child { value: 1 } }", as: "Choices", file: "collections.proto")
        #expect(try Choices(serializedBytes: a + b).kind == .level(.init(name: "a", child: .init(value: 1))))
        let merged = try Protoc.decode(a + b, as: "Choices", file: "collections.proto")
        let ours = try Protoc.decode(
            try Choices(serializedBytes: a + b).serializedBytes(), as: "Choices",
            file: "collections.proto")
        #expect(merged == ours)
    }
}
