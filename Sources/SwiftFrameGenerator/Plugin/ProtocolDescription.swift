import SwiftFrame
import SwiftFrameDescriptors

/// What a run's command tables and envelopes say, as plain values: for the tools that read
/// traffic instead of generating code (`swiftframe inspect`, the Wireshark dissector). It comes
/// from the same resolver as the generated code, so the .proto annotations and the config file
/// mean the same thing to both.
public struct ProtocolDescription: Sendable {
    public struct Command: Sendable, Hashable {
        public let id: UInt32
        /// As the .proto or the config names it (`CMD_TEST`, `Cs_20001`, `command 1`).
        public let name: String
        /// Full proto names (`game.Test_Req`) of what a client sends and what it receives.
        public let request: String?
        public let response: String?
        /// What the server sends under it answers a request: the command has a request, is
        /// the table's error reply, or (in a convention that gives each message an id of its
        /// own, `LoginRsp` 1002) its message is some request's response. Otherwise what it
        /// carries is a push.
        public let isReply: Bool
    }

    public struct Table: Sendable {
        /// The .proto file the table belongs to.
        public let file: String
        public let layout: FrameLayout
        public let commands: [Command]
        public let errorCommand: UInt32?
        public let heartbeatCommand: UInt32?

        public func command(_ id: UInt32) -> Command? { commands.first { $0.id == id } }
    }

    /// A message whose bytes field holds another message, chosen by an enum field.
    public struct Envelope: Sendable, Hashable {
        public let message: String
        public let selectorField: Int32
        public let bodyField: Int32
        /// Selector value → the full name of the message the body then holds.
        public let holds: [Int32: String]
    }

    /// A reply's bytes field that holds the response of the request it answers
    /// (`CommonRespon.respon`, field 2).
    public struct ResponseBody: Sendable, Hashable {
        public let number: Int32
        public let name: String
    }

    public let tables: [Table]
    public let envelopes: [Envelope]
    /// Request → response, by full name: what the generated code's `RequestMessage.Response`
    /// says, from the tables and from `(swiftframe.response)` on envelope choices
    /// (`login_request` → `login_response`, `Common` → `CommonRespon`).
    public let responses: [String: String]
    /// Reply messages that carry the response of the request they answer in a bytes field, by
    /// full name: a message that replies carry (never one that only pushes carry), not an
    /// envelope, whose only singular bytes field it is, in a run where some request declares a
    /// response of its own (`(swiftframe.response)` on an envelope's choice) for it to hold.
    /// `swiftframe inspect` and `call` print that field as the response the request declares
    /// (`heldResponse(answering:in:)`), and so does the Wireshark dissector.
    public let responseBodies: [String: ResponseBody]
    /// What the plugin prints on stderr (a command that matches no message).
    public let warnings: [Diagnostic]

    public func envelope(_ message: String) -> Envelope? { envelopes.first { $0.message == message } }

    /// The response that a reply of message `reply` holds in its response body when it
    /// answers the request whose path is `request` (the request and what its envelopes hold:
    /// `Common`, `User_msg`, `login_request`): the one declared by the innermost message of the
    /// path that declares a response other than `reply` (`login_response`); nil when none does.
    public func heldResponse(answering request: [String], in reply: String) -> String? {
        request.reversed().lazy.compactMap { responses[$0] }.first { $0 != reply }
    }
}

extension Generator {
    /// The command tables and envelopes of the files `request` names, resolved as for
    /// generation (its `parameter` takes the same options, `Config=` and `Layout=` among them).
    public static func describe(_ request: CodeGeneratorRequest) throws(GenerationError) -> ProtocolDescription {
        try describe(request, index: DescriptorIndex(request.protoFile))
    }

    /// The same, reading the request's files through `index`, which indexes them.
    package static func describe(
        _ request: CodeGeneratorRequest,
        index: DescriptorIndex
    ) throws(GenerationError) -> ProtocolDescription {
        let options = try GeneratorOptions(parameter: request.parameter ?? "")
        let resolution = try Resolver.resolve(request, options: options, index: index)
        do {
            let responses = Dictionary(
                resolution.files.flatMap(\.responsePairs).map { ($0.request.fullName, $0.response.fullName) },
                uniquingKeysWith: { first, _ in first })
            let paired = Set(responses.values)
            let tables = resolution.files.compactMap { file in
                file.commandTable.map { table in
                    ProtocolDescription.Table(
                        file: file.name, layout: table.layout,
                        commands: table.entries.map { entry in
                            .init(
                                id: entry.id, name: entry.origin,
                                request: entry.request?.fullName, response: entry.response?.fullName,
                                isReply: entry.request != nil || entry.id == table.errorCommand
                                    || (entry.isMessageID
                                        && entry.response.map { paired.contains($0.fullName) } == true)
                            )
                        },
                        errorCommand: table.errorCommand, heartbeatCommand: table.heartbeatCommand)
                }
            }
            let envelopes = resolution.files.flatMap(\.envelopes).map { envelope in
                ProtocolDescription.Envelope(
                    message: envelope.message.fullName, selectorField: envelope.selector.number,
                    bodyField: envelope.body.number,
                    holds: Dictionary(
                        envelope.choices.compactMap { choice in
                            choice.holds.map { (choice.enumCase.number, $0.fullName) }
                        }, uniquingKeysWith: { first, _ in first }))
            }
            return ProtocolDescription(
                tables: tables, envelopes: envelopes, responses: responses,
                responseBodies: responseBodies(
                    resolution.index, tables: tables, envelopes: envelopes, responses: responses),
                warnings: resolution.warnings)
        }
    }

    /// `ProtocolDescription.responseBodies`, from the descriptors of every file of the request
    /// (a reply's message may be declared in a file that is only imported).
    private static func responseBodies(
        _ index: DescriptorIndex, tables: [ProtocolDescription.Table],
        envelopes: [ProtocolDescription.Envelope],
        responses: [String: String]
    ) -> [String: ProtocolDescription.ResponseBody] {
        let commands = tables.flatMap(\.commands)
        // Responses that no table command carries: what a response body may hold.
        let held = Set(responses.values).subtracting(commands.compactMap(\.response))
        let replies = Set(commands.filter(\.isReply).compactMap(\.response))
            .subtracting(envelopes.map(\.message))
        guard !held.isEmpty, !replies.isEmpty else { return [:] }
        var found: [String: ProtocolDescription.ResponseBody] = [:]
        for message in index.messages where replies.contains(message.fullName) {
            let bytes = message.descriptor.field.filter { $0.type == .bytes && $0.label != .repeated }
            if bytes.count == 1, let number = bytes[0].number, let field = bytes[0].name {
                found[message.fullName] = .init(number: number, name: field)
            }
        }
        return found
    }
}
