import NIOCore
import SwiftFrame

/// One live connection of a `FrameClient`: what the client's requests go through, and what
/// its `onConnect` hook gets to log in with before any other request is sent.
public struct Connection<Table: CommandTable>: Sendable {
    let link: Link
    /// What requests read of the client's configuration (made for each request, so not the
    /// whole configuration, whose copy retains every reference it holds).
    private let requestTimeout: Duration
    private let headerExtras: [String: UInt64]

    init(_ link: Link, configuration: ClientConfiguration) {
        self.link = link
        requestTimeout = configuration.requestTimeout
        headerExtras = configuration.headerExtras
    }

    var channel: any Channel { link.channel }
    /// The endpoint this connection was made to.
    public var endpoint: Endpoint { link.endpoint }

    /// Sends `message` and waits for its reply (`M.Response`), matched as the configuration's
    /// `Correlation` says. Throws `ErrorReply` when the server answers with the table's error
    /// reply, `FrameClientError.timedOut` after `timeout` (default: the configuration's),
    /// `.connectionLost` at once if the connection drops first, and `CancellationError` if the
    /// calling task is cancelled (its slot is freed, and a late reply is dropped).
    public func request<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration? = nil
    ) async throws -> M.Response where M.Response: CommandMessage {
        try await NotSent.asConnectionLost { try await unsentRequest(message, timeout: timeout) }
    }

    /// `request(_:timeout:)`, throwing `NotSent` when the connection had closed before the
    /// request could be written (the client then tries the next connection).
    func unsentRequest<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration?
    ) async throws -> M.Response where M.Response: CommandMessage {
        let frame = try OutboundFrame(message, layout: Table.layout, extras: headerExtras)
        return try await exchange(frame, replyCommand: M.Response.commandID, timeout: timeout) { reply in
            do throws(WireError) {
                return try reply.decode(M.Response.self)
            } catch {
                throw FrameClientError.badReply(command: M.Response.commandID, error)
            }
        }
    }

    /// A request under any command with a raw body, for commands without a typed message (the
    /// IM heartbeat): the reply on `replyCommand` (default: the same command), decoded as the
    /// table decodes what a client receives.
    public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, timeout: Duration? = nil
    ) async throws -> Table.Inbound {
        try await NotSent.asConnectionLost {
            try await unsentRequest(command: command, payload: payload, replyCommand: replyCommand, timeout: timeout)
        }
    }

    func unsentRequest(
        command: UInt32, payload: [UInt8], replyCommand: UInt32?, timeout: Duration?
    ) async throws -> Table.Inbound {
        let frame = OutboundFrame(header: header(command), payload: payload)
        return try await exchange(frame, replyCommand: replyCommand ?? command, timeout: timeout) { reply in
            do throws(WireError) {
                return try Table.decode(reply)
            } catch {
                throw FrameClientError.badReply(command: command, error)
            }
        }
    }

    /// Sends `message` without waiting for a reply or for the write (see `send(_:)` below).
    public func send<M: CommandMessage>(_ message: M) async throws {
        try await send(OutboundFrame(message, layout: Table.layout, extras: headerExtras))
    }

    /// Sends a frame under any command with a raw body (an empty one for a bare command).
    public func send(command: UInt32, payload: [UInt8] = []) async throws {
        try await send(OutboundFrame(header: header(command), payload: payload))
    }

    /// Drops this connection; a running client connects again after its first backoff delay
    /// (`FrameClient.reconnectNow()` connects again without one).
    public func reconnect() {
        close()
    }

    /// Closes the connection, reporting `DisconnectReason.closedByClient`.
    func close() {
        link.close()
    }

    private func header(_ command: UInt32) -> FrameHeader {
        Table.layout.header(command: command, extras: headerExtras)
    }

    /// Fire and forget: the size is checked against the layout here (too large a body throws), then
    /// queued for the event loop without waiting for the write, unless the channel's buffer is
    /// full or the queue holds more than `OutboundQueue.waitAbove` bytes, in which case it waits
    /// for that write (back pressure). A write that fails later means the connection dropped,
    /// which `FrameClient.states` reports.
    private func send(_ frame: OutboundFrame) async throws {
        _ = try FrameEncoder(layout: Table.layout).headerSize(payloadCount: frame.payload.count)
        do {
            try await link.enqueue(ClientWrite(frame: frame, kind: .send), whenFull: .waits)?.get()
        } catch is ChannelError, is NotSent {
            throw FrameClientError.connectionLost(.closedByPeer)
        }
    }

    private func exchange<Reply: Sendable>(
        _ frame: OutboundFrame, replyCommand: UInt32, timeout: Duration?,
        decode: @escaping @Sendable (FrameSlice) throws -> Reply
    ) async throws -> Reply {
        let timeout = timeout ?? requestTimeout
        // Before the promise exists: a promise dropped without being completed is a leak.
        try Task.checkCancellation()
        let promise = channel.eventLoop.makePromise(of: FrameSlice.self)
        let token = ObjectIdentifier(promise.futureResult)
        // The reply comes as a slice of the buffer it was read into (no copy) and is decoded
        // by `decode` here, in the caller's task, from where its bytes lie: the event loop,
        // which all of one connection's frames go through, does only the framing.
        let write = ClientWrite(
            frame: frame,
            kind: .request(
                replyCommand: replyCommand, deadline: .now() + TimeAmount(timeout), timeout: timeout, token: token,
                completion: { result in promise.completeWith(result) }))
        // Not written (the channel had closed, so the request never went out; the layout
        // cannot carry it; too many are pending): the handler fails it through `completion`.
        do {
            _ = try link.enqueue(write, whenFull: .queues)
        } catch {
            promise.fail(error)  // NotSent: the connection had closed
        }
        let reply = try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: { [channel] in
            channel.triggerUserOutboundEvent(CancelRequest(token: token), promise: nil)
            promise.fail(CancellationError())
        }
        return try decode(reply)
    }
}

