import SwiftFrame
import SwiftFrameDescriptors

extension CommandTable {
    /// Names the `ID` cases, then the `Inbound` and `Request` cases: one per distinct
    /// message of that side, and one per command with no message there.
    init(swiftName: String, draft: CommandTableDraft) {
        var ids = NameScope(reserved: Naming.reservedCaseNames)
        let names = ids.claim(draft.entries.map { ($0.swiftName, $0.origin) })
        let entries = zip(draft.entries, names).map { entry, name in
            Entry(
                id: entry.id, swiftName: name, origin: entry.origin, request: entry.request, response: entry.response,
                isMessageID: entry.isMessageID)
        }
        self.init(
            swiftName: swiftName, layout: draft.layout, entries: entries, inbound: Self.cases(entries, \.response),
            requests: Self.cases(entries, \.request), errorCommand: draft.errorCommand,
            heartbeatCommand: draft.heartbeatCommand, conformances: draft.conformances)
    }

    private static func cases(_ entries: [Entry], _ side: KeyPath<Entry, MessageRef?>) -> [Case] {
        var idsByMessage: [String: [UInt32]] = [:]
        var items: [(message: MessageRef?, entry: Entry)] = []
        for entry in entries {
            if let message = entry[keyPath: side] {
                if idsByMessage[message.fullName] == nil { items.append((message, entry)) }
                idsByMessage[message.fullName, default: []].append(entry.id)
            } else if !entry.isMessageID {
                items.append((nil, entry))
            }
        }
        // `unknown` is the case for ids the table does not know.
        var scope = NameScope(reserved: Naming.swiftKeywords.union(["unknown"]))
        let names = scope.claim(
            items.map { item in
                item.message.map { (Naming.fieldName($0.protoName), $0.fullName) } ?? (
                    item.entry.swiftName, item.entry.origin
                )
            })
        return zip(items, names).map { item, name in
            Case(
                name: name, message: item.message,
                ids: item.message.flatMap { idsByMessage[$0.fullName] } ?? [item.entry.id], origin: item.entry.origin)
        }
    }
}

extension Envelope {
    init(
        message: MessageRef, selector: Field, selectorType: EnumType, body: Field, choices: [Choice],
        typeName: String, accessor: String
    ) {
        var cases = NameScope(reserved: Naming.reservedCaseNames)
        _ = cases.claim(choices.filter { $0.holds != nil }.map { ($0.enumCase.swiftName, $0.enumCase.protoName) })
        self.init(
            message: message, selector: selector, selectorType: selectorType, body: body, choices: choices,
            typeName: typeName, accessor: accessor, otherCase: cases.claim("other"))
    }
}

/// A file's command table as resolved, before the module's top-level names are decided.
struct CommandTableDraft {
    let layout: FrameLayout
    let entries: [TableBuilder.Entry]
    let errorCommand: UInt32?
    let heartbeatCommand: UInt32?
    /// The Swift name the config file gives the table (`table_name`), checked and claimed by
    /// the resolver with the module's other top-level names; nil for the name of the file's.
    let configuredName: String?
    var conformances: [(message: MessageRef, id: UInt32)] = []
}

/// What the command options of one file to generate resolve to.
struct FileCommands {
    let table: CommandTableDraft?
    let envelopes: [Envelope]
    let responsePairs: [(request: MessageRef, response: MessageRef)]
}

/// Reads the swiftframe options of the files to generate and builds their command tables,
/// envelopes and request → response pairs, reporting conflicts as problems and commands
/// that match no message as warnings.
struct CommandResolver {
    var problems: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    /// Request types and their responses, from tables and envelope options.
    var responses: [String: (request: MessageRef, response: MessageRef)] = [:]

    /// The run's messages and enums, as the resolver declared them.
    let types: TypeIndex
    /// Every `extend` field of the run.
    let extensions: ExtensionCatalog
    private let layoutOverride: FrameLayout?
    let config: Swiftframe_Config

    init(types: TypeIndex, extensions: ExtensionCatalog, layoutOverride: FrameLayout?, config: Swiftframe_Config) {
        self.config = config
        self.extensions = extensions
        self.types = types
        self.layoutOverride = layoutOverride
    }

