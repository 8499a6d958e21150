/// A protobuf enum. Generated enums are open: a number the enum does not know decodes to
/// `.unrecognized(n)` and encodes back to `n`, so no value is lost.
public protocol Enum: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == Int32 {
    /// The enum's default: its first declared value.
    init()
    /// Never fails: unknown numbers become `.unrecognized(n)`.
    init(rawValue: Int32)
}
