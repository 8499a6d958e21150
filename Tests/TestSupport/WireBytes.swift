// Wire bytes built by hand, independent of the runtime under test, and printed as hex.

/// A wire type by its name; `tag(_:_:)` also takes any number, 6 and 7 included.
public enum WT: UInt32, Sendable {
    case varint = 0, fixed64 = 1, delimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
}

public func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
    }
    bytes.append(UInt8(value))
    return bytes
}

/// int32, int64 and enum values: negative numbers sign-extend to ten bytes.
public func varint(signed value: Int64) -> [UInt8] { varint(UInt64(bitPattern: value)) }

/// A varint padded with redundant continuation bytes to `length` bytes (non-canonical).
public func paddedVarint(_ value: UInt64, length: Int) -> [UInt8] {
    var bytes = varint(value)
    precondition(bytes.count <= length && length <= 10)
    bytes[bytes.count - 1] |= 0x80
    while bytes.count < length - 1 { bytes.append(0x80) }
    bytes.append(0)
    return bytes
}

public func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

public func tag(_ field: UInt32, _ wireType: WT) -> [UInt8] { tag(field, wireType.rawValue) }
public func tag(_ field: UInt32, _ wireType: UInt32) -> [UInt8] { varint(UInt64(field) << 3 | UInt64(wireType)) }

public func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
public func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

/// `value` in `width` bytes, most significant first.
public func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
    (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// A length-delimited field: tag, length, payload.
public func delimited(_ field: UInt32, _ payload: [UInt8]) -> [UInt8] {
    tag(field, .delimited) + varint(UInt64(payload.count)) + payload
}

public func delimited(_ field: UInt32, _ text: String) -> [UInt8] { delimited(field, Array(text.utf8)) }

/// A group: start tag, body, end tag.
public func group(_ field: UInt32, _ body: [UInt8]) -> [UInt8] {
    tag(field, .startGroup) + body + tag(field, .endGroup)
}

public func hex(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "(empty)" }
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
}

/// Bytes as a text-format string body, every byte escaped in octal.
public func octalEscaped(_ bytes: [UInt8]) -> String {
    bytes.map { byte in "\\" + String(byte >> 6) + String(byte >> 3 & 7) + String(byte & 7) }.joined()
}

/// A deterministic generator (SplitMix64), so a failing random case can be run again.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
