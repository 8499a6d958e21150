/// The six wire types of the protobuf encoding.
@_documentation(visibility: internal)
public enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// Pure functions of the wire format: tags, varint sizes, zigzag.
@_documentation(visibility: internal)
public enum Wire {
    /// The tag (field number and wire type) as it appears on the wire, before varint encoding.
    @inlinable
    public static func tag(fieldNumber: Int, wireType: WireType) -> UInt32 {
        UInt32(truncatingIfNeeded: fieldNumber) << 3 | UInt32(wireType.rawValue)
    }

    /// Number of bytes the varint encoding of `value` takes (1...10).
    @inlinable
    public static func varintSize(_ value: UInt64) -> Int {
        // Bits needed, rounded up to groups of 7; value | 1 makes 0 take one byte.
        (70 - (value | 1).leadingZeroBitCount) / 7
    }

    @inlinable
    public static func varintSize(_ value: UInt32) -> Int {
        (38 - (value | 1).leadingZeroBitCount) / 7
    }

    /// Appends the varint encoding of `value` to `bytes` (a frame header's varint length, text
    /// format read into wire bytes); message encoding stores varints through `ProtoWriter`.
    @inlinable
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Size of a length-delimited payload of `count` bytes, including its length prefix.
    @inlinable
    public static func lengthDelimitedSize(_ count: Int) -> Int {
        varintSize(UInt64(truncatingIfNeeded: count)) &+ count
    }

    @inlinable
    public static func zigZag(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value << 1) ^ (value >> 31))
    }

    @inlinable
    public static func zigZag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inlinable
    public static func unZigZag(_ value: UInt32) -> Int32 {
        Int32(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }

    @inlinable
    public static func unZigZag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}
