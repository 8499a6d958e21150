/// A client's life as one value: where it is between connecting and stopping, with everything
/// that belongs to that place inside the state itself (the tasks waiting for a connection, the
/// race of connect attempts and the logins under way, the backoff wait, whether the app is in
/// the background, why the last attempt failed). Each event is a method that moves to the next
/// state and returns what the caller must do (connect, log in, close connections, cancel a job,
/// hand a connection to waiters or fail them, stop). The machine does no I/O, takes no lock
/// and starts no timer, so every transition is tested without sockets; `FrameClient` keeps it
/// under its lock and carries out the actions outside it.
///
/// `Connection` is a live connection, `Waiter` a task waiting for one and `Job` something
/// running that can be cancelled: the race of connect attempts, or the backoff wait (plain
/// values in the tests). The article Connecting's "The client, state by state" is the table of
/// what `reconnectNow()`, `networkChanged()`, `suspend()`, `resume()` and cancellation do in
/// each state; `ClientStateTableTests` checks every cell of it against this type.
struct ClientStateMachine<Connection, Waiter, Job> {
    enum State {
        /// Made; `run()` has not been called (or has not begun again).
        case idle(Common)
        /// The race of connect attempts `attempt` is under way (0: the first try since `run()`
        /// began or the last connection that logged in); no connection is up yet.
        case connecting(attempt: Int, race: Run, Common)
        /// Connections of the race are up and the `onConnect` hook (the login) runs on each of
        /// `logins` (keyed by endpoint index), unseen by requests.
        case loggingIn(attempt: Int, race: Run, logins: [Int: Connection], Common)
        /// Requests go out on this connection.
        case ready(Connection, Common)
        /// The ready connection is closing: found closed by a request before `run()` saw it
        /// end, or closed by `reconnectNow()` (`atOnce`: the next race starts without a wait).
        case closing(atOnce: Bool, Common)
        /// Waiting before race `attempt`; the wait `.cancelled` ends it early.
        case backingOff(attempt: Int, wait: Run, Common)
        /// `run()` has ended: cancelled (`error` nil), out of attempts, or failed for good.
        case stopped(error: (any Error)?, Common)
    }

    /// A job of the state (the race, the backoff wait): not handed over yet, running, or
    /// cancelled. Cancelled before it was handed over, it is cancelled as it comes.
    enum Run {
        case starting
        case running(Job)
        case cancelled
    }

    /// What every state keeps.
    struct Common {
        /// Tasks waiting for a connection, by id (none while ready).
        var waiters: [Int: Waiter] = [:]
        /// Why the last attempt failed, or the last connection ended, since `run()` began or a
        /// connection was last ready: for `FrameClientError.noConnection`.
        var lastFailure: DisconnectReason?
        /// From `suspend()` to `resume()`: the app is in the background, and connections send
        /// no heartbeats (they stay open; requests still go out; a drop is still reconnected).
        var suspended = false
        /// The endpoint of the last connection that logged in: raced first next time.
        var lastGood: Int?
        /// The id of the last waiter (`newWaiterID`).
        var lastWaiterID = 0
    }

    private(set) var state = State.idle(Common()) {
        didSet {
            connection = if case let .ready(connection, _) = state { connection } else { nil }
        }
    }
    /// The connection requests go out on, if one is ready: kept beside `state` as it changes,
    /// so a request reads it without a copy of the whole state.
    private(set) var connection: Connection?
    private let backoff: SwiftFrameNIO.Backoff

    init(backoff: SwiftFrameNIO.Backoff) {
        self.backoff = backoff
    }

    private var common: Common {
        get {
            switch state {
            case let .idle(common), let .connecting(_, _, common), let .loggingIn(_, _, _, common),
                let .ready(_, common), let .closing(_, common), let .backingOff(_, _, common), let .stopped(_, common):
                common
            }
        }
        set {
            switch state {
            case .idle: state = .idle(newValue)
            case let .connecting(attempt, race, _): state = .connecting(attempt: attempt, race: race, newValue)
            case let .loggingIn(attempt, race, logins, _):
                state = .loggingIn(attempt: attempt, race: race, logins: logins, newValue)
            case let .ready(connection, _): state = .ready(connection, newValue)
            case let .closing(atOnce, _): state = .closing(atOnce: atOnce, newValue)
            case let .backingOff(attempt, wait, _): state = .backingOff(attempt: attempt, wait: wait, newValue)
            case let .stopped(error, _): state = .stopped(error: error, newValue)
            }
        }
    }

    var waiterCount: Int { common.waiters.count }
    var lastFailure: DisconnectReason? { common.lastFailure }
    var suspended: Bool { common.suspended }
    var lastGood: Int? { common.lastGood }

