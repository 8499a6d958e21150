// Unknown fields, packed versus unpacked input, and merging, checked against protoc.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("Unknown fields")
struct UnknownFieldTests {
    /// `Everything`'s bytes read as `EverythingSubset`: the two known fields are decoded,
    /// the rest are kept and written back, so protoc still sees the whole `Everything`.
    @Test("Everything decoded as EverythingSubset keeps and re-emits the other fields")
    func subsetKeepsUnknownFields() throws {
        let original = try Protoc.encode(Samples.fullText, as: "Everything", file: "everything.proto")
        #expect(try original == Samples.full.serializedBytes())

        let subset = try EverythingSubset(serializedBytes: original)
        #expect(subset.fInt32 == Samples.full.fInt32)
        #expect(subset.fString == Samples.full.fString)
        #expect(!subset.unknownFields.isEmpty)
        // Everything but field 5 (tag + 10-byte varint for -1) and field 9 (tag + length + UTF-8).
        let knownSize = 1 + 10 + 1 + 1 + Samples.full.fString.utf8.count
        #expect(subset.unknownFields.count == original.count - knownSize)

        let reencoded = try subset.serializedBytes()
        #expect(reencoded.count == original.count)
        let texts = try Protoc.decode(all: [original, reencoded], as: "Everything", file: "everything.proto")
        #expect(
            texts[0] == texts[1],
            "protoc --decode=Everything of the original:\n\(texts[0])\nof the re-encoded subset:\n\(texts[1])")

        let back = try Everything(serializedBytes: reencoded)
        #expect(Everything.bitwiseEqual(back, Samples.full), "decoded \(back)")

        // Known fields are written first, the unknown ones after them byte for byte.
        let known = try EverythingSubset(fInt32: subset.fInt32, fString: subset.fString).serializedBytes()
        #expect(Array(reencoded.prefix(known.count)) == known)
        #expect(Array(reencoded.dropFirst(known.count)) == subset.unknownFields.bytes)
    }

    /// A message that knows none of the fields writes the input back unchanged.
    @Test("A message with no fields re-emits the input byte for byte")
    func emptyMessageKeepsEverything() throws {
        let original = try Samples.full.serializedBytes()
        let empty = try EmptyReq(serializedBytes: original)
        #expect(empty.unknownFields.bytes == original)
        #expect(try empty.serializedBytes() == original)
    }

    /// Unknown fields inside a nested message stay with that message.
    @Test("Unknown fields inside a nested message are kept")
    func nestedUnknownFields() throws {
        let unknown = tag(7, 0) + varint(42) + tag(8, 1) + le64(1) + delimited(9, [1, 2, 3]) + tag(10, 5) + le32(9)
        let level1 = delimited(1, Array("n".utf8)) + unknown
        let bytes = delimited(40, level1)
        let decoded = try Everything(serializedBytes: bytes)
        #expect(decoded.nested?.name == "n")
        #expect(decoded.nested?.unknownFields.bytes == unknown)
        #expect(decoded.unknownFields.isEmpty)
        let reencoded = try decoded.serializedBytes()
        #expect(reencoded == bytes)
        let texts = try Protoc.decode(all: [bytes, reencoded], as: "Everything", file: "everything.proto")
        #expect(texts[0] == texts[1])
        #expect(texts[0].contains("7: 42"), "protoc printed:\n\(texts[0])")
    }

    /// An enum number the enum does not declare decodes to `.unrecognized(n)` and encodes
    /// back to the same bytes, in singular, packed, unpacked, optional and nested fields.
    @Test("Unknown enum numbers decode to .unrecognized and re-encode unchanged")
    func unknownEnumNumbers() throws {
        let text = """
            sign: 7 signs: [7, -5, SIGN_MAX] deepest { sign: 8 kind: 2 }
            o_sign: 9 unpacked_signs: [10, -2147483647]
            """
        let bytes = try Protoc.encode(text, as: "Everything", file: "everything.proto")
        let decoded = try Everything(serializedBytes: bytes)
        // Compared by case name: the enums' `==` only compares numbers.
        #expect(caseName(decoded.sign) == "unrecognized(7)")
        #expect(decoded.sign.rawValue == 7)
        #expect(decoded.signs.map(caseName) == ["unrecognized(7)", "unrecognized(-5)", "case(2147483647)"])
        #expect(decoded.deepest.map { caseName($0.sign) } == "unrecognized(8)")
        #expect(decoded.deepest.map { caseName($0.kind) } == "unrecognized(2)")
        #expect(decoded.oSign.map(caseName) == "unrecognized(9)")
        #expect(decoded.unpackedSigns.map(caseName) == ["unrecognized(10)", "unrecognized(-2147483647)"])
        #expect(decoded.unknownFields.isEmpty)
        #expect(try decoded.serializedBytes() == bytes)

        let sevenOnly = try Protoc.encode("sign: 7", as: "Everything", file: "everything.proto")
        #expect(sevenOnly == tag(42, 0) + [7])
        #expect(try caseName(Everything(serializedBytes: sevenOnly).sign) == "unrecognized(7)")
        #expect(try Everything(sign: .unrecognized(7)).serializedBytes() == sevenOnly)

        let error = try ErrorMsg(serializedBytes: try Protoc.encode("type: 1", as: "ErrorMsg", file: "error.proto"))
        #expect(caseName(error.type) == "unrecognized(1)")
        let common = try Common(serializedBytes: try Protoc.encode("method: 99", as: "Common", file: "common.proto"))
        #expect(caseName(common.method) == "unrecognized(99)")
    }
}

