/// Every message and enum of a run by full name, as declared (`MessageRef`, `EnumType`: their
/// Swift names and paths): the one index the resolver links field types, extensions and the
/// messages options name through. The descriptors themselves are indexed once, by
/// `DescriptorIndex`, which the declare stage walks; this holds what that stage made of them.
struct TypeIndex {
    enum Entry {
        case message(MessageRef)
        case enumeration(EnumType)
    }

    /// By full name without the leading dot (`im.Outer.Inner`).
    private var entries: [String: Entry] = [:]

    mutating func add(_ entry: Entry) {
        switch entry {
        case let .message(message): entries[message.fullName] = entry
        case let .enumeration(enumType): entries[enumType.fullName] = entry
        }
    }

    /// A type as a descriptor names it: fully qualified with a leading dot (`.im.Outer`).
    subscript(typeName typeName: String) -> Entry? {
        guard typeName.hasPrefix(".") else { return nil }
        return entries[String(typeName.dropFirst())]
    }

    /// A message by full name without the leading dot.
    func message(_ fullName: String) -> MessageRef? {
        if case let .message(message)? = entries[fullName] { return message }
        return nil
    }

    /// The messages of one package, in full-name order.
    func messages(inPackage package: String) -> [MessageRef] {
        entries.values
            .compactMap { entry -> MessageRef? in
                guard case let .message(message) = entry, message.package == package else { return nil }
                return message
            }
            .sorted { $0.fullName < $1.fullName }
    }
}
