// One small codec type per protobuf scalar type. Generated code names the codec
// (`SwiftFrame.ProtoSInt32.self`) and the reader, writer and size cache do the rest,
// specialised at the call site through @inlinable generics.

/// A scalar carried as a varint: int32, int64, uint32, uint64, sint32, sint64, bool, enum.
@_documentation(visibility: internal)
public protocol VarintCodec {
    associatedtype Value
    static func wire(_ value: Value) -> UInt64
    static func value(_ wire: UInt64) -> Value
    /// Bytes of `values` as a packed run, without its length prefix.
    static func packedSize(_ values: [Value]) -> Int
}

/// A scalar carried in 4 little-endian bytes: fixed32, sfixed32, float.
@_documentation(visibility: internal)
public protocol Fixed32Codec {
    associatedtype Value
    static func wire(_ value: Value) -> UInt32
    static func value(_ wire: UInt32) -> Value
}

/// A scalar carried in 8 little-endian bytes: fixed64, sfixed64, double.
@_documentation(visibility: internal)
public protocol Fixed64Codec {
    associatedtype Value
    static func wire(_ value: Value) -> UInt64
    static func value(_ wire: UInt64) -> Value
}

extension VarintCodec {
    /// Bytes the value takes on the wire, without its tag.
    @inlinable
    public static func size(_ value: Value) -> Int { Wire.varintSize(wire(value)) }

    @inlinable
    public static func packedSize(_ values: [Value]) -> Int {
        var size = 0
        for value in values {
            size &+= self.size(value)
        }
        return size
    }
}

/// Packed sizes of 32-bit values, four at a time in vector registers: a value's size is one
/// plus the number of thresholds it is above (and five more for a negative int32). Counted value
/// by value from the bit length, sizing was a large part of encoding a packed run.
@usableFromInline
enum PackedSize32 {
    /// How each value becomes the unsigned number whose varint is sized.
    @usableFromInline
    enum Form {
        case unsigned, zigZag, signExtended
    }

    /// Bytes of the varints of the 32-bit values in `bytes`.
    @inlinable @inline(__always)
    static func size(_ bytes: UnsafeRawBufferPointer, _ form: Form) -> Int {
        let count = bytes.count / 4
        var total = 0
        var index = 0
        while count - index >= 4 {
            // Lane totals grow by at most 10 a step; summed into `total` before they could wrap.
            var lanes = SIMD4<UInt32>(repeating: 0)
            let blockEnd = Swift.min(count - (count - index) % 4, index + (1 << 24))
            while index < blockEnd {
                let loaded = bytes.loadUnaligned(fromByteOffset: index &* 4, as: SIMD4<UInt32>.self)
                lanes &+= laneSizes(loaded, form)
                index &+= 4
            }
            total &+= Int(lanes[0]) &+ Int(lanes[1]) &+ Int(lanes[2]) &+ Int(lanes[3])
        }
        while index < count {
            let loaded = SIMD4<UInt32>(bytes.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self), 0, 0, 0)
            total &+= Int(laneSizes(loaded, form)[0])
            index &+= 1
        }
        return total
    }

    @inlinable @inline(__always)
    static func laneSizes(_ raw: SIMD4<UInt32>, _ form: Form) -> SIMD4<UInt32> {
        var bits = raw
        if form == .zigZag {
            let signs = SIMD4<UInt32>(truncatingIfNeeded: SIMD4<Int32>(truncatingIfNeeded: raw) &>> 31)
            bits = raw &<< 1 ^ signs
        }
        let one = SIMD4<UInt32>(repeating: 1)
        var sizes = one
        sizes &+= one.replacing(with: 0, where: bits .<= 0x7F)
        sizes &+= one.replacing(with: 0, where: bits .<= 0x3FFF)
        sizes &+= one.replacing(with: 0, where: bits .<= 0x1F_FFFF)
        sizes &+= one.replacing(with: 0, where: bits .<= 0xFFF_FFFF)
        if form == .signExtended {
            sizes &+= (raw &>> 31) &* 5
        }
        return sizes
    }
}

@_documentation(visibility: internal)
public enum ProtoInt32: VarintCodec {
    // Negative int32 values are sign-extended to 64 bits: always 10 bytes.
    @inlinable public static func wire(_ value: Int32) -> UInt64 { UInt64(bitPattern: Int64(value)) }
    @inlinable public static func value(_ wire: UInt64) -> Int32 { Int32(truncatingIfNeeded: wire) }
    @inlinable public static func packedSize(_ values: [Int32]) -> Int {
        values.withUnsafeBytes { PackedSize32.size($0, .signExtended) }
    }
}