/// A repeated field given to the decoder in both packed and unpacked form.
struct PackingCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// The field as text, for protoc.
    let text: String
    let packed: [UInt8]
    let unpacked: [UInt8]
    /// How protoc (and so our encoder) writes the field.
    let writesPacked: Bool
    let expected: Everything
    /// The field's values twice over, as from `packed + unpacked`.
    let doubled: Everything

    var testDescription: String { name }

    init<T>(
        _ name: String,
        field: UInt32,
        wireType: UInt32,
        text: String,
        values: [T],
        encode: (T) -> [UInt8],
        writesPacked: Bool,
        set: (inout Everything, [T]) -> Void
    ) {
        self.name = name
        self.text = text
        self.packed = delimited(field, values.flatMap(encode))
        self.unpacked = values.flatMap { tag(field, wireType) + encode($0) }
        self.writesPacked = writesPacked
        var expected = Everything()
        set(&expected, values)
        self.expected = expected
        var doubled = Everything()
        set(&doubled, values + values)
        self.doubled = doubled
    }
}

@Suite("Packed and unpacked repeated fields")
struct PackingTests {
    static let cases: [PackingCase] = [
        PackingCase(
            "r_int32", field: 25, wireType: 0, text: "r_int32: [1, -1, -2147483648, 2147483647, 300]",
            values: [Int32(1), -1, .min, .max, 300], encode: { varint(signed: Int64($0)) }, writesPacked: true,
            set: { $0.rInt32 = $1 }
        ),
        PackingCase(
            "r_sint64", field: 35, wireType: 0, text: "r_sint64: [0, -1, 1, -9223372036854775808, 9223372036854775807]",
            values: [Int64(0), -1, 1, .min, .max], encode: { varint(zigzag($0)) }, writesPacked: true,
            set: { $0.rSint64 = $1 }
        ),
        PackingCase(
            "r_uint64", field: 24, wireType: 0, text: "r_uint64: [18446744073709551615, 0, 128]",
            values: [UInt64.max, 0, 128], encode: { varint($0) }, writesPacked: true,
            set: { $0.rUint64 = $1 }
        ),
        PackingCase(
            "r_bool", field: 28, wireType: 0, text: "r_bool: [true, false, true]",
            values: [true, false, true], encode: { varint($0 ? 1 : 0) }, writesPacked: true,
            set: { $0.rBool = $1 }
        ),
        PackingCase(
            "r_fixed32", field: 27, wireType: 5, text: "r_fixed32: [0, 1, 4294967295]",
            values: [UInt32(0), 1, .max], encode: { le32($0) }, writesPacked: true,
            set: { $0.rFixed32 = $1 }
        ),
        PackingCase(
            "r_sfixed64", field: 33, wireType: 1, text: "r_sfixed64: [-9223372036854775808, -1, 5]",
            values: [Int64.min, -1, 5], encode: { le64(UInt64(bitPattern: $0)) }, writesPacked: true,
            set: { $0.rSfixed64 = $1 }
        ),
        PackingCase(
            "r_double", field: 21, wireType: 1, text: "r_double: [1.5, -0, inf, nan]",
            values: [1.5, -0.0, Double.infinity, .nan], encode: { le64($0.bitPattern) }, writesPacked: true,
            set: { $0.rDouble = $1 }
        ),
        PackingCase(
            "r_float", field: 22, wireType: 5, text: "r_float: [0.5, -inf]",
            values: [Float(0.5), -.infinity], encode: { le32($0.bitPattern) }, writesPacked: true,
            set: { $0.rFloat = $1 }
        ),
        PackingCase(
            "signs", field: 43, wireType: 0, text: "signs: [SIGN_MIN, SIGN_NEGATIVE, SIGN_MILLION, 7]",
            values: [Sign.min, .negative, .million, .unrecognized(7)], encode: { varint(signed: Int64($0.rawValue)) },
            writesPacked: true, set: { $0.signs = $1 }
        ),
        PackingCase(
            "unpacked_int32", field: 60, wireType: 0, text: "unpacked_int32: [1, -1, -2147483648, 2147483647, 300]",
            values: [Int32(1), -1, .min, .max, 300], encode: { varint(signed: Int64($0)) }, writesPacked: false,
            set: { $0.unpackedInt32 = $1 }
        ),
        PackingCase(
            "unpacked_fixed32", field: 61, wireType: 5, text: "unpacked_fixed32: [4294967295, 0, 2]",
            values: [UInt32.max, 0, 2], encode: { le32($0) }, writesPacked: false,
            set: { $0.unpackedFixed32 = $1 }
        ),
        PackingCase(
            "unpacked_signs", field: 62, wireType: 0, text: "unpacked_signs: [SIGN_MAX, SIGN_MIN, SIGN_ZERO, -3]",
            values: [Sign.max, .min, .zero, .unrecognized(-3)], encode: { varint(signed: Int64($0.rawValue)) },
            writesPacked: false, set: { $0.unpackedSigns = $1 }
        ),
    ]

