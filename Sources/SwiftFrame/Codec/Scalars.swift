// One small codec type per protobuf scalar type. Generated code names the codec
// (`SwiftFrame.ProtoSInt32.self`) and the reader, writer and size cache do the rest,
// specialised at the call site through @inlinable generics.

/// A scalar carried as a varint: int32, int64, uint32, uint64, sint32, sint64, bool, enum.
@_documentation(visibility: internal)
public protocol VarintCodec {
    associatedtype Value
    static func wire(_ value: Value) -> UInt64
    static func value(_ wire: UInt64) -> Value
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
}

@_documentation(visibility: internal)
public enum ProtoInt32: VarintCodec {
    // Negative int32 values are sign-extended to 64 bits: always 10 bytes.
    @inlinable public static func wire(_ value: Int32) -> UInt64 { UInt64(bitPattern: Int64(value)) }
    @inlinable public static func value(_ wire: UInt64) -> Int32 { Int32(truncatingIfNeeded: wire) }
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
