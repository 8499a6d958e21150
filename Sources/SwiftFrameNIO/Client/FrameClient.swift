import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame

/// A long connection to a server of one command table: typed requests and replies, pushes,
/// heartbeat and reconnect.
///
///     let client = FrameClient<GameCommands>(host: "game.example.com", port: 9000)
///     try await withThrowingDiscardingTaskGroup { group in
///         group.addTask { try await client.run() }           // connects, and again after drops
///         group.addTask { for await push in client.pushes { handle(push) } }
///         let reply = try await client.request(TestReq(param1: "hello", param2: 21))  // TestRsp
///         ...
///     }
///
/// `run()` owns the connection for as long as its task runs: cancel the task to close it.
/// Requests made while no connection is up wait for one, up to their deadline. When a
/// connection drops, every request awaiting a reply fails at once with
/// `FrameClientError.connectionLost`; `run()` then waits the backoff delay and connects again,
/// calling `onConnect` (the app's login) on each new connection before queued requests go out.
public final class FrameClient<Table: CommandTable>: Sendable {
    public let host: String
    public let port: Int
    public let configuration: ClientConfiguration
    /// Everything the server sends that is not a reply: pushes, server events, unknown
    /// commands. At most `pushBufferSize` wait for the app; then `pushOverflow` applies.
    /// One reader at a time.
    public let pushes: AsyncStream<Table.Inbound>
    /// Connection state changes, newest 64 kept. One reader at a time.
    public let states: AsyncStream<ConnectionState>

    private let group: any EventLoopGroup
    private let bootstrap: @Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap
    private let onConnect: (@Sendable (Connection<Table>) async throws -> Void)?
    private let pushInput: AsyncStream<Table.Inbound>.Continuation
    private let stateInput: AsyncStream<ConnectionState>.Continuation
    private let state = NIOLockedValueBox(State())

    private struct State {
        var running = false
        var stopped = false
        var connection: Connection<Table>?
        var waiters: [Int: CheckedContinuation<Connection<Table>, any Error>] = [:]
        var nextWaiter = 0
        /// The backoff wait in progress, ended early by `reconnectNow()`.
        var sleeper: (id: Int, continuation: CheckedContinuation<Void, Never>)?
        var wakeEarly = false
        var droppedPushes = 0
    }

    /// A client of the server at `host`:`port`; `run()` connects it.
    /// - Parameters:
    ///   - host: the server's name or address.
    ///   - port: the server's TCP port.
    ///   - configuration: deadlines, heartbeat, reconnect backoff and limits.
    ///   - onConnect: runs on every new connection before it takes requests, typically the
    ///     login. If it throws, the connection is dropped and made again after the backoff.
    ///   - bootstrap: makes the bootstrap to connect with; the default is NIO's `ClientBootstrap`
    ///     on `eventLoopGroup`. On Apple platforms pass one on Network.framework:
    ///     `{ _ in NIOClientTCPBootstrap(NIOTSConnectionBootstrap(group: NIOTSEventLoopGroup.singleton), tls: NIOInsecureNoTLS()) }`
    ///     (with `eventLoopGroup: NIOTSEventLoopGroup.singleton`); TLS goes in the same place.
    ///   - eventLoopGroup: the event loops the connection runs on.
    public init(
        host: String, port: Int, configuration: ClientConfiguration = ClientConfiguration(),
        onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        bootstrap: (@Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap)? = nil
    ) {
        self.host = host
        self.port = port
        self.configuration = configuration
        self.group = eventLoopGroup
        self.bootstrap = bootstrap ?? { group in NIOClientTCPBootstrap(ClientBootstrap(group: group), tls: NIOInsecureNoTLS()) }
        self.onConnect = onConnect
        (pushes, pushInput) = AsyncStream.makeStream(
            bufferingPolicy: configuration.pushOverflow == .dropOldest
                ? .bufferingNewest(configuration.pushBufferSize) : .bufferingOldest(configuration.pushBufferSize))
        (states, stateInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Pushes dropped so far because the app did not keep up (see `pushOverflow`).
    public var droppedPushes: Int { state.withLockedValue { $0.droppedPushes } }

    // MARK: Requests

    /// `Connection.request(_:timeout:)` on the current connection, waiting for one (within the
    /// same deadline) while the client is connecting.
    public func request<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration? = nil
    ) async throws -> M.Response where M.Response: CommandMessage {
        try await onAConnection(timeout: timeout) { connection, remaining in
            try await connection.unsentRequest(message, timeout: remaining)
        }
    }

    /// `Connection.request(command:payload:replyCommand:timeout:)` on the current connection.
    public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, timeout: Duration? = nil
    ) async throws -> Table.Inbound {
        try await onAConnection(timeout: timeout) { connection, remaining in
            try await connection.unsentRequest(command: command, payload: payload, replyCommand: replyCommand,
                                               timeout: remaining)
        }
    }

