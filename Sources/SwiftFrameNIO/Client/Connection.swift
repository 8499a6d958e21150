import NIOConcurrencyHelpers
import NIOCore
import SwiftFrame

/// One live connection of a `FrameClient`: what the client's requests go through, and what
/// its `onConnect` hook gets to log in with before any other request is sent.
public struct Connection<Table: CommandTable>: Sendable {
    let link: Link
    /// What requests read of the client's configuration (not the whole configuration, whose
    /// copy retains every reference it holds).
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
    nonisolated(nonsending) public func request<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration? = nil
    ) async throws -> M.Response where M.Response: CommandMessage {
        try await NotSent.asConnectionLost {
            try await link.unsentRequest(
                message, of: Table.self, extras: headerExtras, timeout: timeout ?? requestTimeout)
        }
    }

    /// A request under any command with a raw body, for commands without a typed message (the
    /// IM heartbeat): the reply on `replyCommand` (default: the same command), decoded as the
    /// table decodes what a client receives.
    nonisolated(nonsending) public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, timeout: Duration? = nil
    ) async throws -> Table.Inbound {
        try await NotSent.asConnectionLost {
            try await link.unsentRequest(
                command: command, payload: payload, replyCommand: replyCommand, of: Table.self,
                extras: headerExtras, timeout: timeout ?? requestTimeout)
        }
    }

    /// Sends `message` without waiting for a reply or for the write (see `send(_:)` below).
    nonisolated(nonsending) public func send<M: CommandMessage>(_ message: M) async throws {
        try await send(OutboundFrame(message, heading: link.heading, extras: headerExtras))
    }

    /// Sends a frame under any command with a raw body (an empty one for a bare command).
    nonisolated(nonsending) public func send(command: UInt32, payload: [UInt8] = []) async throws {
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
        link.heading.header(command: command, extras: headerExtras)
    }

    /// Fire and forget: the size is checked against the layout here (too large a body throws), then
    /// queued for the event loop without waiting for the write, unless the channel's buffer is
    /// full or the queue holds more than `OutboundQueue.waitAbove` bytes, in which case it waits
    /// for that write (back pressure). A write that fails later means the connection dropped,
    /// which `FrameClient.states` reports.
    private nonisolated(nonsending) func send(_ frame: OutboundFrame) async throws {
        _ = try FrameEncoder(layout: Table.layout).headerSize(payloadCount: frame.payload.count)
        do {
            try await link.enqueue(ClientWrite(frame: frame, kind: .send), whenFull: .waits)?.get()
        } catch is ChannelError, is NotSent {
            throw FrameClientError.connectionLost(.closedByPeer)
        }
    }
}

/// A connection's channel and the endpoint it goes to, whatever its command table: what the
/// client's state machine holds. Not generic, so the lock taken on every request reaches it
/// without looking up the metadata of generic types at run time (several types a request).
struct Link: Sendable {
    let channel: any Channel
    let endpoint: Endpoint
    /// The frames queued for the channel's handler.
    let outbound: OutboundQueue<ClientWrite>
    /// Where the table's layout carries the command.
    let heading: Heading

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

// The request path. On `Link` rather than the generic `Connection`: the client's code is not
// specialised for the app's table, so each call of a `Connection<Table>` method there looks up
// that type's metadata at run time.
extension Link {
    /// `Connection.request(_:timeout:)`, throwing `NotSent` when the connection had closed
    /// before the request could be written (the client then tries the next connection).
    @inline(__always)
    nonisolated(nonsending) func unsentRequest<Table: CommandTable, M: RequestMessage & CommandMessage>(
        _ message: M, of table: Table.Type, extras: [String: UInt64], timeout: Duration
    ) async throws -> M.Response where M.Response: CommandMessage {
        let frame = try OutboundFrame(message, heading: heading, extras: extras)
        return try await exchange(frame, replyCommand: M.Response.commandID, timeout: timeout) { reply in
            do throws(WireError) {
                return try reply.decode(M.Response.self)
            } catch {
                throw FrameClientError.badReply(command: M.Response.commandID, error)
            }
        }
    }

    /// `Connection.request(command:payload:replyCommand:timeout:)`, throwing `NotSent` as
    /// above.
    @inline(__always)
    nonisolated(nonsending) func unsentRequest<Table: CommandTable>(
        command: UInt32, payload: [UInt8], replyCommand: UInt32?, of table: Table.Type, extras: [String: UInt64],
        timeout: Duration
    ) async throws -> Table.Inbound {
        let frame = OutboundFrame(header: heading.header(command: command, extras: extras), payload: payload)
        return try await exchange(frame, replyCommand: replyCommand ?? command, timeout: timeout) { reply in
            do throws(WireError) {
                return try Table.decode(reply)
            } catch {
                throw FrameClientError.badReply(command: command, error)
            }
        }
    }

