import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame

/// A server's settings.
public struct ServerConfiguration: Sendable {
    /// A connection that sends nothing for this long is closed (default 5 minutes; nil: never),
    /// unless one of its requests is still being handled.
    public var idleTimeout: Duration? = .seconds(300)
    /// What every frame received and sent passes through, in order (see `FrameInterceptor`).
    /// A request an interceptor refuses closes its connection.
    public var interceptors: [any FrameInterceptor] = []
    #if TLS
    /// TLS (with the `TLS` trait): nil, the default, for plain TCP.
    public var tls: ServerTLS?
    #endif
    public var logger = Logger(label: "swiftframe.server")
    /// Runs each connection's request handler on the connection's event loop instead of
    /// Swift's global pool (default false). A request then costs no thread hop on its way in
    /// or out, but a handler that blocks or computes for long holds up every connection of
    /// that event loop: turn it on for handlers that answer from memory or only await. (It
    /// takes Swift's task executors: on Apple systems before macOS 15 and iOS 18, handlers stay
    /// on the global pool.)
    public var handlersRunOnEventLoop = false

    public init() {}
}

/// Why `FrameServer.port()` has no port to give, or `run` cannot start.
public enum FrameServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `run` did not bind within `after`.
    case notListening(after: Duration)
    /// `run` has returned.
    case stopped
    /// `run` was called while it was already running (one server, one listener).
    case alreadyRunning
    /// A push that cannot wait (from a synchronous handler) found the connection's unwritten
    /// frames above the limit (its peer is not reading them): it was not queued.
    case outboundFull

    public var description: String {
        switch self {
        case let .notListening(after): "the server did not listen within \(after)"
        case .stopped: "the server has stopped"
        case .alreadyRunning: "the server is already running"
        case .outboundFull: "the connection's unwritten frames are above the limit: the push was not queued"
        }
    }
}

/// A reply or push a server writes: a command and its encoded body.
public struct ServerFrame: Sendable, Hashable {
    public var command: UInt32
    public var payload: [UInt8]

    public init(command: UInt32, payload: [UInt8] = []) {
        self.command = command
        self.payload = payload
    }

    /// `message` under its command id.
    public init<M: CommandMessage>(_ message: M) throws {
        self.init(command: M.commandID, payload: try message.framePayloadBytes())
    }
}

/// What a request handler knows of the request besides its body, and how it reaches the
/// connection.
public struct RequestContext<Table: CommandTable>: Sendable {
    /// The connection the request came on (for `FrameServer.push(_:to:)`).
    public let connection: Int
    /// The request's header; its sequence number is echoed in the reply.
    public let header: FrameHeader
    let writer: ServerWriter
    let heading: Heading

    /// Writes a push to this connection (sequence 0 where the layout numbers frames).
    public func push(_ frame: ServerFrame) async throws {
        try await writer.write(heading.push(frame))
    }

    /// Queues a push to this connection without waiting, for a handler that cannot await
    /// (`FrameServer.runOnEventLoop`). Throws `FrameServerError.outboundFull`, queueing
    /// nothing, while the connection holds more unwritten frames than it takes (its peer is not
    /// reading them), and `ChannelError.ioOnClosedChannel` once it has closed.
    public func push(_ frame: ServerFrame) throws {
        try writer.queueUnlessFull(heading.push(frame))
    }
}

/// A server's replies and pushes.
extension Heading {
    /// The frame carrying `reply` to the request that came with `header`.
    func reply(_ reply: ServerFrame, answering header: FrameHeader) -> OutboundFrame {
        frame(reply, sequence: header.sequence ?? 0)
    }

    /// The frame of a push: sequence 0 where the layout numbers frames.
    func push(_ push: ServerFrame) -> OutboundFrame {
        frame(push, sequence: 0)
    }

    private func frame(_ frame: ServerFrame, sequence: UInt64) -> OutboundFrame {
        let sequence = numbersFrames ? sequence : nil
        return OutboundFrame(header: header(command: frame.command, sequence: sequence), payload: frame.payload)
    }
}

