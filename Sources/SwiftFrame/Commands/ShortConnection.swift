/// The server answered a request with its error reply (the command the table marks as the
/// error reply, such as `CMD_ERROR` carrying `Error_Rsp`). `reply` is the decoded frame, e.g.
/// `.errorRsp(ErrorRsp(code: 401, message: "logged out"))`.
public struct ErrorReply<Table: CommandTable>: Error, Sendable, CustomStringConvertible {
    public let reply: Table.Inbound
    public let header: FrameHeader

    public init(reply: Table.Inbound, header: FrameHeader) {
        self.reply = reply
        self.header = header
    }

    public var description: String { "error reply: \(reply)" }
}

/// The body of an HTTP reply in a table's layout: the reply to the request first, then any
/// further frames (server events), each cut by its own length.
public struct ShortReply<Table: CommandTable, Response: FramePayload>: Sendable {
    public let reply: Response
    /// The frames after the reply, decoded as a client receives them.
    public let events: [Table.Inbound]
    /// The same frames, for their headers and sizes (slices of the body).
    public let eventFrames: [Frame]
}

/// An HTTP reply body that does not hold what the request expects.
public enum ShortReplyError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyBody
    /// The first frame is neither the expected reply nor the table's error reply.
    case unexpectedReply(command: UInt32, expected: UInt32)

    public var description: String {
        switch self {
        case .emptyBody: "the reply body holds no frame"
        case let .unexpectedReply(command, expected): "the reply is command \(command), expected \(expected)"
        }
    }
}

extension CommandTable {
    /// The body of an HTTP request (the short connection): `message` framed in `layout`, such
    /// as `.gameHTTPRequest` with its `playerId` and `sessionId` extras.
    public static func requestBody<M: CommandMessage>(
        _ message: M, layout: FrameLayout, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> [UInt8] {
        try encode(message, layout: layout, extras: extras)
    }

    /// Decodes an HTTP reply body to a request of type `M`: the reply first (the table's error
    /// reply throws `ErrorReply`), then every further frame as an event. Each frame is cut by
    /// its own length; a body that ends inside a frame is `FrameError.truncated`.
    public static func decodeReply<M: RequestMessage>(
        to request: M.Type, body: [UInt8]
    ) throws -> ShortReply<Self, M.Response> where M.Response: CommandMessage {
        let frames = try FrameDecoder.decodeAll(body, layout: layout)
        guard let first = frames.first else { throw ShortReplyError.emptyBody }
        let command = commandID(of: first)
        if command == errorCommand, command != M.Response.commandID {
            throw ErrorReply<Self>(reply: try decode(first), header: first.header)
        }
        guard command == M.Response.commandID else {
            throw ShortReplyError.unexpectedReply(command: command, expected: M.Response.commandID)
        }
        let events = frames.dropFirst()
        return ShortReply(
            reply: try M.Response(framePayload: first.payload),
            events: try events.map { frame throws in try decode(frame) },
            eventFrames: Array(events))
    }
}

/// A second way to a server besides its long connection: one request, one answer, such as an
/// HTTP POST. SwiftFrameNIO's client sends a request marked for it this way when its long
/// connection is down or too slow (`ClientConfiguration.shortLink`); SwiftFrameURLSession's
/// `HTTPFrameClient` is one. It lives in the runtime, which has no dependencies, so that a
/// link on URLSession and a client on SwiftNIO each depend on it and not on each other.
public protocol ShortLink: Sendable {
    /// Sends a request under `command` with `payload` (the encoded message) and returns the
    /// frames of the answer in the command table's layout: the reply first, then any events.
    /// It should give up by `timeout` and when its task is cancelled.
    func exchange(command: UInt32, payload: [UInt8], timeout: Duration) async throws -> [Frame]
}