    @Test("Both forms decode to the same values; we write what protoc writes", arguments: cases)
    func packing(_ testCase: PackingCase) throws {
        let protocBytes = try Protoc.encode(testCase.text, as: "Everything", file: "everything.proto")
        let canonical = testCase.writesPacked ? testCase.packed : testCase.unpacked
        #expect(protocBytes == canonical, "protoc wrote \(hex(protocBytes)), expected \(hex(canonical))")

        let fromPacked = try Everything(serializedBytes: testCase.packed)
        let fromUnpacked = try Everything(serializedBytes: testCase.unpacked)
        #expect(
            Everything.bitwiseEqual(fromPacked, testCase.expected),
            "packed \(hex(testCase.packed)) decoded to \(fromPacked)")
        #expect(
            Everything.bitwiseEqual(fromUnpacked, testCase.expected),
            "unpacked \(hex(testCase.unpacked)) decoded to \(fromUnpacked)")
        #expect(fromPacked.unknownFields.isEmpty && fromUnpacked.unknownFields.isEmpty)

        // Both forms in one message append.
        let mixed = try Everything(serializedBytes: testCase.packed + testCase.unpacked)
        #expect(Everything.bitwiseEqual(mixed, testCase.doubled), "packed + unpacked decoded to \(mixed)")

        let ours = try testCase.expected.serializedBytes()
        #expect(ours == protocBytes, "ours \(hex(ours)), protoc \(hex(protocBytes))")
        #expect(try fromPacked.serializedBytes() == protocBytes)
        #expect(try fromUnpacked.serializedBytes() == protocBytes)

        let texts = try Protoc.decode(
            all: [testCase.packed, testCase.unpacked, ours], as: "Everything", file: "everything.proto"
        )
        #expect(texts[0] == texts[2], "protoc reads the packed form as:\n\(texts[0])\nours as:\n\(texts[2])")
        #expect(texts[1] == texts[2], "protoc reads the unpacked form as:\n\(texts[1])\nours as:\n\(texts[2])")
    }
}

