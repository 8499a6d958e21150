import NIOConcurrencyHelpers

/// The heartbeat's interval over a client's life, across its connections: `Heartbeat.interval`
/// in fixed mode; in adaptive mode, learned from what the connections' idle heartbeats came to.
/// It does no I/O and reads no clock: a connection asks for the `probe` to wait before its next
/// idle heartbeat, and reports the probe back as answered or missed; `FrameClient` keeps it
/// under a lock, and the tests drive it without sockets.
///
/// Adaptive mode starts at `Heartbeat.interval`, kept within the mode's minimum and maximum.
/// A heartbeat sent after the connection had been idle for the whole interval, and answered,
/// proves that interval; while probing, the next interval is a step longer (up to the
/// maximum). A heartbeat that goes unanswered until the connection is dropped ends the probing
/// for good: the interval goes back to the longest one proven, or a step below the failed one
/// when none was proven (or when the proven one itself failed: the network got stricter), and
/// stays there. `reset()` (a new network, whose NAT may be another) starts again.
struct HeartbeatPacer: Sendable {
    /// An interval handed to a connection, and the reset it belongs to: a report about one
    /// handed out before the last `reset()`, or since replaced, is ignored.
    struct Probe: Sendable, Hashable {
        let interval: Duration
        let generation: Int
    }

    /// The adaptive mode's bounds; nil in fixed mode.
    private let bounds: (minimum: Duration, maximum: Duration, step: Duration)?
    private let start: Duration
    /// The interval the connections wait now.
    private(set) var interval: Duration
    /// The longest interval proven since the last reset, if it has not failed since.
    private(set) var proven: Duration?
    /// True until an idle heartbeat fails: each answered one lengthens the interval a step.
    private(set) var probing: Bool
    private var generation = 0

    init(_ heartbeat: Heartbeat) {
        switch heartbeat.mode {
        case .fixed:
            bounds = nil
            start = heartbeat.interval
        case let .adaptive(minimum, maximum, step):
            let maximum = max(minimum, maximum)
            bounds = (minimum, maximum, max(step, .zero))
            start = min(max(heartbeat.interval, minimum), maximum)
        }
        interval = start
        probing = bounds != nil
    }

    var isAdaptive: Bool { bounds != nil }

    /// What a connection waits before its next idle heartbeat.
    var probe: Probe { Probe(interval: interval, generation: generation) }

    /// The heartbeat sent after `probe` of idleness was answered: the connection survived it.
    mutating func answered(_ probe: Probe) {
        guard let bounds, probe == self.probe else { return }
        proven = max(proven ?? interval, interval)
        if probing { interval = min(interval + bounds.step, bounds.maximum) }
    }

    /// The heartbeat sent after `probe` of idleness went unanswered and the connection was
    /// dropped: the network forgets idle connections sooner.
    mutating func missed(_ probe: Probe) {
        guard let bounds, probe == self.probe else { return }
        probing = false
        if let proven, proven < interval {
            interval = proven
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
