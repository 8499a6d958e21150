import Logging
import SwiftFrame

/// How a client matches replies to requests.
public enum Correlation: Sendable, Hashable {
    /// By the header's sequence number: each request gets the next number (increasing, wrapping
    /// to 1 after the field's largest value, skipping 0 and any number still outstanding), and
    /// the reply carries it back. The default for layouts with a `seq` field.
    case sequence
    /// By a varint field inside every request and reply body (the `RpcId` some frameworks put
    /// in each message): the client writes a fresh id into that field of each request and reads
    /// it back from the reply. Messages need not declare the field; a reply must carry it.
    case bodyField(number: Int)
    /// In order per reply command: a reply answers the oldest outstanding request expecting that
    /// command, and an error reply the oldest outstanding request of all. The default for
    /// layouts without a `seq` field. A request that times out or is cancelled keeps its place,
    /// so its late reply is dropped instead of being taken for the next one's.
    case inOrder
}

/// The keep-alive: a frame sent when the connection has been idle for `interval`, whose answer
/// must come within `timeout` (by default 10 s, or the interval when that is shorter). A missed
/// answer is retried `retries` times; then the connection is dropped
/// (`DisconnectReason.heartbeatTimeout`) and, if reconnecting is on, made again. A dead peer is
/// noticed at most `interval + (retries + 1) × timeout` after it went silent.
///
/// `mode` is `.fixed` unless set: `Heartbeat.adaptive(minimum:maximum:step:)` learns the
/// longest interval the network's NAT boxes allow instead, and keeps a margin below it (see
/// `Mode.adaptive`).
public struct Heartbeat: Sendable, Hashable {
    /// How the interval is chosen.
    public enum Mode: Sendable, Hashable {
        /// Always `interval`. The default.
        case fixed
        /// Learned, per client and across its connections: it starts at `interval` (kept
        /// between `minimum` and `maximum`), and each heartbeat answered after a whole interval
        /// of idleness lengthens it by `step`, up to `maximum`. When an idle connection dies
        /// silently (its heartbeat goes unanswered and it is dropped), the interval settles at
        /// the longest one that was answered less `margin` (one `step` unless set; at least
        /// `minimum`), so that it keeps clear of the NAT's limit rather than sitting on it; when
        /// none was answered, or the settled interval itself dies (a stricter network), a step
        /// below the one that died. Settled, it stops probing upwards until `probeAgainAfter`
        /// (30 minutes unless set) has passed without a drop, then probes again from there.
        /// `FrameClient.networkChanged()` starts the learning again from `interval`;
        /// `FrameClient.heartbeatInterval` tells where it is.
        case adaptive(minimum: Duration, maximum: Duration, step: Duration)
    }

    /// Idle means nothing was sent, or nothing was received, for this long. In adaptive mode,
    /// the first interval.
    public var interval: Duration
    public var timeout: Duration
    public var retries: Int
    /// The heartbeat's command id; nil takes the command table's (`CommandTable.heartbeatCommand`).
    public var command: UInt32?
    /// What it carries (an empty message encodes to no bytes).
    public var payload: [UInt8]
    /// Fixed (the default) or adaptive.
    public var mode: Mode
    /// How long the answer to a check may take (default 3 s): the heartbeat sent at once by
    /// `FrameClient.networkChanged()`, or by `FrameClient.resume()` after a long silence.
    /// Unanswered, the connection is dropped (`.heartbeatTimeout(attempts: 1)`) and made again.
    public var checkTimeout: Duration
    /// Adaptive mode: how far below the longest answered interval it settles after a drop; nil
    /// (the default): one step.
    public var margin: Duration?
    /// Adaptive mode: how long a settled interval is kept without a drop before it probes
    /// upwards again (default 30 minutes).
    public var probeAgainAfter: Duration

    /// A heartbeat of these settings; `timeout` nil (the default) is 10 s, or `interval` when
    /// that is shorter.
    public init(
        interval: Duration = .seconds(90), timeout: Duration? = nil, retries: Int = 3,
        command: UInt32? = nil, payload: [UInt8] = [], mode: Mode = .fixed, checkTimeout: Duration = .seconds(3),
        margin: Duration? = nil, probeAgainAfter: Duration = .seconds(1800)
    ) {
        self.interval = interval
        self.timeout = timeout ?? min(.seconds(10), interval)
        self.retries = retries
        self.command = command
        self.payload = payload
        self.mode = mode
        self.checkTimeout = checkTimeout
        self.margin = margin
        self.probeAgainAfter = probeAgainAfter
    }

    /// An adaptive heartbeat (`Mode.adaptive`) that starts at `minimum`. The defaults probe
    /// from 30 s to 10 minutes in steps of 30 s, and settle a step below the longest answered
    /// interval; `timeout` nil: 10 s, or `minimum` when that is shorter. The other parameters
    /// are `init`'s.
    public static func adaptive(
        minimum: Duration = .seconds(30), maximum: Duration = .seconds(600), step: Duration = .seconds(30),
        margin: Duration? = nil, probeAgainAfter: Duration = .seconds(1800),
        timeout: Duration? = nil, retries: Int = 3, command: UInt32? = nil, payload: [UInt8] = [],
        checkTimeout: Duration = .seconds(3)
    ) -> Heartbeat {
        Heartbeat(
            interval: minimum, timeout: timeout ?? min(.seconds(10), minimum), retries: retries, command: command,
            payload: payload, mode: .adaptive(minimum: minimum, maximum: maximum, step: step),
            checkTimeout: checkTimeout, margin: margin, probeAgainAfter: probeAgainAfter)
    }
}