    /// Whether the long connection is down, for requests that may take the short link: the
    /// client is backing off, connecting again after a drop or a failed attempt, or has
    /// stopped. Not before `run()` nor during the first attempt, which requests wait for.
    var longLinkDown: Bool {
        switch state {
        case .idle, .ready: false
        case let .connecting(attempt, _, _), let .loggingIn(attempt, _, _, _): attempt > 0
        case .closing, .backingOff, .stopped: true
        }
    }

    // MARK: Running

    /// `run()` was called: true to start the first race, false when it runs already.
    mutating func start() -> Bool {
        switch state {
        case var .idle(common), var .stopped(_, common):
            common.lastFailure = nil
            state = .connecting(attempt: 0, race: .starting, common)
            return true
        case .connecting, .loggingIn, .ready, .closing, .backingOff:
            return false
        }
    }

    /// The race of the current attempt began as `race`: true to let it run, false to cancel it
    /// now (`reconnectNow()` or cancellation came first).
    mutating func raceStarted(_ race: Job) -> Bool {
        switch state {
        case let .connecting(attempt, .starting, common):
            state = .connecting(attempt: attempt, race: .running(race), common)
            return true
        case let .loggingIn(attempt, .starting, logins, common):
            state = .loggingIn(attempt: attempt, race: .running(race), logins: logins, common)
            return true
        case .idle, .connecting, .loggingIn, .ready, .closing, .backingOff, .stopped:
            return false
        }
    }

    enum ConnectedAction: Equatable {
        /// Run the `onConnect` hook on the connection (then call `loggedIn` or `loginFailed`).
        case logIn
        /// The race was called off (stopped, or `reconnectNow()`): close the connection.
        case close
    }

    /// The attempt at endpoint `index` is connected with `connection`: it logs in now.
    mutating func connected(index: Int, _ connection: Connection) -> ConnectedAction {
        switch state {
        case .connecting(_, .cancelled, _):
            return .close
        case let .connecting(attempt, race, common):
            state = .loggingIn(attempt: attempt, race: race, logins: [index: connection], common)
            return .logIn
        case .loggingIn(let attempt, let race, var logins, let common):
            logins[index] = connection
            state = .loggingIn(attempt: attempt, race: race, logins: logins, common)
            return .logIn
        case .idle, .ready, .closing, .backingOff, .stopped:
            return .close
        }
    }

    /// The login at endpoint `index` failed (its connection is the caller's to close).
    mutating func loginFailed(index: Int) {
        guard case .loggingIn(let attempt, let race, var logins, let common) = state else { return }
        logins[index] = nil
        state =
            logins.isEmpty
            ? .connecting(attempt: attempt, race: race, common)
            : .loggingIn(attempt: attempt, race: race, logins: logins, common)
    }

    /// The login at endpoint `index` succeeded (or there is none): its connection takes
    /// requests. The connection and the waiters to hand it to; nil when the login was called
    /// off meanwhile (close the connection), or another endpoint won first.
    mutating func loggedIn(index: Int) -> (connection: Connection, waiters: [Waiter])? {
        guard case let .loggingIn(_, _, logins, common) = state, let connection = logins[index] else { return nil }
        var ready = common
        ready.waiters = [:]
        ready.lastFailure = nil
        ready.lastGood = index
        state = .ready(connection, ready)
        return (connection, Array(common.waiters.values))
    }

    /// A request found `connection` closed before `run()` saw it end: stop handing it out.
    mutating func retire(where isCurrent: (Connection) -> Bool) {
        if case let .ready(connection, common) = state, isCurrent(connection) {
            state = .closing(atOnce: false, common)
        }
    }

    enum EndedAction {
        /// Wait `delay`, then race again as attempt `attempt` (the wait is `backoffStarted`,
        /// its end `backoffEnded`).
        case backOff(attempt: Int, delay: Duration)
        /// `run()` ends, with `error` if it is not nil; fail `waiters` with `failure`.
        case stop(error: (any Error)?, waiters: [Waiter], failure: any Error)
    }

