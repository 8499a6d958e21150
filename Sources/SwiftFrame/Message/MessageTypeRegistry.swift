/// The message types a reader or printer may meet inside a `google.protobuf.Any`, found by
/// the type URL's last part (`type.googleapis.com/im.user.Login` names `im.user.Login`). The
/// text format reads an Any written as `[type.googleapis.com/im.user.Login] { ... }`, and
/// JSON reads and prints an Any's `@type` form, only for types listed here.
public struct MessageTypeRegistry: Sendable {
    private var types: [String: any Message.Type] = [:]
    fileprivate var extensions: [RegisteredExtension] = []

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

/// A proto2 extension as JSON prints and reads it: `"[pkg.name]": value` in its container.
struct RegisteredExtension: Sendable {
    let container: String
    let number: Int32
    let fullName: String
    let kind: TextFormatKind
    let isRepeated: Bool
}

extension MessageTypeRegistry {
    /// Adds an extension, so that JSON and the text format print and read it
    /// (`"[pkg.extension_name]": 1`, `[pkg.extension_name]: 1`).
    public mutating func register<Container, Codec>(_ field: Extension<Container, Codec>) {
        let kind = Codec.textFormatKind
        extensions.append(
            RegisteredExtension(
                container: Container.protoMessageName, number: Int32(field.fieldNumber),
                fullName: field.protoName, kind: kind, isRepeated: false))
    }

    /// Adds a repeated extension (see `register(_:)` for a singular one).
    public mutating func register<Container, Codec>(_ field: RepeatedExtension<Container, Codec>) {
        let kind = Codec.textFormatKind
        extensions.append(
            RegisteredExtension(
                container: Container.protoMessageName, number: Int32(field.fieldNumber),
                fullName: field.protoName, kind: kind, isRepeated: true))
    }

    /// Adds a group extension (see `register(_:)` for a scalar or message one).
    public mutating func register<Container, M>(_ field: GroupExtension<Container, M>) {
        extensions.append(
            RegisteredExtension(
                container: Container.protoMessageName, number: Int32(field.fieldNumber),
                fullName: field.protoName, kind: .group(M.self), isRepeated: false))
    }

    func extensions(of container: String) -> [RegisteredExtension] {
        extensions.filter { $0.container == container }
    }
}
