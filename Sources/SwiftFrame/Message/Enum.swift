/// A protobuf enum. Generated enums are open: a number the enum does not know decodes to
/// `.unrecognized(n)` and encodes back to `n`, so no value is lost.
public protocol Enum: RawRepresentable, CaseIterable, Hashable, Sendable, CustomDebugStringConvertible
where RawValue == Int32 {
    /// The enum's default: its first declared value.
    init()
    /// The proto name of the value numbered `number` (its first name, if it has aliases).
    static func protoName(forNumber number: Int32) -> String?
    /// Never fails: unknown numbers become `.unrecognized(n)`.
    init(rawValue: Int32)
}

/// A proto2 enum. Closed, as in protobuf's C++ runtime: a number the enum does not know is
/// kept in the message's unknown fields, never in the field.
public protocol ClosedEnum: RawRepresentable, CaseIterable, Hashable, Sendable, CustomDebugStringConvertible
where RawValue == Int32 {
    /// The enum's default: its first declared value.
    init()
    /// The proto name of the value numbered `number` (its first name, if it has aliases).
    static func protoName(forNumber number: Int32) -> String?
}
