import TestSupport
import Testing
import SwiftFrame

/// Every `WireError` case, each produced by real bad input, with its offset checked.
/// Field numbers used below: Node declares 1...8; field 15 is always unknown to it
/// (varint 0x78, fixed64 0x79, length-delimited 0x7A, start group 0x7B, end group 0x7C,
/// fixed32 0x7D, wire type 6 0x7E, wire type 7 0x7F).
@Suite struct ReaderErrorTests {
    // MARK: truncated

    @Test func truncated() {
        #expect(decodeError(Node.self, [0x08]) == .truncated(offset: 1))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x08, 0xFF]) == .truncated(offset: 3))
        // An unknown group that never ends: reported where the group started.
        #expect(decodeError(Node.self, [0x7B]) == .truncated(offset: 0))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x7B, 0x78, 0x01]) == .truncated(offset: 2))
        // The inner group ends; the outer one does not.
        #expect(decodeError(Node.self, [0x7B, 0x7B, 0x7C]) == .truncated(offset: 0))
        // A group whose end tag lies outside the child message that contains it.
        #expect(decodeError(Node.self, [0x12, 0x01, 0x7B, 0x7C]) == .truncated(offset: 2))
    }

    @Test func packedVarintCannotRunPastItsLength() {
        // Packed run of 2 bytes: 01, then 80 which continues into the next field's byte.
        #expect(decodeError(Node.self, [0x2A, 0x02, 0x01, 0x80, 0x01]) == .truncated(offset: 3))
    }

    // MARK: malformedVarint

    @Test func malformedVarint() {
        let eleven: [UInt8] = Array(repeating: 0xFF, count: 10) + [0x01]
        #expect(decodeError(Node.self, [0x08] + eleven) == .malformedVarint(offset: 1))
        #expect(decodeError(Node.self, [0x2A, 0x0B] + eleven) == .malformedVarint(offset: 2))
        #expect(decodeError(Node.self, [0x08, 0x01] + eleven) == .malformedVarint(offset: 2))
        // In a packed run long enough to be decoded in place (64 varints or more): 70 good ones,
        // the bad one, 10 more.
        let run: [UInt8] = Array(repeating: 0x01, count: 70) + eleven + Array(repeating: 0x01, count: 10)
        #expect(decodeError(Node.self, [0x2A, UInt8(run.count)] + run) == .malformedVarint(offset: 72))
    }

    // MARK: invalidTag

    @Test func invalidTag() throws {
        // A tag is read as protobuf's C++ runtime reads it: at most 5 bytes, bits past the 32nd
        // dropped. Field 1 as a varint, padded to 6 and to 10 bytes, is refused (C++ and Python
        // refuse it too); five bytes are fine.
        let padded6: [UInt8] = [0x88, 0x80, 0x80, 0x80, 0x80, 0x00]
        let padded10: [UInt8] = [0x88] + Array(repeating: 0x80, count: 8) + [0x00]
        #expect(decodeError(Node.self, padded6 + [0x01]) == .invalidTag(offset: 0))
        #expect(decodeError(Node.self, [0x08, 0x01] + padded10 + [0x01]) == .invalidTag(offset: 2))
        // A ten-byte tag with every bit set; and inside an unknown group.
        let allOnes: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        #expect(decodeError(Node.self, allOnes + [0x00]) == .invalidTag(offset: 0))
        #expect(decodeError(Node.self, [0x7B] + padded6) == .invalidTag(offset: 1))
        let fiveBytes = try? withReader([0x88, 0x80, 0x80, 0x80, 0x00]) { reader throws(WireError) in
            try reader.readTag()
        }
        #expect(fiveBytes == 8)
        // The largest field number, 2^29 - 1, a varint: read (and kept as an unknown field).
        #expect((try? Node(serializedBytes: [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x2A])) != nil)
    }

    // MARK: fieldNumberTooLarge

