import NIOCore

/// One client connection's life as one value, for its `ConnectionHandler`: whether it takes
/// frames, why it is closing or closed, and where its idle heartbeat is (its timer armed, or a
/// heartbeat sent and awaiting its answer, with the interval it was sent after). Each event is
/// a method that moves to the next state and returns what the handler must do (arm or cancel a
/// timer, send a heartbeat or a check, close the channel, fail the requests). The machine does
/// no I/O, reads no clock and starts no timer (the handler passes the times and the interval),
/// so every cell is tested without sockets (`ConnectionStateTableTests`); the handler keeps it
/// on its event loop and performs the actions there.
///
/// Not in it, on purpose: the table of requests (`PendingRequests`) and the one timer at their
/// soonest deadline, the times of the last read and write, and whether a read is being cut into
/// frames. Those change at every request, reply or read, and stay plain fields of the handler
/// so that the request and reply paths touch no enum payload.
struct ConnectionStateMachine<Timer> {
    enum State {
        /// Made; the channel is not active yet.
        case idle
        /// Active: frames are read and requests taken; the idle heartbeat is `heartbeat`.
        case open(Heartbeat)
        /// Closing for the reason first given; the channel has not gone inactive yet. Frames
        /// still read are dropped, no request is taken, no heartbeat is sent.
        case closing(DisconnectReason)
        /// The channel went inactive (or the handler was removed): the requests were failed
        /// and the close reported with this reason.
        case closed(DisconnectReason)
    }

    enum Heartbeat {
        /// None scheduled: the connection has no heartbeat, or none is due yet.
        case off
        /// The timer for when the connection will have been idle for the interval.
        case waiting(Timer)
        /// An idle heartbeat went out after the connection was idle for `probe`'s interval (and
        /// maybe its retries after it), awaiting its answer.
        case awaiting(HeartbeatPacer.Probe)
    }

    enum Action {
        case none
        /// Cancel `cancel`, then arm the heartbeat timer for `at` and hand it to `armed(_:)`.
        case armHeartbeat(at: NIODeadline, cancel: Timer?)
        /// Send idle heartbeat attempt `attempt` (a request the table times out).
        case sendHeartbeat(attempt: Int)
        /// Send a check: a heartbeat now, the connection dropped if it is not answered within
        /// the check timeout.
        case sendCheck
        /// Report `answered` to the pacer, if any, then schedule the next heartbeat
        /// (`scheduleHeartbeat`).
        case reschedule(answered: HeartbeatPacer.Probe?)
        /// Report `missed` to the pacer, if any, cancel `cancel`, and close the channel.
        case close(cancel: Timer?, missed: HeartbeatPacer.Probe?)
        /// The channel is gone: cancel `cancel`, fail the requests still waiting with
        /// `reason`, and report the close with it.
        case finish(DisconnectReason, cancel: Timer?)
    }

    private(set) var state = State.idle

    /// Whether frames read are handled and requests taken: not once the connection is closing.
    var takesFrames: Bool {
        switch state {
        case .idle, .open: true
        case .closing, .closed: false
        }
    }

    /// The channel became active: the handler then schedules the heartbeat.
    mutating func activate() {
        if case .idle = state { state = .open(.off) }
    }

    /// Arms the timer for when the connection will have been idle (since `idleSince`) for
    /// `probe`'s interval; nothing without a probe, or while a heartbeat awaits its answer.
    mutating func scheduleHeartbeat(probe: HeartbeatPacer.Probe?, idleSince: NIODeadline) -> Action {
        guard let probe else { return .none }
        switch state {
        case .open(.off):
            return .armHeartbeat(at: idleSince + TimeAmount(probe.interval), cancel: nil)
        case let .open(.waiting(timer)):
            state = .open(.off)
            return .armHeartbeat(at: idleSince + TimeAmount(probe.interval), cancel: timer)
        case .idle, .open(.awaiting), .closing, .closed:
            return .none
        }
    }

    /// The timer of `armHeartbeat` was armed: false when it is not wanted (cancel it).
    mutating func armed(_ timer: Timer) -> Bool {
        guard case .open(.off) = state else { return false }
        state = .open(.waiting(timer))
        return true
    }

