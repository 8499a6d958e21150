// proto2 round trips of legacy.proto against protoc: required fields, declared defaults,
// closed enums, packed and unpacked repeated fields, groups, recursion, maps, oneofs and
// extensions.

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

private let legacy = "legacy.proto"

/// The smallest valid Account: both required fields set.
private func account(_ id: Int64 = 1, _ name: String = "n") -> Legacy_Account {
    Legacy_Account(id: id, name: name)
}

@Suite("proto2: legacy.Account")
struct Proto2AccountTests {
    static let full = Legacy_Account(
        id: -42, name: "Ada", level: 0, mood: .angry,
        history: [.happy, .angry, .calm], packedHistory: [.angry, .calm, .happy],
        scores: [1, -2, 0], packedScores: [-3, 4, Int64.min],
        profile: .init(bio: "b", tags: ["x", ""]),
        visit: [.init(day: 1), .init(day: 0)],
        referrer: Legacy_Account(id: 2, name: "ref", referrer: Legacy_Account(id: 3, name: "")),
        moods: ["a": .happy],
        contact: .email("a@b"))

    static let fullText = """
        id: -42 name: "Ada" level: 0 mood: MOOD_ANGRY
        history: [MOOD_HAPPY, MOOD_ANGRY, MOOD_CALM] packed_history: [MOOD_ANGRY, MOOD_CALM, MOOD_HAPPY]
        scores: [1, -2, 0] packed_scores: [-3, 4, -9223372036854775808]
        Profile { bio: "b" tags: "x" tags: "" }
        Visit { day: 1 } Visit { day: 0 }
        referrer { id: 2 name: "ref" referrer { id: 3 name: "" } }
        moods { key: "a" value: MOOD_HAPPY }
        email: "a@b"
        """

    @Test("Every kind of field against protoc")
    func everyField() throws {
        try expectRoundTrip(Self.full, text: Self.fullText, file: legacy)
        try expectRoundTrip(account(0, ""), text: "id: 0 name: \"\"", file: legacy)
        try expectRoundTrip(
            Legacy_Account(id: 1, name: "p", contact: .phone(0)), text: "id: 1 name: \"p\" phone: 0", file: legacy)
        try expectRoundTrip(
            Legacy_Account(id: 1, name: "m", moods: ["": .calm, "b": .angry, "c": .happy]),
            text:
                "id: 1 name: \"m\" moods { key: \"\" value: MOOD_CALM } moods { key: \"b\" value: MOOD_ANGRY } moods { key: \"c\" value: MOOD_HAPPY }",
            file: legacy)
    }

    /// Optional fields set to their default (declared or not) are present and written.
    @Test("Fields set to their defaults are written (explicit presence)")
    func presence() throws {
        let value = Legacy_Account(
            id: 0, name: "", level: Legacy_Account.Defaults.level, mood: Legacy_Account.Defaults.mood,
            profile: .init(), referrer: nil, contact: .email(""))
        try expectRoundTrip(
            value, text: "id: 0 name: \"\" level: 10 mood: MOOD_HAPPY Profile {} email: \"\"", file: legacy)
        let bytes = try value.serializedBytes()
        let back = try Legacy_Account(serializedBytes: bytes)
        #expect(back.level == 10 && back.mood == .happy && back.profile == .init() && back.contact == .email(""))
        // An unset field stays nil; its declared default is a separate constant.
        let unset = try Legacy_Account(serializedBytes: try account().serializedBytes())
        #expect(unset.level == nil && unset.mood == nil && unset.profile == nil && unset.contact == nil)
        #expect((unset.level ?? Legacy_Account.Defaults.level) == 10)
        #expect((unset.mood ?? Legacy_Account.Defaults.mood) == .happy)
    }

