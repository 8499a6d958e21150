/// One Swift namespace (the top level of a module, a message's nested types, its members, an
/// enum's cases, ...) and the names already taken in it. Every name the generator makes goes
/// through a scope, so two declarations never get the same Swift name. The rule:
///
/// 1. Each element has a natural name (`Naming`); a Swift keyword or a name the generated code
///    already uses there gets a trailing `_`.
/// 2. Elements are claimed in rank order: names the .proto declares, then names derived from
///    them (a oneof's enum type), then the generator's helpers (`decodedBody()`, `Defaults`,
///    `GameCommands`). Within a rank, in byte order of their proto names.
/// 3. The first element to claim a natural name keeps it. Each later one gets `_2`, `_3`, ...
///    (`Protocol_` and `protocol` become `Protocol_` and `Protocol_2`). Natural names never end in
///    `_` and a digit, so a numbered name cannot displace another element's natural name.
///
/// So a name changes only when a declaration with the same natural name and a smaller proto
/// name is added; adding unrelated declarations renames nothing.
struct NameScope {
    private var taken: Set<String>

    init(reserved: Set<String> = []) {
        taken = reserved
    }

    /// Claims one name per element, in the order above within this call; the result is in
    /// the order of `elements`. Call once per rank, declared names first.
    mutating func claim(_ elements: [(natural: String, protoName: String)]) -> [String] {
        let order = elements.indices.sorted { lhs, rhs in
            let left = elements[lhs].protoName.utf8, right = elements[rhs].protoName.utf8
            return left.lexicographicallyPrecedes(right) || (left.elementsEqual(right) && lhs < rhs)
        }
        var names = [String](repeating: "", count: elements.count)
        for index in order { names[index] = claim(elements[index].natural) }
        return names
    }

    /// Claims one name; see the rule above.
    mutating func claim(_ natural: String) -> String {
        if taken.insert(natural).inserted { return natural }
        let stem = natural.hasSuffix("_") ? natural : natural + "_"
        var number = 2
        while !taken.insert(stem + String(number)).inserted { number += 1 }
        return stem + String(number)
    }
}