    /// The heartbeat timer fired at `now`: a heartbeat now if the connection has been idle
    /// since `idleSince` for the interval, else the timer again (an interval from now while the
    /// app is suspended, which sends nothing in the background).
    mutating func heartbeatDue(
        probe: HeartbeatPacer.Probe?, suspended: Bool, idleSince: NIODeadline, now: NIODeadline
    ) -> Action {
        guard case .open(.waiting) = state else { return .none }
        state = .open(.off)
        guard let probe else { return .none }
        let interval = TimeAmount(probe.interval)
        if suspended { return .armHeartbeat(at: now + interval, cancel: nil) }
        if idleSince + interval > now { return .armHeartbeat(at: idleSince + interval, cancel: nil) }
        state = .open(.awaiting(probe))
        return .sendHeartbeat(attempt: 1)
    }

    /// An idle heartbeat was answered: the pacer learns its interval, and the next one is
    /// scheduled.
    mutating func heartbeatAnswered() -> Action {
        switch state {
        case let .open(.awaiting(probe)):
            state = .open(.off)
            return .reschedule(answered: probe)
        case .open:
            return .reschedule(answered: nil)
        case .idle, .closing, .closed:
            return .none
        }
    }

    /// Idle heartbeat `attempt` was not answered in time: another attempt while `retries`
    /// allow, else the connection closes (`heartbeatTimeout`). While the app is suspended it is
    /// not retried: the heartbeat is scheduled again (`resume` checks the connection).
    mutating func heartbeatMissed(attempt: Int, retries: Int, suspended: Bool) -> Action {
        guard case let .open(.awaiting(probe)) = state else { return .none }
        if suspended {
            state = .open(.off)
            return .reschedule(answered: nil)
        }
        if attempt <= retries { return .sendHeartbeat(attempt: attempt + 1) }
        state = .closing(.heartbeatTimeout(attempts: attempt))
        return .close(cancel: nil, missed: probe)
    }

    /// `check` was asked (the network changed): a check when the connection has a heartbeat
    /// (`canCheck`), else it closes at once, to be made again.
    mutating func check(canCheck: Bool) -> Action {
        guard case .open = state else { return .none }
        return canCheck ? .sendCheck : close(.closedByClient)
    }

    /// The app is back at `now`: a check if nothing came or went since `idleSince` for longer
    /// than the interval, else the heartbeat goes on from the last traffic.
    mutating func resume(probe: HeartbeatPacer.Probe?, idleSince: NIODeadline, now: NIODeadline) -> Action {
        guard case .open = state, let probe else { return .none }
        if now - idleSince > TimeAmount(probe.interval) { return .sendCheck }
        return scheduleHeartbeat(probe: probe, idleSince: idleSince)
    }

    /// The connection is to close for `reason` (kept for the report unless one was given
    /// already).
    mutating func close(_ reason: DisconnectReason) -> Action {
        switch state {
        case .idle, .open(.off), .open(.awaiting):
            state = .closing(reason)
            return .close(cancel: nil, missed: nil)
        case let .open(.waiting(timer)):
            state = .closing(reason)
            return .close(cancel: timer, missed: nil)
        case .closing:
            return .close(cancel: nil, missed: nil)
        case .closed:
            return .none
        }
    }

    /// The channel went inactive, or the handler was removed. `truncated` is why the stream
    /// ended badly (the peer closed inside a frame), asked of a connection that `takesFrames`.
    mutating func finish(truncated: DisconnectReason?) -> Action {
        switch state {
        case .idle, .open(.off), .open(.awaiting):
            let reason = truncated ?? .closedByPeer
            state = .closed(reason)
            return .finish(reason, cancel: nil)
        case let .open(.waiting(timer)):
            let reason = truncated ?? .closedByPeer
            state = .closed(reason)
            return .finish(reason, cancel: timer)
        case let .closing(reason):
            state = .closed(reason)
            return .finish(reason, cancel: nil)
        case .closed:
            return .none
        }
    }
}

extension ConnectionStateMachine: Sendable where Timer: Sendable {}
extension ConnectionStateMachine.State: Sendable where Timer: Sendable {}
extension ConnectionStateMachine.Heartbeat: Sendable where Timer: Sendable {}
extension ConnectionStateMachine.Action: Sendable where Timer: Sendable {}
