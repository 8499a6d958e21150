/// Immutable storage for a message field whose type contains the message itself
/// (`message Node { Node child = 1; }`), which a struct cannot hold inline. Sharing is
/// safe because a box never changes: setting the field stores a new box.
public final class Boxed<Value: Hashable & Sendable>: Hashable, Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public static func == (lhs: Boxed, rhs: Boxed) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        value.hash(into: &hasher)
    }
}
