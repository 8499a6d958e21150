import TestSupport
import Testing
import SwiftFrame

/// Strings, bytes and packed repeated fields: a varint length, then the payload.
@Suite struct LengthDelimitedTests {
    // MARK: Empty values

    @Test func emptyStringAndBytes() throws {
        #expect(written { $0.writeString("") } == [0x00])
        #expect(written { $0.writeBytes([]) } == [0x00])
        let (string, afterString) = try withReader([0x00, 0x2A]) { reader throws(WireError) in
            (try reader.readString(), reader.offset)
        }
        #expect(string == "")
        #expect(afterString == 1)
        let (bytes, afterBytes) = try withReader([0x00, 0x2A]) { reader throws(WireError) in
            (try reader.readBytes(), reader.offset)
        }
        #expect(bytes == [])
        #expect(afterBytes == 1)
    }

    @Test func emptyFieldsOnTheWireDecode() throws {
        // name = "" and data = [] present on the wire, then value = 1.
        let node = try Node(serializedBytes: [0x22, 0x00, 0x3A, 0x00, 0x08, 0x01])
        #expect(node.name == "")
        #expect(node.data == [])
        #expect(node.value == 1)
        #expect(node.unknownFields.isEmpty)
    }

    // MARK: A tag, a length and the bytes in one call