/// A connection's channel and the endpoint it goes to, whatever its command table: what the
/// client's state machine holds. Not generic, so the lock taken on every request reaches it
/// without looking up the metadata of generic types at run time (about 330 instructions for
/// each type, several types a request).
struct Link: Sendable {
    let channel: any Channel
    let endpoint: Endpoint
    /// The frames queued for the channel's handler.
    let outbound: OutboundQueue<ClientWrite>

    /// Queues `write`, asking the handler to write the queue when it was empty. Returns the
    /// write's future when it waits (a send) and the channel or the queue is full; throws
    /// `NotSent` when the connection has closed.
    func enqueue(_ write: ClientWrite, whenFull: OutboundQueue<ClientWrite>.WhenFull) throws -> EventLoopFuture<Void>? {
        let (enqueued, written) = outbound.enqueue(write, on: channel, whenFull: whenFull)
        guard case .queued = enqueued else { throw NotSent() }
        return written
    }

    /// Closes the connection, reporting `DisconnectReason.closedByClient`.
    func close() {
        channel.triggerUserOutboundEvent(CloseRequest(), promise: nil)
    }
}

/// A task waiting for a connection, and the timer of its deadline.
struct LinkWaiter: Sendable {
    let continuation: CheckedContinuation<Link, any Error>
    var timer: Scheduled<Void>?
    /// A request that takes the short link when the long one goes down: failed with
    /// `LongLinkDown` then rather than kept waiting.
    var fallsBack = false

    func resume(with result: Result<Link, any Error>) {
        timer?.cancel()
        continuation.resume(with: result)
    }
}

/// A request that was not written because its connection had closed: safe to send again.
struct NotSent: Error {
    static func asConnectionLost<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is NotSent {
            throw FrameClientError.connectionLost(.closedByPeer)
        }
    }
}
