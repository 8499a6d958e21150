/// Immutable storage for a sub-message: generated structs keep each singular message field
/// in a box, so a struct holds one reference per sub-message, not the sub-message itself.
/// A message may then contain itself (`message Node { Node child = 1; }`), and copying,
/// comparing or destroying a message does not grow with how deep its sub-messages nest.
/// Sharing is safe because a box never changes: setting the field stores a new box.
@_documentation(visibility: internal)
public final class Boxed<Value: Hashable & Sendable>: Hashable, Sendable {
    public let value: Value

    @inlinable
    public init(_ value: Value) {
        self.value = value
    }

    @inlinable
    public static func == (lhs: Boxed, rhs: Boxed) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        value.hash(into: &hasher)
    }
}