    /// The race failed (or was called off), or the connection ended: back off, or stop when
    /// `final` is set (a failure retrying cannot heal, such as a rejected login) or the attempts
    /// ran out. After a connection that was up, the delay also has the backoff's spread after
    /// a drop; after `reconnectNow()` there is no delay.
    mutating func ended(_ reason: DisconnectReason, final: (any Error)? = nil) -> EndedAction {
        var common = common
        let attempt: Int
        var atOnce = false
        var spread = Duration.zero
        switch state {
        case let .connecting(tries, .cancelled, _):
            // Called off by `reconnectNow()`: the next attempt at once.
            attempt = tries + 1
            atOnce = true
        case let .connecting(tries, _, _), let .loggingIn(tries, _, _, _):
            attempt = tries + 1
        case .ready, .closing(atOnce: false, _):
            attempt = 1
            spread = backoff.spreadAfterDrop()
        case .closing(atOnce: true, _):
            attempt = 1
            atOnce = true
        case .idle, .backingOff, .stopped:
            return stop(error: nil, common)
        }
        common.lastFailure = reason
        if let final { return stop(error: final, common) }
        if let limit = backoff.maxAttempts, attempt > limit {
            return stop(error: FrameClientError.gaveUp(attempts: attempt, last: reason), common)
        }
        if atOnce {
            state = .backingOff(attempt: attempt, wait: .cancelled, common)
            return .backOff(attempt: attempt, delay: .zero)
        }
        state = .backingOff(attempt: attempt, wait: .starting, common)
        return .backOff(attempt: attempt, delay: backoff.jittered(attempt: attempt) + spread)
    }

    /// The backoff wait began as `wait`: true to let it run (until `backoffEnded`), false to go
    /// on at once (`reconnectNow()` came first, or the client stopped).
    mutating func backoffStarted(_ wait: Job) -> Bool {
        guard case let .backingOff(attempt, .starting, common) = state else { return false }
        state = .backingOff(attempt: attempt, wait: .running(wait), common)
        return true
    }

    /// The backoff wait ended (its time, or cancelled early): the attempt to race now, or nil
    /// when the client stopped.
    mutating func backoffEnded() -> Int? {
        guard case let .backingOff(attempt, _, common) = state else { return nil }
        state = .connecting(attempt: attempt, race: .starting, common)
        return attempt
    }

    // MARK: The app's calls

    enum Action {
        /// Close these connections and cancel this job (the race, or the backoff wait).
        case close([Connection], cancel: Job?)
        /// Cancel this job: the race (its attempts close their connections), or the backoff
        /// wait (the next race starts at once).
        case cancel(Job)
        /// Check this connection with a heartbeat now, and drop it if the answer is late.
        case check(Connection)
        /// The app is back: the heartbeat of this connection goes on (at once when it has been
        /// silent longer than the interval).
        case resumeHeartbeat(Connection)
        case nothing
    }

    /// Connect again now: drop the ready connection, call off a login under way, or end the
    /// backoff wait; in each case the next race starts without a wait.
    mutating func reconnectNow() -> Action {
        switch state {
        case let .ready(connection, common):
            state = .closing(atOnce: true, common)
            return .close([connection], cancel: nil)
        case let .closing(_, common):
            state = .closing(atOnce: true, common)
            return .nothing
        case let .loggingIn(attempt, race, logins, common):
            state = .connecting(attempt: attempt, race: .cancelled, common)
            return .close(Array(logins.values), cancel: race.job)
        case let .backingOff(attempt, wait, common):
            state = .backingOff(attempt: attempt, wait: .cancelled, common)
            return wait.job.map(Action.cancel) ?? .nothing
        case .idle, .connecting, .stopped:
            return .nothing
        }
    }

    /// The network changed: the backoff starts again from its first delay (the attempts count
    /// from zero again, as after a good connection), a backoff wait ends at once, and the ready
    /// connection is to be checked. An attempt under way (connecting, logging in) goes on
    /// within its own deadlines.
    mutating func networkChanged() -> Action {
        switch state {
        case let .ready(connection, _):
            return .check(connection)
        case let .connecting(_, race, common):
            state = .connecting(attempt: 0, race: race, common)
        case let .loggingIn(_, race, logins, common):
            state = .loggingIn(attempt: 0, race: race, logins: logins, common)
        case let .backingOff(_, wait, common):
            state = .backingOff(attempt: 0, wait: .cancelled, common)
            return wait.job.map(Action.cancel) ?? .nothing
        case .idle, .closing, .stopped:
            break
        }
        return .nothing
    }

    /// The app goes to the background: connections send no heartbeats until `resume()`. Nothing
    /// else changes: the connection stays open, requests still go out, a drop is still
    /// reconnected (an app in the background may still be running, as on macOS, and may make
    /// requests).
    mutating func suspend() -> Action {
        common.suspended = true
        return .nothing
    }

