/// The last naming stage: the generator's own top-level types (command tables, extension
/// namespaces), which claim their names in the module's namespace after every declared type.
struct HelperNames {
    /// By file name.
    var tables: [String: CommandTable] = [:]
    var namespaces: [String: String] = [:]
    var problems: [Diagnostic] = []

    /// Names the helpers of `files` in file-name order, building each file's table with its
    /// name. A name the config file gives a table (`table_name`) is claimed first, as written,
    /// and fails generation when it is no Swift identifier or another top-level type has it;
    /// then each helper claims its natural name.
    init(
        _ files: [FileDraft], tables: [CommandTableDraft?], linked: Linked, claimingIn topLevel: inout NameScope,
        owners topLevelOwners: [String: String]
    ) {
        enum Helper {
            case table(file: String, CommandTableDraft)
            case namespace(file: String)
        }
        var elements: [(natural: String, protoName: String)] = []
        var helpers: [Helper] = []
        var owners: [String] = []
        var configured: [(file: String, name: String, draft: CommandTableDraft)] = []
        let order = files.indices.sorted { files[$0].name.utf8.lexicographicallyPrecedes(files[$1].name.utf8) }
        for index in order {
            let file = files[index]
            let stem = Naming.typeName(Naming.stem(of: file.name), prefix: Naming.packagePrefix(file.package))
            if let table = tables[index] {
                if let name = table.configuredName {
                    configured.append((file.name, name, table))
                } else {
                    elements.append((stem + "Commands", file.name + " commands"))
                    helpers.append(.table(file: file.name, table))
                    owners.append("command table of \(file.name)")
                }
            }
            if linked.extensions[file.name]?.contains(where: { $0.scope == nil }) == true {
                elements.append((stem + "Extensions", file.name + " extensions"))
                helpers.append(.namespace(file: file.name))
                owners.append("extensions namespace of \(file.name)")
            }
        }
        let naturalOwners = Dictionary(zip(elements.map(\.natural), owners), uniquingKeysWith: { first, _ in first })
        var claimedBy: [String: String] = [:]
        for (file, name, draft) in configured {
            let place = Place(file: file, "config table: table_name \"\(name)\"")
            if let problem = Self.tableNameProblem(name) {
                self.problems.append(place.error(.invalidTableName, "\(place) \(problem)"))
            } else if let owner = topLevelOwners[name] {
                self.problems.append(
                    place.error(.nameCollision, "\(place) is already the name of \(owner); choose another"))
            } else if let other = claimedBy[name] {
                self.problems.append(
                    place.error(
                        .nameCollision,
                        "\(place) is also the table_name of \(other); each table needs a name of its own"))
            } else if let owner = naturalOwners[name] {
                self.problems.append(
                    place.error(.nameCollision, "\(place) is the name of the \(owner); choose another"))
            } else {
                claimedBy[name] = file
                self.tables[file] = CommandTable(swiftName: topLevel.claim(name), draft: draft)
            }
        }
        for (name, helper) in zip(topLevel.claim(elements), helpers) {
            switch helper {
            case let .table(file, draft): self.tables[file] = CommandTable(swiftName: name, draft: draft)
            case let .namespace(file): self.namespaces[file] = name
            }
        }
    }

    /// Why a configured table name cannot name a top-level Swift type; nil when it can.
    static func tableNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        func isLetter(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        guard let first = bytes.first, isLetter(first), bytes.allSatisfy({ isLetter($0) || isDigit($0) }) else {
            return "is not a Swift identifier: use ASCII letters, digits and underscores, not starting with a digit"
        }
        if Naming.swiftKeywords.contains(name) { return "is a Swift keyword" }
        if Naming.reservedTypeNames.contains(name) {
            return
                "is reserved (Type and Protocol are members of every type; generated code names the modules Swift and SwiftFrame)"
        }
        if Naming.libraryTypeNames.contains(name) {
            return "would hide the standard library's or Foundation's \(name) in every file that imports the module"
        }
        return nil
    }
}
