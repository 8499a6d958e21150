import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame

/// A long connection to a server of one command table: typed requests and replies, pushes,
/// heartbeat and reconnect. Most code makes one with `withFrameClient`, which runs it for as
/// long as a closure runs:
///
///     try await withFrameClient(GameCommands.self, host: "game.example.com", port: 9000) { client in
///         let reply = try await client.request(TestReq(param1: "hello", param2: 21))  // TestRsp
///     }
///
/// Or make one and run it in a task group or a service: `run()` owns the connection for as long
/// as its task runs (cancel the task to close it). Requests made while no connection is up
/// wait for one, up to their deadline. When a connection drops, every request awaiting a reply
/// fails at once with `FrameClientError.connectionLost`; `run()` then waits the backoff delay
/// and connects again, calling `onConnect` (the app's login) on each new connection before
/// queued requests go out.
public final class FrameClient<Table: CommandTable>: Sendable {
    /// Where the server listens, in the app's order of preference (see `init(endpoints:...)`).
    public let endpoints: [Endpoint]
    public let configuration: ClientConfiguration

    /// The first endpoint's host.
    public var host: String { endpoints[0].host }
    /// The first endpoint's port.
    public var port: Int { endpoints[0].port }

    let group: any EventLoopGroup
    private let bootstrap: @Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap
    private let onConnect: (@Sendable (Connection<Table>) async throws -> Void)?
    let pushFeed: Broadcast<Table.Inbound>
    private let stateFeed: Broadcast<ConnectionState>
    let machine: NIOLockedValueBox<Machine>
    /// `eventLoopExecutor`: one per client, so that a request can tell a task that prefers it.
    let loopExecutor: EventLoopTaskExecutor
    /// Requests sent again after a drop, across the client (`RetryLimits.perMinute`).
    let retryBudget: NIOLockedValueBox<RetryBudget>
    /// One per endpoint (the server name checked is the endpoint's host unless set).
    private let tls: [ClientTLSSetup]
    /// The heartbeat's interval, shared by the connections; nil without a heartbeat.
    private let heartbeat: ClientHeartbeat?
    #if Metrics
    private let counters: ClientCounters?
    #endif

    /// Of types that do not depend on `Table` (see `Link`).
    typealias Machine = ClientStateMachine<Link, LinkWaiter, ClientJob>

    /// A client of the server at `host`:`port`; `run()` connects it.
    /// - Parameters:
    ///   - host: the server's name or address (a name that resolves to several addresses has
    ///     them raced by NIO's Happy Eyeballs).
    ///   - port: the server's TCP port.
    ///   - configuration: deadlines, heartbeat, reconnect backoff and limits.
    ///   - onConnect: runs on every new connection before it takes requests, typically the
    ///     login. If it throws, the connection is dropped and made again after the backoff;
    ///     if it throws a `FinalFailure`, the client stops and `run()` throws its error.
    ///   - bootstrap: makes the bootstrap to connect with; the default is NIO's `ClientBootstrap`
    ///     on `eventLoopGroup`. On Apple platforms pass one on Network.framework:
    ///     `{ _ in NIOClientTCPBootstrap(NIOTSConnectionBootstrap(group: NIOTSEventLoopGroup.singleton), tls: NIOInsecureNoTLS()) }`
    ///     (with `eventLoopGroup: NIOTSEventLoopGroup.singleton`). `configuration.tls` adds
    ///     swift-nio-ssl to the pipeline of a bootstrap given here (do not enable TLS in it too);
    ///     without one, on Network.framework's event loops, Network.framework does the TLS.
    ///   - eventLoopGroup: the event loops the connection runs on.
    public convenience init(
        host: String, port: Int, configuration: ClientConfiguration = ClientConfiguration(),
        onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        bootstrap: (@Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap)? = nil
    ) {
        self.init(
            endpoints: [Endpoint(host: host, port: port)], configuration: configuration, onConnect: onConnect,
            eventLoopGroup: eventLoopGroup, bootstrap: bootstrap)
    }