/// A server for one command table. Each connection's requests are decoded with
/// `Table.decodeRequest` and handed to the handler one at a time, in order; the frame it
/// returns is written back under the request's sequence number. A connection that sends a
/// bad frame (bad magic, absurd length, unknown type) is closed with a logged `FrameError`
/// once the requests before it are handled; other connections go on.
///
/// A connection holds no task while it is silent: one starts when a request arrives and ends
/// when none is left (`ServedConnection`). While the handler is busy, a connection's frames
/// queue up to a small limit, then the server stops reading from it until the handler
/// catches up. `runOnEventLoop` takes a synchronous handler and calls it inside the event
/// loop's read instead, with no task at all.
///
///     let server = FrameServer<GameCommands>(port: 9000)
///     try await server.run { request, context in
///         switch request {
///         case let .testReq(request): try ServerFrame(TestRsp(result1: request.param1))
///         default: nil
///         }
///     }
public final class FrameServer<Table: CommandTable>: Sendable {
    public typealias Handler = @Sendable (Table.Request, RequestContext<Table>) async throws -> ServerFrame?
    /// A handler that answers without suspending (`runOnEventLoop`).
    public typealias SynchronousHandler = @Sendable (Table.Request, RequestContext<Table>) throws -> ServerFrame?

    public let host: String
    public let configuration: ServerConfiguration
    private let heading = Heading(Table.layout)
    private let requestedPort: Int
    private let group: any EventLoopGroup
    private let connections = NIOLockedValueBox(ServerConnections<ServedConnection, CheckedContinuation<Void, Never>>())
    private let listening = NIOLockedValueBox(Listening())

    /// Where `run` is, as `port()` and a second `run` see it; each event a method.
    private struct Listening {
        enum Phase {
            /// `run` has not been called: `port()` waits for it.
            case notStarted(waiters: [Int: DeadlineWaiter<Int>])
            /// `run` is binding: `port()` waits for this run's port.
            case binding(waiters: [Int: DeadlineWaiter<Int>])
            case listening(port: Int)
            /// Binding failed, or `run` has returned: `port()` fails with the error.
            case stopped(any Error)
        }

        var phase = Phase.notStarted(waiters: [:])
        var nextWaiter = 0

        /// `run` starts: false when it runs already.
        mutating func start() -> Bool {
            switch phase {
            case let .notStarted(waiters):
                phase = .binding(waiters: waiters)
            case .stopped:
                phase = .binding(waiters: [:])
            case .binding, .listening:
                return false
            }
            return true
        }

        /// Bound to a port, or not (binding failed, or `run` returned): the waiters to answer.
        mutating func settle(_ result: Result<Int, any Error>) -> [DeadlineWaiter<Int>] {
            var answered: [DeadlineWaiter<Int>] = []
            if case let .binding(waiters) = phase { answered = Array(waiters.values) }
            switch result {
            case let .success(port): phase = .listening(port: port)
            case let .failure(error): phase = .stopped(error)
            }
            return answered
        }

        /// `port()`: the answer now, or nil when `waiter` is kept as `id`.
        mutating func wait(id: Int, _ waiter: DeadlineWaiter<Int>) -> Result<Int, any Error>? {
            switch phase {
            case let .listening(port): return .success(port)
            case let .stopped(error): return .failure(error)
            case var .notStarted(waiters):
                waiters[id] = waiter
                phase = .notStarted(waiters: waiters)
            case var .binding(waiters):
                waiters[id] = waiter
                phase = .binding(waiters: waiters)
            }
            return nil
        }

        /// Changes waiter `id` in place; false when it is no longer waiting.
        mutating func update(id: Int, _ change: (inout DeadlineWaiter<Int>) -> Void) -> Bool {
            switch phase {
            case var .notStarted(waiters):
                guard var waiter = waiters[id] else { return false }
                change(&waiter)
                waiters[id] = waiter
                phase = .notStarted(waiters: waiters)
            case var .binding(waiters):
                guard var waiter = waiters[id] else { return false }
                change(&waiter)
                waiters[id] = waiter
                phase = .binding(waiters: waiters)
            case .listening, .stopped:
                return false
            }
            return true
        }