@Suite("Merging concatenated messages")
struct MergeTests {
    /// Checks that decoding `first + second` as `M` merges like protoc does: protoc's text
    /// of the concatenation equals protoc's text of our decode re-encoded, and our
    /// re-encoding equals protoc's canonical bytes for that text.
    func expectMergesLikeProtoc<M: Message>(
        _: M.Type, _ first: [UInt8], _ second: [UInt8], file: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> M {
        let type = M.protoMessageName
        let concatenated = first + second
        let merged = try M(serializedBytes: concatenated)
        let ours = try merged.serializedBytes()
        let texts = try Protoc.decode(all: [concatenated, ours], as: type, file: file)
        #expect(
            texts[0] == texts[1],
            "protoc merges the concatenation to:\n\(texts[0])\nwe decode and re-encode it to:\n\(texts[1])",
            sourceLocation: sourceLocation
        )
        let canonical = try Protoc.encode(texts[0], as: type, file: file)
        #expect(ours == canonical, "ours \(hex(ours))\nprotoc \(hex(canonical))", sourceLocation: sourceLocation)

        var incremental = try M(serializedBytes: first)
        try incremental.merge(serializedBytes: second)
        #expect(
            try incremental.serializedBytes() == ours,
            "merge(serializedBytes:) differs from decoding the concatenation", sourceLocation: sourceLocation)
        return merged
    }

    @Test("Everything + Everything merges like protoc")
    func everything() throws {
        let first = try Protoc.encode(Samples.fullText, as: "Everything", file: "everything.proto")
        let second = try Protoc.encode(Samples.otherText, as: "Everything", file: "everything.proto")
        let merged = try expectMergesLikeProtoc(Everything.self, first, second, file: "everything.proto")

        let a = Samples.full, b = Samples.other
        // Singular scalars: the last one written wins; unset ones keep the first value.
        #expect(merged.fDouble == b.fDouble)
        #expect(merged.fInt32 == b.fInt32)
        #expect(merged.fString == b.fString)
        #expect(merged.fInt64 == a.fInt64)
        #expect(merged.fBytes == a.fBytes)
        #expect(merged.sign == b.sign)
        #expect(merged.maxField == b.maxField)
        #expect(merged.field2048 == a.field2048)
        // Repeated fields append.
        #expect(merged.rInt32 == a.rInt32 + b.rInt32)
        #expect(merged.rString == a.rString + b.rString)
        #expect(merged.signs == a.signs + b.signs)
        #expect(merged.unpackedInt32 == a.unpackedInt32 + b.unpackedInt32)
        #expect(merged.nestedList == a.nestedList + b.nestedList)
        #expect(merged.rInt64 == a.rInt64)
        // Singular messages merge field by field, recursively.
        #expect(merged.nested?.name == "outer")
        #expect(merged.nested?.child?.value == -7)
        #expect(merged.nested?.child?.child?.tags == ["a", "ß", "c"])
        #expect(merged.nested?.child?.child?.sign == .min)
        #expect(merged.nested?.child?.child?.kind == .leaf)
        #expect(merged.owner == UserInfo(uid: 42, nickName: "renamed", avatar: "a.png", lastLogin: -1))
        #expect(merged.deepest == Level3(tags: ["deep", "deeper"], sign: .negative, kind: .leaf))
        // Explicit presence: a later value wins, also over the zero value.
        #expect(merged.oInt32 == 5)
        #expect(merged.oString == "set")
        #expect(merged.oBool == true)
        #expect(merged.oSign == .zero)
        #expect(merged.oDouble?.bitPattern == (-0.0 as Double).bitPattern)
        #expect(merged.unknownFields.isEmpty)
    }

    @Test("Merging the other way round")
    func everythingReversed() throws {
        let first = try Samples.other.serializedBytes()
        let second = try Samples.full.serializedBytes()
        let merged = try expectMergesLikeProtoc(Everything.self, first, second, file: "everything.proto")
        #expect(merged.fInt32 == Samples.full.fInt32)
        #expect(merged.oInt32 == 0)
        #expect(merged.rInt32 == Samples.other.rInt32 + Samples.full.rInt32)
    }

    @Test("A message merged with itself")
    func everythingTwice() throws {
        let bytes = try Samples.full.serializedBytes()
        let merged = try expectMergesLikeProtoc(Everything.self, bytes, bytes, file: "everything.proto")
        #expect(merged.rString == Samples.full.rString + Samples.full.rString)
        #expect(merged.deepest?.tags == ["deep", "deep"])
    }

    @Test("Recursive messages merge through their boxes")
    func recursive() throws {
        let second = TreeNode(
            label: "root2",
            left: TreeNode(left: TreeNode(label: "LL2", right: TreeNode(children: [TreeNode(label: "new")]))),
            children: [TreeNode(label: "c2")]
        )
        let merged = try expectMergesLikeProtoc(
            TreeNode.self, try Samples.tree.serializedBytes(), try second.serializedBytes(), file: "everything.proto"
        )
        #expect(merged.label == "root2")
        #expect(merged.left?.label == "L")
        #expect(merged.left?.left?.label == "LL2")
        #expect(merged.left?.left?.right?.label == "LLR")
        #expect(merged.left?.left?.right?.children.map(\.label) == ["LLR0", "new"])
        #expect(merged.children.map(\.label) == ["c0", "c1", "c2"])
        // The original tree is unchanged (boxes are shared, never mutated).
        #expect(Samples.tree.left?.left?.label == "LL")

        let ping = Ping(pong: Pong(ping: Ping(count: 1)), count: 10)
        let pong = Ping(pong: Pong(ping: Ping(pong: Pong(), count: 0)))
        let mergedPing = try expectMergesLikeProtoc(
            Ping.self, try ping.serializedBytes(), try pong.serializedBytes(), file: "everything.proto"
        )
        #expect(mergedPing == Ping(pong: Pong(ping: Ping(pong: Pong(), count: 1)), count: 10))
    }
}