    /// A client of a server that listens at several endpoints (addresses, ports, data
    /// centres), raced each time it connects: the first endpoint's attempt starts, and each
    /// `connectStagger` (250 ms by default) without a winner, or at once when an attempt
    /// fails, the next one's starts beside it. An attempt is the whole way to a usable
    /// connection (TCP, TLS, `onConnect`), so an endpoint that accepts connections but never
    /// answers the login loses to one that does. The first to finish wins and the others are
    /// cancelled and closed (`onConnect` must return when its task is cancelled, as requests
    /// do). The order is `endpoints`', except that the endpoint of the last good connection
    /// goes first on the next reconnect. Each endpoint's host is also the TLS server name,
    /// unless `ClientTLS.serverName` says otherwise. The other parameters are
    /// `init(host:port:...)`'s.
    public init(
        endpoints: [Endpoint], configuration: ClientConfiguration = ClientConfiguration(),
        onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        bootstrap: (@Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap)? = nil
    ) {
        precondition(!endpoints.isEmpty, "a client needs at least one endpoint")
        self.endpoints = endpoints
        self.configuration = configuration
        self.group = eventLoopGroup
        self.bootstrap =
            bootstrap ?? { group in NIOClientTCPBootstrap(ClientBootstrap(group: group), tls: NIOInsecureNoTLS()) }
        self.onConnect = onConnect
        pushFeed = Broadcast(bufferSize: configuration.pushBufferSize, overflow: configuration.pushOverflow)
        stateFeed = Broadcast(bufferSize: 64, overflow: .dropOldest, replaysLatest: true)
        let machine = NIOLockedValueBox(Machine(backoff: configuration.reconnect))
        self.machine = machine
        loopExecutor = EventLoopTaskExecutor(following: {
            machine.withLockedValue { $0.connection?.channel.eventLoop } ?? eventLoopGroup.any()
        })
        if let heartbeat = configuration.heartbeat, (heartbeat.command ?? Table.heartbeatCommand) != nil {
            self.heartbeat = ClientHeartbeat(
                pacer: NIOLockedValueBox(HeartbeatPacer(heartbeat)),
                isSuspended: { machine.withLockedValue { $0.suspended } })
        } else {
            self.heartbeat = nil
        }
        retryBudget = NIOLockedValueBox(RetryBudget(perMinute: configuration.retries.perMinute, now: .now))
        #if Metrics
        counters = configuration.metrics.map(ClientCounters.init)
        #endif
        tls = endpoints.map { endpoint in
            ClientTLSSetup(
                configuration: configuration, host: endpoint.host, group: eventLoopGroup,
                customBootstrap: bootstrap != nil)
        }
    }

    // MARK: Pushes and states

    /// A new subscription to everything the server sends that is not a reply: pushes, server
    /// events, unknown commands. Each subscription has its own buffer of `pushBufferSize`
    /// values, handled by `pushOverflow` when full; pushes that arrive while nobody subscribes
    /// wait (as many) for the first subscriber. Subscriptions end when `run()` returns.
    public var pushes: Subscription<Table.Inbound> { pushFeed.subscribe() }

    /// `pushes` with a buffer of its own size or overflow rule.
    public func subscribeToPushes(bufferSize: Int, overflow: PushOverflow = .dropOldest) -> Subscription<Table.Inbound>
    {
        pushFeed.subscribe(bufferSize: bufferSize, overflow: overflow)
    }

    /// A new subscription to the connection's state changes (the newest 64 kept for a reader
    /// that falls behind), starting with the current state when the client has one: a reader
    /// that subscribes after the connection came up first sees `.connected`. They end with
    /// `.stopped` when `run()` returns.
    public var states: Subscription<ConnectionState> { stateFeed.subscribe() }

    /// Pushes lost so far because a subscriber (or the wait for the first) did not keep up.
    public var droppedPushes: Int { pushFeed.dropped }

    // MARK: Requests