    /// Resolves the command tables, envelopes and request → response pairs of the files to
    /// generate, in their order.
    mutating func resolve(_ generated: [FileDraft]) -> [FileCommands] {
        let names = Set(generated.map(\.name))
        for table in config.table where !names.contains(table.file) {
            let names = generated.map(\.name).joined(separator: ", ")
            problems.append(
                Diagnostic(
                    .error, .invalidConfigTable,
                    message: "config table: file \"\(table.file)\" is not among the files to generate (\(names))"))
        }
        var tables = generated.map { self.table(for: $0) }
        let envelopes = generated.map { self.envelopes(in: $0) }
        Self.assignCommandIDs(&tables, warnings: &warnings)
        // Each request → response pair is written once, in the first generated file that
        // declares it or, failing that, the first whose table or envelopes carry the request.
        var pairs = Array(repeating: [(request: MessageRef, response: MessageRef)](), count: generated.count)
        for (request, response) in responses.values.sorted(by: { $0.request.fullName < $1.request.fullName }) {
            let home =
                generated.firstIndex { $0.name == request.fileName }
                ?? generated.indices.first { index in
                    tables[index]?.entries.contains { $0.request?.fullName == request.fullName } == true
                        || envelopes[index].contains { $0.choices.contains { $0.holds?.fullName == request.fullName } }
                }
            if let home { pairs[home].append((request, response)) }
        }
        return generated.indices.map { index in
            FileCommands(table: tables[index], envelopes: envelopes[index], responsePairs: pairs[index])
        }
    }

    /// A message that travels under one id in the whole run carries it as `commandID`;
    /// one that travels under several ids is framed with an explicit id instead.
    private static func assignCommandIDs(_ tables: inout [CommandTableDraft?], warnings: inout [Diagnostic]) {
        var ids: [String: Set<UInt32>] = [:]
        for case let table? in tables {
            for entry in table.entries {
                for message in [entry.request, entry.response].compactMap({ $0 }) {
                    ids[message.fullName, default: []].insert(entry.id)
                }
            }
        }
        for index in tables.indices {
            guard let table = tables[index] else { continue }
            var conformances: [(message: MessageRef, id: UInt32)] = []
            var done: Set<String> = []
            for entry in table.entries {
                for message in [entry.request, entry.response].compactMap({ $0 }) {
                    let key = message.fullName
                    guard done.insert(key).inserted, let all = ids[key] else { continue }
                    if all.count == 1 {
                        conformances.append((message, entry.id))
                    } else if ids.removeValue(forKey: key) != nil {
                        let list = all.sorted().map(String.init).joined(separator: ", ")
                        let place = Place(file: message.fileName, element: message.fullName)
                        warnings.append(
                            place.warning(
                                .sharedMessage,
                                "\(message.protoName) travels under commands \(list); frame it with encode(_:command:)")
                        )
                    }
                }
            }
            tables[index]?.conformances = conformances
        }
    }

    // MARK: Command tables

    private mutating func table(for file: FileDraft) -> CommandTableDraft? {
        var builder = TableBuilder(file: file)
        let configured = config.table.filter { $0.file == file.name }
        let idEnums = Set(configured.flatMap(\.idEnum).map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 })
        var unmatched = idEnums
        for enumType in file.allEnums
        where enumType.isCommandTable
            || idEnums.contains(enumType.fullName) || idEnums.contains(enumType.protoName)
        {
            unmatched.subtract([enumType.fullName, enumType.protoName])
            addEnumTable(enumType, file: file, configured: configured, to: &builder)
        }
        let configPlace = Place(file: file.name, "config table")
        for name in unmatched.sorted() {
            problems.append(
                configPlace.error(.invalidConfigTable, "\(configPlace): id_enum \"\(name)\" is no enum of this file"))
        }
        addExplicitIDs(file, to: &builder)
        addIDsInNames(file, configured: configured, to: &builder)
        for table in configured { addConfigured(table, file: file, to: &builder) }
        problems += builder.problems
        let names = configured.map(\.tableName).filter { !$0.isEmpty }.reduce(into: [String]()) { names, name in
            if !names.contains(name) { names.append(name) }
        }
        if names.count > 1 {
            let given = names.map { "\"\($0)\"" }.joined(separator: " and ")
            problems.append(
                configPlace.error(
                    .invalidConfigTable, "\(configPlace): table_name is given as \(given); a table has one name"))
        }
        guard !builder.entries.isEmpty else {
            if let name = names.first {
                problems.append(
                    configPlace.error(
                        .invalidConfigTable,
                        "\(configPlace): table_name \"\(name)\" names no table: the file has no command ids"))
            }
            return nil
        }