    /// `writeString(_:tag:)` and `writeBytes(_:tag:)` check the room for all three parts once;
    /// they must write what the tag and the value written apart do, for every copy width
    /// (0 to 3, 4 to 7, 8 to 15 as eight and the rest, 16 to 32 bytes, and longer), two-byte
    /// lengths and tags of one to five bytes. The `UnlessEmpty` forms write nothing for an
    /// empty value. Strings of up to 15 bytes are small (held inline), longer ones native.
    @Test(arguments: [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 31, 32, 33, 127, 128, 300])
    func tagAndValueInOneCall(count: Int) {
        let text = String((0..<count).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
        let bytes = Array(text.utf8)
        for tag: UInt32 in [10, 130, 16_386, 2_097_154, 4_294_967_290] {
            let apart = written(capacity: 320) { writer in
                writer.writeTag(tag)
                writer.writeString(text)
            }
            #expect(apart == varint(UInt64(tag)) + varint(UInt64(count)) + bytes)
            #expect(written(capacity: 320) { $0.writeString(text, tag: tag) } == apart)
            #expect(written(capacity: 320) { $0.writeBytes(bytes, tag: tag) } == apart)
            let unlessEmpty = count == 0 ? [] : apart
            #expect(written(capacity: 320) { $0.writeStringUnlessEmpty(text, tag: tag) } == unlessEmpty)
            #expect(written(capacity: 320) { $0.writeBytesUnlessEmpty(bytes, tag: tag) } == unlessEmpty)
            // Exactly the room needed is enough.
            #expect(written(capacity: apart.count) { $0.writeString(text, tag: tag) } == apart)
        }
    }

    // MARK: Strings

    static let stringCases: [(String, [UInt8])] = [
        ("hello", [0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F]),
        ("a\u{0}b", [0x03, 0x61, 0x00, 0x62]),
        // é = C3 A9, € = E2 82 AC, 😀 (U+1F600) = F0 9F 98 80.
        ("aé€😀", [0x0A, 0x61, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80]),
        (
            "\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}",
            [
                0x12,
                0xC2, 0x80, 0xDF, 0xBF,
                0xE0, 0xA0, 0x80, 0xEF, 0xBF, 0xBF,
                0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF,
            ]
        ),
        // Combining sequence: e + U+0301 stays two scalars, three bytes.
        ("e\u{301}", [0x03, 0x65, 0xCC, 0x81]),
    ]

    @Test(arguments: stringCases)
    func string(value: String, bytes: [UInt8]) throws {
        #expect(written { $0.writeString(value) } == bytes)
        let read = try withReader(bytes) { reader throws(WireError) in try reader.readString() }
        #expect(read == value)
        #expect(Array(read.utf8) == Array(bytes.dropFirst()))
    }

    @Test func stringInAMessage() throws {
        var node = Node()
        node.name = "aé€😀"
        let expected: [UInt8] = [0x22, 0x0A, 0x61, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80]
        #expect(node.serializedSize() == expected.count)
        #expect(try node.serializedBytes() == expected)
        #expect(try Node(serializedBytes: expected) == node)
    }

    @Test func substringBackedStringIsWritten() throws {
        // A string built from a slice of another: the writer must copy its UTF-8 exactly.
        let whole = "xx€yy"
        let middle = String(whole.dropFirst(2).dropLast(2))
        #expect(written { $0.writeString(middle) } == [0x03, 0xE2, 0x82, 0xAC])
    }

    // MARK: Every short length (copied without memcpy up to 32 bytes)

    /// `count` bytes, no two neighbours alike, so a byte copied to the wrong place shows.
    static func pattern(_ count: Int, start: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(start) &+ $0 &* 7) & 0x7F }
    }

    @Test(arguments: 0...70)
    func stringAndBytesOfLength(count: Int) throws {
        let first = Self.pattern(count, start: 1)
        let second = Self.pattern(count, start: 50)
        let strings = [String(decoding: first, as: UTF8.self), String(decoding: second, as: UTF8.self)]
        let expected = referenceField(tag: 26, first) + referenceField(tag: 26, second)
        let capacity = expected.count + 8
        // One by one, and as a repeated field, for strings and for bytes: the same bytes.
        #expect(
            written(capacity: capacity) { writer in
                for string in strings {
                    writer.writeTag(26)
                    writer.writeString(string)
                }
            } == expected)
        #expect(written(capacity: capacity) { $0.writeRepeatedString(strings, tag: 26) } == expected)
        #expect(written(capacity: capacity) { $0.writeRepeatedBytes([first, second], tag: 26) } == expected)
        #expect(
            written(capacity: capacity) { writer in
                writer.writeTag(26)
                writer.writeBytes(first)
                writer.writeTag(26)
                writer.writeBytes(second)
            } == expected)
        // Read back: the string, then the bytes, then what follows them is where it should be.
        let read = try withReader(expected) { reader throws(WireError) in
            _ = try reader.readTag()
            let string = try reader.readString()
            _ = try reader.readTag()
            let bytes = try reader.readBytes()
            return (string, bytes, reader.offset)
        }
        #expect(read.0 == strings[0])
        #expect(read.1 == second)
        #expect(read.2 == expected.count)
    }

    @Test func nonASCIIStringsOfEveryShortLength() throws {
        // Two-byte characters after an ASCII prefix of each length: the copy and the UTF-8
        // check see every alignment of a multi-byte sequence.
        for prefix in 0...33 {
            let string = String(repeating: "a", count: prefix) + "é€"
            let bytes = Array(string.utf8)
            let expected = varint(UInt64(bytes.count)) + bytes
            #expect(written(capacity: expected.count) { $0.writeString(string) } == expected)
            #expect(try withReader(expected) { reader throws(WireError) in try reader.readString() } == string)
        }
    }

    @Test(arguments: [4_000, 4_096, 4_097, 70_000])
    func largeOutputs(count: Int) throws {
        // Outputs larger than a page are written into a new array that is never zeroed first;
        // appended to an existing array, they grow it as before.
        var node = Node()
        node.data = Self.pattern(count, start: 3)
        node.value = 7
        let expected = [0x08, 0x07] + referenceField(tag: 58, node.data)
        #expect(try node.serializedBytes() == expected)
        var appended: [UInt8] = [0xAA]
        try node.serialize(appendingTo: &appended)
        #expect(appended == [0xAA] + expected)
        #expect(try Node(serializedBytes: expected) == node)
    }

    @Test func repeatedMessagesSizedAndWrittenAsOne() throws {
        // The runtime's loops over a repeated message field give what a loop over its
        // elements gives: the same sizes and the same bytes.
        var parent = Node()
        for index in 0..<5 {
            var child = Node()
            child.value = Int32(index)
            child.name = String(repeating: "n", count: index * 9)
            child.children = index == 3 ? [parent] : []
            parent.children.append(child)
        }
        let expected = try parent.serializedBytes()
        var cache = SizeCache()
        let size = cache.repeatedMessage(parent.children, tagSize: 1)
        #expect(size == expected.count)
        #expect(written(capacity: size, sizes: cache) { $0.writeRepeatedMessage(parent.children, tag: 26) } == expected)
    }

    // MARK: Length prefixes at varint boundaries

    static let prefixCases: [(Int, [UInt8])] = [
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (16_383, [0xFF, 0x7F]),
        (16_384, [0x80, 0x80, 0x01]),
    ]

    @Test(arguments: prefixCases)
    func bytesLengthPrefix(count: Int, prefix: [UInt8]) throws {
        var node = Node()
        node.data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let bytes = try node.serializedBytes()
        #expect(Array(bytes.prefix(1 + prefix.count)) == [0x3A] + prefix)
        #expect(Array(bytes.dropFirst(1 + prefix.count)) == node.data)
        #expect(node.serializedSize() == 1 + prefix.count + count)
        #expect(try Node(serializedBytes: bytes) == node)
    }

    @Test func oneMebibyteBytesRoundTrip() throws {
        var node = Node()
        node.data = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 8)) }
        let bytes = try node.serializedBytes()
        // 2^20 = 0b1_0000000_0000000_0000000: groups 0, 0, 0x40.
        #expect(Array(bytes.prefix(4)) == [0x3A, 0x80, 0x80, 0x40])
        #expect(bytes.count == 4 + (1 << 20))
        #expect(bytes[4...].elementsEqual(node.data))
        let decoded = try Node(serializedBytes: bytes)
        #expect(decoded.data == node.data)
    }

    @Test func oneMebibyteStringRoundTrip() throws {
        // 2^19 two-byte characters: a 2^20-byte string, all of it through UTF-8 validation.
        var node = Node()
        node.name = String(repeating: "é", count: 1 << 19)
        let bytes = try node.serializedBytes()
        #expect(Array(bytes.prefix(6)) == [0x22, 0x80, 0x80, 0x40, 0xC3, 0xA9])
        #expect(bytes.count == 4 + (1 << 20))
        let decoded = try Node(serializedBytes: bytes)
        #expect(decoded.name == node.name)
    }

    // MARK: Packed repeated fields

    @Test func packedVarintWithSizeCache() {
        let values: [Int32] = [1, 300, -1]
        var cache = SizeCache()
        // Payload 1 + 2 + 10 = 13 bytes, plus a one-byte length prefix.
        #expect(cache.packedVarint(values, ProtoInt32.self) == 14)
        let bytes = written(sizes: cache) { $0.writePackedVarint(values, ProtoInt32.self) }
        #expect(bytes == [0x0D, 0x01, 0xAC, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func packedFieldsInAMessage() throws {
        var node = Node()
        node.numbers = [1, 300, -1]
        node.fixedNumbers = [1, 0xDEAD_BEEF]
        node.wide = [-2, 1]
        let expected: [UInt8] = [
            0x2A, 0x0D, 0x01, 0xAC, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
            0x32, 0x08, 0x01, 0x00, 0x00, 0x00, 0xEF, 0xBE, 0xAD, 0xDE,
            0x42, 0x10,
            0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        #expect(node.serializedSize() == expected.count)
        #expect(try node.serializedBytes() == expected)
        #expect(try Node(serializedBytes: expected) == node)
    }

    @Test func longPackedVarintHasATwoByteLength() throws {
        var node = Node()
        node.numbers = Array(1...200)
        let bytes = try node.serializedBytes()
        // 127 one-byte values (1...127) and 73 two-byte values (128...200): 273 = 0x111.
        #expect(Array(bytes.prefix(5)) == [0x2A, 0x91, 0x02, 0x01, 0x02])
        #expect(Array(bytes.suffix(2)) == [0xC8, 0x01])
        #expect(bytes.count == 3 + 273)
        #expect(try Node(serializedBytes: bytes) == node)
    }

    @Test func packedAndUnpackedAreBothAccepted() throws {
        let bytes: [UInt8] = [
            0x28, 0x01,  // numbers: 1 (unpacked)
            0x2A, 0x03, 0x02, 0xAC, 0x02,  // numbers: 2, 300 (packed)
            0x28, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  // numbers: -1 (unpacked)
            0x35, 0x07, 0x00, 0x00, 0x00,  // fixed_numbers: 7 (unpacked)
            0x32, 0x04, 0x08, 0x00, 0x00, 0x00,  // fixed_numbers: 8 (packed)
            0x41, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // wide: 9 (unpacked)
            0x42, 0x08, 0xF6, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // wide: -10 (packed)
            0x2A, 0x00,  // numbers: empty packed run
        ]
        let node = try Node(serializedBytes: bytes)
        #expect(node.numbers == [1, 2, 300, -1])
        #expect(node.fixedNumbers == [7, 8])
        #expect(node.wide == [9, -10])
        #expect(node.unknownFields.isEmpty)
    }

    @Test func packedVarintStopsAtItsOwnLength() throws {
        // A packed run of 2 bytes (01 05) followed by field 1 = 3; the reader must not let the
        // packed run read into the next field.
        let node = try Node(serializedBytes: [0x2A, 0x02, 0x01, 0x05, 0x08, 0x03])
        #expect(node.numbers == [1, 5])
        #expect(node.value == 3)
    }

    @Test func emptyRepeatedFieldsAreNotWritten() throws {
        let node = Node()
        #expect(node.serializedSize() == 0)
        #expect(try node.serializedBytes() == [])
    }
}
