import TestSupport
import Testing
import SwiftFrame

/// fixed32, fixed64, sfixed32, sfixed64, float and double: little-endian, bit for bit.
@Suite struct FixedAndFloatTests {
    // MARK: Integers

    static let fixed32Cases: [(UInt32, [UInt8])] = [
        (0, [0x00, 0x00, 0x00, 0x00]),
        (1, [0x01, 0x00, 0x00, 0x00]),
        (0x1234_5678, [0x78, 0x56, 0x34, 0x12]),
        (0xDEAD_BEEF, [0xEF, 0xBE, 0xAD, 0xDE]),
        (UInt32.max, [0xFF, 0xFF, 0xFF, 0xFF]),
    ]

    @Test(arguments: fixed32Cases)
    func fixed32(value: UInt32, bytes: [UInt8]) throws {
        #expect(written { $0.writeFixed32(ProtoFixed32.self, value) } == bytes)
        #expect(written { $0.writeFixed32(value) } == bytes)
        let (read, offset) = try withReader(bytes + [0x2A]) { reader throws(WireError) in
            (try reader.readFixed32(ProtoFixed32.self), reader.offset)
        }
        #expect(read == value)
        #expect(offset == 4)
    }

    static let sfixed32Cases: [(Int32, [UInt8])] = [
        (-1, [0xFF, 0xFF, 0xFF, 0xFF]),
        (-2, [0xFE, 0xFF, 0xFF, 0xFF]),
        (Int32.min, [0x00, 0x00, 0x00, 0x80]),
        (Int32.max, [0xFF, 0xFF, 0xFF, 0x7F]),
    ]

