/// A protobuf enum. Generated enums are open: a number the enum does not know decodes to
/// `.unrecognized(n)` and encodes back to `n`, so no value is lost.
public protocol Enum: RawRepresentable, CaseIterable, Hashable, Sendable, CustomDebugStringConvertible
where RawValue == Int32 {
    /// The enum's default: its first declared value.
    init()
    /// The proto names of the values, in declaration order, aliases after the first name of
    /// their number; empty when generated with `TextFormat=Numbers`.
    static var protoNames: [(number: Int32, name: String)] { get }
    /// Never fails: unknown numbers become `.unrecognized(n)`.
    init(rawValue: Int32)
}

/// A proto2 enum. Closed, as in protobuf's C++ runtime: a number the enum does not know is
/// kept in the message's unknown fields, never in the field.
public protocol ClosedEnum: RawRepresentable, CaseIterable, Hashable, Sendable, CustomDebugStringConvertible
where RawValue == Int32 {
    /// The enum's default: its first declared value.
    init()
    /// The proto names of the values, in declaration order, aliases after the first name of
    /// their number; empty when generated with `TextFormat=Numbers`.
    static var protoNames: [(number: Int32, name: String)] { get }
}

/// A generated enum's `protoNames`, from the lines of number and name its generated code
/// holds (`1 TYPE_DOUBLE`): one string literal per enum, which the compiler handles far faster
/// than an array literal of pairs. Read once, when the names are first used.
@_documentation(visibility: internal)
public func protoNames(lines: String) -> [(number: Int32, name: String)] {
    lines.split(separator: "\n").map { line in
        let parts = line.split(separator: " ")
        guard parts.count == 2, let number = Int32(parts[0]) else {
            preconditionFailure("not an enum value's number and name: \(line)")
        }
        return (number, String(parts[1]))
    }
}
