// Round trips of `Everything` (every scalar at its edges, repeated fields, enums, proto3
// `optional`, unpacked fields, large tags, nesting) and of the recursive messages.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

private func everything(
    _ name: String, _ value: Everything, _ text: String, expectEmpty: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) -> RoundTripCase {
    RoundTripCase(
        name, value, file: "everything.proto", text: text, expectEmpty: expectEmpty,
        same: Everything.bitwiseEqual, sourceLocation: sourceLocation
    )
}

@Suite("Everything round-trips through protoc")
struct EverythingTests {
    // MARK: Singular scalars at their edges

    static let scalarCases: [RoundTripCase] = [
        everything(
            "maximums",
            Everything(
                fDouble: .greatestFiniteMagnitude, fFloat: .greatestFiniteMagnitude,
                fInt64: .max, fUint64: .max, fInt32: .max, fFixed64: .max, fFixed32: .max,
                fBool: true, fUint32: .max, fSfixed32: .max, fSfixed64: .max, fSint32: .max, fSint64: .max
            ),
            """
            f_double: 1.7976931348623157e308 f_float: 3.4028234663852886e38
            f_int64: 9223372036854775807 f_uint64: 18446744073709551615 f_int32: 2147483647
            f_fixed64: 18446744073709551615 f_fixed32: 4294967295 f_bool: true f_uint32: 4294967295
            f_sfixed32: 2147483647 f_sfixed64: 9223372036854775807
            f_sint32: 2147483647 f_sint64: 9223372036854775807
            """
        ),
        everything(
            "minimums",
            Everything(
                fDouble: -.greatestFiniteMagnitude, fFloat: -.greatestFiniteMagnitude,
                fInt64: .min, fInt32: .min, fSfixed32: .min, fSfixed64: .min, fSint32: .min, fSint64: .min
            ),
            """
            f_double: -1.7976931348623157e308 f_float: -3.4028234663852886e38
            f_int64: -9223372036854775808 f_int32: -2147483648
            f_sfixed32: -2147483648 f_sfixed64: -9223372036854775808
            f_sint32: -2147483648 f_sint64: -9223372036854775808
            """
        ),
        everything(
            "minus one (10-byte varints, one-byte zigzag)",
            Everything(fInt64: -1, fInt32: -1, fSfixed32: -1, fSfixed64: -1, fSint32: -1, fSint64: -1),
            "f_int64: -1 f_int32: -1 f_sfixed32: -1 f_sfixed64: -1 f_sint32: -1 f_sint64: -1"
        ),
        everything(
            "ones and varint boundaries",
            Everything(
                fInt64: 128, fUint64: 1 << 63, fInt32: 127, fFixed64: 1, fFixed32: 1, fUint32: 16_384, fSint32: 64,
                fSint64: -65),
            "f_int64: 128 f_uint64: 9223372036854775808 f_int32: 127 f_fixed64: 1 f_fixed32: 1 f_uint32: 16384 f_sint32: 64 f_sint64: -65"
        ),
        everything(
            "smallest subnormals",
            Everything(fDouble: .leastNonzeroMagnitude, fFloat: .leastNonzeroMagnitude),
            "f_double: 5e-324 f_float: 1.401298464324817e-45"
        ),
        everything(
            "negative zero is written",
            Everything(fDouble: -0.0, fFloat: -0.0),
            "f_double: -0 f_float: -0"
        ),
        everything(
            "positive infinity", Everything(fDouble: .infinity, fFloat: .infinity), "f_double: inf f_float: inf"),
        everything(
            "negative infinity", Everything(fDouble: -.infinity, fFloat: -.infinity), "f_double: -inf f_float: -inf"),
        everything("NaN", Everything(fDouble: .nan, fFloat: .nan), "f_double: nan f_float: nan"),
        everything(
            "strings and bytes",
            Everything(
                fString: "Grüße, 世界! 😀👩‍👩‍👧 𝄞 \u{0}nul \"q\" \\ é",
                fBytes: [0x00, 0xFF, 0x22, 0x5C, 0x0A, 0x80, 0x7F]
            ),
            #"""
            f_string: "Grüße, 世界! 😀👩‍👩‍👧 𝄞 \000nul \"q\" \\ é"
            f_bytes: "\x00\xff\"\\\n\x80\x7f"
            """#
        ),
        everything(
            "long string (two-byte length)",
            Everything(fString: String(repeating: "ü", count: 200)),
            "f_string: \"\(String(repeating: "ü", count: 200))\""
        ),
        everything(
            "zeros are not written",
            Everything(
                fDouble: 0, fFloat: 0, fInt64: 0, fInt32: 0, fBool: false, fString: "", fBytes: [], sign: .zero,
                field2048: 0, maxField: 0),
            "f_double: 0 f_float: 0 f_int64: 0 f_int32: 0 f_bool: false f_string: \"\" f_bytes: \"\" sign: SIGN_ZERO field_2048: 0 max_field: 0",
            expectEmpty: true
        ),
    ]

    @Test("Singular scalars at their edges", arguments: scalarCases)
    func scalars(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: Repeated, enums, optionals, tags, nesting

    static let structureCases: [RoundTripCase] = [
        everything(
            "every repeated field",
            Everything(
                rDouble: [
                    0, -0.0, 1.5, -2.25, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                ],
                rFloat: [0, -0.0, 1.5, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude],
                rInt64: [0, 1, -1, .min, .max, 300],
                rUint64: [0, 1, 127, 128, .max],
                rInt32: [0, 1, -1, .min, .max, 150],
                rFixed64: [0, 1, .max],
                rFixed32: [0, 1, .max],
                rBool: [true, false, true, true],
                rString: ["", "a", "héllo", "😀𝄞", "line\nbreak"],
                rBytes: [[], [0x00], [0xFF, 0x00], Array("abc".utf8)],
                rUint32: [0, 1, .max],
                rSfixed32: [.min, -1, 0, .max],
                rSfixed64: [.min, -1, 0, .max],
                rSint32: [.min, -1, 0, 1, .max],
                rSint64: [.min, -1, 0, 1, .max]
            ),
            #"""
            r_double: [0, -0, 1.5, -2.25, inf, -inf, nan, 1.7976931348623157e308, 5e-324]
            r_float: [0, -0, 1.5, inf, -inf, nan, 3.4028234663852886e38, 1.401298464324817e-45]
            r_int64: [0, 1, -1, -9223372036854775808, 9223372036854775807, 300]
            r_uint64: [0, 1, 127, 128, 18446744073709551615]
            r_int32: [0, 1, -1, -2147483648, 2147483647, 150]
            r_fixed64: [0, 1, 18446744073709551615]
            r_fixed32: [0, 1, 4294967295]
            r_bool: [true, false, true, true]
            r_string: ["", "a", "héllo", "😀𝄞", "line\nbreak"]
            r_bytes: ["", "\000", "\377\000", "abc"]
            r_uint32: [0, 1, 4294967295]
            r_sfixed32: [-2147483648, -1, 0, 2147483647]
            r_sfixed64: [-9223372036854775808, -1, 0, 9223372036854775807]
            r_sint32: [-2147483648, -1, 0, 1, 2147483647]
            r_sint64: [-9223372036854775808, -1, 0, 1, 9223372036854775807]
            """#
        ),
        everything(
            "long repeated fields (multi-byte packed lengths)",
            Everything(
                rDouble: (0..<40).map { Double($0) * -0.5 },
                rInt32: (0..<200).map { Int32($0) * -1000 },
                rString: (0..<150).map { "s\($0)" },
                rSint64: (0..<100).map { Int64($0) << 40 },
                signs: Array(repeating: .min, count: 30)
            ),
            "r_double: [\((0..<40).map { "\(Double($0) * -0.5)" }.joined(separator: ", "))] "
                + "r_int32: [\((0..<200).map { "\($0 * -1000)" }.joined(separator: ", "))] "
                + "r_string: [\((0..<150).map { "\"s\($0)\"" }.joined(separator: ", "))] "
                + "r_sint64: [\((0..<100).map { "\(Int64($0) << 40)" }.joined(separator: ", "))] "
                + "signs: [\(Array(repeating: "SIGN_MIN", count: 30).joined(separator: ", "))]"
        ),
        everything(
            "long packed runs with varints of every length, mixed (packed sizing four at a time, writing two bytes a step, reading in place)",
            Everything(
                rInt64: PackedRuns.int64, rUint64: PackedRuns.uint64, rInt32: PackedRuns.int32, rBool: PackedRuns.bool,
                rUint32: PackedRuns.uint32, rSint32: PackedRuns.int32, rSint64: PackedRuns.int64
            ),
            "r_int64: [\(PackedRuns.text(PackedRuns.int64))] r_uint64: [\(PackedRuns.text(PackedRuns.uint64))] "
                + "r_int32: [\(PackedRuns.text(PackedRuns.int32))] r_bool: [\(PackedRuns.text(PackedRuns.bool))] "
                + "r_uint32: [\(PackedRuns.text(PackedRuns.uint32))] r_sint32: [\(PackedRuns.text(PackedRuns.int32))] "
                + "r_sint64: [\(PackedRuns.text(PackedRuns.int64))]"
        ),
        everything(
            "repeated fields of one zero each are written",
            Everything(rDouble: [0], rInt32: [0], rBool: [false], rString: [""], rBytes: [[]], signs: [.zero]),
            #"r_double: 0 r_int32: 0 r_bool: false r_string: "" r_bytes: "" signs: SIGN_ZERO"#
        ),
        everything(
            "enum values across the int32 range",
            Everything(
                sign: .min,
                signs: [.zero, .negative, .min, .max, .million, .negative],
                oSign: .max,
                unpackedSigns: [.negative, .min, .max, .million, .zero]
            ),
            """
            sign: SIGN_MIN
            signs: [SIGN_ZERO, SIGN_NEGATIVE, SIGN_MIN, SIGN_MAX, SIGN_MILLION, SIGN_NEGATIVE]
            o_sign: SIGN_MAX
            unpacked_signs: [SIGN_NEGATIVE, SIGN_MIN, SIGN_MAX, SIGN_MILLION, SIGN_ZERO]
            """
        ),
        everything("sign: negative", Everything(sign: .negative), "sign: SIGN_NEGATIVE"),
        everything("sign: max", Everything(sign: .max), "sign: SIGN_MAX"),
        everything("sign: million", Everything(sign: .million), "sign: SIGN_MILLION"),
        everything(
            "enum numbers the enum does not know",
            Everything(
                sign: .unrecognized(7),
                signs: [.unrecognized(7), .negative, .unrecognized(-5), .unrecognized(1_000_001)],
                deepest: Level3(sign: .unrecognized(42), kind: .unrecognized(-2)),
                oSign: .unrecognized(-2_147_483_647),
                unpackedSigns: [.unrecognized(3), .million]
            ),
            """
            sign: 7 signs: [7, SIGN_NEGATIVE, -5, 1000001]
            deepest { sign: 42 kind: -2 }
            o_sign: -2147483647 unpacked_signs: [3, SIGN_MILLION]
            """
        ),
        everything(
            "optional fields at their zero value are written",
            Everything(oInt32: 0, oString: "", oSign: .zero, oDouble: 0, oBool: false),
            #"o_int32: 0 o_string: "" o_sign: SIGN_ZERO o_double: 0 o_bool: false"#
        ),
        everything(
            "optional fields at other values",
            Everything(oInt32: -1, oString: "présent", oSign: .min, oDouble: -0.0, oBool: true),
            #"o_int32: -1 o_string: "présent" o_sign: SIGN_MIN o_double: -0 o_bool: true"#
        ),
        everything("optional double NaN", Everything(oDouble: .nan), "o_double: nan"),
        everything(
            "unpacked fields",
            Everything(
                unpackedInt32: [0, -1, .min, .max, 1], unpackedFixed32: [0, 1, .max], unpackedSigns: [.zero, .min]),
            "unpacked_int32: [0, -1, -2147483648, 2147483647, 1] unpacked_fixed32: [0, 1, 4294967295] unpacked_signs: [SIGN_ZERO, SIGN_MIN]"
        ),
        everything("three- and five-byte tags", Everything(field2048: 1, maxField: -1), "field_2048: 1 max_field: -1"),
        everything(
            "three- and five-byte tags, extremes",
            Everything(field2048: .min, maxField: .max),
            "field_2048: -2147483648 max_field: 2147483647"
        ),
        everything(
            "nesting three deep, deepest, owner",
            Everything(
                nested: Level1(
                    name: "outer",
                    child: Level2(value: -1, child: Level3(tags: ["a", "b", "", "ü"], sign: .min, kind: .leaf))
                ),
                nestedList: [
                    Level1(),
                    Level1(name: "second"),
                    Level1(child: Level2(child: Level3())),
                    Level1(name: "fourth", child: Level2(value: .max, child: Level3(tags: ["x"]))),
                ],
                owner: UserInfo(uid: .max, nickName: "ñick", avatar: "https://x/y.png", lastLogin: .min),
                deepest: Level3(tags: ["deep", "er"], sign: .million, kind: .leaf)
            ),
            #"""
            nested {
              name: "outer"
              child { value: -1 child { tags: ["a", "b", "", "ü"] sign: SIGN_MIN kind: KIND_LEAF } }
            }
            nested_list { }
            nested_list { name: "second" }
            nested_list { child { child { } } }
            nested_list { name: "fourth" child { value: 2147483647 child { tags: "x" } } }
            owner { uid: 4294967295 nick_name: "ñick" avatar: "https://x/y.png" last_login: -9223372036854775808 }
            deepest { tags: ["deep", "er"] sign: SIGN_MILLION kind: KIND_LEAF }
            """#
        ),
        everything(
            "empty nested messages are present",
            Everything(nested: Level1(), owner: UserInfo(), deepest: Level3()),
            "nested { } owner { } deepest { }"
        ),
        everything("fully populated", Samples.full, Samples.fullText),
        everything("second sample", Samples.other, Samples.otherText),
    ]

    @Test("Repeated fields, enums, optionals, tags and nesting", arguments: structureCases)
    func structure(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: The nested types and the subset on their own

    static let nestedTypeCases: [RoundTripCase] = [
        RoundTripCase(
            "all fields",
            Level1(name: "one", child: Level2(value: 2, child: Level3(tags: ["three"], sign: .negative, kind: .leaf))),
            file: "everything.proto",
            text: #"name: "one" child { value: 2 child { tags: "three" sign: SIGN_NEGATIVE kind: KIND_LEAF } }"#
        ),
        RoundTripCase(
            "all fields",
            Level2(value: .min, child: Level3(tags: ["t1", "t2"], sign: .max, kind: .leaf)),
            file: "everything.proto",
            text: #"value: -2147483648 child { tags: ["t1", "t2"] sign: SIGN_MAX kind: KIND_LEAF }"#
        ),
        RoundTripCase(
            "all fields",
            Level3(tags: ["x", "", "ÿ"], sign: .min, kind: .leaf),
            file: "everything.proto",
            text: #"tags: ["x", "", "ÿ"] sign: SIGN_MIN kind: KIND_LEAF"#
        ),
        RoundTripCase(
            "defaults written explicitly",
            Level3(tags: [], sign: .zero, kind: .unspecified),
            file: "everything.proto",
            text: "sign: SIGN_ZERO kind: KIND_UNSPECIFIED",
            expectEmpty: true
        ),
        RoundTripCase(
            "all fields",
            EverythingSubset(fInt32: -5, fString: "subset ✓"),
            file: "everything.proto",
            text: #"f_int32: -5 f_string: "subset ✓""#
        ),
    ]

    @Test("Level1, Level2, Level3 and EverythingSubset", arguments: nestedTypeCases)
    func nestedTypes(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: Recursion

    static let recursiveCases: [RoundTripCase] = [
        RoundTripCase("tree several levels deep", Samples.tree, file: "everything.proto", text: Samples.treeText),
        RoundTripCase(
            "left-leaning chain 60 deep",
            chain(depth: 60),
            file: "everything.proto",
            text: chainText(depth: 60)
        ),
        RoundTripCase(
            "Ping -> Pong -> Ping -> Pong -> Ping",
            Ping(pong: Pong(ping: Ping(pong: Pong(ping: Ping(count: -1)), count: 2)), count: 1),
            file: "everything.proto",
            text: "pong { ping { pong { ping { count: -1 } } count: 2 } } count: 1"
        ),
        RoundTripCase(
            "empty Pong present",
            Ping(pong: Pong(), count: .max),
            file: "everything.proto",
            text: "pong { } count: 2147483647"
        ),
        RoundTripCase(
            "Pong -> Ping -> Pong -> Ping",
            Pong(ping: Ping(pong: Pong(ping: Ping(count: 4)), count: 3)),
            file: "everything.proto",
            text: "ping { pong { ping { count: 4 } } count: 3 }"
        ),
    ]

    @Test("TreeNode and Ping/Pong recursion", arguments: recursiveCases)
    func recursion(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    /// NaNs other than the canonical quiet NaN (text format cannot spell them) keep their
    /// exact bits through decode and encode.
    @Test("NaN payloads and negative NaNs keep their bits")
    func nanPayloads() throws {
        let doubleBits: UInt64 = 0xFFF8_0000_0000_0001  // negative quiet NaN with a payload
        let floatBits: UInt32 = 0x7FC0_1234  // quiet NaN with a payload
        let bytes =
            tag(1, 1) + le64(doubleBits) + tag(2, 5) + le32(floatBits)
            + delimited(21, le64(doubleBits) + le64(0x8000_0000_0000_0000))
        let decoded = try Everything(serializedBytes: bytes)
        #expect(decoded.fDouble.bitPattern == doubleBits)
        #expect(decoded.fFloat.bitPattern == floatBits)
        #expect(decoded.rDouble.map(\.bitPattern) == [doubleBits, 0x8000_0000_0000_0000])
        let reencoded = try decoded.serializedBytes()
        #expect(reencoded == bytes, "ours \(hex(reencoded))\ninput \(hex(bytes))")
        let texts = try Protoc.decode(all: [bytes, reencoded], as: "Everything", file: "everything.proto")
        #expect(texts[0] == texts[1])
    }

    /// The decoded tree has the same shape, reached through the boxed accessors.
    @Test("Decoded tree is reachable through left/right/children")
    func treeShape() throws {
        let bytes = try Protoc.encode(Samples.treeText, as: "TreeNode", file: "everything.proto")
        let tree = try TreeNode(serializedBytes: bytes)
        #expect(tree.left?.left?.right?.children.first?.label == "LLR0")
        #expect(tree.left?.right == TreeNode())
        #expect(tree.right?.children.map(\.label) == ["R0", "", "R2"])
        #expect(tree.right?.children.last?.left?.label == "R2L")
        #expect(tree.children.first?.children.first?.children.first?.label == "c000")
        #expect(tree.children.last?.right?.left?.label == "c1RL")
        #expect(tree.right?.left == nil)
    }
}

/// Sub-messages live in boxes; a message still behaves as a value.
@Suite("Sub-messages are values")
struct SubMessageValueTests {
    @Test func changingACopyLeavesTheOriginal() throws {
        var original = Everything()
        original.nested = Everything.Level1(name: "a", child: .init(value: 1))
        var copy = original
        copy.nested?.child?.value = 2
        #expect(original.nested?.child?.value == 1)
        #expect(copy.nested?.child?.value == 2)
        #expect(original != copy)
        copy.nested?.child?.value = 1
        #expect(original == copy, "equal values in different boxes are equal")
        #expect(original.hashValue == copy.hashValue)
        copy.nested = nil
        #expect(copy.nested == nil && original.nested?.name == "a")
    }

    @Test func decodingMergesIntoAnExistingSubMessage() throws {
        var message = Everything()
        message.nested = Everything.Level1(name: "kept")
        let shared = message
        let more = try Everything(nested: .init(child: .init(value: 7))).serializedBytes()
        try message.merge(serializedBytes: more)
        #expect(message.nested == Everything.Level1(name: "kept", child: .init(value: 7)))
        #expect(shared.nested == Everything.Level1(name: "kept"), "the copy made before the merge is unchanged")
    }
}

/// A TreeNode chain `depth` nodes long, each the `left` of the one before.
func chain(depth: Int) -> TreeNode {
    var node = TreeNode(label: "n\(depth - 1)")
    for level in stride(from: depth - 2, through: 0, by: -1) {
        node = TreeNode(label: "n\(level)", left: node)
    }
    return node
}

func chainText(depth: Int) -> String {
    var text = ""
    for level in 0..<depth {
        text += "label: \"n\(level)\" "
        if level < depth - 1 { text += "left { " }
    }
    return text + String(repeating: "} ", count: depth - 1)
}

/// Runs of a few hundred values whose varints take every length from 1 to 10 bytes, in an order
/// that mixes the lengths (and the signs), with lengths not a multiple of four.
private enum PackedRuns {
    /// Each power of two up to 2^63 and its neighbours.
    static let edges: [UInt64] =
        (0..<64).flatMap { bit -> [UInt64] in
            let power = UInt64(1) << UInt64(bit)
            return [power - 1, power, power + 1]
        } + [.max]

    static func mixed<T>(_ convert: (UInt64) -> T) -> [T] {
        (0..<301).map { index in convert(edges[(index &* 37) % edges.count]) }
    }

    static let uint64 = mixed { $0 }
    static let int64 = mixed { Int64(bitPattern: $0) }
    static let uint32 = mixed { UInt32(truncatingIfNeeded: $0) }
    static let int32 = mixed { Int32(truncatingIfNeeded: $0) }
    static let bool = mixed { $0 & 4 != 0 }

    static func text<T>(_ values: [T]) -> String {
        values.map { "\($0)" }.joined(separator: ", ")
    }
}