        /// Takes waiter `id` back; nil when it has been answered.
        mutating func removeWaiter(id: Int) -> DeadlineWaiter<Int>? {
            switch phase {
            case var .notStarted(waiters):
                defer { phase = .notStarted(waiters: waiters) }
                return waiters.removeValue(forKey: id)
            case var .binding(waiters):
                defer { phase = .binding(waiters: waiters) }
                return waiters.removeValue(forKey: id)
            case .listening, .stopped:
                return nil
            }
        }
    }

    /// A server for `host:port` (port 0: any free port, see `port()`); `run` listens.
    public init(
        host: String = "127.0.0.1", port: Int, configuration: ServerConfiguration = ServerConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.host = host
        self.requestedPort = port
        self.configuration = configuration
        self.group = eventLoopGroup
    }

    /// The port listened on, once `run` has bound it (the one the system chose for port 0),
    /// waiting for that up to `timeout`. Throws the error if binding failed,
    /// `FrameServerError.notListening` after `timeout` or once `run` has returned, and
    /// `CancellationError` if the calling task is cancelled.
    public func port(within timeout: Duration = .seconds(10)) async throws -> Int {
        let id = listening.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await DeadlineWaiter<Int>.wait(
            within: timeout, on: group.any(),
            enroll: { waiter in listening.withLockedValue { $0.wait(id: id, waiter) } },
            arm: { timer in listening.withLockedValue { $0.update(id: id) { $0.arm(timer) } } },
            takeBack: { [listening] in listening.withLockedValue { $0.removeWaiter(id: id) } },
            timeoutError: { FrameServerError.notListening(after: timeout) })
    }

    /// Listens, then accepts connections and serves them with `handler` until the task is
    /// cancelled, which closes every connection and cancels the handlers running; `run`
    /// returns once every connection has closed and every handler has returned.
    /// Each connection's requests are handled one at a time, in order. Called while it is
    /// running, `run` throws `FrameServerError.alreadyRunning`; after it has returned, it
    /// listens again.
    public func run(handler: @escaping Handler) async throws {
        try await serve(.inTasks(handler))
    }

    /// Runs the server as `run(handler:)` does, answering each request with `handler` inside
    /// the event loop's read, the way a handler in a NIO pipeline answers: no task and no
    /// thread hop per request, and the replies of one read go out with one flush. The handler
    /// must not block or compute for long: it holds up every connection of its event loop
    /// (for handlers that await, see `ServerConfiguration.handlersRunOnEventLoop`). While a
    /// peer does not read its replies, the server stops reading its requests.
    public func runOnEventLoop(handler: @escaping SynchronousHandler) async throws {
        try await serve(.onEventLoop(handler))
    }

    /// How `run` and `runOnEventLoop` call their handler.
    private enum Handlers: Sendable {
        case inTasks(Handler)
        case onEventLoop(SynchronousHandler)
    }

    private func serve(_ handlers: Handlers) async throws {
        // From here, `port()` waits for this run's port, not the last run's end.
        guard listening.withLockedValue({ $0.start() }) else { throw FrameServerError.alreadyRunning }
        connections.withLockedValue { $0.start() }
        let listener: any Channel
        do {
            listener = try await bind(handlers)
        } catch {
            settle(.failure(error))
            throw error
        }
        settle(.success(listener.localAddress?.port ?? requestedPort))
        defer { settle(.failure(FrameServerError.stopped)) }
        await withTaskCancellationHandler {
            try? await listener.closeFuture.get()
        } onCancel: {
            listener.close(promise: nil)
        }
        await closeEveryConnection()
    }