    @Test("Closed enum Mood: negative values, packed and unpacked")
    func closedEnum() throws {
        #expect(Legacy_Mood.angry.rawValue == -3 && Legacy_Mood.happy.rawValue == 7 && Legacy_Mood() == .calm)
        let value = Legacy_Account(id: 1, name: "e", mood: .angry, history: [.angry], packedHistory: [.angry, .angry])
        try expectRoundTrip(
            value,
            text: "id: 1 name: \"e\" mood: MOOD_ANGRY history: MOOD_ANGRY packed_history: [MOOD_ANGRY, MOOD_ANGRY]",
            file: legacy)
        // -3 is a sign-extended ten-byte varint, in a packed run too.
        let bytes = try value.serializedBytes()
        let minusThree = varint(signed: -3)
        #expect(minusThree.count == 10)
        #expect(bytes.suffix(2 + 20) == ArraySlice(tag(6, 2) + [20] + minusThree + minusThree))
    }

    /// proto2 writes repeated scalars unpacked unless `[packed = true]`, and reads both forms.
    @Test("Packed and unpacked input are both accepted; output follows the declaration")
    func packing() throws {
        let head = tag(1, 0) + [1] + delimited(2, Array("p".utf8))
        let minusThree = varint(signed: -3)
        // scores (7) packed on the wire, packed_scores (8) unpacked, history (5) packed,
        // packed_history (6) unpacked.
        let input =
            head
            + delimited(7, [1, 2] + varint(signed: -1))
            + tag(8, 0) + varint(zigzag(-3)) + tag(8, 0) + varint(zigzag(5))
            + delimited(5, [7] + minusThree)
            + tag(6, 0) + [7] + tag(6, 0) + [0]
        let decoded = try Legacy_Account(serializedBytes: input)
        #expect(decoded.scores == [1, 2, -1])
        #expect(decoded.packedScores == [-3, 5])
        #expect(decoded.history == [.happy, .angry])
        #expect(decoded.packedHistory == [.happy, .calm])
        #expect(decoded.unknownFields.isEmpty)
        let expected =
            head
            + tag(5, 0) + [7] + tag(5, 0) + minusThree
            + delimited(6, [7, 0])
            + tag(7, 0) + [1] + tag(7, 0) + [2] + tag(7, 0) + varint(signed: -1)
            + delimited(8, varint(zigzag(-3)) + varint(zigzag(5)))
        #expect(try decoded.serializedBytes() == expected)
        // protoc reads our input the same way.
        #expect(
            try Protoc.decode(input, as: "legacy.Account", file: legacy)
                == Protoc.decode(expected, as: "legacy.Account", file: legacy))
    }

    @Test("The Profile group and the repeated Visit group")
    func groups() throws {
        let value = Legacy_Account(
            id: 5, name: "g", profile: .init(bio: "bio", tags: ["t1", "t2"]),
            visit: [.init(day: 3), .init(day: 4), .init(day: 5)])
        try expectRoundTrip(
            value,
            text: """
                id: 5 name: "g" Profile { bio: "bio" tags: "t1" tags: "t2" } Visit { day: 3 } Visit { day: 4 } Visit { day: 5 }
                """, file: legacy)
        let bytes = try value.serializedBytes()
        // Groups are delimited by start (wire type 3) and end (4) tags of their own number.
        let profile =
            tag(9, 3) + delimited(10, Array("bio".utf8)) + delimited(11, Array("t1".utf8))
            + delimited(11, Array("t2".utf8)) + tag(9, 4)
        let visits = [3, 4, 5].flatMap { tag(12, 3) + tag(13, 0) + [UInt8($0)] + tag(12, 4) }
        #expect(bytes == tag(1, 0) + [5] + delimited(2, Array("g".utf8)) + profile + visits)
        // A Profile group seen twice is merged; each Visit group is one element.
        let twice =
            tag(1, 0) + [5] + delimited(2, Array("g".utf8))
            + tag(9, 3) + delimited(10, Array("a".utf8)) + tag(9, 4)
            + tag(9, 3) + delimited(11, Array("t".utf8)) + tag(9, 4)
        #expect(try Legacy_Account(serializedBytes: twice).profile == .init(bio: "a", tags: ["t"]))
        // Unknown fields inside a group stay in it.
        let withUnknown =
            tag(1, 0) + [5] + delimited(2, Array("g".utf8))
            + tag(9, 3) + tag(99, 0) + [1] + tag(9, 4)
        let decoded = try Legacy_Account(serializedBytes: withUnknown)
        #expect(decoded.profile?.unknownFields.bytes == tag(99, 0) + [1])
        #expect(try decoded.serializedBytes() == withUnknown)
        // Mismatched and unterminated groups are errors.
        #expect(throws: WireError.unmatchedEndGroup(offset: 3)) {
            try Legacy_Account(serializedBytes: tag(1, 0) + [5] + tag(9, 3) + tag(12, 4))
        }
        #expect(throws: WireError.truncated(offset: 2)) {
            try Legacy_Account(serializedBytes: tag(1, 0) + [5] + tag(12, 3) + tag(13, 0) + [1])
        }
    }

    @Test("Recursion through referrer")
    func recursion() throws {
        var chain = account(99, "n99")
        var text = "id: 99 name: \"n99\""
        for level in stride(from: 98, through: 0, by: -1) {
            chain = Legacy_Account(id: Int64(level), name: "n\(level)", referrer: chain)
            text = "id: \(level) name: \"n\(level)\" referrer { \(text) }"
        }
        // 100 accounts: 99 nested levels below the top, within the default limit of 100.
        try expectRoundTrip(chain, text: text, file: legacy)
        // Two more levels: 101 nested accounts, one past the limit.
        let deeper = Legacy_Account(id: -1, name: "top", referrer: Legacy_Account(id: -2, name: "", referrer: chain))
        #expect(throws: WireError.self) { try Legacy_Account(serializedBytes: try deeper.serializedBytes()) }
        #expect(try Legacy_Account(serializedBytes: try deeper.serializedBytes(), maxDepth: 200) == deeper)
        // A missing required field deep down is found.
        var broken = chain
        broken.referrer?.referrer?.referrer?.name = nil
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "name")) {
            try broken.serializedBytes()
        }
    }

    @Test("The moods map (string to closed enum)")
    func moodsMap() throws {
        let value = Legacy_Account(id: 1, name: "m", moods: ["x": .angry])
        try expectRoundTrip(value, text: "id: 1 name: \"m\" moods { key: \"x\" value: MOOD_ANGRY }", file: legacy)
        let head = tag(1, 0) + [1] + delimited(2, Array("m".utf8))
        // Entry without a value: the enum's default (MOOD_CALM, 0); without a key: "".
        let missing = head + delimited(15, delimited(1, Array("k".utf8))) + delimited(15, tag(2, 0) + [7])
        let decoded = try Legacy_Account(serializedBytes: missing)
        #expect(decoded.moods == ["k": .calm, "": .happy])
        #expect(decoded.unknownFields.isEmpty)
    }

    @Test("The contact oneof: the last member wins")
    func contactOneof() throws {
        let head = tag(1, 0) + [1] + delimited(2, Array("c".utf8))
        let email = tag(16, 2) + [1, 0x65]
        let phone = tag(17, 0) + [9]
        #expect(try Legacy_Account(serializedBytes: head + email + phone).contact == .phone(9))
        #expect(try Legacy_Account(serializedBytes: head + phone + email).contact == .email("e"))
        #expect(try Legacy_Account(serializedBytes: head + phone + email).serializedBytes() == head + email)
        try expectRoundTrip(
            Legacy_Account(id: 1, name: "c", contact: .phone(UInt64.max)),
            text: "id: 1 name: \"c\" phone: 18446744073709551615", file: legacy)
    }

    /// A Mood number the enum does not declare is never stored in the field: it is kept in
    /// unknownFields and written back after the known fields.
    @Test("Unknown closed-enum numbers go to unknownFields and are re-emitted")
    func unknownEnumNumbers() throws {
        let head = tag(1, 0) + [1] + delimited(2, Array("u".utf8))
        let mood5 = tag(4, 0) + [5]
        let history = tag(5, 0) + [7] + tag(5, 0) + [8] + tag(5, 0) + varint(signed: -3)
        let packed = delimited(6, [0, 9, 7])
        let moods = delimited(15, delimited(1, Array("k".utf8)) + tag(2, 0) + [4])
        let input = mood5 + head + history + packed + moods

        let decoded = try Legacy_Account(serializedBytes: input)
        #expect(decoded.mood == nil)
        #expect(decoded.history == [.happy, .angry])
        #expect(decoded.packedHistory == [.calm, .happy])
        #expect(decoded.moods.isEmpty)
        // In the order read; a packed unknown number becomes an unpacked field.
        #expect(decoded.unknownFields.bytes == mood5 + tag(5, 0) + [8] + tag(6, 0) + [9] + moods)

        let expected =
            head + tag(5, 0) + [7] + tag(5, 0) + varint(signed: -3) + delimited(6, [0, 7])
            + mood5 + tag(5, 0) + [8] + tag(6, 0) + [9] + moods
        #expect(try decoded.serializedBytes() == expected)
        // protoc sees the same numbers (as unknown fields it prints by number). (protoc's
        // reflection-based parser keeps a map entry with an unknown value in the map, with
        // the number as an unknown field of the entry; generated C++ code, which the
        // conformance suite runs, keeps the whole entry as an unknown field, as we do.)
        let text = try Protoc.decode(expected, as: "legacy.Account", file: legacy)
        #expect(text.contains("4: 5") && text.contains("5: 8") && text.contains("6: 9"), "\(text)")

        // A known value after an unknown one sets the field; the unknown one stays unknown.
        let again = try Legacy_Account(serializedBytes: head + mood5 + tag(4, 0) + [7])
        #expect(again.mood == .happy && again.unknownFields.bytes == mood5)
    }
}

