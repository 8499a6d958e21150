/// A message that has a known reply: a transport can offer `response = try await send(request)`.
public protocol RequestMessage: Message {
    associatedtype Response: Message
}

/// A message that travels under one command id of a command table.
public protocol CommandMessage: Message {
    static var commandID: UInt32 { get }
}

/// A generated command table: the frame layout, and the typed decoding of frames for each
/// side of the connection.
public protocol CommandTable {
    /// What a client receives: responses and pushes, one case per message, plus cases
    /// for commands that carry no typed message and for commands the table does not know.
    associatedtype Inbound: Sendable, Hashable
    /// What a server receives: requests.
    associatedtype Request: Sendable, Hashable

    static var layout: FrameLayout { get }

    /// Decodes a frame a client received.
    static func decode(_ frame: Frame) throws(WireError) -> Inbound

    /// Decodes a frame a server received.
    static func decodeRequest(_ frame: Frame) throws(WireError) -> Request
}

extension CommandTable {
    /// Whether command ids travel in the header's type field (the layout has no command field).
    @inlinable
    static var commandIsType: Bool {
        !layout.fields.contains { $0.kind == .command }
    }

    /// The command id of a frame: its command field, or its type field when the layout has
    /// no command field (0 for a frame that has neither, which a decoder of this layout
    /// never produces).
    public static func commandID(of frame: Frame) -> UInt32 {
        if commandIsType { return UInt32(truncatingIfNeeded: frame.header.type ?? 0) }
        return frame.header.command ?? 0
    }

    /// A header carrying `command` in the layout's command (or type) field.
    public static func header(command: UInt32, sequence: UInt64? = nil,
                              extras: [String: UInt64] = [:]) -> FrameHeader {
        commandIsType
            ? FrameHeader(sequence: sequence, type: UInt64(command), extras: extras)
            : FrameHeader(command: command, sequence: sequence, extras: extras)
    }

    /// A whole frame for a message of this table.
    public static func encode<M: CommandMessage>(
        _ message: M, sequence: UInt64? = nil, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        try encode(message, command: M.commandID, sequence: sequence, extras: extras)
    }

    /// A whole frame for any message under an explicit command id.
    public static func encode<M: Message>(
        _ message: M, command: UInt32, sequence: UInt64? = nil, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        try FrameEncoder(layout: layout).encode(
            header: header(command: command, sequence: sequence, extras: extras), message: message)
    }

    /// Every frame of a complete buffer (an HTTP response body holding a reply and events
    /// back to back), each cut by its own length and decoded as a client receives it.
    public static func decodeAll(_ bytes: [UInt8]) throws -> [Inbound] {
        try FrameDecoder.decodeAll(bytes, layout: layout).map { frame throws in try decode(frame) }
    }
}
