/// How one request travels, for `FrameClient.request(_:options:)`: its deadline, whether it may
/// be sent again after its connection drops, and whether it may take the short link.
///
///     let delivered = try await client.request(TestReq(param1: "hi", param2: 1),
///                                              options: RequestOptions(timeout: .seconds(8), idempotent: true,
///                                                                      fallback: .shortLink(after: .seconds(3))))
///     print(delivered.reply.result1, delivered.link)
public struct RequestOptions: Sendable, Hashable {
    /// Where a request may go when the long connection does not deliver it.
    public enum Fallback: Sendable, Hashable {
        /// Only the long connection, as `request(_:timeout:)`.
        case none
        /// Over the client's `ClientConfiguration.shortLink` when the long connection is down
        /// (the client is backing off or reconnecting after a drop or a failed connect, or has
        /// stopped), drops while the request is outstanding, or has not delivered the reply
        /// within `after`; the short link then has what remains of the request's deadline. The
        /// long connection's late reply is dropped. The request may thus reach the server
        /// twice: mark for the fallback only requests that bear it.
        case shortLink(after: Duration)
    }

    /// The whole deadline, waiting for a connection, sending again and the short link
    /// included; nil: the configuration's `requestTimeout`.
    public var timeout: Duration?
    /// Safe to send twice: when its connection drops before the reply, it is sent again on
    /// the next connection, within its deadline, at most `RetryLimits.perRequest` times and
    /// while the client's `RetryLimits.perMinute` lasts. Otherwise it fails at once with
    /// `FrameClientError.connectionLost`.
    public var idempotent: Bool
    public var fallback: Fallback

    public init(timeout: Duration? = nil, idempotent: Bool = false, fallback: Fallback = .none) {
        self.timeout = timeout
        self.idempotent = idempotent
        self.fallback = fallback
    }
}

/// Which way a reply came.
public enum ReplyLink: Sendable, Hashable, CustomStringConvertible {
    /// The long connection, to this endpoint.
    case long(Endpoint)
    /// The client's short link (`ClientConfiguration.shortLink`).
    case short

    public var description: String {
        switch self {
        case let .long(endpoint): "long link to \(endpoint)"
        case .short: "short link"
        }
    }
}

/// A reply, with the link that carried it.
public struct DeliveredReply<Reply: Sendable>: Sendable {
    public let reply: Reply
    public let link: ReplyLink
    /// Times the request was sent again on a new connection after its connection dropped.
    public let retries: Int
}

/// How often the client sends idempotent requests again after their connection dropped.
/// `perMinute` is shared by every request of the client: when a server in trouble drops
/// thousands of phones at once, each sends again at most that many per minute rather than
/// its whole backlog (a token bucket of `perMinute` tokens, refilled evenly over a minute).
public struct RetryLimits: Sendable, Hashable {
    /// Times one request is sent again (default 2).
    public var perRequest: Int
    /// Requests sent again per minute across the client (default 30).
    public var perMinute: Int

    public init(perRequest: Int = 2, perMinute: Int = 30) {
        self.perRequest = perRequest
        self.perMinute = perMinute
    }
}

/// The client's budget of requests sent again: a token bucket holding at most `capacity`
/// tokens, starting full, refilled at `capacity` a minute. Pure: the caller gives the time.
struct RetryBudget {
    let capacity: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    init(perMinute: Int, now: ContinuousClock.Instant) {
        capacity = Double(max(perMinute, 0))
        tokens = capacity
        updated = now
    }

    /// Takes a token: true when there was one.
    mutating func take(now: ContinuousClock.Instant) -> Bool {
        let elapsed = max((now - updated).seconds, 0)
        tokens = min(capacity, tokens + elapsed * capacity / 60)
        updated = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