@Suite("proto2: declared defaults")
struct Proto2DefaultsTests {
    /// Each `[default = ...]` literal of legacy.proto's Defaults, as written in the file.
    static let literals: [String: String] = [
        "i32": "-123456789", "i64": "-9123456789123456789", "u32": "4294967295", "u64": "18446744073709551615",
        "s32": "-7", "f64": "9", "f": "1.5", "d": "-2.25e10", "inf": "inf", "neg_inf": "-inf", "not_a_number": "nan",
        "flag": "true", "text": #""quote \" backslash \\ tab \t é""#, "data": #""\000\001\377abc\x41""#,
        "mood": "MOOD_ANGRY",
    ]

    @Test("The literals in legacy.proto are the ones checked here")
    func literalsInTheProto() throws {
        let source = try String(contentsOfFile: Repository.fixtureProtos + "/legacy.proto", encoding: .utf8)
        var found: [String: String] = [:]
        for line in source.split(separator: "\n") where line.contains("[default = ") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count > 2, let start = line.range(of: "[default = "),
                let end = line.range(of: "];", options: .backwards)
            else { continue }
            found[String(words[2])] = String(line[start.upperBound..<end.lowerBound])
        }
        found.removeValue(forKey: "level")  // Account's
        found.removeValue(forKey: "mood")
        var expected = Self.literals
        expected.removeValue(forKey: "mood")
        #expect(found == expected)
        #expect(source.contains("optional Mood mood = 15 [default = MOOD_ANGRY];"))
        #expect(source.contains("optional int32 level = 3 [default = 10];"))
        #expect(source.contains("optional Mood mood = 4 [default = MOOD_HAPPY];"))
    }

    @Test("Defaults.* hold the declared values")
    func declaredValues() throws {
        typealias D = Legacy_Defaults.Defaults
        #expect(D.i32 == -123_456_789)
        #expect(D.i64 == -9_123_456_789_123_456_789)
        #expect(D.u32 == 4_294_967_295)
        #expect(D.u64 == 18_446_744_073_709_551_615)
        #expect(D.s32 == -7)
        #expect(D.f64 == 9)
        #expect(D.f == 1.5)
        #expect(D.d == -2.25e10)
        #expect(D.inf == .infinity)
        #expect(D.negInf == -.infinity)
        #expect(D.notANumber.isNaN)
        #expect(D.flag == true)
        #expect(D.text == "quote \" backslash \\ tab \t é")
        #expect(D.data == [0, 1, 255, 97, 98, 99, 0x41])
        #expect(D.mood == .angry)
        #expect(Legacy_Account.Defaults.level == 10)
        #expect(Legacy_Account.Defaults.mood == .happy)
        // Unset fields read as nil, not as their defaults, and write nothing.
        #expect(Legacy_Defaults().i32 == nil && Legacy_Defaults().text == nil)
        #expect(try Legacy_Defaults().serializedBytes().isEmpty)
    }

    /// protoc parses each literal as the .proto does; a message with every field set to its
    /// literal decodes to exactly the `Defaults` constants, and encodes back to protoc's bytes.
    @Test("protoc agrees on every default value")
    func againstProtoc() throws {
        let order = [
            "i32", "i64", "u32", "u64", "s32", "f64", "f", "d", "inf", "neg_inf", "not_a_number", "flag", "text",
            "data", "mood",
        ]
        let text = order.map { "\($0): \(Self.literals[$0]!)" }.joined(separator: " ")
        let bytes = try Protoc.encode(text, as: "legacy.Defaults", file: legacy)
        let decoded = try Legacy_Defaults(serializedBytes: bytes)
        typealias D = Legacy_Defaults.Defaults
        #expect(decoded.i32 == D.i32 && decoded.i64 == D.i64 && decoded.u32 == D.u32 && decoded.u64 == D.u64)
        #expect(decoded.s32 == D.s32 && decoded.f64 == D.f64 && decoded.f == D.f && decoded.d == D.d)
        #expect(decoded.inf == D.inf && decoded.negInf == D.negInf && decoded.notANumber?.isNaN == true)
        #expect(decoded.notANumber?.bitPattern == D.notANumber.bitPattern)
        #expect(decoded.flag == D.flag && decoded.text == D.text && decoded.data == D.data && decoded.mood == D.mood)
        #expect(decoded.unknownFields.isEmpty)
        #expect(try decoded.serializedBytes() == bytes)
        let built = Legacy_Defaults(
            i32: D.i32, i64: D.i64, u32: D.u32, u64: D.u64, s32: D.s32, f64: D.f64, f: D.f, d: D.d,
            inf: D.inf, negInf: D.negInf, notANumber: D.notANumber, flag: D.flag, text: D.text,
            data: D.data, mood: D.mood)
        #expect(try built.serializedBytes() == bytes)
    }
}

