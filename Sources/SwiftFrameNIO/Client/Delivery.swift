import SwiftFrame

/// The long connection is down, for a request that may take the short link instead.
struct LongLinkDown: Error {}

extension FrameClient {
    /// Sends `message` as `options` say and returns its reply with the link that carried it:
    /// the current connection (or the next, within the deadline); again on the next connection
    /// after a drop when it is idempotent; over the short link when it may fall back and the
    /// long connection is down or too slow (see `RequestOptions`). Throws as
    /// `request(_:timeout:)` does, and what the short link throws.
    nonisolated(nonsending) public func request<M: RequestMessage & CommandMessage>(
        _ message: M, options: RequestOptions
    ) async throws -> DeliveredReply<M.Response> where M.Response: CommandMessage {
        try await deliver(options: options, command: M.commandID, replyCommand: M.Response.commandID) {
            link, remaining in
            try await link.unsentRequest(
                message, of: Table.self, extras: configuration.headerExtras, timeout: remaining)
        } overShortLink: { link, remaining in
            try await link.exchange(command: M.commandID, payload: message.framePayloadBytes(), timeout: remaining)
        } decode: { frame in
            try M.Response(framePayload: frame.payload)
        }
    }

    /// `request(command:payload:replyCommand:timeout:)` as `options` say (see `request(_:options:)`).
    nonisolated(nonsending) public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, options: RequestOptions
    ) async throws -> DeliveredReply<Table.Inbound> {
        try await deliver(options: options, command: command, replyCommand: replyCommand ?? command) {
            link, remaining in
            try await link.unsentRequest(
                command: command, payload: payload, replyCommand: replyCommand, of: Table.self,
                extras: configuration.headerExtras, timeout: remaining)
        } overShortLink: { link, remaining in
            try await link.exchange(command: command, payload: payload, timeout: remaining)
        } decode: { frame in
            try Table.decode(frame)
        }
    }

    /// The long connection first (sent again after drops when idempotent), then the short link.
    private nonisolated(nonsending) func deliver<Reply: Sendable>(
        options: RequestOptions, command: UInt32, replyCommand: UInt32,
        overLongLink: nonisolated(nonsending) (Link, Duration) async throws -> Reply,
        overShortLink: @escaping @Sendable (any ShortLink, Duration) async throws -> [Frame],
        decode: (Frame) throws -> Reply
    ) async throws -> DeliveredReply<Reply> {
        let timeout = options.timeout ?? configuration.requestTimeout
        let start = ContinuousClock.now
        let deadline = start + timeout
        var shortLink: (any ShortLink)?
        var longDeadline = deadline
        if case let .shortLink(after) = options.fallback, let link = configuration.shortLink {
            shortLink = link
            longDeadline = min(deadline, start + after)
        }
        var endpoint = endpoints[0]  // replaced by the connection that replies
        var retries = 0
        do {
            let reply = try await self.overLongLink(
                command: command, timeout: timeout, until: longDeadline, fallsBack: shortLink != nil,
                idempotent: options.idempotent, retries: &retries
            ) { link, remaining in
                endpoint = link.endpoint
                return try await overLongLink(link, remaining)
            }
            return DeliveredReply(reply: reply, link: .long(endpoint), retries: retries)
        } catch is LongLinkDown {}
        guard let shortLink else { throw FrameClientError.noConnection(after: timeout, last: nil) }  // not reached
        let frames = try await withDeadline(deadline, command: command, timeout: timeout) { remaining in
            try await overShortLink(shortLink, remaining)
        }
        guard let first = frames.first else { throw ShortReplyError.emptyBody }
        let replied = Table.commandID(of: first)
        let errorCommand = configuration.errorCommand ?? Table.errorCommand
        if replied == errorCommand, replied != replyCommand {
            throw ErrorReply<Table>(reply: try Table.decode(first), header: first.header)
        }
        guard replied == replyCommand else {
            throw ShortReplyError.unexpectedReply(command: replied, expected: replyCommand)
        }
        let reply: Reply
        do {
            reply = try decode(first)
        } catch let error as WireError {
            throw FrameClientError.badReply(command: replyCommand, error)
        }
        // The events after the reply are the server's pushes.
        for frame in frames.dropFirst() {
            do {
                pushFeed.yield(try Table.decode(frame))
            } catch {
                configuration.logger.warning(
                    "an event of a short reply does not decode; dropped",
                    metadata: ["command": "\(Table.commandID(of: frame))", "error": "\(error)"])
            }
        }
        return DeliveredReply(reply: reply, link: .short, retries: 0)
    }

    /// Runs `body` on the current connection, or the next one within the deadline; again on the
    /// next connection if it had closed before the request went out, or, for an `idempotent`
    /// request, if it dropped before the reply came (within the retry limits), counting in
    /// `retries`. For a request that `fallsBack`, throws `LongLinkDown` when the long link is
    /// down, drops or is too slow (the short link's turn). Other errors name the request's
    /// whole `timeout`.
    ///
    /// The reply is returned alone, not in a tuple or an optional: in this generic code each
    /// such type is looked up at run time, on every request. Inlined (see
    /// `onAConnection`).
    @inline(__always)
    nonisolated(nonsending) func overLongLink<T>(
        command: UInt32, timeout: Duration, until deadline: ContinuousClock.Instant, fallsBack: Bool,
        idempotent: Bool, retries: inout Int, _ body: nonisolated(nonsending) (Link, Duration) async throws -> T
    ) async throws -> T {
        while true {
            let link: Link
            if let ready = machine.withLockedValue({ $0.connection }) {
                link = ready  // the usual case, without a call that may suspend
            } else {
                do {
                    link = try await self.link(within: deadline - .now, unlessDown: fallsBack)
                } catch let FrameClientError.noConnection(_, last) {
                    if fallsBack { throw LongLinkDown() }
                    throw FrameClientError.noConnection(after: timeout, last: last)
                } catch FrameClientError.stopped where fallsBack {
                    throw LongLinkDown()
                } catch FrameClientError.gaveUp where fallsBack {
                    throw LongLinkDown()
                }
            }
            await moveToTheLoop(of: link)
            do {
                return try await body(link, deadline - .now)
            } catch FrameClientError.timedOut {
                // The late reply, if it comes, is dropped (the request was given up).
                if fallsBack { throw LongLinkDown() }
                throw FrameClientError.timedOut(command: command, after: timeout)
            } catch is NotSent {
                machine.withLockedValue { $0.retire { $0.channel === link.channel } }
                if ContinuousClock.now >= deadline {
                    if fallsBack { throw LongLinkDown() }
                    throw FrameClientError.noConnection(
                        after: timeout, last: machine.withLockedValue { $0.lastFailure })
                }
            } catch let FrameClientError.connectionLost(reason) where fallsBack || idempotent {
                if fallsBack { throw LongLinkDown() }
                guard retries < configuration.retries.perRequest, ContinuousClock.now < deadline,
                    retryBudget.withLockedValue({ $0.take(now: .now) })
                else {
                    throw FrameClientError.connectionLost(reason)
                }
                retries += 1
                configuration.logger.debug(
                    "sending an idempotent request again on the next connection",
                    metadata: [
                        "command": "\(command)", "retry": "\(retries)", "reason": "\(reason)",
                    ])
            }
        }
    }

    /// `body` given the time left until `deadline`, cancelled then: `FrameClientError.timedOut`.
    private func withDeadline<T: Sendable>(
        _ deadline: ContinuousClock.Instant, command: UInt32, timeout: Duration,
        _ body: @escaping @Sendable (Duration) async throws -> T
    ) async throws -> T {
        let remaining = deadline - .now
        guard remaining > .zero else { throw FrameClientError.timedOut(command: command, after: timeout) }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body(remaining) }
            group.addTask { [loop = self.group.any()] in
                try await DeadlineWaiter.sleep(for: deadline - .now, on: loop)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw FrameClientError.timedOut(command: command, after: timeout)
            }
            return value
        }
    }
}
