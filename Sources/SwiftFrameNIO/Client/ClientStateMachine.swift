/// A client's life as one value: where it is between connecting and stopping, the tasks
/// waiting for a connection, and the backoff wait. Each event is a method that moves to the
/// next state and returns what the caller must do (connect, close a connection, hand a
/// connection to waiters or fail them, wait out the backoff, stop). The machine does no I/O,
/// takes no lock and starts no timer, so every transition is tested without sockets;
/// `FrameClient` keeps it under its lock and carries out the actions outside it.
///
/// `Connection` is a live connection, `Waiter` a task waiting for one and `Sleeper` the
/// backoff wait (continuations in `FrameClient`, plain values in the tests).
struct ClientStateMachine<Connection, Waiter, Sleeper> {
    enum State {
        /// Made; `run()` has not been called.
        case idle
        /// Connecting; `attempt` counts the tries since the last connection that logged in
        /// (0: the first try).
        case connecting(attempt: Int)
        /// Connected; the `onConnect` hook (the login) runs on it, unseen by requests.
        case loggingIn(Connection, attempt: Int)
        /// Requests go out on this connection.
        case ready(Connection)
        /// The ready connection was found closed by a request before `run()` saw it end.
        case closing
        /// Waiting before attempt `attempt`.
        case backingOff(attempt: Int, Backoff)
        /// `run()` has ended: cancelled (`error` nil), out of attempts, or failed for good.
        case stopped(error: (any Error)?)
    }

    /// The backoff wait: not begun yet, begun, or ended early before it began.
    enum Backoff {
        case pending
        case sleeping(Sleeper)
        case wokenEarly
    }

    private(set) var state = State.idle
    private var waiters: [Int: Waiter] = [:]
    /// `reconnectNow()` closed the connection: the attempt after it ends starts without a wait.
    private var reconnectAtOnce = false
    /// Why the last attempt failed, or the last connection ended, since `run()` began or a
    /// connection was last ready: for `FrameClientError.noConnection`.
    private(set) var lastFailure: DisconnectReason?
    private let backoff: SwiftFrameNIO.Backoff

    init(backoff: SwiftFrameNIO.Backoff) {
        self.backoff = backoff
    }

    /// The connection requests go out on, if one is ready.
    var connection: Connection? {
        if case let .ready(connection) = state { return connection }
        return nil
    }

    var waiterCount: Int { waiters.count }

    // MARK: Running

    /// `run()` was called: true to connect, false when it runs already.
    mutating func start() -> Bool {
        switch state {
        case .idle, .stopped:
            state = .connecting(attempt: 0)
            lastFailure = nil
            return true
        case .connecting, .loggingIn, .ready, .closing, .backingOff:
            return false
        }
    }

    enum ConnectedAction {
        /// Run the `onConnect` hook on the connection.
        case logIn
        /// The client stopped while connecting: close the connection.
        case close
    }

    /// A connect attempt succeeded with `connection`.
    mutating func connected(_ connection: Connection) -> ConnectedAction {
        guard case let .connecting(attempt) = state else { return .close }
        state = .loggingIn(connection, attempt: attempt)
        return .logIn
    }

    /// The `onConnect` hook succeeded (or there is none): the connection takes requests. The
    /// waiters to hand it to; nil when the client stopped meanwhile (close the connection).
    mutating func loggedIn() -> (connection: Connection, waiters: [Waiter])? {
        guard case let .loggingIn(connection, _) = state else { return nil }
        state = .ready(connection)
        lastFailure = nil
        defer { waiters.removeAll() }
        return (connection, Array(waiters.values))
    }

    /// A request found `connection` closed before `run()` saw it end: stop handing it out.
    mutating func retire(where isCurrent: (Connection) -> Bool) {
        if case let .ready(connection) = state, isCurrent(connection) { state = .closing }
    }

    enum EndedAction {
        /// Wait `delay`, then make attempt `attempt`.
        case backOff(attempt: Int, delay: Duration)
        /// `run()` ends, with `error` if it is not nil; fail `waiters` with `failure`.
        case stop(error: (any Error)?, waiters: [Waiter], failure: any Error)
    }

