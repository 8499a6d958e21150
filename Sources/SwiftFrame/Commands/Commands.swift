/// A message that has a known reply: a transport can offer `response = try await send(request)`.
public protocol RequestMessage: FramePayload {
    associatedtype Response: FramePayload
}

/// A message that travels under one command id of a command table.
public protocol CommandMessage: FramePayload {
    static var commandID: UInt32 { get }
}

#if compiler(>=6.2)
/// Lets generic code use a command table's static members from any task or thread (its
/// metatype is `Sendable`; a command table holds no state).
public protocol CommandTableMetatype: SendableMetatype {}
#else
public protocol CommandTableMetatype {}
#endif

/// A generated command table: the frame layout, and the typed decoding of frames for each
/// side of the connection.
public protocol CommandTable: CommandTableMetatype {
    /// What a client receives: responses and pushes, one case per message, plus cases
    /// for commands that carry no typed message and for commands the table does not know.
    associatedtype Inbound: Sendable, Hashable
    /// What a server receives: requests.
    associatedtype Request: Sendable, Hashable

    static var layout: FrameLayout { get }

    /// The command whose replies are errors: a client fails a request answered with it (the
    /// game's `CMD_ERROR` with `Error_Rsp`). Nil when the table declares none.
    static var errorCommand: UInt32? { get }

    /// The keep-alive command a client sends when idle, with an empty body, and expects back.
    /// Nil when the table declares none.
    static var heartbeatCommand: UInt32? { get }

    /// Decodes a frame a client received. The default decodes the payload where it lies,
    /// through `decode(_: BorrowedFrame)`.
    static func decode(_ frame: Frame) throws(WireError) -> Inbound

    /// Decodes a frame a client received, from its payload where the bytes lie (valid for the
    /// call only): what the generated tables implement, each message decoded straight from the
    /// bytes (`M(buffer:)`). The default copies the payload into a `Frame` for `decode(_:)`.
    ///
    /// A table implements at least one of the two (each default calls the other).
    static func decode(_ frame: BorrowedFrame) throws(WireError) -> Inbound

    /// Decodes a frame a server received. The default decodes the payload where it lies,
    /// through `decodeRequest(_: BorrowedFrame)`.
    static func decodeRequest(_ frame: Frame) throws(WireError) -> Request

    /// Decodes a frame a server received, from its payload where the bytes lie (valid for the
    /// call only), as the generated tables do. The default copies the payload into a `Frame`
    /// for `decodeRequest(_: Frame)`. A table implements at least one of the two.
    static func decodeRequest(_ frame: BorrowedFrame) throws(WireError) -> Request

    /// The name the .proto files give `command` (`CMD_TEST`), for logs and tools; nil for a
    /// command the table does not know.
    static func commandName(_ command: UInt32) -> String?
}

extension FrameLayout {
    /// Whether command ids travel in the type field, because the layout has no command field
    /// (the IM format's type byte).
    public var carriesCommandInType: Bool {
        !fields.contains { $0.kind == .command }
    }

    /// A header carrying `command` in this layout's command field, or in its type field.
    public func header(command: UInt32, sequence: UInt64? = nil, extras: [String: UInt64] = [:]) -> FrameHeader {
        FrameHeader(command: command, inTypeField: carriesCommandInType, sequence: sequence, extras: extras)
    }

    /// The command id of a frame of this layout (0 for a frame without one, which a decoder
    /// of a command table's layout never produces).
    public func commandID(of frame: Frame) -> UInt32 {
        commandID(of: frame.header)
    }

    /// The command id a header carries, in its command field or its type field.
    public func commandID(of header: FrameHeader) -> UInt32 {
        header.commandID(inTypeField: carriesCommandInType)
    }
}

extension FrameHeader {
    /// A header carrying `command` in the type field when `inTypeField` (a layout without a
    /// command field: `FrameLayout.carriesCommandInType`), else in the command field.
    package init(command: UInt32, inTypeField: Bool, sequence: UInt64?, extras: [String: UInt64] = [:]) {
        if inTypeField {
            self.init(sequence: sequence, type: UInt64(command))
        } else {
            self.init(command: command, sequence: sequence)
        }
        if !extras.isEmpty { self.extras = extras }
    }

    /// The command id this header carries in the type field when `inTypeField`, else in the
    /// command field (0 when absent).
    package func commandID(inTypeField: Bool) -> UInt32 {
        inTypeField ? UInt32(truncatingIfNeeded: type ?? 0) : command ?? 0
    }
}

extension CommandTable {
    public static var errorCommand: UInt32? { nil }
    public static var heartbeatCommand: UInt32? { nil }
    public static func commandName(_ command: UInt32) -> String? { nil }

    public static func decode(_ frame: BorrowedFrame) throws(WireError) -> Inbound {
        try decode(frame.copy())
    }

    public static func decode(_ frame: Frame) throws(WireError) -> Inbound {
        try frame.borrowed { borrowed throws(WireError) in try decode(borrowed) }
    }

    public static func decodeRequest(_ frame: BorrowedFrame) throws(WireError) -> Request {
        try decodeRequest(frame.copy())
    }

    public static func decodeRequest(_ frame: Frame) throws(WireError) -> Request {
        try frame.borrowed { borrowed throws(WireError) in try decodeRequest(borrowed) }
    }

    /// The command id of a frame: its command field, or its type field when the layout has
    /// no command field.
    public static func commandID(of frame: Frame) -> UInt32 {
        layout.commandID(of: frame)
    }

    /// The command id of a borrowed frame, as `commandID(of: Frame)` reads it.
    public static func commandID(of frame: BorrowedFrame) -> UInt32 {
        layout.commandID(of: frame.header)
    }

    /// A whole frame for a message of this table.
    public static func encode<M: CommandMessage>(
        _ message: M, sequence: UInt64? = nil, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        try encode(message, command: M.commandID, layout: layout, sequence: sequence, extras: extras)
    }

    /// A whole frame in another layout of the same protocol, such as the HTTP request header
    /// of the game format (`.gameHTTPRequest`, with `playerId` and `sessionId` extras).
    public static func encode<M: CommandMessage>(
        _ message: M, layout other: FrameLayout, sequence: UInt64? = nil, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        try encode(message, command: M.commandID, layout: other, sequence: sequence, extras: extras)
    }

    /// A whole frame for any message under an explicit command id.
    public static func encode<M: FramePayload>(
        _ message: M, command: UInt32, layout other: FrameLayout? = nil, sequence: UInt64? = nil,
        extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        let layout = other ?? layout
        var bytes: [UInt8] = []
        try message.appendFrame(
            header: layout.header(command: command, sequence: sequence, extras: extras),
            encoder: FrameEncoder(layout: layout), to: &bytes)
        return bytes
    }

    /// Every frame of a complete buffer (an HTTP response body holding a reply and events
    /// back to back), each cut by its own length and decoded as a client receives it.
    public static func decodeAll(_ bytes: [UInt8]) throws -> [Inbound] {
        try FrameDecoder.decodeAll(bytes, layout: layout).map { frame throws in try decode(frame) }
    }
}
