import NIOCore

#if Metrics
import CoreMetrics

/// Where a client's metrics go, through swift-metrics (trait `Metrics`). Every metric's label
/// starts with `prefix` (default `swiftframe_client`) and carries `dimensions` besides its own:
///
/// | label | kind | own dimensions |
/// |---|---|---|
/// | `PREFIX_requests_total` | counter | `command` |
/// | `PREFIX_replies_total` | counter | `command` (the request's) |
/// | `PREFIX_errors_total` | counter | `command`, `kind`: `timed_out`, `connection_lost`, `error_reply`, `bad_reply`, `too_many_pending`, `cancelled` |
/// | `PREFIX_request_duration` | timer (nanoseconds, request to reply) | `command` |
/// | `PREFIX_pending_requests` | meter | |
/// | `PREFIX_bytes_in_total`, `PREFIX_bytes_out_total` | counter | |
/// | `PREFIX_connects_total`, `PREFIX_reconnects_total` | counter | |
/// | `PREFIX_pushes_dropped_total` | counter | |
///
/// `command` is the command's name where the table gives one (`CMD_TEST`), its number otherwise.
/// Heartbeats count as requests of the heartbeat command.
public struct FrameMetrics: Sendable {
    /// Nil: the factory `MetricsSystem.bootstrap` installed, read when a connection is made.
    public var factory: (any MetricsFactory)?
    public var prefix: String
    /// Added to every metric: which server, say (`[("server", "game")]`).
    public var dimensions: [(String, String)]

    public init(
        factory: (any MetricsFactory)? = nil, prefix: String = "swiftframe_client", dimensions: [(String, String)] = []
    ) {
        self.factory = factory
        self.prefix = prefix
        self.dimensions = dimensions
    }

    var resolvedFactory: any MetricsFactory { factory ?? MetricsSystem.factory }

    /// False while the factory is swift-metrics' no-op one (no backend installed): a connection
    /// then skips recording, which costs a few percent of a round trip even when every handler
    /// does nothing. Read when each connection is made, so a backend installed later counts
    /// from the next connection on.
    var records: Bool { !(resolvedFactory is NOOPMetricsHandler) }

    func counter(_ name: String, _ extra: [(String, String)] = []) -> Counter {
        Counter(label: "\(prefix)_\(name)", dimensions: dimensions + extra, factory: resolvedFactory)
    }
}

/// A client's own metrics, across its connections.
struct ClientCounters: Sendable {
    let connects: Counter
    let reconnects: Counter
    let pushesDropped: Counter

    init(_ metrics: FrameMetrics) {
        connects = metrics.counter("connects_total")
        reconnects = metrics.counter("reconnects_total")
        pushesDropped = metrics.counter("pushes_dropped_total")
    }
}

/// One connection's metrics, kept on its event loop: the per-command ones are made once.
final class ConnectionMetrics {
    private let metrics: FrameMetrics
    private let name: (UInt32) -> String
    private var requests: [UInt32: (requests: Counter, replies: Counter, duration: Timer)] = [:]
    private var errors: [String: Counter] = [:]
    private let pending: Meter
    let bytesIn: Counter
    let bytesOut: Counter

    init(_ metrics: FrameMetrics, name: @escaping (UInt32) -> String) {
        self.metrics = metrics
        self.name = name
        pending = Meter(
            label: "\(metrics.prefix)_pending_requests", dimensions: metrics.dimensions,
            factory: metrics.resolvedFactory)
        bytesIn = metrics.counter("bytes_in_total")
        bytesOut = metrics.counter("bytes_out_total")
    }

    private func perCommand(_ command: UInt32) -> (requests: Counter, replies: Counter, duration: Timer) {
        if let found = requests[command] { return found }
        let dimensions = [("command", name(command))]
        let made = (
            metrics.counter("requests_total", dimensions), metrics.counter("replies_total", dimensions),
            Timer(
                label: "\(metrics.prefix)_request_duration", dimensions: metrics.dimensions + dimensions,
                factory: metrics.resolvedFactory)
        )
        requests[command] = made
        return made
    }

    func sent(_ command: UInt32) {
        perCommand(command).requests.increment()
        pending.increment()
    }

    func answered(_ command: UInt32, after duration: TimeAmount) {
        let metrics = perCommand(command)
        metrics.replies.increment()
        metrics.duration.recordNanoseconds(duration.nanoseconds)
        pending.decrement()
    }

    /// A request that ended without its reply (`kind`); `wasPending` when it had been sent.
    func failed(_ command: UInt32, kind: String, wasPending: Bool = true) {
        let key = "\(command) \(kind)"
        let counter = errors[key] ?? metrics.counter("errors_total", [("command", name(command)), ("kind", kind)])
        errors[key] = counter
        counter.increment()
        if wasPending { pending.decrement() }
    }
}
#else
/// Without the `Metrics` trait: nothing is recorded.
final class ConnectionMetrics {}
#endif

/// Counts the bytes a connection reads, for `PREFIX_bytes_in_total`.
final class ByteCounter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let count: (Int) -> Void

    init(_ count: @escaping (Int) -> Void) {
        self.count = count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        count(unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
    }
}