    /// Closes every connection and waits until each is done with.
    private func closeEveryConnection() async {
        let open = connections.withLockedValue { $0.stop() }
        for connection in open { connection.stop() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            connections.withLockedValue { $0.waitUntilEmpty(continuation) }?.resume()
        }
    }

    /// Takes a connection accepted while listening; nil once `run` is stopping.
    private func admit(_ channel: any Channel, handlers: Handlers) -> ServedConnection? {
        let admitted = connections.withLockedValue { connections in
            connections.admit { id in makeConnection(id: id, channel, handlers: handlers) }
        }
        // The close future, not channelInactive: a channel closed before it became active
        // (`run` stopping just as it was accepted) never reports itself inactive.
        if let admitted { channel.closeFuture.whenComplete { _ in admitted.channelClosed() } }
        return admitted
    }

    private func makeConnection(id: Int, _ channel: any Channel, handlers: Handlers) -> ServedConnection {
        let handling: ServedConnection.Handling =
            switch handlers {
            case let .inTasks(handler):
                .inTasks(
                    onEventLoop: configuration.handlersRunOnEventLoop,
                    handle: { [self] in await handle($0, on: $1, with: handler) })
            case let .onEventLoop(handler):
                .onEventLoop { [self] in answer($0, on: $1, with: handler, close: &$2) }
            }
        return ServedConnection(
            id: id, channel: channel,
            chain: InterceptorChain(configuration.interceptors, side: .server, channel: channel, table: Table.self),
            logger: configuration.logger, handling: handling, done: { [self] in remove($0) })
    }

    private func remove(_ connection: ServedConnection) {
        connections.withLockedValue { $0.remove(id: connection.id) }?.resume()
    }

