import NIOConcurrencyHelpers

/// The heartbeat's interval over a client's life, across its connections: `Heartbeat.interval`
/// in fixed mode; in adaptive mode, learned from what the connections' idle heartbeats came to.
/// It does no I/O and reads no clock (the callers pass the time): a connection asks for the
/// `probe` to wait before its next idle heartbeat, and reports the probe back as answered or
/// missed; `FrameClient` keeps it under a lock, and the tests drive it without sockets.
///
/// Adaptive mode starts at `Heartbeat.interval`, kept within the mode's minimum and maximum.
/// A heartbeat sent after the connection had been idle for the whole interval, and answered,
/// proves that interval; while probing, the next interval is a step longer (up to the
/// maximum). A heartbeat that goes unanswered until the connection is dropped ends the probing:
/// the interval settles at the longest one proven less `Heartbeat.margin` (one step unless
/// set), so that it does not sit at the edge of what the NAT allows; when none was proven, or
/// the settled interval itself failed (the network got stricter), a step below the failed one.
/// Settled, it probes upwards again once `Heartbeat.probeAgainAfter` has passed since the last
/// drop. `reset()` (a new network, whose NAT may be another) starts again.
struct HeartbeatPacer: Sendable {
    /// An interval handed to a connection, and the reset it belongs to: a report about one
    /// handed out before the last `reset()`, or since replaced, is ignored.
    struct Probe: Sendable, Hashable {
        let interval: Duration
        let generation: Int
    }

    /// The adaptive mode's settings; nil in fixed mode.
    private let bounds:
        (minimum: Duration, maximum: Duration, step: Duration, margin: Duration, probeAgainAfter: Duration)?
    private let start: Duration
    /// The interval the connections wait now.
    private(set) var interval: Duration
    /// The longest interval proven since the last reset, if it has not failed since.
    private(set) var proven: Duration?
    /// True until an idle heartbeat fails, and again `probeAgainAfter` later: each answered
    /// one lengthens the interval a step.
    private(set) var probing: Bool
    /// When the last idle heartbeat failed, while settled.
    private(set) var settledAt: ContinuousClock.Instant?
    private var generation = 0

    init(_ heartbeat: Heartbeat) {
        switch heartbeat.mode {
        case .fixed:
            bounds = nil
            start = heartbeat.interval
        case let .adaptive(minimum, maximum, step):
            let maximum = max(minimum, maximum)
            let step = max(step, .zero)
            bounds = (minimum, maximum, step, max(heartbeat.margin ?? step, .zero), heartbeat.probeAgainAfter)
            start = min(max(heartbeat.interval, minimum), maximum)
        }
        interval = start
        probing = bounds != nil
    }

    var isAdaptive: Bool { bounds != nil }

    /// What a connection waits before its next idle heartbeat.
    var probe: Probe { Probe(interval: interval, generation: generation) }

    /// The heartbeat sent after `probe` of idleness was answered at `now`: the connection
    /// survived it.
    mutating func answered(_ probe: Probe, at now: ContinuousClock.Instant) {
        guard let bounds, probe == self.probe else { return }
        proven = max(proven ?? interval, interval)
        if !probing, let settledAt, now - settledAt >= bounds.probeAgainAfter {
            probing = true  // long enough without a drop: try a longer interval again
            self.settledAt = nil
        }
        if probing { interval = min(interval + bounds.step, bounds.maximum) }
    }

    /// The heartbeat sent after `probe` of idleness went unanswered and the connection was
    /// dropped at `now`: the network forgets idle connections sooner.
    mutating func missed(_ probe: Probe, at now: ContinuousClock.Instant) {
        guard let bounds, probe == self.probe else { return }
        probing = false
        settledAt = now
        if let proven, proven < interval {
            interval = max(proven - bounds.margin, bounds.minimum)
        } else {
            interval = max(interval - bounds.step, bounds.minimum)
            proven = nil
        }
        generation += 1  // a late report from the failed connection must not move it again
    }

    /// A new network: learn again from the start.
    mutating func reset() {
        interval = start
        proven = nil
        probing = isAdaptive
        settledAt = nil
        generation += 1
    }
}

/// What a client's connections share about their heartbeat: the pacer, and whether the app is
/// suspended (then they send none).
struct ClientHeartbeat: Sendable {
    let pacer: NIOLockedValueBox<HeartbeatPacer>
    let isSuspended: @Sendable () -> Bool
}

/// Asks a connection's handler about its heartbeat.
enum HeartbeatRequest: Sendable {
    /// Send one now; drop the connection if the answer does not come within
    /// `Heartbeat.checkTimeout` (`FrameClient.networkChanged()`).
    case check
    /// The app is back (`FrameClient.resume()`): check now if the connection has been silent
    /// longer than the interval, else go on as usual.
    case resume
}