/// Delays between connection attempts: `initialDelay`, then each `multiplier` times the one
/// before, at most `maxDelay`, each moved at random by up to ± `jitter` of itself, so that
/// many clients of one server do not come back in step. After a connection that was up drops,
/// the first reconnect also waits a random part of `firstReconnectWindow`: when a server drops
/// every client at once, they come back spread over the window rather than together.
public struct Backoff: Sendable, Hashable {
    public var initialDelay: Duration
    public var multiplier: Double
    public var maxDelay: Duration
    public var jitter: Double
    /// Attempts after a drop or a failed connect before `run()` gives up; nil: no limit, 0:
    /// never reconnect.
    public var maxAttempts: Int?
    /// After a drop of a connection that was up: a further delay before the first reconnect,
    /// uniform between zero and this (default zero: none). Failed connects are not delayed
    /// by it, nor is `reconnectNow()`.
    public var firstReconnectWindow: Duration

    public init(
        initialDelay: Duration = .seconds(1), multiplier: Double = 1.6, maxDelay: Duration = .seconds(120),
        jitter: Double = 0.2, maxAttempts: Int? = nil, firstReconnectWindow: Duration = .zero
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts
        self.firstReconnectWindow = firstReconnectWindow
    }

    /// The delay before attempt `attempt` (1 is the first after a drop), before jitter.
    public func delay(attempt: Int) -> Duration {
        var seconds = initialDelay.seconds
        for _ in 1..<max(attempt, 1) {
            seconds *= multiplier
            if seconds >= maxDelay.seconds { return maxDelay }
        }
        return min(.seconds(seconds), maxDelay)
    }

    func jittered(attempt: Int) -> Duration {
        let base = delay(attempt: attempt).seconds
        return .seconds(max(0, base * (1 + Double.random(in: -jitter...jitter))))
    }

    /// The further delay of the first reconnect after a drop: a random part of `firstReconnectWindow`.
    func spreadAfterDrop() -> Duration {
        firstReconnectWindow > .zero ? .seconds(Double.random(in: 0...firstReconnectWindow.seconds)) : .zero
    }
}

/// What happens to pushes when the app reads them more slowly than they arrive.
public enum PushOverflow: Sendable, Hashable {
    /// Keep the newest `pushBufferSize` pushes; the oldest waiting one is dropped.
    case dropOldest
    /// Keep the oldest; a push that arrives to a full buffer is dropped.
    case dropNewest
}

/// A client's settings. Every wait has a deadline: connecting (`connectTimeout`), each request
/// (`requestTimeout`, or the one given to the call, which also bounds waiting for a connection),
/// and the heartbeat's answer.
public struct ClientConfiguration: Sendable {
    /// Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// With several endpoints: how long an attempt runs before the next endpoint's starts
    /// beside it (default 250 ms, as RFC 8305's Happy Eyeballs). An attempt that fails starts
    /// the next at once; the first to connect and pass `onConnect` wins.
    public var connectStagger: Duration = .milliseconds(250)
    #if TLS
    /// TLS (with the `TLS` trait): nil, the default, for plain TCP. The handshake and its checks
    /// are part of connecting, within `connectTimeout`.
    public var tls: ClientTLS?
    #endif
    /// Default 15 s.
    public var requestTimeout: Duration = .seconds(15)
    /// Nil: `.sequence` when the layout has a `seq` field, `.inOrder` otherwise.
    public var correlation: Correlation?
    /// Nil: no heartbeat. The default sends the table's heartbeat command every 90 s of
    /// idleness, and is off for tables that declare none.
    public var heartbeat: Heartbeat? = Heartbeat()
    /// Default: 1 s, ×1.6, at most 2 minutes, ±20 %, no limit on attempts.
    public var reconnect = Backoff()
    /// The command whose replies are errors (`ErrorReply`); nil takes the table's
    /// (`CommandTable.errorCommand`).
    public var errorCommand: UInt32?
    /// Pushes waiting for the app: at most this many (default 1024), then `pushOverflow`.
    public var pushBufferSize = 1024
    public var pushOverflow = PushOverflow.dropOldest
    /// Requests awaiting replies on one connection (default 65,536); one more fails at once.
    public var maxPendingRequests = 65_536
    /// Values of the layout's `extra.NAME` fields, written in every frame sent.
    public var headerExtras: [String: UInt64] = [:]
    /// The first sequence number (default 1); later ones count up from it and wrap.
    public var firstSequence: UInt64 = 1
    /// The second way to the server for requests marked `RequestOptions.Fallback.shortLink`,
    /// such as SwiftFrameURLSession's `HTTPFrameClient`; nil (the default): none, and such
    /// requests keep to the long connection.
    public var shortLink: (any ShortLink)?
    /// How often idempotent requests are sent again after a drop (`RequestOptions.idempotent`).
    public var retries = RetryLimits()
    #if Metrics
    /// Where metrics go (see `FrameMetrics` for the list); nil records none. The default sends
    /// them to the backend `MetricsSystem.bootstrap` installed (none until an app installs one).
    public var metrics: FrameMetrics? = FrameMetrics()
    #endif
    /// What every frame sent and received passes through, in order (see `FrameInterceptor`).
    public var interceptors: [any FrameInterceptor] = []
    public var logger = Logger(label: "swiftframe.client")

    public init() {}
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
