import TestSupport
import Testing
import SwiftFrame

/// Varints, tags and zigzag. Every expected byte string is worked out by hand from the
/// encoding spec: seven bits per byte, least significant group first, high bit set on every
/// byte but the last.
@Suite struct VarintTests {
    // MARK: Encoding and decoding exact bytes

    static let unsignedCases: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (300, [0xAC, 0x02]),
        (16_383, [0xFF, 0x7F]),
        (16_384, [0x80, 0x80, 0x01]),
        (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (1 << 32, [0x80, 0x80, 0x80, 0x80, 0x10]),
        (UInt64(Int64.max), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
        (1 << 63, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: unsignedCases)
    func writesVarint(value: UInt64, expected: [UInt8]) {
        #expect(written { $0.writeVarint(value) } == expected)
        #expect(Wire.varintSize(value) == expected.count)
    }

    @Test(arguments: unsignedCases)
    func readsVarint(expected: UInt64, bytes: [UInt8]) throws {
        // Followed by a sentinel byte: the read must stop exactly at the end of the varint.
        let (value, offset) = try withReader(bytes + [0x2A]) { reader throws(WireError) in
            (try reader.readVarint(), reader.offset)
        }
        #expect(value == expected)
        #expect(offset == bytes.count)
    }

    @Test func uint64MaxIsExactlyTenBytes() {
        let bytes = written { $0.writeVarint(UInt64.max) }
        #expect(bytes == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(bytes.count == 10)
    }

    // MARK: varintSize at every 7-bit boundary

    @Test(arguments: 1...9)
    func varintSize64AtBoundary(groups: Int) {
        let boundary = UInt64(1) << UInt64(7 * groups)
        #expect(Wire.varintSize(boundary - 1) == groups)
        #expect(Wire.varintSize(boundary) == groups + 1)
    }

    @Test func varintSize64Extremes() {
        #expect(Wire.varintSize(UInt64(0)) == 1)
        #expect(Wire.varintSize(UInt64(1)) == 1)
        #expect(Wire.varintSize(UInt64.max) == 10)
    }

    @Test(arguments: 1...4)
    func varintSize32AtBoundary(groups: Int) {
        let boundary = UInt32(1) << UInt32(7 * groups)
        #expect(Wire.varintSize(boundary - 1) == groups)
        #expect(Wire.varintSize(boundary) == groups + 1)
    }

    @Test func varintSize32Extremes() {
        #expect(Wire.varintSize(UInt32(0)) == 1)
        #expect(Wire.varintSize(UInt32(1)) == 1)
        #expect(Wire.varintSize(UInt32.max) == 5)
    }

    @Test func lengthDelimitedSizeCountsThePrefix() {
        #expect(Wire.lengthDelimitedSize(0) == 1)
        #expect(Wire.lengthDelimitedSize(127) == 128)
        #expect(Wire.lengthDelimitedSize(128) == 130)
        #expect(Wire.lengthDelimitedSize(16_384) == 16_387)
        #expect(Wire.lengthDelimitedSize(1 << 20) == (1 << 20) + 3)
    }

    // MARK: Signed varints

    static let int32Cases: [(Int32, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (Int32.max, [0xFF, 0xFF, 0xFF, 0xFF, 0x07]),
        // Negative int32 is sign-extended to 64 bits: always 10 bytes.
        (-1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (-2, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (Int32.min, [0x80, 0x80, 0x80, 0x80, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: int32Cases)
    func int32(value: Int32, bytes: [UInt8]) throws {
        #expect(written { $0.writeVarint(ProtoInt32.self, value) } == bytes)
        #expect(ProtoInt32.size(value) == bytes.count)
        #expect(try withReader(bytes) { reader throws(WireError) in try reader.readVarint(ProtoInt32.self) } == value)
    }

    static let int64Cases: [(Int64, [UInt8])] = [
        (0, [0x00]),
        (Int64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
        (-1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (-2, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (Int64.min, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
    ]

    @Test(arguments: int64Cases)
    func int64(value: Int64, bytes: [UInt8]) throws {
        #expect(written { $0.writeVarint(ProtoInt64.self, value) } == bytes)
        #expect(ProtoInt64.size(value) == bytes.count)
        #expect(try withReader(bytes) { reader throws(WireError) in try reader.readVarint(ProtoInt64.self) } == value)
    }

    @Test func int32AcceptsFiveByteNegativeForm() throws {
        // Some encoders write a negative int32 as its 32-bit pattern: 0xFFFFFFFF is -1.
        let value = try withReader([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) { reader throws(WireError) in
            try reader.readVarint(ProtoInt32.self)
        }
        #expect(value == -1)
    }

    @Test func narrowReadsTruncateSixtyFourBitVarintsLikeCxx() throws {
        // 0x1_0000_0005: bit 32 and the value 5.
        let big: [UInt8] = [0x85, 0x80, 0x80, 0x80, 0x10]
        #expect(
            try withReader(big) { reader throws(WireError) in try reader.readVarint(ProtoInt64.self) } == 4_294_967_301)
        #expect(try withReader(big) { reader throws(WireError) in try reader.readVarint(ProtoInt32.self) } == 5)
        #expect(try withReader(big) { reader throws(WireError) in try reader.readVarint(ProtoUInt32.self) } == 5)
        // sint32 truncates to 32 bits first, then un-zigzags: 5 -> -3.
        #expect(try withReader(big) { reader throws(WireError) in try reader.readVarint(ProtoSInt32.self) } == -3)

        // 0x1_8000_0000: the low 32 bits are 0x8000_0000.
        let high: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x18]
        #expect(
            try withReader(high) { reader throws(WireError) in try reader.readVarint(ProtoInt32.self) } == Int32.min)
        #expect(
            try withReader(high) { reader throws(WireError) in try reader.readVarint(ProtoUInt32.self) } == 0x8000_0000)

        // A 10-byte all-ones varint read as uint32 is UInt32.max.
        let ones: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        #expect(
            try withReader(ones) { reader throws(WireError) in try reader.readVarint(ProtoUInt32.self) } == UInt32.max)
    }

    @Test func boolIsAnyNonZeroVarint() throws {
        #expect(written { $0.writeVarint(ProtoBool.self, true) } == [0x01])
        #expect(written { $0.writeVarint(ProtoBool.self, false) } == [0x00])
        #expect(try withReader([0x00]) { reader throws(WireError) in try reader.readVarint(ProtoBool.self) } == false)
        #expect(try withReader([0x02]) { reader throws(WireError) in try reader.readVarint(ProtoBool.self) } == true)
        // Only bit 32 set: a bool must still read true (no truncation to 32 bits).
        #expect(
            try withReader([0x80, 0x80, 0x80, 0x80, 0x10]) { reader throws(WireError) in
                try reader.readVarint(ProtoBool.self)
            } == true)
    }

    @Test func openEnumKeepsUnknownAndNegativeNumbers() throws {
        #expect(written { $0.writeVarint(ProtoEnum<Color>.self, .red) } == [0x01])
        #expect(written { $0.writeVarint(ProtoEnum<Color>.self, .unrecognized(7)) } == [0x07])
        // Negative enum numbers are sign-extended like int32.
        let minusFive: [UInt8] = [0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        #expect(written { $0.writeVarint(ProtoEnum<Color>.self, .unrecognized(-5)) } == minusFive)
        #expect(
            try withReader(minusFive) { reader throws(WireError) in
                try reader.readVarint(ProtoEnum<Color>.self)
            } == .unrecognized(-5))
        #expect(
            try withReader([0x02]) { reader throws(WireError) in try reader.readVarint(ProtoEnum<Color>.self) }
                == .green)
        #expect(
            try withReader([0x07]) { reader throws(WireError) in
                try reader.readVarint(ProtoEnum<Color>.self)
            } == .unrecognized(7))
    }

    // MARK: Ten bytes, eleven bytes, cut off

    @Test func tenByteVarintsDecode() throws {
        let nonMinimalZero: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]
        let (value, offset) = try withReader(nonMinimalZero) { reader throws(WireError) in
            (try reader.readVarint(), reader.offset)
        }
        #expect(value == 0)
        #expect(offset == 10)
    }

    /// A packed run of every case, each between `before` one-byte values and `after` more
    /// behind it, so that each varint is read with every number of readable bytes after it
    /// (the reader reads a whole word when eight are there), followed by the next field.
    @Test(arguments: 0...9)
    func packedRunsDecodeEveryLength(after: Int) throws {
        for before in [0, 1] {
            for (value, bytes) in Self.unsignedCases {
                let ones = [UInt64](repeating: 1, count: before) + [value] + [UInt64](repeating: 1, count: after)
                let run = [UInt8](repeating: 0x01, count: before) + bytes + [UInt8](repeating: 0x01, count: after)
                let (values, offset) = try withReader([UInt8(run.count)] + run + [0x2A]) { reader throws(WireError) in
                    var values: [UInt64] = []
                    try reader.readPackedVarint(into: &values, ProtoUInt64.self)
                    return (values, reader.offset)
                }
                #expect(values == ones, "\(bytes) after \(before), before \(after)")
                #expect(offset == run.count + 1)
            }
        }
    }

    @Test func elevenByteVarintInAPackedRunIsMalformed() {
        // Ten continuation bytes, then a byte that ends the run: a value of eleven bytes.
        let run: [UInt8] = [0x05] + Array(repeating: 0x80, count: 10) + [0x00]
        #expect(throws: WireError.malformedVarint(offset: 2)) {
            try withReader([UInt8(run.count)] + run) { reader throws(WireError) in
                var values: [UInt64] = []
                try reader.readPackedVarint(into: &values, ProtoUInt64.self)
            }
        }
    }

    @Test func elevenByteVarintIsMalformed() {
        let eleven: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]
        #expect(throws: WireError.malformedVarint(offset: 0)) {
            try withReader(eleven) { reader throws(WireError) in try reader.readVarint() }
        }
        let elevenOnes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        #expect(throws: WireError.malformedVarint(offset: 0)) {
            try withReader(elevenOnes) { reader throws(WireError) in try reader.readVarint() }
        }
        // Ten continuation bytes are already too many, even with nothing after them.
        #expect(throws: WireError.malformedVarint(offset: 0)) {
            try withReader(Array(repeating: 0x80, count: 10)) { reader throws(WireError) in try reader.readVarint() }
        }
    }

    @Test func malformedVarintOffsetIsWhereTheVarintStarts() {
        // Field 1 (int32), then an 11-byte value starting at offset 1.
        let bytes: [UInt8] = [0x08] + Array(repeating: 0x80, count: 10) + [0x00]
        #expect(decodeError(Node.self, bytes) == .malformedVarint(offset: 1))
        // The same as a tag, after a complete field.
        let asTag: [UInt8] = [0x08, 0x01] + Array(repeating: 0x80, count: 10) + [0x00]
        #expect(decodeError(Node.self, asTag) == .malformedVarint(offset: 2))
    }

    @Test func cutOffVarintIsTruncated() {
        #expect(throws: WireError.truncated(offset: 0)) {
            try withReader([]) { reader throws(WireError) in try reader.readVarint() }
        }
        #expect(throws: WireError.truncated(offset: 0)) {
            try withReader([0x80]) { reader throws(WireError) in try reader.readVarint() }
        }
        #expect(throws: WireError.truncated(offset: 0)) {
            try withReader(Array(repeating: 0xFF, count: 9)) { reader throws(WireError) in try reader.readVarint() }
        }
        // Field 1 (int32) whose value 0x96 promises another byte: the value starts at 1.
        #expect(decodeError(Node.self, [0x08, 0x96]) == .truncated(offset: 1))
        // Unknown field 2 (varint) skipped after a complete field: value starts at 3.
        #expect(decodeError(Node.self, [0x08, 0x01, 0x10, 0xFF, 0xFF]) == .truncated(offset: 3))
        // A tag cut off after a complete field.
        #expect(decodeError(Node.self, [0x08, 0x01, 0x80]) == .truncated(offset: 2))
    }

    // MARK: Tags

    @Test func tagValues() throws {
        #expect(Wire.tag(fieldNumber: 1, wireType: .varint) == 8)
        #expect(Wire.tag(fieldNumber: 2, wireType: .lengthDelimited) == 18)
        #expect(Wire.tag(fieldNumber: 15, wireType: .startGroup) == 123)
        #expect(Wire.tag(fieldNumber: 15, wireType: .endGroup) == 124)
        #expect(Wire.tag(fieldNumber: 16, wireType: .fixed64) == 129)
        #expect(Wire.tag(fieldNumber: 536_870_911, wireType: .fixed32) == 0xFFFF_FFFD)

        #expect(written { $0.writeTag(129) } == [0x81, 0x01])
        #expect(written { $0.writeTag(0xFFFF_FFFD) } == [0xFD, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(try withReader([0x81, 0x01]) { reader throws(WireError) in try reader.readTag() } == 129)
        #expect(
            try withReader([0xFD, 0xFF, 0xFF, 0xFF, 0x0F]) { reader throws(WireError) in
                try reader.readTag()
            } == 0xFFFF_FFFD)
    }

    // MARK: Zigzag

    static let zigZag32Cases: [(Int32, UInt32)] = [
        (0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4),
        (Int32.max, 0xFFFF_FFFE), (Int32.min, UInt32.max),
    ]

    @Test(arguments: zigZag32Cases)
    func zigZag32(value: Int32, encoded: UInt32) {
        #expect(Wire.zigZag(value) == encoded)
        #expect(Wire.unZigZag(encoded) == value)
    }

    static let zigZag64Cases: [(Int64, UInt64)] = [
        (0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4),
        (Int64(Int32.min), UInt64(UInt32.max)),
        (Int64.max, 0xFFFF_FFFF_FFFF_FFFE), (Int64.min, UInt64.max),
    ]

    @Test(arguments: zigZag64Cases)
    func zigZag64(value: Int64, encoded: UInt64) {
        #expect(Wire.zigZag(value) == encoded)
        #expect(Wire.unZigZag(encoded) == value)
    }

    @Test func sintOnTheWire() throws {
        #expect(written { $0.writeVarint(ProtoSInt32.self, -1) } == [0x01])
        #expect(written { $0.writeVarint(ProtoSInt32.self, 1) } == [0x02])
        #expect(written { $0.writeVarint(ProtoSInt32.self, -64) } == [0x7F])
        #expect(written { $0.writeVarint(ProtoSInt32.self, 64) } == [0x80, 0x01])
        #expect(written { $0.writeVarint(ProtoSInt32.self, Int32.min) } == [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(written { $0.writeVarint(ProtoSInt32.self, Int32.max) } == [0xFE, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(
            written { $0.writeVarint(ProtoSInt64.self, Int64.min) }
                == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(
            written { $0.writeVarint(ProtoSInt64.self, Int64.max) }
                == [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])

        #expect(
            try withReader([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) { reader throws(WireError) in
                try reader.readVarint(ProtoSInt32.self)
            } == Int32.min)
        #expect(
            try withReader([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) { reader throws(WireError) in
                try reader.readVarint(ProtoSInt64.self)
            } == Int64.min)
        #expect(try withReader([0x03]) { reader throws(WireError) in try reader.readVarint(ProtoSInt64.self) } == -2)
    }

    /// `writeVarint(_:_:tag:)`, `writeFixed32(_:_:tag:)` and `writeFixed64(_:_:tag:)` write what
    /// `writeTag` and the value's write do apart: the two-byte store when both are under 128,
    /// the long path otherwise, in a buffer with room to spare and in one with exactly the room
    /// needed (where the two-byte store's check must still pass).
    @Test(arguments: [UInt32(8), 120, 128, 16_385, 4_294_967_288])
    func tagAndValueInOneCall(tag: UInt32) {
        for value: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), UInt64.max] {
            let apart = written { writer in
                writer.writeTag(tag)
                writer.writeVarint(ProtoUInt64.self, value)
            }
            #expect(written { $0.writeVarint(ProtoUInt64.self, value, tag: tag) } == apart)
            #expect(written(capacity: apart.count) { $0.writeVarint(ProtoUInt64.self, value, tag: tag) } == apart)
            let value32 = UInt32(truncatingIfNeeded: value)
            let fixed32 = written { writer in
                writer.writeTag(tag)
                writer.writeFixed32(ProtoFixed32.self, value32)
            }
            #expect(
                written(capacity: fixed32.count) { $0.writeFixed32(ProtoFixed32.self, value32, tag: tag) } == fixed32)
            let fixed64 = written { writer in
                writer.writeTag(tag)
                writer.writeFixed64(ProtoFixed64.self, value)
            }
            #expect(written(capacity: fixed64.count) { $0.writeFixed64(ProtoFixed64.self, value, tag: tag) } == fixed64)
        }
        // A negative int32 is ten bytes after its tag, as SwiftProtobuf and C++ write it.
        #expect(
            written { $0.writeVarint(ProtoInt32.self, -1, tag: 8) } == [8] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
        )
    }
}