    @Test(arguments: sfixed32Cases)
    func sfixed32(value: Int32, bytes: [UInt8]) throws {
        #expect(written { $0.writeFixed32(ProtoSFixed32.self, value) } == bytes)
        #expect(
            try withReader(bytes) { reader throws(WireError) in try reader.readFixed32(ProtoSFixed32.self) } == value)
    }

    static let fixed64Cases: [(UInt64, [UInt8])] = [
        (1, [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (0x0102_0304_0506_0708, [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ]

    @Test(arguments: fixed64Cases)
    func fixed64(value: UInt64, bytes: [UInt8]) throws {
        #expect(written { $0.writeFixed64(ProtoFixed64.self, value) } == bytes)
        #expect(written { $0.writeFixed64(value) } == bytes)
        let (read, offset) = try withReader(bytes + [0x2A]) { reader throws(WireError) in
            (try reader.readFixed64(ProtoFixed64.self), reader.offset)
        }
        #expect(read == value)
        #expect(offset == 8)
    }

    static let sfixed64Cases: [(Int64, [UInt8])] = [
        (-1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (-2, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (Int64.min, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80]),
        (Int64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
    ]

    @Test(arguments: sfixed64Cases)
    func sfixed64(value: Int64, bytes: [UInt8]) throws {
        #expect(written { $0.writeFixed64(ProtoSFixed64.self, value) } == bytes)
        #expect(
            try withReader(bytes) { reader throws(WireError) in try reader.readFixed64(ProtoSFixed64.self) } == value)
    }

    // MARK: Floating point, compared by bit pattern

    /// IEEE 754 binary32 bit patterns and their little-endian bytes.
    static let floatCases: [(UInt32, [UInt8])] = [
        (0x3F80_0000, [0x00, 0x00, 0x80, 0x3F]),  // 1.0
        (0xC000_0000, [0x00, 0x00, 0x00, 0xC0]),  // -2.0
        (0x3DCC_CCCD, [0xCD, 0xCC, 0xCC, 0x3D]),  // 0.1
        (0x8000_0000, [0x00, 0x00, 0x00, 0x80]),  // -0.0
        (0x7F80_0000, [0x00, 0x00, 0x80, 0x7F]),  // +infinity
        (0xFF80_0000, [0x00, 0x00, 0x80, 0xFF]),  // -infinity
        (0x7FC0_0000, [0x00, 0x00, 0xC0, 0x7F]),  // quiet NaN
        (0x7FC0_0001, [0x01, 0x00, 0xC0, 0x7F]),  // quiet NaN with payload
        (0xFFC1_2345, [0x45, 0x23, 0xC1, 0xFF]),  // negative NaN with payload
        (0x0000_0001, [0x01, 0x00, 0x00, 0x00]),  // smallest subnormal
    ]

    @Test(arguments: floatCases)
    func float(bits: UInt32, bytes: [UInt8]) throws {
        let value = Float(bitPattern: bits)
        #expect(written { $0.writeFixed32(ProtoFloat.self, value) } == bytes)
        let read = try withReader(bytes) { reader throws(WireError) in try reader.readFixed32(ProtoFloat.self) }
        #expect(read.bitPattern == bits)
    }

    /// IEEE 754 binary64 bit patterns and their little-endian bytes.
    static let doubleCases: [(UInt64, [UInt8])] = [
        (0x3FF0_0000_0000_0000, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F]),  // 1.0
        (0x3FB9_9999_9999_999A, [0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F]),  // 0.1
        (0x8000_0000_0000_0000, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80]),  // -0.0
        (0x7FF0_0000_0000_0000, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x7F]),  // +infinity
        (0xFFF0_0000_0000_0000, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0xFF]),  // -infinity
        (0x7FF8_0000_0000_0000, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x7F]),  // quiet NaN
        (0x7FF8_0000_0000_0001, [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x7F]),  // NaN with payload
        (0xFFF8_DEAD_BEEF_0001, [0x01, 0x00, 0xEF, 0xBE, 0xAD, 0xDE, 0xF8, 0xFF]),  // negative NaN
    ]

    @Test(arguments: doubleCases)
    func double(bits: UInt64, bytes: [UInt8]) throws {
        let value = Double(bitPattern: bits)
        #expect(written { $0.writeFixed64(ProtoDouble.self, value) } == bytes)
        let read = try withReader(bytes) { reader throws(WireError) in try reader.readFixed64(ProtoDouble.self) }
        #expect(read.bitPattern == bits)
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let float = try withReader([0x00, 0x00, 0x00, 0x80]) { reader throws(WireError) in
            try reader.readFixed32(ProtoFloat.self)
        }
        #expect(float == 0 && float.sign == .minus)
        let double = try withReader([0, 0, 0, 0, 0, 0, 0, 0x80]) { reader throws(WireError) in
            try reader.readFixed64(ProtoDouble.self)
        }
        #expect(double == 0 && double.sign == .minus)
    }

    @Test func infinitiesRoundTrip() throws {
        let plus = try withReader([0x00, 0x00, 0x80, 0x7F]) { reader throws(WireError) in
            try reader.readFixed32(ProtoFloat.self)
        }
        #expect(plus == .infinity)
        let minus = try withReader([0, 0, 0, 0, 0, 0, 0xF0, 0xFF]) { reader throws(WireError) in
            try reader.readFixed64(ProtoDouble.self)
        }
        #expect(minus == -.infinity)
    }

    @Test func nanPayloadSurvivesAMessageRoundTrip() throws {
        var message = Scalars()
        message.float = Float(bitPattern: 0x7FC0_0001)
        message.double = Double(bitPattern: 0xFFF8_DEAD_BEEF_0001)
        let bytes = try message.serializedBytes()
        #expect(
            bytes == [
                0x5D, 0x01, 0x00, 0xC0, 0x7F,
                0x71, 0x01, 0x00, 0xEF, 0xBE, 0xAD, 0xDE, 0xF8, 0xFF,
            ])
        let decoded = try Scalars(serializedBytes: bytes)
        #expect(decoded.float.isNaN && decoded.float.bitPattern == 0x7FC0_0001)
        #expect(decoded.double.isNaN && decoded.double.bitPattern == 0xFFF8_DEAD_BEEF_0001)
    }

    @Test func negativeZeroIsWrittenAndKept() throws {
        // -0.0 differs from the default (+0.0) in its bits, so an implicit-presence field
        // whose generated code compares bit patterns writes it.
        var message = Scalars()
        message.float = -0.0
        message.double = -0.0
        let bytes = try message.serializedBytes()
        #expect(bytes == [0x5D, 0x00, 0x00, 0x00, 0x80, 0x71, 0, 0, 0, 0, 0, 0, 0, 0x80])
        let decoded = try Scalars(serializedBytes: bytes)
        #expect(decoded.float.sign == .minus && decoded.double.sign == .minus)
    }

    // MARK: Truncation

    @Test func fixedReadsPastTheEndAreTruncated() {
        #expect(throws: WireError.truncated(offset: 0)) {
            try withReader([0x01, 0x02, 0x03]) { reader throws(WireError) in try reader.readFixed32() }
        }
        #expect(throws: WireError.truncated(offset: 0)) {
            try withReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]) { reader throws(WireError) in
                try reader.readFixed64()
            }
        }
        // fixed32 field 9 of Scalars: the value starts after the tag at offset 1.
        #expect(decodeError(Scalars.self, [0x4D, 0x01, 0x02, 0x03]) == .truncated(offset: 1))
        // double field 14 after a complete int32 field: the value starts at offset 3.
        #expect(decodeError(Scalars.self, [0x08, 0x01, 0x71, 0x00, 0x00]) == .truncated(offset: 3))
        // Unknown fixed32 and fixed64 fields skipped with too few bytes.
        #expect(decodeError(Node.self, [0x7D, 0x01]) == .truncated(offset: 1))
        #expect(decodeError(Node.self, [0x79, 0x01, 0x02, 0x03, 0x04]) == .truncated(offset: 1))
    }

    // MARK: Every scalar in one message

    @Test func allScalarsHaveExactBytes() throws {
        var message = Scalars()
        message.i32 = -1
        message.i64 = 300
        message.u32 = UInt32.max
        message.u64 = 1 << 63
        message.s32 = -64
        message.s64 = 64
        message.flag = true
        message.color = .unrecognized(-2)
        message.f32 = 0xDEAD_BEEF
        message.sf32 = -2
        message.float = 1.0
        message.f64 = 0x0102_0304_0506_0708
        message.sf64 = Int64.min
        message.double = 0.1

        let expected: [UInt8] = [
            0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  // i32 = -1
            0x10, 0xAC, 0x02,  // i64 = 300
            0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,  // u32 = max
            0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,  // u64 = 2^63
            0x28, 0x7F,  // s32 = -64
            0x30, 0x80, 0x01,  // s64 = 64
            0x38, 0x01,  // flag
            0x40, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  // color = -2
            0x4D, 0xEF, 0xBE, 0xAD, 0xDE,  // f32
            0x55, 0xFE, 0xFF, 0xFF, 0xFF,  // sf32 = -2
            0x5D, 0x00, 0x00, 0x80, 0x3F,  // float = 1.0
            0x61, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // f64
            0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,  // sf64 = min
            0x71, 0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F,  // double = 0.1
        ]
        #expect(message.serializedSize() == expected.count)
        #expect(try message.serializedBytes() == expected)
        #expect(try Scalars(serializedBytes: expected) == message)
    }
}
