import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame

/// A server's settings.
public struct ServerConfiguration: Sendable {
    /// A connection that sends nothing for this long is closed (default 5 minutes; nil: never).
    public var idleTimeout: Duration? = .seconds(300)
    /// What every frame received and sent passes through, in order (see `FrameInterceptor`).
    /// A request an interceptor refuses closes its connection.
    public var interceptors: [any FrameInterceptor] = []
    #if TLS
    /// TLS (with the `TLS` trait): nil, the default, for plain TCP.
    public var tls: ServerTLS?
    #endif
    public var logger = Logger(label: "swiftframe.server")

    public init() {}
}

/// Why `FrameServer.port()` has no port to give.
public enum FrameServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `run` did not bind within `after`.
    case notListening(after: Duration)
    /// `run` has returned.
    case stopped

    public var description: String {
        switch self {
        case let .notListening(after): "the server did not listen within \(after)"
        case .stopped: "the server has stopped"
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
        self.init(command: M.commandID, payload: try message.serializedBytes())
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

    /// Writes a push to this connection (sequence 0 where the layout numbers frames).
    public func push(_ frame: ServerFrame) async throws {
        try await writer.write(OutboundFrame(header: FrameServer<Table>.header(frame.command, sequence: 0), payload: frame.payload))
    }
}

/// Writes a connection's frames through its interceptors.
struct ServerWriter: Sendable {
    let output: NIOAsyncChannelOutboundWriter<OutboundFrame>
    let chain: InterceptorChain

    func write(_ frame: OutboundFrame) async throws {
        try await output.write(chain.outbound(frame))
    }
}

/// A server for one command table. Each connection's requests are decoded with
/// `Table.decodeRequest` and handed to the handler one at a time, in order; the frame it
/// returns is written back under the request's sequence number. A connection that sends a
/// bad frame (bad magic, absurd length, unknown type) is closed with a logged `FrameError`;
/// other connections go on.
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

    public let host: String
    public let configuration: ServerConfiguration
    private let requestedPort: Int
    private let group: any EventLoopGroup
    private let connections = NIOLockedValueBox<[Int: ServerWriter]>([:])
    private let listening = NIOLockedValueBox(Listening())

    private struct Listening {
        var port: Int?
        /// Why `port()` cannot answer: binding failed, or `run` has returned.
        var failure: (any Error)?
        var nextConnection = 0
        var nextWaiter = 0
        var waiters: [Int: (continuation: CheckedContinuation<Int, any Error>, timer: Scheduled<Void>?)] = [:]
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
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Int, any Error>? = listening.withLockedValue { state in
                    if let port = state.port { return .success(port) }
                    if let failure = state.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = (continuation, nil)
                    return nil
                }
                if let ready {
                    continuation.resume(with: ready)
                    return
                }
                let timer = group.any().scheduleTask(in: TimeAmount(timeout)) { [self] in
                    resumeWaiter(id, with: .failure(FrameServerError.notListening(after: timeout)))
                }
                let waiting = listening.withLockedValue { state in
                    state.waiters[id]?.timer = timer
                    return state.waiters[id] != nil
                }
                if !waiting { timer.cancel() }
            }
        } onCancel: {
            resumeWaiter(id, with: .failure(CancellationError()))
        }
    }

    private func resumeWaiter(_ id: Int, with result: Result<Int, any Error>) {
        let waiter = listening.withLockedValue { $0.waiters.removeValue(forKey: id) }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(with: result)
    }

    /// Listens, then accepts connections and serves them with `handler` until the task is
    /// cancelled, which closes every connection (those accepted and not yet served included).
    /// Each connection's requests are handled one at a time, in order.
    public func run(handler: @escaping Handler) async throws {
        let listener: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            listener = try await bind()
        } catch {
            settle(.failure(error))
            throw error
        }
        settle(.success(listener.channel.localAddress?.port ?? requestedPort))
        defer { settle(.failure(FrameServerError.stopped)) }
        try await withTaskCancellationHandler {
            try await listener.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection, handler: handler) }
                    }
                }
            }
        } onCancel: {
            listener.channel.close(promise: nil)
        }
    }

    /// Listening on a port, or not (binding failed, or `run` returned): answers `port()`.
    private func settle(_ result: Result<Int, any Error>) {
        let waiters = listening.withLockedValue { state in
            switch result {
            case let .success(port): (state.port, state.failure) = (port, nil)
            case let .failure(error): (state.port, state.failure) = (nil, error)
            }
            defer { state.waiters.removeAll() }
            return state.waiters.values
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(with: result)
        }
    }

    private func bind() async throws -> NIOAsyncChannel<AcceptedConnection, Never> {
        let idle = configuration.idleTimeout
        let tls = try ServerTLSSetup(configuration)
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: requestedPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try tls.addHandlers(to: pipeline)
                    if let idle {
                        try pipeline.addHandlers(IdleStateHandler(readTimeout: TimeAmount(idle)), CloseWhenIdle())
                    }
                    try pipeline.addHandlers(
                        ByteToMessageHandler(FrameDecoderHandler(layout: Table.layout)),
                        MessageToByteHandler(FrameEncoderHandler(layout: Table.layout)))
                    return AcceptedConnection(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            }
    }

    /// The connections open now.
    public var connectionIDs: [Int] { connections.withLockedValue { $0.keys.sorted() } }

    /// Writes a push to one connection (sequence 0 where the layout numbers frames).
    public func push(_ frame: ServerFrame, to connection: Int) async throws {
        guard let writer = connections.withLockedValue({ $0[connection] }) else { return }
        try await writer.write(OutboundFrame(header: Self.header(frame.command, sequence: 0), payload: frame.payload))
    }

    /// Writes a push to every connection; a connection that fails to take it is skipped.
    public func broadcast(_ frame: ServerFrame) async {
        for connection in connectionIDs { try? await push(frame, to: connection) }
    }

    static func header(_ command: UInt32, sequence: UInt64?) -> FrameHeader {
        let hasSequence = Table.layout.sequenceField != nil
        return Table.layout.header(command: command, sequence: hasSequence ? sequence ?? 0 : nil)
    }

    private func serve(_ accepted: AcceptedConnection, handler: Handler) async {
        let connection = accepted.take()
        let id = listening.withLockedValue { state in
            state.nextConnection += 1
            return state.nextConnection
        }
        let logger = configuration.logger
        let channel = connection.channel
        let peer = channel.remoteAddress.map { "\($0)" } ?? "?"
        let chain = InterceptorChain(configuration.interceptors, side: .server, channel: channel, table: Table.self)
        do {
            try await connection.executeThenClose { inbound, output in
                let outbound = ServerWriter(output: output, chain: chain)
                connections.withLockedValue { $0[id] = outbound }
                defer { _ = connections.withLockedValue { $0.removeValue(forKey: id) } }
                for try await received in inbound {
                    let frame: Frame
                    do {
                        frame = try chain.inbound(received)
                    } catch {
                        logger.warning("closing the connection: a frame was refused", metadata: [
                            "peer": "\(peer)", "command": "\(Table.commandID(of: received))", "error": "\(error)"])
                        return
                    }
                    let request: Table.Request
                    do {
                        request = try Table.decodeRequest(frame)
                    } catch {
                        logger.warning("request does not decode; skipped", metadata: [
                            "peer": "\(peer)", "command": "\(Table.commandID(of: frame))", "error": "\(error)"])
                        continue
                    }
                    let context = RequestContext<Table>(connection: id, header: frame.header, writer: outbound)
                    if let reply = try await handler(request, context) {
                        try await outbound.write(OutboundFrame(
                            header: Self.header(reply.command, sequence: frame.header.sequence), payload: reply.payload))
                    }
                }
            }
        } catch is CancellationError {
            logger.debug("connection closed: the server stops", metadata: ["peer": "\(peer)"])
        } catch {
            logger.warning("connection closed", metadata: ["peer": "\(peer)", "error": "\(error)"])
        }
    }
}

/// A connection accepted by the listener, on its way to `serve`.
///
/// The listener hands connections over through its async sequence, which drops those it still
/// holds when the task iterating it is cancelled (when `run` stops). A `NIOAsyncChannel`
/// released before its `executeThenClose` ran traps the process ("Deinited NIOAsyncWriter
/// without calling finish()", swift-nio issue 2813), so a connection released before `serve`
/// took it closes itself through `executeThenClose`, in a task of its own.
private final class AcceptedConnection: Sendable {
    private let channel: NIOAsyncChannel<Frame, OutboundFrame>
    private let taken = NIOLockedValueBox(false)

    init(_ channel: NIOAsyncChannel<Frame, OutboundFrame>) {
        self.channel = channel
    }

    /// The connection, for `serve`, which closes it.
    func take() -> NIOAsyncChannel<Frame, OutboundFrame> {
        taken.withLockedValue { $0 = true }
        return channel
    }

    deinit {
        guard !taken.withLockedValue({ $0 }) else { return }
        let channel = channel
        Task { try? await channel.executeThenClose { _, _ in } }
    }
}

/// Closes a connection when `IdleStateHandler` reports that it has been silent too long.
private final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