    /// The app is back in the foreground: the heartbeat of the ready connection goes on, a
    /// backoff wait ends at once (the app is looked at: connect now, not after a delay grown
    /// in the background); connecting and logging in go on. Nothing when not suspended.
    mutating func resume() -> Action {
        guard common.suspended else { return .nothing }
        common.suspended = false
        switch state {
        case let .ready(connection, _):
            return .resumeHeartbeat(connection)
        case let .backingOff(attempt, wait, common):
            state = .backingOff(attempt: attempt, wait: .cancelled, common)
            return wait.job.map(Action.cancel) ?? .nothing
        case .idle, .connecting, .loggingIn, .closing, .stopped:
            return .nothing
        }
    }

    struct CancelAction {
        /// The connections to close (a ready one's end then reaches `ended`).
        var close: [Connection]
        /// The race or the backoff wait to cancel.
        var cancel: Job?
        /// To fail with `FrameClientError.stopped`.
        var waiters: [Waiter]
    }

    /// `run()`'s task was cancelled: stop, close what is open, cancel the race or the backoff
    /// wait, and fail the waiters with `FrameClientError.stopped`. Nothing before `run()` or
    /// after it ended.
    mutating func cancel() -> CancelAction {
        var action = CancelAction(close: [], cancel: nil, waiters: [])
        switch state {
        case .idle, .stopped:
            return action
        case let .ready(connection, _):
            action.close = [connection]
        case let .loggingIn(_, race, logins, _):
            action.close = Array(logins.values)
            action.cancel = race.job
        case let .connecting(_, race, _):
            action.cancel = race.job
        case let .backingOff(_, wait, _):
            action.cancel = wait.job
        case .closing:
            break
        }
        var common = common
        action.waiters = Array(common.waiters.values)
        common.waiters = [:]
        state = .stopped(error: nil, common)
        return action
    }

    private mutating func stop(error: (any Error)?, _ common: Common) -> EndedAction {
        var common = common
        let waiters = Array(common.waiters.values)
        common.waiters = [:]
        if case let .stopped(stopped, _) = state {
            // Ended after a cancel: stopped already.
            state = .stopped(error: stopped, common)
        } else {
            state = .stopped(error: error, common)
        }
        return .stop(error: error, waiters: waiters, failure: error ?? FrameClientError.stopped)
    }

    // MARK: Waiting for a connection

    enum WaitAction {
        case use(Connection)
        case fail(any Error)
        /// Kept as waiter `id` until a connection is ready, the client stops, or
        /// `removeWaiter(id)` (its deadline or its cancellation).
        case wait
    }

    /// An id for a new waiter, never given before.
    mutating func newWaiterID() -> Int {
        common.lastWaiterID += 1
        return common.lastWaiterID
    }

    /// A task wants a connection. Before `run()` and while connecting it waits; once `run()`
    /// has ended it fails with the reason.
    mutating func waitForConnection(id: Int, _ waiter: Waiter) -> WaitAction {
        switch state {
        case let .ready(connection, _):
            return .use(connection)
        case let .stopped(error, _):
            return .fail(error ?? FrameClientError.stopped)
        case .idle, .connecting, .loggingIn, .closing, .backingOff:
            common.waiters[id] = waiter
            return .wait
        }
    }

    /// Takes waiter `id` back (its deadline passed, or its task was cancelled); nil when it has
    /// been resumed already.
    mutating func removeWaiter(id: Int) -> Waiter? {
        common.waiters.removeValue(forKey: id)
    }

    /// Takes back every waiter `isTaken` picks (requests that go to the short link instead).
    mutating func removeWaiters(where isTaken: (Waiter) -> Bool) -> [Waiter] {
        let taken = common.waiters.filter { isTaken($0.value) }
        for id in taken.keys { common.waiters[id] = nil }
        return Array(taken.values)
    }

    /// Changes waiter `id` in place (gives it its timer); false when it is no longer waiting.
    mutating func updateWaiter(id: Int, _ change: (inout Waiter) -> Void) -> Bool {
        guard var waiter = common.waiters[id] else { return false }
        change(&waiter)
        common.waiters[id] = waiter
        return true
    }
}

extension ClientStateMachine.Run {
    /// The job, while it runs.
    var job: Job? {
        if case let .running(job) = self { return job }
        return nil
    }
}

extension ClientStateMachine.Action: Equatable where Connection: Equatable, Job: Equatable {}
extension ClientStateMachine.CancelAction: Equatable where Connection: Equatable, Waiter: Equatable, Job: Equatable {}

extension ClientStateMachine: Sendable where Connection: Sendable, Waiter: Sendable, Job: Sendable {}
extension ClientStateMachine.State: Sendable where Connection: Sendable, Waiter: Sendable, Job: Sendable {}
extension ClientStateMachine.Common: Sendable where Waiter: Sendable {}
extension ClientStateMachine.Run: Sendable where Job: Sendable {}
