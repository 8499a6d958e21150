import SwiftFrame

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

    public let tables: [Table]
    public let envelopes: [Envelope]
    /// Request → response, by full name: what the generated code's `RequestMessage.Response`
    /// says, from the tables and from `(swiftframe.response)` on envelope choices
    /// (`login_request` → `login_response`, `Common` → `CommonRespon`).
    public let responses: [String: String]
    /// What the plugin prints on stderr (a command that matches no message).
    public let warnings: [String]

    public func envelope(_ message: String) -> Envelope? { envelopes.first { $0.message == message } }
}

extension Generator {
    /// The command tables and envelopes of the files `request` names, resolved as for
    /// generation (its `parameter` takes the same options, `Config=` and `Layout=` among them).
    public static func describe(_ request: CodeGeneratorRequest) throws(GenerationError) -> ProtocolDescription {
        let options = try GeneratorOptions(parameter: request.parameter ?? "")
        let resolution = try Resolver.resolve(request, options: options)
        do {
            let tables = resolution.files.compactMap { file in
                file.commandTable.map { table in
                    ProtocolDescription.Table(
                        file: file.name, layout: table.layout,
                        commands: table.entries.map { entry in
                            .init(id: entry.id, name: entry.origin,
                                  request: entry.request?.fullName, response: entry.response?.fullName)
                        },
                        errorCommand: table.errorCommand, heartbeatCommand: table.heartbeatCommand)
                }
            }
            let envelopes = resolution.files.flatMap(\.envelopes).map { envelope in
                ProtocolDescription.Envelope(
                    message: envelope.message.fullName, selectorField: envelope.selector.number,
                    bodyField: envelope.body.number,
                    holds: Dictionary(envelope.choices.compactMap { choice in
                        choice.holds.map { (choice.enumCase.number, $0.fullName) }
                    }, uniquingKeysWith: { first, _ in first }))
            }
            let responses = Dictionary(
                resolution.files.flatMap(\.responsePairs).map { ($0.request.fullName, $0.response.fullName) },
                uniquingKeysWith: { first, _ in first })
            return ProtocolDescription(tables: tables, envelopes: envelopes, responses: responses, warnings: resolution.warnings)
        }
    }
}
