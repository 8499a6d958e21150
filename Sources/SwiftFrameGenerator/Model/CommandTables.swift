import SwiftFrame

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
        public let request: MessageRef?
        /// Server to client: the reply to `request`, or a push.
        public let response: MessageRef?
        /// The id is the message's own (a convention that gives every message an id): the
        /// other side has no case for it.
        public let isMessageID: Bool
    }

    /// One case of `Inbound` (client side) or `Request` (server side): a message, listing
    /// every id it arrives under, or a command with no message on that side.
    public struct Case {
        public let name: String
        public let message: MessageRef?
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
    public let conformances: [(message: MessageRef, id: UInt32)]
}

/// A message whose bytes field holds another message, chosen by an enum field of the same
/// message (`Common.method` selects what `Common.body` holds).
public struct Envelope {
    public struct Choice {
        public let enumCase: EnumType.Case
        /// The message held when this value is selected; nil leaves the bytes as they are.
        public let holds: MessageRef?
    }

    public let message: MessageRef
    public let selector: Field
    public let selectorType: EnumType
    public let body: Field
    public let choices: [Choice]
    /// The nested enum of what the body holds (`Body`), the method that decodes it
    /// (`decodedBody`), and the enum's case for a selector that holds no declared message.
    public let typeName: String
    public let accessor: String
    public let otherCase: String
}