        let place = Place(file: file.name, "command table")
        let configuredLayout = configured.map(\.layout).first { !$0.isEmpty }.flatMap {
            Self.parseLayout($0, place: Place(file: file.name, "config layout"), problems: &problems)
        }
        guard let layout = layoutOverride ?? configuredLayout ?? fileLayout(file, place: place) else { return nil }
        let commandField = layout.fields.first { $0.kind == .command }
        let typeField = layout.fields.first { if case .type = $0.kind { return true } else { return false } }
        guard let keyField = commandField ?? typeField else {
            problems.append(
                place.error(
                    .invalidLayout, "\(place): layout \(layout) has no command or type field to carry command ids"))
            return nil
        }
        let maxID: UInt64 = keyField.width >= 4 ? UInt64(UInt32.max) : (1 << (8 * UInt64(keyField.width))) - 1
        for entry in builder.entries where UInt64(entry.id) > maxID {
            problems.append(
                place.error(
                    .commandIDOutOfRange,
                    "\(place): command \(entry.origin) = \(entry.id) does not fit the layout's \(keyField.width)-byte field"
                ))
        }
        for entry in builder.entries {
            if let request = entry.request, let response = entry.response {
                pair(request, response, place: place.appending(entry.origin, element: nil))
            }
        }
        return CommandTableDraft(
            layout: layout, entries: builder.entries, errorCommand: builder.errorCommand,
            heartbeatCommand: builder.heartbeatCommand, configuredName: names.first)
    }

    private mutating func fileLayout(_ file: FileDraft, place: Place) -> FrameLayout? {
        guard let text = file.source.layoutOption else {
            problems.append(
                place.error(
                    .invalidLayout,
                    "\(place) needs a frame layout: add option (swiftframe.layout) = \"<preset or description>\" or pass --swiftframe_opt=Layout=<preset>"
                ))
            return nil
        }
        return Self.parseLayout(text, place: Place(file: file.name, "option (swiftframe.layout)"), problems: &problems)
    }

    /// A preset name or a layout description.
    static func parseLayout(_ text: String, place: Place, problems: inout [Diagnostic]) -> FrameLayout? {
        if let preset = FrameLayout.preset(named: text) { return preset }
        do throws(FrameLayoutError) {
            return try FrameLayout(description: text)
        } catch {
            let presets = FrameLayout.presetNames.joined(separator: ", ")
            problems.append(
                place.error(
                    .invalidLayout,
                    "\(place): \"\(text)\" is neither a preset (\(presets)) nor a valid layout: \(error)"))
            return nil
        }
    }

    private mutating func addEnumTable(
        _ enumType: EnumType, file: FileDraft, configured: [Swiftframe_Table],
        to builder: inout TableBuilder
    ) {
        let values = enumType.cases
        let prefix = commonWordPrefix(values.map(\.protoName))
        for value in values {
            // A proto3 enum must start with 0; a value 0 named like a placeholder is no command.
            let word = String(value.protoName.dropFirst(prefix.count))
            if value.number == 0, ["DEFAULT", "UNSPECIFIED", "UNKNOWN", "NONE"].contains(word.uppercased()) {
                continue
            }
            let place = Place(
                file: file.name, element: enumType.fullName + "." + value.protoName,
                "command table \(enumType.fullName): \(value.protoName)")
            let options = value.options
            var request: MessageRef?
            var response: MessageRef?
            if let name = options.request {
                request = message(named: name, from: file, place: place)
            }
            if let name = options.response {
                response = message(named: name, from: file, place: place)
            }
            if request == nil || response == nil {
                let (byNameRequest, byNameResponse) = messagesNamed(after: word, in: file, place: place)
                request = request ?? byNameRequest
                response = response ?? byNameResponse
            }
            let configuredCommand = configured.contains {
                $0.command.contains { $0.id == UInt32(bitPattern: value.number) }
            }
            if request == nil && response == nil && !configuredCommand {
                warnings.append(
                    place.warning(
                        .commandWithoutMessage,
                        "\(place) (\(value.number)) matches no message; it gets a case without a typed payload"))
            }
            let id = UInt32(bitPattern: value.number)
            builder.add(
                id: id, swiftName: Naming.caseName(word, enumName: ""),
                origin: value.protoName, request: request, response: response)
            if options.isErrorReply {
                builder.mark(\.errorCommand, id, role: "error_reply", origin: value.protoName)
            }
            if options.isHeartbeat {
                builder.mark(\.heartbeatCommand, id, role: "heartbeat", origin: value.protoName)
            }
        }
    }

    private mutating func addExplicitIDs(_ file: FileDraft, to builder: inout TableBuilder) {
        for message in file.allMessages {
            for case let (id?, isRequest) in [(message.requestID, true), (message.responseID, false)] {
                builder.add(
                    id: id, swiftName: Naming.fieldName(message.protoName), origin: message.protoName,
                    request: isRequest ? MessageRef(message) : nil, response: isRequest ? nil : MessageRef(message))
            }
        }
    }

    private func addIDsInNames(_ file: FileDraft, configured: [Swiftframe_Table], to builder: inout TableBuilder) {
        var prefixes: [(String?, Bool)] = [(file.source.requestPrefix, true), (file.source.responsePrefix, false)]
        for table in configured { prefixes += [(table.requestPrefix, true), (table.responsePrefix, false)] }
        for case let (prefix?, isRequest) in prefixes where !prefix.isEmpty {
            for message in file.messages where message.protoName.hasPrefix(prefix) {
                let digits = message.protoName.dropFirst(prefix.count)
                guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let id = UInt32(digits) else { continue }
                builder.add(
                    id: id, swiftName: Naming.fieldName(message.protoName), origin: message.protoName,
                    request: isRequest ? MessageRef(message) : nil, response: isRequest ? nil : MessageRef(message))
            }
        }
    }

    /// `Test_Req` / `Test_Rsp` for the word `TEST`: names compared without case and underscores.
    private mutating func messagesNamed(
        after word: String, in file: FileDraft,
        place: Place
    ) -> (MessageRef?, MessageRef?) {
        let key = Self.normalized(word)
        let candidates = types.messages(inPackage: file.package)
        func find(_ suffixes: [String]) -> MessageRef? {
            let found = candidates.filter { message in
                suffixes.contains { Self.normalized(message.protoName) == key + $0 }
            }
            if found.count > 1 {
                let names = found.map(\.protoName).joined(separator: " and ")
                problems.append(
                    place.error(
                        .ambiguousName,
                        "\(place): \(names) both match; name one with (swiftframe.request) or (swiftframe.response)"))
            }
            return found.first
        }
        return (find(Self.requestSuffixes), find(Self.responseSuffixes))
    }

    static func normalized(_ name: String) -> String {
        name.lowercased().filter { $0 != "_" }
    }

    /// The longest prefix, ending with `_`, that every name shares (`CMD_`), when there
    /// are at least two names.
    private func commonWordPrefix(_ names: [String]) -> String {
        guard names.count > 1, var prefix = names.first else { return "" }
        for name in names.dropFirst() {
            while !name.hasPrefix(prefix) { prefix.removeLast() }
        }
        guard let underscore = prefix.lastIndex(of: "_") else { return "" }
        return String(prefix[...underscore])
    }

    // MARK: Envelopes

    private mutating func envelopes(in file: FileDraft) -> [Envelope] {
        var found: [Envelope] = []
        for container in file.allMessages {
            for body in container.fields {
                guard let names = container.envelopeBodies[body.number] else { continue }
                let selectorName = names.selector
                let configured = config.envelope(message: container.fullName, body: body.protoName)
                let place = Place(
                    file: file.name, element: container.fullName + "." + body.protoName,
                    "message \(container.fullName): field \(body.protoName)")
                guard case .implicit(.scalar(.bytes)) = body.shape else {
                    problems.append(
                        place.error(.invalidEnvelope, "\(place): (swiftframe.selected_by) needs a singular bytes field")
                    )
                    continue
                }
                guard let selector = container.fields.first(where: { $0.protoName == selectorName }),
                    let selectorType = selector.singularEnum
                else {
                    problems.append(
                        place.error(
                            .invalidEnvelope,
                            "\(place): selected_by names \"\(selectorName)\", which is not an enum field of \(container.protoName)"
                        ))
                    continue
                }
                var choices: [Envelope.Choice] = []
                for enumCase in selectorType.cases {
                    let valuePlace = place.appending("\(selectorType.protoName).\(enumCase.protoName)", element: nil)
                    let choice = configured?.choice.first { $0.value == enumCase.protoName }
                    var holds: MessageRef?
                    if let name = enumCase.options.holds ?? choice?.holds.nonEmpty {
                        holds = message(named: name, from: file, place: valuePlace)
                    }
                    if let holds,
                        let responseName = enumCase.options.response
                            ?? choice?.response.nonEmpty,
                        let response = message(named: responseName, from: file, place: valuePlace)
                    {
                        pair(holds, response, place: valuePlace)
                    }
                    choices.append(Envelope.Choice(enumCase: enumCase, holds: holds))
                }
                found.append(
                    Envelope(
                        message: MessageRef(container), selector: selector, selectorType: selectorType,
                        body: body, choices: choices, typeName: names.type, accessor: names.accessor))
            }
        }
        return found
    }

    // MARK: Helpers

    mutating func pair(_ request: MessageRef, _ response: MessageRef, place: Place) {
        let key = request.fullName
        if let existing = responses[key], existing.response.fullName != response.fullName {
            problems.append(
                place.error(
                    .conflictingResponse,
                    "\(place): \(request.protoName) already answers with \(existing.response.protoName), not \(response.protoName)"
                ))
            return
        }
        responses[key] = (request, response)
    }

    /// A message named in an option: relative to the file's package, or fully qualified.
    mutating func message(named name: String, from file: FileDraft, place: Place) -> MessageRef? {
        let trimmed = name.hasPrefix(".") ? String(name.dropFirst()) : name
        let package = file.package
        if !package.isEmpty, let found = types.message(package + "." + trimmed) { return found }
        if let found = types.message(trimmed) { return found }
        problems.append(place.error(.unknownMessage, "\(place): no message \(name) in this protoc run"))
        return nil
    }

}

