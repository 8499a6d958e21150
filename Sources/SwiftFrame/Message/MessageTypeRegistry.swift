/// The message types a reader or printer may meet inside a `google.protobuf.Any`, found by
/// the type URL's last part (`type.googleapis.com/im.user.Login` names `im.user.Login`). The
/// text format reads an Any written as `[type.googleapis.com/im.user.Login] { ... }`, and
/// JSON reads and prints an Any's `@type` form, only for types listed here.
public struct MessageTypeRegistry: Sendable {
    private var types: [String: any Message.Type] = [:]

    /// A registry of `types` (a type listed twice is kept once).
    public init(_ types: [any Message.Type] = []) {
        for type in types { self.types[type.protoMessageName] = type }
    }

    /// Adds `type`.
    public mutating func register(_ type: any Message.Type) {
        types[type.protoMessageName] = type
    }

    /// The type a URL names: its full name is what follows the URL's last `/`, which must be
    /// there (`type.googleapis.com/im.user.Login`); nil when no such type is registered.
    public func type(forURL url: String) -> (any Message.Type)? {
        guard let slash = url.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return types[String(url[url.index(after: slash)...])]
    }

    /// The type of that full name (`im.user.Login`), or nil.
    public func type(named fullName: String) -> (any Message.Type)? { types[fullName] }
}