    /// Runs `body` on the current connection, or the next within `timeout`; again on the next
    /// one if the connection had closed before the request went out.
    private func onAConnection<T>(
        timeout: Duration?, _ body: (Connection<Table>, Duration) async throws -> T
    ) async throws -> T {
        let timeout = timeout ?? configuration.requestTimeout
        let deadline = ContinuousClock.now + timeout
        while true {
            let connection: Connection<Table>
            do {
                connection = try await self.connection(within: deadline - ContinuousClock.now)
            } catch FrameClientError.noConnection {
                throw FrameClientError.noConnection(after: timeout)  // the request's whole deadline
            }
            do {
                return try await body(connection, deadline - ContinuousClock.now)
            } catch let FrameClientError.timedOut(command, _) {
                throw FrameClientError.timedOut(command: command, after: timeout)  // the whole deadline
            } catch is NotSent {
                retire(connection)
                if ContinuousClock.now >= deadline { throw FrameClientError.noConnection(after: timeout) }
            }
        }
    }

    /// Stops handing out `connection` (found closed by a request, or ended under `run()`).
    private func retire(_ connection: Connection<Table>) {
        state.withLockedValue { state in
            if state.connection?.channel === connection.channel { state.connection = nil }
        }
    }

    /// Sends without waiting for a reply, once connected (within the request timeout).
    public func send<M: CommandMessage>(_ message: M) async throws {
        try await connection(within: configuration.requestTimeout).send(message)
    }

    /// Sends a frame under any command with a raw body, once connected.
    public func send(command: UInt32, payload: [UInt8] = []) async throws {
        try await connection(within: configuration.requestTimeout).send(command: command, payload: payload)
    }

    /// Drops the current connection, or ends the backoff wait, so that the client connects
    /// again at once (after the app comes back to the foreground, or the network changed).
    public func reconnectNow() {
        let (connection, sleeper) = state.withLockedValue { state in
            state.wakeEarly = state.sleeper == nil && state.connection == nil
            defer { state.sleeper = nil }
            return (state.connection, state.sleeper?.continuation)
        }
        sleeper?.resume()
        connection?.reconnect()
    }