@Suite("proto2: extensions")
struct Proto2ExtensionTests {
    typealias X = Legacy_LegacyExtensions

    static let settings = Legacy_Defaults(i32: 5, text: "t", mood: .happy)

    static func extended() -> Legacy_Account {
        var value = account(7, "x")
        value[extension: X.nickname] = "nick"
        value[extension: X.badges] = [1, 2, 300]
        value[extension: X.settings] = Self.settings
        value[extension: X.extraMood] = .angry
        value[extension: Legacy_Holder.holderRank] = 9
        return value
    }

    static let extendedText = """
        id: 7 name: "x"
        [legacy.nickname]: "nick"
        [legacy.badges]: [1, 2, 300]
        [legacy.settings] { i32: 5 text: "t" mood: MOOD_HAPPY }
        [legacy.extra_mood]: MOOD_ANGRY
        [legacy.Holder.holder_rank]: 9
        """

    @Test("Set and read back, and the same bytes as protoc's extension syntax")
    func setAndReadBack() throws {
        let value = Self.extended()
        #expect(value[extension: X.nickname] == "nick")
        #expect(value[extension: X.badges] == [1, 2, 300])
        #expect(value[extension: X.settings] == Self.settings)
        #expect(value[extension: X.extraMood] == .angry)
        #expect(value[extension: Legacy_Holder.holderRank] == 9)
        #expect(value.hasExtension(X.nickname) && value.hasExtension(Legacy_Holder.holderRank))

        let protocBytes = try Protoc.encode(Self.extendedText, as: "legacy.Account", file: legacy)
        let ours = try value.serializedBytes()
        #expect(ours == protocBytes, "ours:   \(hex(ours))\nprotoc: \(hex(protocBytes))")
        // badges is [packed = true]: one packed run.
        #expect(protocBytes.contains(0xAA) && value.extensionFields.bytes.starts(with: tag(100, 2)))
        #expect(value.unknownFields.isEmpty)

        let decoded = try Legacy_Account(serializedBytes: protocBytes)
        #expect(decoded == value)
        #expect(decoded[extension: X.nickname] == "nick")
        #expect(decoded[extension: X.badges] == [1, 2, 300])
        #expect(decoded[extension: X.settings] == Self.settings)
        #expect(decoded[extension: X.extraMood] == .angry)
        #expect(decoded[extension: Legacy_Holder.holderRank] == 9)
        #expect(try decoded.serializedBytes() == protocBytes)
        #expect(
            try Protoc.decode(try decoded.serializedBytes(), as: "legacy.Account", file: legacy).contains(
                "[legacy.nickname]: \"nick\""))
    }

    @Test(
        "One extension at a time against protoc",
        arguments: [
            ("[legacy.nickname]: \"\"", 100),
            ("[legacy.badges]: []", 0),
            ("[legacy.badges]: [-1]", 101),
            ("[legacy.settings] {}", 102),
            ("[legacy.extra_mood]: MOOD_CALM", 103),
            ("[legacy.Holder.holder_rank]: 4294967295", 150),
        ])
    func single(_ text: String, _ fieldNumber: Int) throws {
        let bytes = try Protoc.encode("id: 1 name: \"s\" " + text, as: "legacy.Account", file: legacy)
        let decoded = try Legacy_Account(serializedBytes: bytes)
        var built = account(1, "s")
        switch fieldNumber {
        case 100: built[extension: X.nickname] = ""
        case 101: built[extension: X.badges] = [-1]
        case 102: built[extension: X.settings] = Legacy_Defaults()
        case 103: built[extension: X.extraMood] = .calm
        case 150: built[extension: Legacy_Holder.holderRank] = .max
        default: built[extension: X.badges] = []
        }
        #expect(try built.serializedBytes() == bytes)
        #expect(decoded == built)
        #expect(try decoded.serializedBytes() == bytes)
    }

    /// `nickname` is a string extension of `Account` in the file generated with it: its bytes
    /// are checked as the message is decoded, and bad UTF-8 throws where it stands. A field of
    /// its number with another wire type is kept as it came, as protobuf keeps it.
    /// An account whose nickname (100, length-delimited: tag 802, 0xA2 0x06) is "a" then 0xFF;
    /// the code-mode comparison decodes it in both modes (FixtureCodeModeTests).
    static let badNickname =
        ((try? account(1, "s").serializedBytes()) ?? []) + [0xA2, 0x06, 2, UInt8(ascii: "a"), 0xFF]

    @Test("A string extension's invalid UTF-8 fails the decode, naming its offset")
    func stringExtensionWithInvalidUTF8() throws {
        let base = try account(1, "s").serializedBytes()
        let bad = Self.badNickname
        #expect(throws: WireError.invalidUTF8(offset: base.count + 4)) { try Legacy_Account(serializedBytes: bad) }
        let good = base + [0xA2, 0x06, 2, UInt8(ascii: "a"), UInt8(ascii: "b")]
        #expect(try Legacy_Account(serializedBytes: good)[extension: X.nickname] == "ab")
        // nickname as a varint (tag 800): not a string, so not checked; the accessor finds none.
        let varint = try Legacy_Account(serializedBytes: base + [0xA0, 0x06, 0xFF, 0x01])
        #expect(varint[extension: X.nickname] == nil)
        #expect(try varint.serializedBytes() == base + [0xA0, 0x06, 0xFF, 0x01])
    }

    @Test("Setting replaces, nil removes, other fields are left alone")
    func replaceAndRemove() throws {
        var value = Self.extended()
        value[extension: X.nickname] = "other"
        value[extension: X.extraMood] = nil
        value[extension: X.badges] = []
        #expect(value[extension: X.nickname] == "other")
        #expect(value[extension: X.extraMood] == nil && !value.hasExtension(X.extraMood))
        #expect(value[extension: X.badges] == [])
        #expect(value[extension: X.settings] == Self.settings)
        #expect(value[extension: Legacy_Holder.holderRank] == 9)
        let text = """
            id: 7 name: "x" [legacy.settings] { i32: 5 text: "t" mood: MOOD_HAPPY } [legacy.Holder.holder_rank]: 9
            [legacy.nickname]: "other"
            """
        let decodedText = try Protoc.decode(try value.serializedBytes(), as: "legacy.Account", file: legacy)
        let expectedText = try Protoc.decode(
            try Protoc.encode(text, as: "legacy.Account", file: legacy), as: "legacy.Account", file: legacy)
        #expect(decodedText == expectedText)
    }

    /// proto2 semantics on the wire: a singular extension seen twice keeps the last scalar
    /// and merges messages; repeated ones collect packed and unpacked runs alike.
    @Test("Wire semantics of extension values")
    func wireSemantics() throws {
        let head = tag(1, 0) + [1] + delimited(2, Array("w".utf8))
        let twice = head + delimited(100, Array("a".utf8)) + delimited(100, Array("b".utf8))
        #expect(try Legacy_Account(serializedBytes: twice)[extension: X.nickname] == "b")

        let split = head + delimited(102, tag(1, 0) + [5]) + delimited(102, delimited(13, Array("t".utf8)))
        let merged = try Legacy_Account(serializedBytes: split)
        #expect(
            merged[extension: X.settings] == Legacy_Defaults(i32: 5, text: "t"),
            "a message extension seen twice is merged")
        #expect(
            try Protoc.decode(split, as: "legacy.Account", file: legacy).contains(
                "[legacy.settings] {\n  i32: 5\n  text: \"t\"\n}"))

        let runs = head + tag(101, 0) + [1] + delimited(101, [2, 3]) + tag(101, 0) + [4]
        #expect(try Legacy_Account(serializedBytes: runs)[extension: X.badges] == [1, 2, 3, 4])
        #expect(try Legacy_Account(serializedBytes: runs).serializedBytes() == runs)

        // A value of the wrong wire type is not the extension's; it is kept as it was.
        let wrongType = head + tag(150, 5) + le32(9)
        let decoded = try Legacy_Account(serializedBytes: wrongType)
        #expect(decoded[extension: Legacy_Holder.holderRank] == nil)
        #expect(!decoded.hasExtension(Legacy_Holder.holderRank))
        #expect(try decoded.serializedBytes() == wrongType)
    }

    /// Account declares `extensions 100 to 199`: fields 100 and 199 (every wire type) are read
    /// into the extension fields, 99 and 200 into the unknown fields, as protoc sees them.
    @Test("The edges of the extension range")
    func extensionRangeEdges() throws {
        let inside = tag(100, 0) + [1] + tag(199, 5) + le32(2) + tag(199, 1) + le32(3) + le32(0)
        let outside = tag(99, 0) + [4] + tag(200, 0) + [5]
        let head = tag(1, 0) + [1] + delimited(2, Array("w".utf8))
        let decoded = try Legacy_Account(serializedBytes: head + outside + inside)
        #expect(decoded.extensionFields.bytes == inside)
        #expect(decoded.unknownFields.bytes == outside)
        let text = try Protoc.decode(head + outside + inside, as: "legacy.Account", file: legacy)
        #expect(
            ["99: 4", "200: 5", "100: 1", "199: 0x00000002", "199: 0x0000000000000003"].allSatisfy(text.contains),
            "\(text)")
    }

    /// extra_mood is a closed enum: a number Mood does not declare is no value of the
    /// extension (as protobuf's C++ runtime keeps it as an unknown field), and it is
    /// re-emitted unchanged.
    @Test("An unknown number in a closed-enum extension")
    func unknownEnumExtension() throws {
        let head = tag(1, 0) + [1] + delimited(2, Array("e".utf8))
        let unknown = head + tag(103, 0) + [5]
        let decoded = try Legacy_Account(serializedBytes: unknown)
        #expect(decoded[extension: X.extraMood] == nil)
        #expect(!decoded.hasExtension(X.extraMood))
        #expect(try decoded.serializedBytes() == unknown)
        // protoc treats it the same way: not the extension, an unknown field 103.
        #expect(try Protoc.decode(unknown, as: "legacy.Account", file: legacy).contains("103: 5"))
        // A known number after it is the value.
        let thenKnown = unknown + tag(103, 0) + [7]
        #expect(try Legacy_Account(serializedBytes: thenKnown)[extension: X.extraMood] == .happy)
    }
}