    /// The connect attempt failed, or the connection ended: back off, or stop when `final` is
    /// set (a failure retrying cannot heal, such as a rejected login) or the attempts ran out.
    /// After a connection that was up, the delay also has the backoff's spread after a drop.
    mutating func ended(_ reason: DisconnectReason, final: (any Error)? = nil) -> EndedAction {
        let attempt: Int
        var spread = Duration.zero
        switch state {
        case let .connecting(tries), let .loggingIn(_, tries):
            attempt = tries + 1
        case .ready, .closing:
            attempt = 1
            spread = backoff.spreadAfterDrop()
        case .idle, .backingOff, .stopped:
            return stopAction(error: nil)
        }
        lastFailure = reason
        if let final { return stop(error: final) }
        if let limit = backoff.maxAttempts, attempt > limit {
            return stop(error: FrameClientError.gaveUp(attempts: attempt, last: reason))
        }
        if reconnectAtOnce {
            // The app closed it to connect again (`reconnectNow()`): no wait.
            reconnectAtOnce = false
            state = .backingOff(attempt: attempt, .wokenEarly)
            return .backOff(attempt: attempt, delay: .zero)
        }
        state = .backingOff(attempt: attempt, .pending)
        return .backOff(attempt: attempt, delay: backoff.jittered(attempt: attempt) + spread)
    }

    /// The backoff wait is about to begin: true to wait (until `backoffEnded`), false to go on
    /// at once (`reconnectNow()` came first, or the client stopped).
    mutating func sleep(_ sleeper: Sleeper) -> Bool {
        guard case let .backingOff(attempt, .pending) = state else { return false }
        state = .backingOff(attempt: attempt, .sleeping(sleeper))
        return true
    }

    /// The backoff wait ended (its time, `reconnectNow()` or cancellation): the attempt to
    /// make, or nil when the client stopped. The sleeper, if still there, is the caller's to wake.
    mutating func backoffEnded() -> (attempt: Int, sleeper: Sleeper?)? {
        guard case let .backingOff(attempt, wait) = state else { return nil }
        state = .connecting(attempt: attempt)
        if case let .sleeping(sleeper) = wait { return (attempt, sleeper) }
        return (attempt, nil)
    }

    enum ReconnectAction {
        /// Close this connection; `run()` then connects again at once.
        case close(Connection)
        /// End this backoff wait.
        case wake(Sleeper)
        case none
    }

    /// Connect again now: drop the connection, or end the backoff wait.
    mutating func reconnectNow() -> ReconnectAction {
        switch state {
        case let .ready(connection), let .loggingIn(connection, _):
            reconnectAtOnce = true
            return .close(connection)
        case let .backingOff(attempt, .sleeping(sleeper)):
            state = .backingOff(attempt: attempt, .wokenEarly)
            return .wake(sleeper)
        case let .backingOff(attempt, .pending):
            state = .backingOff(attempt: attempt, .wokenEarly)
            return .none
        case .idle, .connecting, .closing, .backingOff(_, .wokenEarly), .stopped:
            return .none
        }
    }

    // MARK: The network and the app's life

    enum NetworkChangedAction {
        /// Check this connection with a heartbeat now, and drop it if the answer is late.
        case check(Connection)
        /// End this backoff wait.
        case wake(Sleeper)
        case none
    }

    /// The network changed: the backoff starts again from its first delay (the attempts count
    /// from zero again, as after a good connection), a backoff wait ends at once, and the ready
    /// connection is to be checked. An attempt under way (connecting, logging in) goes on
    /// within its own deadlines.
    mutating func networkChanged() -> NetworkChangedAction {
        switch state {
        case let .ready(connection):
            return .check(connection)
        case .connecting:
            state = .connecting(attempt: 0)
        case let .loggingIn(connection, _):
            state = .loggingIn(connection, attempt: 0)
        case let .backingOff(_, .sleeping(sleeper)):
            state = .backingOff(attempt: 0, .wokenEarly)
            return .wake(sleeper)
        case .backingOff:
            state = .backingOff(attempt: 0, .wokenEarly)
        case .idle, .closing, .stopped:
            break
        }
        return .none
    }