    /// The current connection, or the next one within `timeout`.
    public func connection(within timeout: Duration) async throws -> Connection<Table> {
        let fast: Result<Connection<Table>, FrameClientError>? = state.withLockedValue { state in
            if let connection = state.connection { return .success(connection) }
            return state.stopped ? .failure(.stopped) : nil
        }
        if let fast { return try fast.get() }
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Connection<Table>, any Error>) in
                let ready: Result<Connection<Table>, any Error>? = state.withLockedValue { state in
                    if let connection = state.connection { return .success(connection) }
                    if state.stopped { return .failure(FrameClientError.stopped) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(with: ready)
                    return
                }
                group.any().scheduleTask(in: TimeAmount(timeout)) { [self] in
                    takeWaiter(id)?.resume(throwing: FrameClientError.noConnection(after: timeout))
                }
            }
        } onCancel: {
            takeWaiter(id)?.resume(throwing: CancellationError())
        }
    }

    private func takeWaiter(_ id: Int) -> CheckedContinuation<Connection<Table>, any Error>? {
        state.withLockedValue { $0.waiters.removeValue(forKey: id) }
    }

    // MARK: Running

    /// Connects, and reconnects after every drop with the configured backoff, until the task
    /// is cancelled (returns) or the attempts run out (throws `FrameClientError.gaveUp`).
    /// Call it once.
    public func run() async throws {
        let alreadyRan = state.withLockedValue { state in
            defer { state.running = true }
            return state.running
        }
        guard !alreadyRan else { throw FrameClientError.stopped }
        defer { stop() }
        var attempt = 0
        stateInput.yield(.connecting)
        while !Task.isCancelled {
            let reason = await connectAndServe(onSuccess: { attempt = 0 })
            stateInput.yield(.disconnected(reason))
            if Task.isCancelled { break }
            attempt += 1
            if let limit = configuration.reconnect.maxAttempts, attempt > limit {
                throw FrameClientError.gaveUp(attempts: attempt, last: reason)
            }
            let delay = configuration.reconnect.jittered(attempt: attempt)
            stateInput.yield(.reconnecting(attempt: attempt, delay: delay))
            await sleep(delay)
        }
    }

    /// One connection from connecting to its end: the reason it ended.
    private func connectAndServe(onSuccess: () -> Void) async -> DisconnectReason {
        let channel: any Channel
        do {
            channel = try await connect()
        } catch {
            configuration.logger.notice("connect failed", metadata: ["host": "\(host)", "port": "\(port)", "error": "\(error)"])
            return .connectFailed(String(describing: error))
        }
        let connection = Connection<Table>(channel: channel, configuration: configuration)
        return await withTaskCancellationHandler {
            do {
                let closed = try await connection.closeReason
                if let onConnect {
                    do {
                        try await onConnect(connection)
                    } catch {
                        // The connection itself ended (a heartbeat timeout, a bad frame): say so.
                        if !channel.isActive { return try await closed.get() }
                        try? await channel.close()
                        return .handshakeFailed(String(describing: error))
                    }
                }
                publish(connection)
                onSuccess()
                let reason = try await closed.get()
                retire(connection)
                return reason
            } catch {
                retire(connection)
                return .transportError(String(describing: error))
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    private func connect() async throws -> any Channel {
        let pushInput = pushInput
        let logger = configuration.logger
        let configuration = configuration
        let state = state
        let push: @Sendable (Frame) -> Void = { frame in
            do {
                if case .dropped = pushInput.yield(try Table.decode(frame)) {
                    let count = state.withLockedValue { state in
                        state.droppedPushes += 1
                        return state.droppedPushes
                    }
                    if count & (count - 1) == 0 {  // 1, 2, 4, 8, ...: logged, not flooded
                        logger.warning("pushes dropped: the app does not keep up", metadata: ["dropped": "\(count)"])
                    }
                }
            } catch {
                logger.warning("a push does not decode; dropped", metadata: ["command": "\(Table.commandID(of: frame))", "error": "\(error)"])
            }
        }
        return try await bootstrap(group)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(FrameDecoderHandler(layout: Table.layout)),
                        ConnectionHandler<Table>(configuration: configuration, eventLoop: channel.eventLoop, push: push))
                }
            }
            .connect(host: host, port: port)
            .get()
    }

    private func publish(_ connection: Connection<Table>) {
        let waiters = state.withLockedValue { state in
            state.connection = connection
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        stateInput.yield(.connected)
        for waiter in waiters { waiter.resume(returning: connection) }
    }

    private func stop() {
        let waiters = state.withLockedValue { state in
            state.stopped = true
            state.connection = nil
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: FrameClientError.stopped) }
        stateInput.yield(.stopped)
        stateInput.finish()
        pushInput.finish()
    }

    /// Waits `delay`, or less if `reconnectNow()` is called or the task is cancelled.
    private func sleep(_ delay: Duration) async {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { state in
                    if state.wakeEarly || Task.isCancelled {
                        state.wakeEarly = false
                        return true
                    }
                    state.sleeper = (id, continuation)
                    return false
                }
                if now {
                    continuation.resume()
                    return
                }
                group.any().scheduleTask(in: TimeAmount(delay)) { [self] in wake(id) }
            }
        } onCancel: {
            wake(id)
        }
    }

    private func wake(_ id: Int) {
        let sleeper = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard let sleeper = state.sleeper, sleeper.id == id else { return nil }
            state.sleeper = nil
            return sleeper.continuation
        }
        sleeper?.resume()
    }
}