@Suite("proto2: required fields")
struct Proto2RequiredTests {
    static let idOnly = tag(1, 0) + [1]
    static let nameOnly = delimited(2, Array("n".utf8))

    @Test("Decoding without a required field throws missingRequiredField")
    func decode() throws {
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(serializedBytes: Self.nameOnly)
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "name")) {
            try Legacy_Account(serializedBytes: Self.idOnly)
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(serializedBytes: [])
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(serializedBytes: ArraySlice(Self.nameOnly))
        }
        // In a nested message and in a repeated group.
        let nested = Self.idOnly + Self.nameOnly + delimited(14, Self.nameOnly)
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(serializedBytes: nested)
        }
        let visit = Self.idOnly + Self.nameOnly + tag(12, 3) + tag(12, 4)
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account.Visit", field: "day")) {
            try Legacy_Account(serializedBytes: visit)
        }
        // protoc's own bytes without `id` (it encodes partial messages) are rejected too.
        let protocBytes = try Protoc.encode("name: \"n\" level: 3", as: "legacy.Account", file: legacy)
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(serializedBytes: protocBytes)
        }
    }

    @Test("partial: true accepts missing required fields, decoding and encoding")
    func partial() throws {
        let decoded = try Legacy_Account(serializedBytes: Self.nameOnly, partial: true)
        #expect(decoded.id == nil && decoded.name == "n")
        #expect(try decoded.serializedBytes(partial: true) == Self.nameOnly)
        let visit = Self.idOnly + tag(12, 3) + tag(12, 4)
        let withVisit = try Legacy_Account(serializedBytes: visit, partial: true)
        #expect(withVisit.visit == [.init()])
        #expect(try withVisit.serializedBytes(partial: true) == visit)
        var bytes: [UInt8] = [0xEE]
        try Legacy_Account().serialize(appendingTo: &bytes, partial: true)
        #expect(bytes == [0xEE])
    }

    @Test("Encoding without a required field throws, and writes nothing")
    func encode() throws {
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "id")) {
            try Legacy_Account(name: "n").serializedBytes()
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "name")) {
            try Legacy_Account(id: 1).serializedBytes()
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account.Visit", field: "day")) {
            try Legacy_Account(id: 1, name: "n", visit: [.init(day: 1), .init()]).serializedBytes()
        }
        #expect(throws: WireError.missingRequiredField(message: "legacy.Account", field: "name")) {
            try Legacy_Account(id: 1, name: "n", referrer: Legacy_Account(id: 2)).serializedBytes()
        }
        var bytes: [UInt8] = [1, 2]
        #expect(throws: WireError.self) { try Legacy_Account(id: 1).serialize(appendingTo: &bytes) }
        #expect(bytes == [1, 2])
        // The error names the field.
        #expect(
            WireError.missingRequiredField(message: "legacy.Account", field: "id").description
                == "required field legacy.Account.id is not set")
    }
}