    /// Listening on a port, or not (binding failed, or `run` returned): answers `port()`.
    private func settle(_ result: Result<Int, any Error>) {
        let waiters = listening.withLockedValue { $0.settle(result) }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func bind(_ handlers: Handlers) async throws -> any Channel {
        let idle = configuration.idleTimeout
        let tls = try ServerTLSSetup(configuration)
        let slicing = BoxedSlicer.Recipe(layout: Table.layout)
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try tls.addHandlers(to: pipeline)
                    guard let connection = admit(channel, handlers: handlers) else { throw FrameServerError.stopped }
                    do {
                        if let idle {
                            try pipeline.addHandlers(
                                IdleStateHandler(readTimeout: TimeAmount(idle)), CloseWhenIdle(connection))
                        }
                        let slices = FrameSliceHandler(slicing)
                        try pipeline.addHandlers(
                            slices, ServingHandler(connection, after: slices, layout: Table.layout))
                    } catch {
                        remove(connection)
                        throw error
                    }
                }
            }
            .bind(host: host, port: requestedPort)
            .get()
    }

    /// A frame through the interceptors; nil when one refused it (logged: the connection closes).
    private func intercepted(_ received: Frame, on connection: ServedConnection) -> Frame? {
        do {
            return try connection.writer.chain.inbound(received)
        } catch {
            connection.logger.warning(
                "closing the connection: a frame was refused",
                metadata: [
                    "peer": "\(connection.peer)", "command": "\(Table.commandID(of: received))", "error": "\(error)",
                ])
            return nil
        }
    }

    /// Logs a request that does not decode (the frame is skipped).
    private func skipping(_ header: FrameHeader, on connection: ServedConnection, for error: WireError) {
        connection.logger.warning(
            "request does not decode; skipped",
            metadata: [
                "peer": "\(connection.peer)", "command": "\(heading.commandID(of: header))", "error": "\(error)",
            ])
    }

    /// Logs why a handler's error closes its connection.
    private func closing(_ connection: ServedConnection, for error: any Error) {
        if error is CancellationError {
            connection.logger.debug("connection closed: the server stops", metadata: ["peer": "\(connection.peer)"])
        } else {
            connection.logger.warning(
                "connection closed", metadata: ["peer": "\(connection.peer)", "error": "\(error)"])
        }
    }

    /// One frame through the interceptors, the decoder and the handler, and its reply queued.
    /// False when the connection must close.
    private func handle(_ received: Frame, on connection: ServedConnection, with handler: Handler) async -> Bool {
        guard let frame = intercepted(received, on: connection) else { return false }
        // The request is held in a variable assigned in a `do`, not in a tuple or an optional:
        // those are generic types, made at run time at each request in unspecialized code.
        let request: Table.Request
        do {
            request = try Table.decodeRequest(frame)
        } catch {
            skipping(frame.header, on: connection, for: error)
            return true
        }
        do {
            let context = RequestContext<Table>(
                connection: connection.id, header: frame.header, writer: connection.writer, heading: heading)
            guard let reply = try await handler(request, context) else { return true }
            do {
                try await connection.writer.queue(heading.reply(reply, answering: frame.header))?.get()
            } catch  where !connection.channel.isActive {
                // The peer has gone: requests it sent before are still handled, unanswered.
            }
            return true
        } catch {
            closing(connection, for: error)
            return false
        }
    }

    /// One frame answered inside the event loop's read (`runOnEventLoop`): the reply to write,
    /// or nil, with `close` set when the connection must close.
    private func answer(
        _ slice: FrameSlice, on connection: ServedConnection, with handler: SynchronousHandler,
        close: inout Bool
    ) -> OutboundFrame? {
        // Without inbound interceptors the request is decoded where it lies in the read.
        var seen: Frame?
        if !connection.writer.chain.inbound.isEmpty {
            seen = intercepted(slice.copy(), on: connection)
            if seen == nil {
                close = true
                return nil
            }
        }
        let header = seen?.header ?? slice.header
        let request: Table.Request
        do {
            if let seen {
                request = try Table.decodeRequest(seen)
            } else {
                request = try Table.decodeRequest(slice)
            }
        } catch {
            skipping(header, on: connection, for: error)
            return nil
        }
        do {
            let context = RequestContext<Table>(
                connection: connection.id, header: header, writer: connection.writer, heading: heading)
            guard let reply = try handler(request, context) else { return nil }
            return try connection.writer.chain.outbound(heading.reply(reply, answering: header))
        } catch {
            closing(connection, for: error)
            close = true
            return nil
        }
    }

    /// The connections open now.
    public var connectionIDs: [Int] { connections.withLockedValue { $0.byID.keys.sorted() } }

    /// Frames read from a connection and not yet handled, now and at most (for tests).
    func queued(on connection: Int) -> (now: Int, most: Int)? {
        connections.withLockedValue { $0.byID[connection] }?.queued
    }

    /// Writes a push to one connection (sequence 0 where the layout numbers frames).
    public func push(_ frame: ServerFrame, to connection: Int) async throws {
        guard let connection = connections.withLockedValue({ $0.byID[connection] }) else { return }
        try await connection.writer.write(heading.push(frame))
    }

    /// Queues a push to one connection without waiting, as `RequestContext.push(_:)` does
    /// (for a handler that cannot await: `runOnEventLoop`).
    public func push(_ frame: ServerFrame, to connection: Int) throws {
        guard let connection = connections.withLockedValue({ $0.byID[connection] }) else { return }
        try connection.writer.queueUnlessFull(heading.push(frame))
    }

    /// Writes a push to every connection; a connection that fails to take it is skipped.
    public func broadcast(_ frame: ServerFrame) async {
        for connection in connectionIDs { try? await push(frame, to: connection) }
    }

    /// Queues a push to every connection without waiting; a connection that does not take it
    /// (full or closed) is skipped. Returns how many took it.
    @discardableResult
    public func broadcast(_ frame: ServerFrame) -> Int {
        let open = connections.withLockedValue { Array($0.byID.values) }
        let push = heading.push(frame)
        return open.reduce(0) { taken, connection in
            (try? connection.writer.queueUnlessFull(push)) == nil ? taken : taken + 1
        }
    }
}