    /// True from `suspend()` to `resume()`: the app is in the background, and connections send
    /// no heartbeats (they stay open; requests still go out).
    private(set) var suspended = false

    /// The app goes to the background: false if it was suspended already.
    mutating func suspend() -> Bool {
        defer { suspended = true }
        return !suspended
    }

    /// The app is back: the ready connection, whose heartbeat goes on (at once when it has
    /// been silent longer than the interval); nil when it was not suspended or none is ready.
    mutating func resume() -> Connection? {
        guard suspended else { return nil }
        suspended = false
        return connection
    }

    struct CancelAction {
        /// The connection to close (its end then reaches `ended`).
        var close: Connection?
        var sleeper: Sleeper?
        var waiters: [Waiter]
    }

    /// `run()`'s task was cancelled: stop, close what is open and fail the waiters with
    /// `FrameClientError.stopped`.
    mutating func cancel() -> CancelAction {
        var action = CancelAction(close: nil, sleeper: nil, waiters: [])
        switch state {
        case let .ready(connection), let .loggingIn(connection, _):
            action.close = connection
        case let .backingOff(_, .sleeping(sleeper)):
            action.sleeper = sleeper
        case .stopped:
            return action
        case .idle, .connecting, .closing, .backingOff:
            break
        }
        state = .stopped(error: nil)
        action.waiters = Array(waiters.values)
        waiters.removeAll()
        return action
    }

    private mutating func stop(error: any Error) -> EndedAction {
        state = .stopped(error: error)
        return stopAction(error: error)
    }

    private mutating func stopAction(error: (any Error)?) -> EndedAction {
        defer { waiters.removeAll() }
        return .stop(error: error, waiters: Array(waiters.values), failure: error ?? FrameClientError.stopped)
    }

    // MARK: Waiting for a connection

    enum WaitAction {
        case use(Connection)
        case fail(any Error)
        /// Kept as waiter `id` until a connection is ready, the client stops, or
        /// `removeWaiter(id)` (its deadline or its cancellation).
        case wait
    }

    /// A task wants a connection. Before `run()` and while connecting it waits; once `run()`
    /// has ended it fails with the reason.
    mutating func waitForConnection(id: Int, _ waiter: Waiter) -> WaitAction {
        switch state {
        case let .ready(connection):
            return .use(connection)
        case let .stopped(error):
            return .fail(error ?? FrameClientError.stopped)
        case .idle, .connecting, .loggingIn, .closing, .backingOff:
            waiters[id] = waiter
            return .wait
        }
    }

    /// Takes waiter `id` back (its deadline passed, or its task was cancelled); nil when it has
    /// been resumed already.
    mutating func removeWaiter(id: Int) -> Waiter? {
        waiters.removeValue(forKey: id)
    }

    /// Takes back every waiter `isTaken` picks (requests that go to the short link instead).
    mutating func removeWaiters(where isTaken: (Waiter) -> Bool) -> [Waiter] {
        let taken = waiters.filter { isTaken($0.value) }
        for id in taken.keys { waiters[id] = nil }
        return Array(taken.values)
    }

    /// Whether the long connection is down, for requests that may take the short link: the
    /// client is backing off, connecting again after a drop or a failed attempt, or has
    /// stopped. Not before `run()` nor during the first attempt, which requests wait for.
    var longLinkDown: Bool {
        switch state {
        case .idle, .ready: false
        case let .connecting(attempt), let .loggingIn(_, attempt): attempt > 0
        case .closing, .backingOff, .stopped: true
        }
    }

    /// Changes waiter `id` in place (gives it its timer); false when it is no longer waiting.
    mutating func updateWaiter(id: Int, _ change: (inout Waiter) -> Void) -> Bool {
        guard var waiter = waiters[id] else { return false }
        change(&waiter)
        waiters[id] = waiter
        return true
    }
}

extension ClientStateMachine: Sendable where Connection: Sendable, Waiter: Sendable, Sleeper: Sendable {}
extension ClientStateMachine.State: Sendable where Connection: Sendable, Waiter: Sendable, Sleeper: Sendable {}
extension ClientStateMachine.Backoff: Sendable where Sleeper: Sendable {}