/// Collects entries by id, merging a request and a response under one id and reporting
/// two messages that claim the same role of one id.
struct TableBuilder {
    /// An entry while ids are collected: its messages may still be added.
    struct Entry {
        let id: UInt32
        let swiftName: String
        let origin: String
        var request: MessageRef?
        var response: MessageRef?
        let isMessageID: Bool
    }

    let file: FileDraft
    var entries: [Entry] = []
    var problems: [Diagnostic] = []
    var errorCommand: UInt32?
    var heartbeatCommand: UInt32?
    var marked: [String: String] = [:]  // role -> the value that has it

    /// Sets the error or heartbeat command, reporting a second value that claims the role.
    mutating func mark(_ field: WritableKeyPath<TableBuilder, UInt32?>, _ id: UInt32, role name: String, origin: String)
    {
        if let existing = marked[name] {
            problems.append(
                Place(file: file.name).error(
                    .duplicateRole, "(swiftframe.\(name)) is on both \(existing) and \(origin); a table has one"))
            return
        }
        marked[name] = origin
        self[keyPath: field] = id
    }

    mutating func add(
        id: UInt32, swiftName: String, origin: String, request: MessageRef?, response: MessageRef?,
        isMessageID: Bool = false
    ) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else {
            entries.append(
                .init(
                    id: id, swiftName: swiftName, origin: origin, request: request, response: response,
                    isMessageID: isMessageID))
            return
        }
        if let request {
            if let existing = entries[index].request, existing.fullName != request.fullName {
                let place = Place(file: file.name, element: request.fullName, "command \(id)")
                problems.append(
                    place.error(
                        .duplicateCommand,
                        "\(place): requests \(existing.protoName) and \(request.protoName) both claim it"))
            }
            entries[index].request = request
        }
        if let response {
            if let existing = entries[index].response, existing.fullName != response.fullName {
                let place = Place(file: file.name, element: response.fullName, "command \(id)")
                problems.append(
                    place.error(
                        .duplicateCommand,
                        "\(place): responses \(existing.protoName) and \(response.protoName) both claim it"))
            }
            entries[index].response = response
        }
    }
}
