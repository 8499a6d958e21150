import TestSupport
import Testing
import SwiftFrame

/// Fields a message does not declare are kept as their exact bytes, tags included, and
/// written back after the known fields.
@Suite struct UnknownFieldsTests {
    // Tags worked out by hand: (field << 3 | wire type) as a varint.
    //   field 100 varint    = 800 = 0x320 -> A0 06
    //   field 101 fixed32   = 813 = 0x32D -> AD 06
    //   field 102 fixed64   = 817 = 0x331 -> B1 06
    //   field 103 length    = 826 = 0x33A -> BA 06
    //   field 104 group     = 835 / 836   -> C3 06 / C4 06
    //   field 105 group     = 843 / 844   -> CB 06 / CC 06
    static let unknownVarint: [UInt8] = [0xA0, 0x06, 0x96, 0x01]  // 150
    static let unknownFixed32: [UInt8] = [0xAD, 0x06, 0x01, 0x02, 0x03, 0x04]
    static let unknownFixed64: [UInt8] = [0xB1, 0x06, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
    static let unknownLength: [UInt8] = [0xBA, 0x06, 0x03, 0x61, 0x62, 0x63]
    /// Group 104 holding field 1 = 1 (not Node.value: it is inside the group) and group 105
    /// holding field 2 (fixed32).
    static let unknownGroup: [UInt8] = [
        0xC3, 0x06,
        0x08, 0x01,
        0xCB, 0x06, 0x15, 0x04, 0x03, 0x02, 0x01, 0xCC, 0x06,
        0xC4, 0x06,
    ]
    /// Field 9 varint with its tag (0x48) spelled in five bytes.
    static let nonMinimalTag: [UInt8] = [0xC8, 0x80, 0x80, 0x80, 0x00, 0x05]
    /// Field 10 fixed32 with its tag (0x55) spelled in two bytes.
    static let nonMinimalFixedTag: [UInt8] = [0xD5, 0x00, 0xAA, 0xBB, 0xCC, 0xDD]
    /// Field 11 varint whose value 1 is spelled in three bytes.
    static let nonMinimalValue: [UInt8] = [0x58, 0x81, 0x80, 0x00]

    static let allUnknown: [[UInt8]] = [
        unknownVarint, unknownFixed32, unknownFixed64, unknownLength, unknownGroup,
        nonMinimalTag, nonMinimalFixedTag, nonMinimalValue,
    ]

    @Test(arguments: allUnknown)
    func eachKindIsKeptByteForByte(field: [UInt8]) throws {
        let node = try Node(serializedBytes: field)
        #expect(node.value == 0)
        #expect(node.unknownFields.bytes == field)
        #expect(node.unknownFields.count == field.count)
        #expect(node.serializedSize() == field.count)
        #expect(try node.serializedBytes() == field)
    }

    @Test func interleavedWithKnownFields() throws {
        let input: [UInt8] =
            [0x08, 0x2A]  // value = 42
            + Self.unknownVarint + Self.unknownFixed32
            + [0x22, 0x01, 0x78]  // name = "x"
            + Self.unknownFixed64 + Self.unknownLength + Self.unknownGroup
            + Self.nonMinimalTag + Self.nonMinimalFixedTag + Self.nonMinimalValue
        let node = try Node(serializedBytes: input)
        #expect(node.value == 42)
        #expect(node.name == "x")
        let unknown = Self.allUnknown.flatMap { $0 }
        #expect(node.unknownFields.bytes == unknown)

        // Known fields first in field order, then the unknown bytes as read.
        let expected: [UInt8] = [0x08, 0x2A, 0x22, 0x01, 0x78] + unknown
        #expect(node.serializedSize() == expected.count)
        let output = try node.serializedBytes()
        #expect(output == expected)
        // A second pass changes nothing.
        #expect(try Node(serializedBytes: output).serializedBytes() == expected)
        #expect(try Node(serializedBytes: output) == node)
    }

    @Test func nonMinimalKnownTagIsReadAndRewrittenMinimally() throws {
        // Field 1 with tag 8 spelled 88 00, value 7.
        let node = try Node(serializedBytes: [0x88, 0x00, 0x07])
        #expect(node.value == 7)
        #expect(node.unknownFields.isEmpty)
        #expect(try node.serializedBytes() == [0x08, 0x07])
    }

    @Test func knownFieldWithTheWrongWireTypeIsUnknown() throws {
        // Field 1 (int32) sent as length-delimited, and field 4 (string) sent as a varint.
        let input: [UInt8] = [0x0A, 0x01, 0x61, 0x20, 0x05]
        let node = try Node(serializedBytes: input)
        #expect(node.value == 0)
        #expect(node.name == "")
        #expect(node.unknownFields.bytes == input)
        #expect(try node.serializedBytes() == input)
    }

    @Test func groupContentsAreOpaque() throws {
        // Inside group 15, "12 01 7C" is a length-delimited field 2 whose payload is 7C:
        // it is skipped by length, not parsed, and does not close the group.
        let input: [UInt8] = [0x7B, 0x12, 0x01, 0x7C, 0x7C]
        let node = try Node(serializedBytes: input)
        #expect(node.child == nil)
        #expect(node.unknownFields.bytes == input)
        #expect(try node.serializedBytes() == input)
    }

    @Test func deeplyNestedGroupsAndEmptyGroups() throws {
        // Group 15 { group 16 { group 15 { varint 15 = 1 } } }, then an empty group 17.
        // field 16: start 131 = 83 01, end 132 = 84 01; field 17: 139 = 8B 01, 140 = 8C 01.
        let input: [UInt8] = [
            0x7B, 0x83, 0x01, 0x7B, 0x78, 0x01, 0x7C, 0x84, 0x01, 0x7C,
            0x8B, 0x01, 0x8C, 0x01,
        ]
        let node = try Node(serializedBytes: input)
        #expect(node.unknownFields.bytes == input)
        #expect(try node.serializedBytes() == input)
    }

    @Test func extremeFieldNumbersAndValues() throws {
        // Field 536870911 (the largest), varint: tag 0xFFFFFFF8 = F8 FF FF FF 0F.
        let maxField: [UInt8] = [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x00]
        // Field 15 with a ten-byte varint value.
        let tenByte: [UInt8] = [0x78, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        let input = maxField + tenByte
        let node = try Node(serializedBytes: input)
        #expect(node.unknownFields.bytes == input)
        #expect(try node.serializedBytes() == input)
    }

    @Test func unknownFieldsOfAChildStayWithTheChild() throws {
        let input: [UInt8] = [0x08, 0x01, 0x12, 0x06, 0x08, 0x02, 0xA0, 0x06, 0x96, 0x01, 0x78, 0x03]
        let node = try Node(serializedBytes: input)
        #expect(node.unknownFields.bytes == [0x78, 0x03])
        #expect(node.child?.value == 2)
        #expect(node.child?.unknownFields.bytes == [0xA0, 0x06, 0x96, 0x01])
        // The child's length prefix counts its unknown bytes.
        #expect(try node.serializedBytes() == input)
    }

    @Test func mergeAppendsUnknownFieldsInOrder() throws {
        var node = try Node(serializedBytes: [0x78, 0x01])
        try node.merge(serializedBytes: [0x08, 0x05, 0x78, 0x02])
        #expect(node.value == 5)
        #expect(node.unknownFields.bytes == [0x78, 0x01, 0x78, 0x02])
        #expect(try node.serializedBytes() == [0x08, 0x05, 0x78, 0x01, 0x78, 0x02])
    }

    @Test func unknownFieldsSetByHandAreWrittenLast() throws {
        var node = Node()
        node.unknownFields = UnknownFields(bytes: [0x78, 0x05])
        node.value = 1
        #expect(!node.unknownFields.isEmpty)
        #expect(node.unknownFields.count == 2)
        #expect(node.serializedSize() == 4)
        #expect(try node.serializedBytes() == [0x08, 0x01, 0x78, 0x05])
    }

    @Test func unknownFieldsTakePartInEquality() throws {
        let plain = try Node(serializedBytes: [0x08, 0x01])
        let withUnknown = try Node(serializedBytes: [0x08, 0x01, 0x78, 0x01])
        #expect(plain != withUnknown)
        #expect(UnknownFields().isEmpty)
        #expect(UnknownFields() == UnknownFields(bytes: []))
        #expect(UnknownFields(bytes: [0x78, 0x01]) != UnknownFields(bytes: [0x78, 0x02]))
    }

    @Test func skipFieldFromTheReaderAPI() throws {
        // The reader used directly, as generated code does: each skipped field's bytes are
        // appended, and the reader ends up just past each one.
        let input: [UInt8] = Self.unknownGroup + Self.unknownFixed64 + [0x2A]
        let (unknown, offsets) = try withReader(input) { reader throws(WireError) in
            var unknown = UnknownFields()
            var offsets: [Int] = []
            for _ in 0..<2 {
                let tag = try reader.readTag()
                try reader.skipField(tag: tag, into: &unknown)
                offsets.append(reader.offset)
            }
            return (unknown, offsets)
        }
        #expect(unknown.bytes == Self.unknownGroup + Self.unknownFixed64)
        #expect(offsets == [15, 25])
    }
}