    /// `Connection.request(_:timeout:)` on the current connection, waiting for one (within the
    /// same deadline) while the client is connecting.
    ///
    /// Like every request and send, it runs on the caller's actor: called from the main actor,
    /// the message is encoded there and the reply decoded there, with no hop to Swift's global
    /// pool on either side of the round trip.
    nonisolated(nonsending) public func request<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration? = nil
    ) async throws -> M.Response where M.Response: CommandMessage {
        try await onAConnection(command: M.commandID, timeout: timeout) { link, remaining in
            try await link.unsentRequest(
                message, of: Table.self, extras: configuration.headerExtras, timeout: remaining)
        }
    }

    /// `Connection.request(command:payload:replyCommand:timeout:)` on the current connection.
    nonisolated(nonsending) public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, timeout: Duration? = nil
    ) async throws -> Table.Inbound {
        try await onAConnection(command: command, timeout: timeout) { link, remaining in
            try await link.unsentRequest(
                command: command, payload: payload, replyCommand: replyCommand, of: Table.self,
                extras: configuration.headerExtras, timeout: remaining)
        }
    }

    /// The client's event loop as a task executor: a task that prefers it
    /// (`withTaskExecutorPreference(client.eventLoopExecutor) { ... }`, or
    /// `Task(executorPreference:)`) runs on the loop of the current connection, so a request it
    /// makes is written without waking the loop's thread, and the reply resumes it in the same
    /// turn of the loop, without waking a thread of Swift's pool: a thread hop fewer each way.
    /// For code that mostly awaits the connection (a loop of requests, a reader of pushes);
    /// code that blocks or computes for long there holds up the connection's reads and writes,
    /// and those of every other channel of that loop.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public var eventLoopExecutor: any TaskExecutor { loopExecutor }

    /// A task that prefers `eventLoopExecutor` but runs off `link`'s loop moves there, before it
    /// writes: its last job was enqueued while no connection was ready, so went to any loop of
    /// the group. (Left there, a reply that came before the task began to wait would not move
    /// it either.) Other tasks, and one already on the loop, go on at once.
    @inline(__always)
    nonisolated(nonsending) func moveToTheLoop(of link: Link) async {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        let loop = link.channel.eventLoop
        guard !loop.inEventLoop,
            withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }) == loopExecutor.asUnownedTaskExecutor()
        else { return }
        // A hop, not a continuation resumed from the loop: a resume that came before the task
        // had suspended would leave it where it is. Entering another executor's preference
        // enqueues the task itself there once it has suspended; leaving it enqueues it to
        // `loopExecutor`, which sends it to the current connection's loop (`link`'s, unless
        // that closed meanwhile).
        await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {}
    }

    /// Runs `body` on the current connection, or the next within `timeout`; again on the next
    /// one if the connection had closed before the request went out.
    ///
    /// The closures passed here (and to `overLongLink` and `deliver`) take no capture list:
    /// with one, Swift 6.3 makes the closure leave the caller's actor for the global pool.
    ///
    /// Inlined, as are `overLongLink`, `Link.unsentRequest` and `Link.exchange`: each async call
    /// costs a frame taken from the task's allocator and given back, and an executor check on
    /// return, on the caller's side of every round trip.
    @inline(__always)
    private nonisolated(nonsending) func onAConnection<T>(
        command: UInt32, timeout: Duration?, _ body: nonisolated(nonsending) (Link, Duration) async throws -> T
    ) async throws -> T {
        let timeout = timeout ?? configuration.requestTimeout
        var retries = 0
        return try await overLongLink(
            command: command, timeout: timeout, until: .now + timeout, fallsBack: false, idempotent: false,
            retries: &retries, body)
    }

    /// Sends without waiting for a reply, once connected (within the request timeout).
    nonisolated(nonsending) public func send<M: CommandMessage>(_ message: M) async throws {
        try await connection(within: configuration.requestTimeout).send(message)
    }

    /// Sends a frame under any command with a raw body, once connected.
    nonisolated(nonsending) public func send(command: UInt32, payload: [UInt8] = []) async throws {
        try await connection(within: configuration.requestTimeout).send(command: command, payload: payload)
    }

    /// Drops the current connection, or ends the backoff wait, so that the client connects
    /// again at once (after the app comes back to the foreground, or the network changed).
    /// A login under way is called off (its connection closed) and the race starts again at once.
    public func reconnectNow() {
        perform(machine.withLockedValue { $0.reconnectNow() })
    }

    /// Carries out what the machine said to do on the app's call.
    private func perform(_ action: Machine.Action) {
        switch action {
        case let .close(connections, job):
            for connection in connections { connection.close() }
            job?.cancel()
        case let .cancel(job):
            job.cancel()
        case let .check(connection):
            connection.channel.triggerUserOutboundEvent(HeartbeatRequest.check, promise: nil)
        case let .resumeHeartbeat(connection):
            connection.channel.triggerUserOutboundEvent(HeartbeatRequest.resume, promise: nil)
        case .nothing:
            break
        }
    }

    // MARK: The network and the app's life

    /// How long the connections wait, idle, before a heartbeat: `Heartbeat.interval`, or in
    /// adaptive mode the interval learned so far. Nil without a heartbeat.
    public var heartbeatInterval: Duration? {
        heartbeat?.pacer.withLockedValue { $0.interval }
    }

    /// Tells the client that the network changed (call it from `NWPathMonitor`'s update handler,
    /// or a reachability callback). The connection is checked at once with a heartbeat and, if
    /// the answer does not come within `Heartbeat.checkTimeout` (default 3 s), dropped and made
    /// again after the first backoff delay (`.heartbeatTimeout(attempts: 1)`); without a
    /// heartbeat to check with, it is dropped at once.
    /// The backoff starts again from its first delay, a backoff wait ends now, and an adaptive
    /// heartbeat learns again from its first interval (the new network's NAT may be another).
    /// An attempt to connect already under way goes on, within its deadlines.
    public func networkChanged() {
        heartbeat?.pacer.withLockedValue { $0.reset() }
        perform(machine.withLockedValue { $0.networkChanged() })
    }

    /// The app goes to the background: no heartbeat is sent until `resume()`. The connection
    /// stays open (iOS freezes a suspended app's sockets anyway, and may let them live), requests
    /// still go out, and a drop is still reconnected.
    public func suspend() {
        perform(machine.withLockedValue { $0.suspend() })
    }

    /// The app is back in the foreground: if the connection has been silent (nothing sent or
    /// received) for longer than the heartbeat's interval, it is checked at once, as by
    /// `networkChanged()`, rather than at the next heartbeat; otherwise the heartbeat goes on.
    /// A backoff wait ends at once: the client connects now.
    public func resume() {
        perform(machine.withLockedValue { $0.resume() })
    }

    /// The current connection, or the next one within `timeout`. Throws
    /// `FrameClientError.noConnection` after `timeout`, `.stopped` (or the error `run()` ended
    /// with) once the client has stopped, and `CancellationError`.
    nonisolated(nonsending) public func connection(within timeout: Duration) async throws -> Connection<Table> {
        let link = try await link(within: timeout, unlessDown: false)
        await moveToTheLoop(of: link)
        return Connection(link, configuration: configuration)
    }

    /// `connection(within:)`'s link; with `unlessDown`, throws `LongLinkDown` at once, or once it
    /// happens, when the long connection is down (`ClientStateMachine.longLinkDown`).
    nonisolated(nonsending) func link(within timeout: Duration, unlessDown: Bool) async throws -> Link {
        if let link = machine.withLockedValue({ $0.connection }) { return link }
        let id = machine.withLockedValue { $0.newWaiterID() }
        return try await DeadlineWaiter<Link>.wait(
            within: timeout, on: group.any(),
            enroll: { waiter in
                let action = machine.withLockedValue { machine -> Machine.WaitAction in
                    if unlessDown && machine.longLinkDown { return .fail(LongLinkDown()) }
                    return machine.waitForConnection(id: id, LinkWaiter(deadline: waiter, fallsBack: unlessDown))
                }
                switch action {
                case let .use(link): return .success(link)
                case let .fail(error): return .failure(error)
                case .wait: return nil
                }
            },
            arm: { timer in machine.withLockedValue { $0.updateWaiter(id: id) { $0.deadline.arm(timer) } } },
            takeBack: { [machine] in machine.withLockedValue { $0.removeWaiter(id: id) }?.deadline },
            timeoutError: { [machine] in
                FrameClientError.noConnection(after: timeout, last: machine.withLockedValue { $0.lastFailure })
            })
    }

    // MARK: Running

    /// Connects, and reconnects after every drop with the configured backoff, until the task
    /// is cancelled (returns), the attempts run out (throws `FrameClientError.gaveUp`),
    /// `onConnect` throws a `FinalFailure` (throws its error) or TLS refuses the server in a way
    /// retrying cannot heal (throws the `TLSFailure`, see `TLSFailure.isFinal`). A second call
    /// while it runs throws `FrameClientError.alreadyRunning`; after it has returned, it may be
    /// called again.
    public func run() async throws {
        try begin()
        try await runBegun()
    }

    /// The start of `run()`, before anything is awaited: from here on, requests wait for the
    /// connection instead of failing because the client has stopped.
    func begin() throws {
        guard machine.withLockedValue({ $0.start() }) else { throw FrameClientError.alreadyRunning }
        stateFeed.reopen()
        pushFeed.reopen()
    }

    /// The rest of `run()`, after `begin()`.
    func runBegun() async throws {
        var ending: (any Error)?
        defer {
            stateFeed.yield(.stopped(ending))
            stateFeed.finish()
            pushFeed.finish()
        }
        do {
            try await withTaskCancellationHandler {
                try await connectUntilStopped()
            } onCancel: {
                let action = machine.withLockedValue { $0.cancel() }
                for connection in action.close { connection.close() }
                action.cancel?.cancel()
                for waiter in action.waiters { waiter.resume(with: .failure(FrameClientError.stopped)) }
            }
        } catch {
            ending = error
            throw error
        }
    }

    /// The connections one after another, with the backoff between them, until the machine stops.
    private func connectUntilStopped() async throws {
        stateFeed.yield(.connecting)
        while true {
            let (reason, final) = await connectAndServe()
            let action = machine.withLockedValue { $0.ended(reason, final: final) }
            stateFeed.yield(.disconnected(reason))
            switch action {
            case let .stop(error, waiters, failure):
                for waiter in waiters { waiter.resume(with: .failure(failure)) }
                if let error { throw error }
                return
            case let .backOff(attempt, delay):
                let fallingBack = machine.withLockedValue { $0.removeWaiters { $0.fallsBack } }
                for waiter in fallingBack { waiter.resume(with: .failure(LongLinkDown())) }
                #if Metrics
                counters?.reconnects.increment()
                #endif
                stateFeed.yield(.reconnecting(attempt: attempt, delay: delay))
                await backOff(for: delay)
                guard machine.withLockedValue({ $0.backoffEnded() }) != nil else { return }
            }
        }
    }

    /// Waits out `delay`, or less when the machine ends the wait early (the app's calls,
    /// cancellation). A timer on an event loop, as the deadlines of waiters are (see
    /// `DeadlineWaiter`).
    private func backOff(for delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(continuation)
            let end: @Sendable () -> Void = {
                waiting.withLockedValue { waiting in
                    defer { waiting = nil }
                    return waiting
                }?.resume()
            }
            let timer = group.any().scheduleTask(in: TimeAmount(delay)) {}
            // Run, cancelled, or failed by its event loop's shutdown: the wait is over.
            timer.futureResult.whenComplete { _ in end() }
            let wait = ClientJob {
                timer.cancel()
                end()
            }
            if !machine.withLockedValue({ $0.backoffStarted(wait) }) { wait.cancel() }
        }
    }

    /// One connection from connecting to its end: why it ended, and the error to stop with if
    /// `onConnect` failed for good.
    private func connectAndServe() async -> (DisconnectReason, (any Error)?) {
        if Task.isCancelled { return (.closedByClient, nil) }
        // A task of its own, so that the machine can call it off (`reconnectNow()` during a
        // login) without cancelling `run()`; `run()`'s cancellation reaches it through the machine.
        let race = Task { await self.race() }
        if !machine.withLockedValue({ $0.raceStarted(ClientJob { race.cancel() }) }) { race.cancel() }
        switch await race.value {
        case let .won(won):
            return (await Self.reason(won.closed), nil)
        case let .failed(_, reason, final):
            return (race.isCancelled ? .closedByClient : reason, final)
        case .staggerElapsed:
            return (.closedByClient, nil)  // not returned by race()
        }
    }

    /// What one attempt, or the race of them, came to.
    enum Attempt: Sendable {
        struct Won: Sendable {
            let index: Int
            let connection: Connection<Table>
            let closed: EventLoopFuture<DisconnectReason>
        }

        case won(Won)
        /// Why it failed, and the error to stop with when retrying cannot heal it.
        case failed(index: Int, DisconnectReason, final: (any Error)?)
        /// The stagger delay after attempt `generation` started.
        case staggerElapsed(generation: Int)
    }

    /// Races the endpoints (see `init(endpoints:...)`): the winner, or the last failure (the
    /// first final one, which stops the race).
    private func race() async -> Attempt {
        let first = machine.withLockedValue { $0.lastGood }
        let order = first.map { [$0] + endpoints.indices.filter { $0 != first } } ?? Array(endpoints.indices)
        let stagger = configuration.connectStagger
        return await withTaskGroup(of: Attempt.self) { group in
            var next = 0
            var running = 0
            var generation = 0
            var outcome: Attempt?
            var lastFailure = Attempt.failed(index: order[0], .closedByClient, final: nil)
            func startNext() {
                let index = order[next]
                next += 1
                running += 1
                group.addTask { await self.attempt(index) }
                guard next < order.count else { return }
                generation += 1
                let started = generation
                group.addTask { [loop = self.group.any()] in
                    try? await DeadlineWaiter.sleep(for: stagger, on: loop)
                    return .staggerElapsed(generation: started)
                }
            }
            startNext()
            while running > 0, let event = await group.next() {
                switch event {
                case let .staggerElapsed(started):
                    if outcome == nil, started == generation, next < order.count { startNext() }
                case let .failed(_, _, final):
                    running -= 1
                    guard outcome == nil else { continue }
                    lastFailure = event
                    if final != nil {
                        outcome = event
                        group.cancelAll()
                    } else if next < order.count, !Task.isCancelled {
                        startNext()
                    }
                case let .won(winner):
                    // One a race at most (the machine hands out one connection).
                    running -= 1
                    if outcome == nil {
                        outcome = event
                        group.cancelAll()
                    } else {
                        winner.connection.close()  // after a final failure at another endpoint
                    }
                }
            }
            group.cancelAll()  // a stagger timer still waiting
            return outcome ?? lastFailure
        }
    }

    /// One endpoint's attempt: connect (TLS included), then `onConnect`.
    private func attempt(_ index: Int) async -> Attempt {
        let endpoint = endpoints[index]
        let channel: any Channel
        let closed: EventLoopFuture<DisconnectReason>
        let outbound: OutboundQueue<ClientWrite>
        do {
            (channel, closed, outbound) = try await connect(to: index)
        } catch {
            let failure = ConnectFailure(error, timeout: configuration.connectTimeout)
            if !Task.isCancelled {  // not a loser of the race
                configuration.logger.notice(
                    "connect failed", metadata: ["endpoint": "\(endpoint)", "error": "\(failure)"])
            }
            // A chain, name or pin refused: connecting again would be refused again.
            if case let .tls(tlsFailure) = failure, tlsFailure.isFinal {
                return .failed(index: index, .connectFailed(failure), final: tlsFailure)
            }
            return .failed(index: index, .connectFailed(failure), final: nil)
        }
        let connection = Connection<Table>(
            Link(channel: channel, endpoint: endpoint, outbound: outbound, heading: Heading(Table.layout)),
            configuration: configuration)
        // The machine is logging in from here until the login's end.
        guard case .logIn = machine.withLockedValue({ $0.connected(index: index, connection.link) }) else {
            connection.close()
            return .failed(index: index, .closedByClient, final: nil)
        }
        if let onConnect {
            do {
                try await onConnect(connection)
            } catch {
                machine.withLockedValue { $0.loginFailed(index: index) }
                connection.close()
                let reason = await Self.reason(closed)
                if let final = error as? FinalFailure {
                    return .failed(index: index, .loginFailed(final.error), final: final.error)
                }
                // The connection itself ended (a heartbeat timeout, a bad frame, a reset): say so.
                if case .closedByClient = reason { return .failed(index: index, .loginFailed(error), final: nil) }
                return .failed(index: index, reason, final: nil)
            }
        }
        // Called off meanwhile (`reconnectNow()`, cancellation), or another endpoint won.
        guard let (_, waiters) = machine.withLockedValue({ $0.loggedIn(index: index) }) else {
            connection.close()
            return .failed(index: index, .closedByClient, final: nil)
        }
        #if Metrics
        counters?.connects.increment()
        #endif
        stateFeed.yield(.connected(endpoint))
        for waiter in waiters { waiter.resume(with: .success(connection.link)) }
        return .won(.init(index: index, connection: connection, closed: closed))
    }

    private static func reason(_ closed: EventLoopFuture<DisconnectReason>) async -> DisconnectReason {
        do {
            return try await closed.get()
        } catch {
            return .transportError(error)
        }
    }

    /// A new connection to endpoint `index`, the future of why it closes and the queue of its
    /// frames: taken from its handler when the channel is made, as the channel may close (and
    /// lose its handlers) before this returns. Cancelling the task closes the channel at once, whatever it waits
    /// for (an answer to its SYN, the TLS handshake).
    private func connect(
        to index: Int
    ) async throws -> (any Channel, closed: EventLoopFuture<DisconnectReason>, outbound: OutboundQueue<ClientWrite>) {
        let endpoint = endpoints[index]
        let tls = tls[index]
        let pushFeed = pushFeed
        let logger = configuration.logger
        let configuration = configuration
        let heartbeat = heartbeat
        #if Metrics
        let dropped = counters?.pushesDropped
        #endif
        let push: @Sendable (FrameSlicer.Piece) -> Void = { piece in
            do {
                // From the read's buffer where the payload still lies there (no interceptor
                // made a copy of it).
                let inbound: Table.Inbound
                switch piece {
                case let .slice(slice): inbound = try Table.decode(slice)
                case let .frame(frame): inbound = try Table.decode(frame)
                }
                let full = pushFeed.yield(inbound)
                #if Metrics
                if full > 0 { dropped?.increment(by: full) }
                #endif
                if full > 0 {
                    let count = pushFeed.dropped
                    if count & (count - 1) == 0 {  // 1, 2, 4, 8, ...: logged, not flooded
                        logger.warning("pushes dropped: a reader does not keep up", metadata: ["dropped": "\(count)"])
                    }
                }
            } catch {
                logger.warning(
                    "a push does not decode; dropped",
                    metadata: [
                        "command": "\(Table.layout.commandID(of: piece.header))", "error": "\(error)",
                    ])
            }
        }
        // TLS: the handshake, with the checks of the server's chain, name and pin, is part of
        // connecting (within the connect timeout); a refusal is a `TLSFailure`.
        let tlsHandlers = try tls.handlers()
        let handshake = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)
        let made = NIOLockedValueBox<
            (closed: EventLoopFuture<DisconnectReason>, outbound: OutboundQueue<ClientWrite>)?
        >(nil)
        // Every channel the bootstrap makes (one per address it tries), to close on cancellation.
        let opened = NIOLockedValueBox<(channels: [any Channel], cancelled: Bool)>(([], false))
        let connecting = try (tls.bootstrap() ?? bootstrap(group))
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let cancelled = opened.withLockedValue { opened in
                        opened.channels.append(channel)
                        return opened.cancelled
                    }
                    if cancelled { throw CancellationError() }
                    if let tlsHandlers {
                        let done = try tlsHandlers.add(to: channel, timeout: configuration.connectTimeout)
                        handshake.withLockedValue { $0 = done }
                    }
                    let pipeline = channel.pipeline.syncOperations
                    var metrics: ConnectionMetrics?
                    #if Metrics
                    if let options = configuration.metrics, options.records {
                        let made = ConnectionMetrics(options) { Table.commandName($0) ?? String($0) }
                        try pipeline.addHandler(ByteCounter { made.bytesIn.increment(by: $0) })
                        metrics = made
                    }
                    #endif
                    let handler = ConnectionHandler<Table>(
                        configuration: configuration, eventLoop: channel.eventLoop, metrics: metrics,
                        heartbeat: heartbeat,
                        push: push)
                    made.withLockedValue { $0 = (handler.closed.futureResult, handler.outbound) }
                    try pipeline.addHandler(handler)
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
        let channel: any Channel
        do {
            channel = try await withTaskCancellationHandler {
                try await connecting.get()
            } onCancel: {
                let channels = opened.withLockedValue { opened in
                    opened.cancelled = true
                    return opened.channels
                }
                for channel in channels { channel.close(promise: nil) }
            }
        } catch {
            throw tls.connectError(error)
        }
        if let done = handshake.withLockedValue({ $0 }) {
            do {
                try await withTaskCancellationHandler {
                    try await done.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch {
                channel.close(promise: nil)
                throw error
            }
        }
        guard let (closed, outbound) = made.withLockedValue({ $0 }) else {
            channel.close(promise: nil)
            throw ChannelError.inappropriateOperationForState  // the initializer always sets it
        }
        return (channel, closed, outbound)
    }
}