    /// Runs on the caller's executor throughout (`isolation`, captured by the closure below, keeps
    /// the cancellation handler's operation there too, where a closure of a `nonisolated(nonsending)`
    /// function would leave for the global pool and come back: two thread hops a request).
    /// Inlined, as `unsentRequest` is (see `FrameClient.onAConnection`).
    @inline(__always)
    private func exchange<Reply: Sendable>(
        _ frame: OutboundFrame, replyCommand: UInt32, timeout: Duration, isolation: isolated (any Actor)? = #isolation,
        decode: (FrameSlice) throws -> Reply
    ) async throws -> Reply {
        try Task.checkCancellation()
        let waiter = ReplyWaiter()
        // The reply comes as a slice of the buffer it was read into (no copy) and is decoded
        // by `decode` here, in the caller's task, from where its bytes lie: the event loop,
        // which all of one connection's frames go through, does only the framing.
        let write = ClientWrite(
            frame: frame,
            kind: .request(
                replyCommand: replyCommand, deadline: .now() + TimeAmount(timeout), timeout: timeout,
                waiter: waiter))
        // Not written (the channel had closed, so the request never went out; the layout
        // cannot carry it; too many are pending): the handler fails it through the waiter.
        do {
            _ = try enqueue(write, whenFull: .queues)
        } catch {
            waiter.complete(.failure(error))  // NotSent: the connection had closed
        }
        let reply = try await withTaskCancellationHandler {
            _ = isolation
            return try await waiter.reply()
        } onCancel: { [channel] in
            channel.triggerUserOutboundEvent(CancelRequest(waiter: waiter), promise: nil)
            waiter.complete(.failure(CancellationError()))
        }
        return try decode(reply)
    }
}

/// A caller waiting for its reply: completed once, by the reply or by the first failure (the
/// handler's, or the caller's cancellation), before or after the caller starts to wait; later
/// completions are dropped. (Not an `EventLoopPromise`: its future's generic metadata is
/// looked up at run time as it is made and freed, on every request.)
final class ReplyWaiter: Sendable {
    private enum Phase {
        case pending
        case waiting(UnsafeContinuation<FrameSlice, any Error>)
        case completed(Result<FrameSlice, any Error>)
        case done
    }

    private let state = NIOLockedValueBox((phase: Phase.pending, completions: 0))

    /// How many times `complete` was called (the first one counts): for checks.
    var completions: Int { state.withLockedValue { $0.completions } }

    func complete(_ result: Result<FrameSlice, any Error>) {
        let waiting = state.withLockedValue { state -> UnsafeContinuation<FrameSlice, any Error>? in
            state.completions += 1
            switch state.phase {
            case .pending:
                state.phase = .completed(result)
                return nil
            case let .waiting(continuation):
                state.phase = .done
                return continuation
            case .completed, .done:
                return nil
            }
        }
        waiting?.resume(with: result)
    }

    /// The reply, once `complete` has been called (once only).
    nonisolated(nonsending) func reply() async throws -> FrameSlice {
        try await withUnsafeThrowingContinuation { continuation in
            let result = state.withLockedValue { state -> Result<FrameSlice, any Error>? in
                switch state.phase {
                case .pending:
                    state.phase = .waiting(continuation)
                    return nil
                case let .completed(result):
                    state.phase = .done
                    return result
                case .waiting, .done:
                    preconditionFailure("a reply is awaited once")
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

/// A task waiting for a connection, up to its deadline.
struct LinkWaiter: Sendable {
    var deadline: DeadlineWaiter<Link>
    /// A request that takes the short link when the long one goes down: failed with
    /// `LongLinkDown` then rather than kept waiting.
    var fallsBack = false

    func resume(with result: Result<Link, any Error>) {
        deadline.resume(with: result)
    }
}

/// Something of the client's that runs and can be called off: the race of connect attempts,
/// or the backoff wait.
struct ClientJob: Sendable {
    let cancel: @Sendable () -> Void
}

/// A request that was not written because its connection had closed: safe to send again.
struct NotSent: Error {
    static nonisolated(nonsending) func asConnectionLost<T>(_ body: nonisolated(nonsending) () async throws -> T)
        async throws -> T
    {
        do {
            return try await body()
        } catch is NotSent {
            throw FrameClientError.connectionLost(.closedByPeer)
        }
    }
}
