import SwiftFrame
import SwiftFrameDescriptors

/// A file's command table: every command id with the messages that travel under it.
/// Built complete, with every name decided, once the run's tables are resolved.
public struct CommandTable {
    public struct Entry {
        public let id: UInt32
        /// Case name in the table's `ID` enum (`test` for CMD_TEST).
        public let swiftName: String
        /// Where the command came from, for messages and comments (`CMD_TEST`, `Cs_20001`).
        public let origin: String
        /// Client to server.
        public let request: MessageType?
        /// Server to client: the reply to `request`, or a push.
        public let response: MessageType?
        /// The id is the message's own (a convention that gives every message an id): the
        /// other side has no case for it.
        public let isMessageID: Bool
    }

    /// One case of `Inbound` (client side) or `Request` (server side): a message, listing
    /// every id it arrives under, or a command with no message on that side.
    public struct Case {
        public let name: String
        public let message: MessageType?
        public let ids: [UInt32]
        public let origin: String
    }

    /// `GameCommands`: named by the resolver with the module's other top-level names.
    public let swiftName: String
    public let layout: FrameLayout
    public let entries: [Entry]
    public let inbound: [Case]
    public let requests: [Case]
    /// The command whose replies are errors, and the keep-alive command (enum value options).
    public let errorCommand: UInt32?
    public let heartbeatCommand: UInt32?
    /// Messages of this table that travel under exactly one id in the whole run, so they
    /// can carry it as `CommandMessage.commandID`.
    public let conformances: [(message: MessageType, id: UInt32)]

    /// Names the `ID` cases, then the `Inbound` and `Request` cases: one per distinct
    /// message of that side, and one per command with no message there.
    init(swiftName: String, draft: CommandTableDraft) {
        var ids = NameScope(reserved: Naming.reservedCaseNames)
        let names = ids.claim(draft.entries.map { ($0.swiftName, $0.origin) })
        let entries = zip(draft.entries, names).map { entry, name in
            Entry(id: entry.id, swiftName: name, origin: entry.origin, request: entry.request, response: entry.response,
                  isMessageID: entry.isMessageID)
        }
        self.swiftName = swiftName
        self.layout = draft.layout
        self.entries = entries
        self.inbound = Self.cases(entries, \.response)
        self.requests = Self.cases(entries, \.request)
        self.errorCommand = draft.errorCommand
        self.heartbeatCommand = draft.heartbeatCommand
        self.conformances = draft.conformances
    }

    private static func cases(_ entries: [Entry], _ side: KeyPath<Entry, MessageType?>) -> [Case] {
        var idsByMessage: [ObjectIdentifier: [UInt32]] = [:]
        var items: [(message: MessageType?, entry: Entry)] = []
        for entry in entries {
            if let message = entry[keyPath: side] {
                if idsByMessage[ObjectIdentifier(message)] == nil { items.append((message, entry)) }
                idsByMessage[ObjectIdentifier(message), default: []].append(entry.id)
            } else if !entry.isMessageID {
                items.append((nil, entry))
            }
        }
        // `unknown` is the case for ids the table does not know.
        var scope = NameScope(reserved: Naming.swiftKeywords.union(["unknown"]))
        let names = scope.claim(items.map { item in
            item.message.map { (Naming.fieldName($0.protoName), $0.fullName) } ?? (item.entry.swiftName, item.entry.origin)
        })
        return zip(items, names).map { item, name in
            Case(name: name, message: item.message,
                 ids: item.message.flatMap { idsByMessage[ObjectIdentifier($0)] } ?? [item.entry.id], origin: item.entry.origin)
        }
    }
}

/// A message whose bytes field holds another message, chosen by an enum field of the same
/// message (`Common.method` selects what `Common.body` holds).
public final class Envelope {
    public struct Choice {
        public let enumCase: EnumType.Case
        /// The message held when this value is selected; nil leaves the bytes as they are.
        public let holds: MessageType?
    }

    public let message: MessageType
    public let selector: Field
    public let selectorType: EnumType
    public let body: Field
    public let choices: [Choice]
    /// The nested enum of what the body holds (`Body`), the method that decodes it
    /// (`decodedBody`), and the enum's case for a selector that holds no declared message.
    public let typeName: String
    public let accessor: String
    public let otherCase: String

    init(message: MessageType, selector: Field, selectorType: EnumType, body: Field, choices: [Choice],
         typeName: String, accessor: String) {
        self.message = message
        self.selector = selector
        self.selectorType = selectorType
        self.body = body
        self.choices = choices
        self.typeName = typeName
        self.accessor = accessor
        var cases = NameScope(reserved: Naming.reservedCaseNames)
        _ = cases.claim(choices.filter { $0.holds != nil }.map { ($0.enumCase.swiftName, $0.enumCase.protoName) })
        otherCase = cases.claim("other")
    }
}