@_documentation(visibility: internal)
public enum ProtoInt64: VarintCodec {
    @inlinable public static func wire(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }
    @inlinable public static func value(_ wire: UInt64) -> Int64 { Int64(bitPattern: wire) }
}

@_documentation(visibility: internal)
public enum ProtoUInt32: VarintCodec {
    @inlinable public static func wire(_ value: UInt32) -> UInt64 { UInt64(value) }
    @inlinable public static func value(_ wire: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: wire) }
    @inlinable public static func packedSize(_ values: [UInt32]) -> Int {
        values.withUnsafeBytes { PackedSize32.size($0, .unsigned) }
    }
}

@_documentation(visibility: internal)
public enum ProtoUInt64: VarintCodec {
    @inlinable public static func wire(_ value: UInt64) -> UInt64 { value }
    @inlinable public static func value(_ wire: UInt64) -> UInt64 { wire }
}

@_documentation(visibility: internal)
public enum ProtoSInt32: VarintCodec {
    @inlinable public static func wire(_ value: Int32) -> UInt64 { UInt64(Wire.zigZag(value)) }
    @inlinable public static func value(_ wire: UInt64) -> Int32 {
        Wire.unZigZag(UInt32(truncatingIfNeeded: wire))
    }
    @inlinable public static func packedSize(_ values: [Int32]) -> Int {
        values.withUnsafeBytes { PackedSize32.size($0, .zigZag) }
    }
}

@_documentation(visibility: internal)
public enum ProtoSInt64: VarintCodec {
    @inlinable public static func wire(_ value: Int64) -> UInt64 { Wire.zigZag(value) }
    @inlinable public static func value(_ wire: UInt64) -> Int64 { Wire.unZigZag(wire) }
}

@_documentation(visibility: internal)
public enum ProtoBool: VarintCodec {
    @inlinable public static func wire(_ value: Bool) -> UInt64 { value ? 1 : 0 }
    @inlinable public static func value(_ wire: UInt64) -> Bool { wire != 0 }
    @inlinable public static func packedSize(_ values: [Bool]) -> Int { values.count }
}

/// Enums travel as int32 varints; unknown numbers are kept by the open enum itself.
@_documentation(visibility: internal)
public enum ProtoEnum<E: Enum>: VarintCodec {
    @inlinable public static func wire(_ value: E) -> UInt64 { UInt64(bitPattern: Int64(value.rawValue)) }
    @inlinable public static func value(_ wire: UInt64) -> E { E(rawValue: Int32(truncatingIfNeeded: wire)) }
}

@_documentation(visibility: internal)
public enum ProtoFixed32: Fixed32Codec {
    @inlinable public static func wire(_ value: UInt32) -> UInt32 { value }
    @inlinable public static func value(_ wire: UInt32) -> UInt32 { wire }
}

@_documentation(visibility: internal)
public enum ProtoSFixed32: Fixed32Codec {
    @inlinable public static func wire(_ value: Int32) -> UInt32 { UInt32(bitPattern: value) }
    @inlinable public static func value(_ wire: UInt32) -> Int32 { Int32(bitPattern: wire) }
}

@_documentation(visibility: internal)
public enum ProtoFloat: Fixed32Codec {
    @inlinable public static func wire(_ value: Float) -> UInt32 { value.bitPattern }
    @inlinable public static func value(_ wire: UInt32) -> Float { Float(bitPattern: wire) }
}

@_documentation(visibility: internal)
public enum ProtoFixed64: Fixed64Codec {
    @inlinable public static func wire(_ value: UInt64) -> UInt64 { value }
    @inlinable public static func value(_ wire: UInt64) -> UInt64 { wire }
}

@_documentation(visibility: internal)
public enum ProtoSFixed64: Fixed64Codec {
    @inlinable public static func wire(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }
    @inlinable public static func value(_ wire: UInt64) -> Int64 { Int64(bitPattern: wire) }
}

@_documentation(visibility: internal)
public enum ProtoDouble: Fixed64Codec {
    @inlinable public static func wire(_ value: Double) -> UInt64 { value.bitPattern }
    @inlinable public static func value(_ wire: UInt64) -> Double { Double(bitPattern: wire) }
}

/// Closed (proto2) enums for writing and sizing. Reading goes through
/// `ProtoReader.readClosedEnum`, which keeps unknown numbers as unknown fields.
@_documentation(visibility: internal)
public enum ProtoClosedEnum<E: ClosedEnum>: VarintCodec {
    @inlinable public static func wire(_ value: E) -> UInt64 { UInt64(bitPattern: Int64(value.rawValue)) }
    @inlinable public static func value(_ wire: UInt64) -> E { E(rawValue: Int32(truncatingIfNeeded: wire)) ?? E() }
}