    @Test func fieldNumberTooLarge() {
        // 8 + 2^32 in five bytes: field number 2^29 + 1, not field 1 with the high bits dropped.
        #expect(decodeError(Node.self, [0x88, 0x80, 0x80, 0x80, 0x10, 0x2A]) == .fieldNumberTooLarge(offset: 0))
        // 2^32 (field number 2^29, a varint): one above the largest, also after a valid field.
        #expect(decodeError(Node.self, [0x80, 0x80, 0x80, 0x80, 0x10, 0x01]) == .fieldNumberTooLarge(offset: 0))
        #expect(
            decodeError(Node.self, [0x08, 0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01]) == .fieldNumberTooLarge(offset: 2))
        // The highest five-byte value.
        #expect(decodeError(Node.self, [0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == .fieldNumberTooLarge(offset: 0))
    }

    // MARK: invalidLength

    @Test func invalidLength() throws {
        // A length is a 32-bit varint too: "abc" with its length in 6 bytes is refused, in 5 read.
        let abc: [UInt8] = [0x61, 0x62, 0x63]
        #expect(decodeError(Node.self, [0x22, 0x83, 0x80, 0x80, 0x80, 0x80, 0x00] + abc) == .invalidLength(offset: 1))
        #expect(
            try Node(serializedBytes: [0x22, 0x83, 0x80, 0x80, 0x80, 0x00] + abc)
                == Node(serializedBytes: [0x22, 0x03] + abc))
        // In an unknown field, a child message and a packed run.
        #expect(
            decodeError(Node.self, [0x08, 0x01, 0x7A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]) == .invalidLength(offset: 3))
        #expect(decodeError(Node.self, [0x12] + Array(repeating: 0x80, count: 9) + [0x00]) == .invalidLength(offset: 1))
        #expect(decodeError(Node.self, [0x2A, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01]) == .invalidLength(offset: 1))
    }

    // MARK: lengthPastEnd

    @Test func lengthPastEnd() {
        #expect(
            decodeError(Node.self, [0x22, 0x05, 0x61, 0x62])
                == .lengthPastEnd(offset: 1, length: 5, remaining: 2))
        #expect(
            decodeError(Node.self, [0x3A, 0x01])
                == .lengthPastEnd(offset: 1, length: 1, remaining: 0))
        // A child message longer than what follows it.
        #expect(
            decodeError(Node.self, [0x12, 0x05, 0x08])
                == .lengthPastEnd(offset: 1, length: 5, remaining: 1))
        // An unknown length-delimited field.
        #expect(
            decodeError(Node.self, [0x08, 0x01, 0x7A, 0x03, 0x00])
                == .lengthPastEnd(offset: 3, length: 3, remaining: 1))
        // Packed fields are checked against the end before their element size.
        #expect(
            decodeError(Node.self, [0x32, 0x08, 0x01, 0x02, 0x03, 0x04])
                == .lengthPastEnd(offset: 1, length: 8, remaining: 4))
        #expect(
            decodeError(Node.self, [0x2A, 0x03, 0x01])
                == .lengthPastEnd(offset: 1, length: 3, remaining: 1))
    }

    @Test func lengthIsCheckedAgainstTheEnclosingMessageNotTheBuffer() {
        // Child of 3 bytes holds a string claiming 5; the buffer has enough bytes, the child does not.
        let bytes: [UInt8] = [0x12, 0x03, 0x22, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65]
        #expect(decodeError(Node.self, bytes) == .lengthPastEnd(offset: 3, length: 5, remaining: 1))
    }

    static let absurdLengths: [(UInt64, [UInt8])] = [
        (UInt64.max, Array(repeating: 0xFF, count: 9) + [0x01]),
        (1 << 63, Array(repeating: 0x80, count: 9) + [0x01]),
        (UInt64(Int64.max), Array(repeating: 0xFF, count: 8) + [0x7F]),
        (UInt64(Int64.max) - 1, [0xFE] + Array(repeating: 0xFF, count: 7) + [0x7F]),
        (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
    ]

    /// Every length-delimited path must reject a huge length before adding it to an offset
    /// or allocating.
    @Test(arguments: absurdLengths)
    func absurdLengthThrows(length: UInt64, varint: [UInt8]) {
        let tail: [UInt8] = [0x61, 0x62]
        for tag: UInt8 in [0x22, 0x3A, 0x12, 0x1A, 0x2A, 0x32, 0x42, 0x7A] {
            #expect(
                decodeError(Node.self, [tag] + varint + tail)
                    == .lengthPastEnd(offset: 1, length: length, remaining: 2),
                "tag \(tag)"
            )
        }
        // Inside an unknown group, after a complete field.
        #expect(
            decodeError(Node.self, [0x08, 0x01, 0x7B, 0x7A] + varint + tail)
                == .lengthPastEnd(offset: 4, length: length, remaining: 2))
    }

    // MARK: invalidWireType

    @Test func invalidWireType() {
        #expect(decodeError(Node.self, [0x0E]) == .invalidWireType(offset: 0, wireType: 6))
        #expect(decodeError(Node.self, [0x0F]) == .invalidWireType(offset: 0, wireType: 7))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x7E, 0x00]) == .invalidWireType(offset: 2, wireType: 6))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x7F, 0x00]) == .invalidWireType(offset: 2, wireType: 7))
        // Inside an unknown group, and inside a child message.
        #expect(decodeError(Node.self, [0x7B, 0x7F, 0x7C]) == .invalidWireType(offset: 1, wireType: 7))
        #expect(decodeError(Node.self, [0x12, 0x01, 0x0E]) == .invalidWireType(offset: 2, wireType: 6))
        // Multi-byte tag: field 16, wire type 6 = 134 = 86 01.
        #expect(decodeError(Node.self, [0x86, 0x01]) == .invalidWireType(offset: 0, wireType: 6))
    }

    @Test func readTagItselfRejectsUndefinedWireTypes() {
        // Not left to the skip path: the tag read fails before any field code sees it.
        #expect(throws: WireError.invalidWireType(offset: 0, wireType: 6)) {
            try withReader([0x0E, 0x00]) { reader throws(WireError) in try reader.readTag() }
        }
        #expect(throws: WireError.invalidWireType(offset: 0, wireType: 7)) {
            try withReader([0x0F, 0x00]) { reader throws(WireError) in try reader.readTag() }
        }
    }

    @Test func skipValueRejectsUndefinedWireTypes() {
        #expect(throws: WireError.invalidWireType(offset: 0, wireType: 6)) {
            try withReader([0x00]) { reader throws(WireError) in try reader.skipValue(tag: 0x7E) }
        }
    }

    // MARK: fieldNumberZero

    @Test func fieldNumberZero() {
        #expect(decodeError(Node.self, [0x00]) == .fieldNumberZero(offset: 0))
        #expect(decodeError(Node.self, [0x02, 0x00]) == .fieldNumberZero(offset: 0))
        #expect(decodeError(Node.self, [0x07]) == .fieldNumberZero(offset: 0))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x05]) == .fieldNumberZero(offset: 2))
        // A non-minimal encoding of tag 0 is still field 0.
        #expect(decodeError(Node.self, [0x80, 0x00]) == .fieldNumberZero(offset: 0))
        #expect(decodeError(Node.self, [0x7B, 0x00, 0x7C]) == .fieldNumberZero(offset: 1))
    }

    // MARK: invalidUTF8

    @Test func invalidUTF8() {
        // Overlong NUL.
        #expect(decodeError(Node.self, [0x22, 0x02, 0xC0, 0x80]) == .invalidUTF8(offset: 2))
        // Surrogate U+D800 after "ab".
        #expect(decodeError(Node.self, [0x22, 0x05, 0x61, 0x62, 0xED, 0xA0, 0x80]) == .invalidUTF8(offset: 4))
        // F5 can never start a sequence.
        #expect(decodeError(Node.self, [0x22, 0x04, 0xF5, 0x80, 0x80, 0x80]) == .invalidUTF8(offset: 2))
        // Lone continuation byte.
        #expect(decodeError(Node.self, [0x22, 0x03, 0x61, 0x80, 0x62]) == .invalidUTF8(offset: 3))
        // "€" (E2 82 AC) cut by the field's length: the AC after it belongs to the next field
        // and must not be used to complete the sequence.
        #expect(decodeError(Node.self, [0x22, 0x03, 0x61, 0xE2, 0x82, 0xAC]) == .invalidUTF8(offset: 3))
        // In a child message, after a valid field.
        #expect(decodeError(Node.self, [0x08, 0x01, 0x12, 0x04, 0x22, 0x02, 0xC0, 0x80]) == .invalidUTF8(offset: 6))
    }

    @Test func invalidUTF8IsFineInBytesAndUnknownFields() throws {
        let node = try Node(serializedBytes: [0x3A, 0x02, 0xC0, 0x80, 0x7A, 0x02, 0xED, 0xA0])
        #expect(node.data == [0xC0, 0x80])
        #expect(node.unknownFields.bytes == [0x7A, 0x02, 0xED, 0xA0])
    }

    // MARK: tooDeep

    /// `depth` nested `child` messages around an innermost `value = 1`.
    static func chain(depth: Int) -> [UInt8] {
        var body: [UInt8] = [0x08, 0x01]
        for _ in 0..<depth {
            body = referenceField(tag: 0x12, body)
        }
        return body
    }

    @Test func nestingUpToTheDefaultLimitDecodes() throws {
        let bytes = Self.chain(depth: ProtoReader.defaultMaxDepth)
        var node = try Node(serializedBytes: bytes)
        var depth = 0
        while let child = node.child {
            depth += 1
            node = child
        }
        #expect(depth == 100)
        #expect(node.value == 1)
    }

    @Test func nestingPastTheDefaultLimitIsTooDeep() {
        let bytes = Self.chain(depth: ProtoReader.defaultMaxDepth + 1)
        // The 101st child starts with its tag and length (12 02), four bytes from the end.
        #expect(decodeError(Node.self, bytes) == .tooDeep(offset: bytes.count - 4, limit: 100))
    }

    @Test func maxDepthParameterIsHonoured() throws {
        // Four nested children: 12 08 [12 06 [12 04 [12 02 [08 01]]]].
        let four: [UInt8] = [0x12, 0x08, 0x12, 0x06, 0x12, 0x04, 0x12, 0x02, 0x08, 0x01]
        #expect(Self.chain(depth: 4) == four)
        #expect(decodeError(Node.self, four, maxDepth: 3) == .tooDeep(offset: 6, limit: 3))
        #expect(decodeError(Node.self, four, maxDepth: 4) == nil)
        #expect(decodeError(Node.self, four) == nil)
        #expect(throws: WireError.tooDeep(offset: 6, limit: 3)) {
            try Node(serializedBytes: four[...], maxDepth: 3)
        }
        // maxDepth 0: no nested message at all, but flat fields are fine.
        #expect(decodeError(Node.self, [0x12, 0x00], maxDepth: 0) == .tooDeep(offset: 0, limit: 0))
        #expect(decodeError(Node.self, [0x08, 0x01], maxDepth: 0) == nil)
        // Repeated children count too.
        #expect(decodeError(Node.self, [0x1A, 0x02, 0x1A, 0x00], maxDepth: 1) == .tooDeep(offset: 2, limit: 1))
    }

    @Test func siblingsDoNotAccumulateDepth() throws {
        // Depth is given back when a child ends: many siblings at the limit are fine.
        let siblings = try Node(serializedBytes: [0x1A, 0x00, 0x1A, 0x00, 0x12, 0x00, 0x1A, 0x00], maxDepth: 1)
        #expect(siblings.children.count == 3)
        #expect(siblings.child != nil)
        let groups = try Node(serializedBytes: [0x7B, 0x7C, 0x7B, 0x7C, 0x7B, 0x7C], maxDepth: 1)
        #expect(groups.unknownFields.count == 6)
    }

    @Test func nestedGroupsAreLimitedToo() throws {
        let limit = ProtoReader.defaultMaxDepth
        let atLimit: [UInt8] = Array(repeating: 0x7B, count: limit) + Array(repeating: 0x7C, count: limit)
        let node = try Node(serializedBytes: atLimit)
        #expect(node.unknownFields.bytes == atLimit)

        let pastLimit: [UInt8] = Array(repeating: 0x7B, count: limit + 1) + Array(repeating: 0x7C, count: limit + 1)
        #expect(decodeError(Node.self, pastLimit) == .tooDeep(offset: limit, limit: limit))

        // A hundred thousand open groups: an error, not a stack overflow.
        #expect(decodeError(Node.self, Array(repeating: 0x7B, count: 100_000)) == .tooDeep(offset: limit, limit: limit))
    }

    @Test func messagesAndGroupsShareTheDepthBudget() throws {
        // child { group 15 { group 15 {} } }
        let bytes: [UInt8] = [0x12, 0x04, 0x7B, 0x7B, 0x7C, 0x7C]
        #expect(decodeError(Node.self, bytes, maxDepth: 2) == .tooDeep(offset: 3, limit: 2))
        let node = try Node(serializedBytes: bytes, maxDepth: 3)
        #expect(node.child?.unknownFields.bytes == [0x7B, 0x7B, 0x7C, 0x7C])
    }

    // MARK: unmatchedEndGroup

    @Test func unmatchedEndGroup() {
        // End group with no start.
        #expect(decodeError(Node.self, [0x0C]) == .unmatchedEndGroup(offset: 0))
        #expect(decodeError(Node.self, [0x08, 0x01, 0x7C]) == .unmatchedEndGroup(offset: 2))
        // End group with the wrong field number: start 15, end 1.
        #expect(decodeError(Node.self, [0x7B, 0x0C]) == .unmatchedEndGroup(offset: 1))
        // Inner group (field 1) closed by the outer group's end tag (field 15).
        #expect(decodeError(Node.self, [0x7B, 0x0B, 0x7C, 0x0C]) == .unmatchedEndGroup(offset: 2))
        // An end-group tag inside a child message: the child has no group open.
        #expect(decodeError(Node.self, [0x12, 0x01, 0x7C]) == .unmatchedEndGroup(offset: 2))
        // Multi-byte tags: field 16 start = 131 = 83 01, field 16 end = 132 = 84 01.
        #expect(decodeError(Node.self, [0x84, 0x01]) == .unmatchedEndGroup(offset: 0))
        #expect(decodeError(Node.self, [0x83, 0x01, 0x7C]) == .unmatchedEndGroup(offset: 2))
        #expect(decodeError(Node.self, [0x83, 0x01, 0x84, 0x01]) == nil)
    }

    // MARK: malformedPackedField

    @Test func malformedPackedField() {
        #expect(
            decodeError(Node.self, [0x32, 0x05, 0x01, 0x02, 0x03, 0x04, 0x05])
                == .malformedPackedField(offset: 1, length: 5))
        #expect(
            decodeError(Node.self, [0x08, 0x01, 0x32, 0x03, 0x01, 0x02, 0x03])
                == .malformedPackedField(offset: 3, length: 3))
        // Even lengths that are still not a multiple of four.
        #expect(
            decodeError(Node.self, [0x32, 0x06, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
                == .malformedPackedField(offset: 1, length: 6))
        #expect(
            decodeError(Node.self, [0x32, 0x02, 0x01, 0x02])
                == .malformedPackedField(offset: 1, length: 2))
        #expect(
            decodeError(Node.self, [0x42, 0x0C] + Array(repeating: 0x00, count: 12))
                == .malformedPackedField(offset: 1, length: 12))
        #expect(
            decodeError(Node.self, [0x42, 0x04, 0x00, 0x00, 0x00, 0x00])
                == .malformedPackedField(offset: 1, length: 4))
    }

    // MARK: Descriptions

    static let allCases: [WireError] = [
        .truncated(offset: 4242),
        .malformedVarint(offset: 4242),
        .invalidTag(offset: 4242),
        .invalidLength(offset: 4242),
        .lengthPastEnd(offset: 4242, length: 77, remaining: 3),
        .invalidWireType(offset: 4242, wireType: 6),
        .fieldNumberZero(offset: 4242),
        .fieldNumberTooLarge(offset: 4242),
        .invalidUTF8(offset: 4242),
        .tooDeep(offset: 4242, limit: 100),
        .unmatchedEndGroup(offset: 4242),
        .malformedPackedField(offset: 4242, length: 5),
    ]

    @Test(arguments: allCases)
    func descriptionMentionsTheOffset(error: WireError) {
        #expect(error.description.contains("offset 4242"))
        #expect(String(describing: error) == error.description)
    }

    @Test func descriptionsCarryTheirDetails() {
        #expect(
            WireError.truncated(offset: 17).description
                == "truncated input: a value starting at offset 17 runs past the end")
        #expect(
            WireError.lengthPastEnd(offset: 1, length: 18_446_744_073_709_551_615, remaining: 2).description
                == "length 18446744073709551615 at offset 1 is past the end (2 bytes remain)")
        #expect(WireError.invalidWireType(offset: 9, wireType: 7).description == "invalid wire type 7 at offset 9")
        #expect(WireError.tooDeep(offset: 3, limit: 2).description == "nesting deeper than 2 levels at offset 3")
        #expect(WireError.malformedPackedField(offset: 1, length: 5).description.contains("length 5"))
    }
}
