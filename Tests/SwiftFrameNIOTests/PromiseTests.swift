// The promises of CONTRIBUTING.md's "Promises and their tests" that had no test: each error
// the client documents, made to happen over loopback sockets through the public API, with the
// typed outcome checked. The servers are the Swift FrameServer, the Python peers, or a few
// lines of SwiftNIO here where a server must misbehave in a way neither does (reset the
// connection, answer out of order, refuse a TLS handshake, answer HTTP with an error frame).

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import SwiftFrameURLSession
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct PromiseTests {
    /// Quick reconnects and no heartbeat (nothing but the test's own frames on the wire).
    static func quiet(initialDelay: Duration = .milliseconds(50)) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.reconnect = Backoff(initialDelay: initialDelay, jitter: 0)
        return configuration
    }

    // MARK: What a request throws

    /// `maxPendingRequests` outstanding: one more fails at once with `tooManyPending`, and is not
    /// sent; once the others are answered, requests go out again.
    @Test func aRequestBeyondMaxPendingRequestsFailsAtOnce() async throws {
        var configuration = Self.quiet()
        configuration.maxPendingRequests = 2
        let handled = NIOLockedValueBox<[String]>([])
        // The slow requests are held until the test lets them go, not for a fixed time: on a
        // loaded machine the first could be answered before the test looked.
        let released = NIOLockedValueBox(false)
        try await withServerAndClient(
            GameCommands.self, configuration: configuration,
            handler: { request, context in
                if case let .testReq(request) = request {
                    handled.withLockedValue { $0.append(request.param1) }
                    if request.param1.hasPrefix("slow") {
                        _ = await eventually(within: 10) { released.withLockedValue { $0 } }
                    }
                }
                return try await gameHandler(request, context)
            }
        ) { _, client in
            defer { released.withLockedValue { $0 = true } }
            _ = try await client.connection(within: .seconds(5))
            let slow = (1...2).map { index in
                Task { try await client.request(TestReq(param1: "slow\(index)"), timeout: .seconds(10)) }
            }
            // Both written (the server has taken the first).
            #expect(await eventually { handled.withLockedValue { $0 } == ["slow1"] })
            let start = ContinuousClock.now
            let error = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "third"), timeout: .seconds(10))
            }
            guard case .tooManyPending(limit: 2) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            // At once, not at the 10 s deadline (room for a busy machine's scheduling).
            #expect(ContinuousClock.now - start < .seconds(3), "at once, not at a deadline")
            released.withLockedValue { $0 = true }
            for (index, task) in slow.enumerated() { #expect(try await task.value.result1 == "echo:slow\(index + 1)") }
            #expect(try await client.request(TestReq(param1: "after")).result1 == "echo:after")
            #expect(
                handled.withLockedValue { $0 } == ["slow1", "slow2", "after"], "the refused request was never sent")
        }
    }

    /// A reply whose body is no valid message of the reply type: `badReply` with the `WireError`
    /// and its offset, for the typed request and the raw one; the connection stays up.
    @Test func aReplyBodyThatDoesNotDecodeIsBadReply() async throws {
        // 0x0F: field 1 with wire type 7, which does not exist.
        try await withServerAndClient(
            GameCommands.self, configuration: Self.quiet(),
            handler: { request, context in
                if case let .testReq(request) = request, request.param1 == "garbage" {
                    return ServerFrame(command: TestRsp.commandID, payload: [0x0F, 0x01])
                }
                return try await gameHandler(request, context)
            }
        ) { _, client in
            let typed = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "garbage"))
            }
            guard case .badReply(command: 1, .invalidWireType(offset: 0, wireType: 7)) = typed else {
                Issue.record("\(String(describing: typed))")
                return
            }
            let raw = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(
                    command: TestReq.commandID, payload: try TestReq(param1: "garbage").serializedBytes())
            }
            guard case .badReply(command: 1, .invalidWireType(offset: 0, wireType: 7)) = raw else {
                Issue.record("\(String(describing: raw))")
                return
            }
            let fine = try await client.request(TestReq(param1: "fine"))
            #expect(fine.result1 == "echo:fine")
        }
    }

    /// The IM layout's length is a u16: a 70,000-byte body cannot be framed. `FrameClient.request`
    /// and `send` throw the `FrameError`, nothing reaches the server, the connection stays up.
    @Test func aRequestTheLayoutCannotCarryIsAFrameError() async throws {
        let handled = NIOLockedValueBox(0)
        try await withServerAndClient(
            ImCommands.self, configuration: Self.quiet(),
            handler: { request, _ in
                handled.withLockedValue { $0 += 1 }
                guard case .common = request else { return nil }
                return try ServerFrame(CommonRespon(isSuc: true))
            }
        ) { _, client in
            _ = try await client.connection(within: .seconds(5))
            let huge = [UInt8](repeating: 0x41, count: 70_000)
            let error = await #expect(throws: FrameError.self) {
                _ = try await client.request(command: ImCommands.ID.request.rawValue, payload: huge)
            }
            #expect(error == .payloadTooLarge(size: 70_000, limit: 65_535), "\(String(describing: error))")
            let sent = await #expect(throws: FrameError.self) {
                try await client.send(command: ImCommands.ID.chat.rawValue, payload: huge)
            }
            #expect(sent == .payloadTooLarge(size: 70_000, limit: 65_535), "\(String(describing: sent))")
            #expect(try await client.request(Common()).isSuc)
            #expect(handled.withLockedValue { $0 } == 1, "only the last request reached the server")
        }
    }

    // MARK: Interceptors

    /// An outbound interceptor that throws: the request fails with its error and is never sent;
    /// the connection stays up. An inbound one that throws: the connection is dropped with
    /// `.rejectedFrame(error)`, the request awaiting that reply fails with it, and the client
    /// connects again.
    @Test func anInterceptorsRefusalFailsTheRequestOrDropsTheConnection() async throws {
        var configuration = Self.quiet()
        configuration.interceptors = [Refuses()]
        let handled = NIOLockedValueBox<[String]>([])
        try await withServerAndClient(
            GameCommands.self, configuration: configuration,
            handler: { request, context in
                if case let .testReq(request) = request { handled.withLockedValue { $0.append(request.param1) } }
                return try await gameHandler(request, context)
            }
        ) { _, client in
            let log = NATStateLog(client.states)
            _ = try await client.connection(within: .seconds(5))
            let start = ContinuousClock.now
            let outbound = await #expect(throws: InterceptorRefusal.self) {
                _ = try await client.request(TestReq(param1: "unsendable"))
            }
            #expect(outbound == InterceptorRefusal(direction: .outbound))
            #expect(try await client.request(TestReq(param1: "sendable")).result1 == "echo:sendable")
            #expect(handled.withLockedValue { $0 } == ["sendable"], "the refused frame was not written")
            #expect(
                log.matching(after: start) { if case .disconnected = $0 { true } else { false } }.isEmpty,
                "\(log.states)")

            // The reply "echo:unreadable" is refused as it comes in.
            let inbound = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "unreadable"))
            }
            guard case let .connectionLost(.rejectedFrame(reason as InterceptorRefusal)) = inbound,
                reason.direction == .inbound
            else {
                Issue.record("\(String(describing: inbound))")
                return
            }
            let dropped = try await log.first(after: start, within: .seconds(5), "the drop") {
                if case let .disconnected(.rejectedFrame(reason as InterceptorRefusal)) = $0 {
                    reason.direction == .inbound
                } else {
                    false
                }
            }
            _ = try await log.first(after: dropped, within: .seconds(5), "the next connection") { $0.isConnected }
            #expect(try await client.request(TestReq(param1: "again")).result1 == "echo:again")
        }
    }

    // MARK: Why a connection ended

    /// A server that resets the connection (SO_LINGER 0, then close: an RST, no FIN) as the
    /// request arrives: the request fails with `.connectionLost(.transportError)` carrying the
    /// socket's ECONNRESET, and `states` reports the same reason.
    @Test func aResetConnectionIsATransportError() async throws {
        let server = try await plainServer { [ResetsOnTheFirstRead()] }
        defer { server.close(promise: nil) }
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: try #require(server.localAddress?.port),
            configuration: Self.quiet(initialDelay: .seconds(10)))
        let log = NATStateLog(client.states)
        let start = ContinuousClock.now
        try await client.running { client in
            _ = try await client.connection(within: .seconds(5))
            let error = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "reset"), timeout: .seconds(10))
            }
            guard case let .connectionLost(.transportError(socketError as IOError)) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(socketError.errnoCode == ECONNRESET, "\(socketError)")
            _ = try await log.first(after: start, within: .seconds(5), "the reset") {
                if case let .disconnected(.transportError(reported as IOError)) = $0 {
                    reported.errnoCode == ECONNRESET
                } else {
                    false
                }
            }
        }
    }

    /// `reconnectNow()` drops a live connection as `.closedByClient` (a request awaiting its
    /// reply fails with that reason) and connects again without the backoff's 10 s; stopping
    /// the client closes the connection with the same reason.
    @Test func reconnectNowAndStoppingCloseTheConnectionAsClosedByClient() async throws {
        try await withServer(
            GameCommands.self,
            handler: { request, context in
                if case let .testReq(request) = request, request.param1 == "slow" {
                    try await Task.sleep(for: .seconds(5))
                }
                return try await gameHandler(request, context)
            }
        ) { _, port in
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: port, configuration: Self.quiet(initialDelay: .seconds(10)))
            let log = NATStateLog(client.states)
            let states = client.states
            try await client.running { client in
                _ = try await client.connection(within: .seconds(5))
                let waiting = Task { try await client.request(TestReq(param1: "slow"), timeout: .seconds(20)) }
                try await Task.sleep(for: .milliseconds(200))
                let asked = ContinuousClock.now
                client.reconnectNow()
                let error = await #expect(throws: FrameClientError.self) { _ = try await waiting.value }
                guard case .connectionLost(.closedByClient) = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
                let dropped = try await log.first(after: asked, within: .seconds(3), "the drop") {
                    if case .disconnected(.closedByClient) = $0 { true } else { false }
                }
                _ = try await log.first(after: dropped, within: .seconds(3), "a reconnect without a wait") {
                    if case .reconnecting(attempt: 1, delay: .zero) = $0 { true } else { false }
                }
                let connected = try await log.first(after: dropped, within: .seconds(3), "the next connection") {
                    $0.isConnected
                }
                #expect(connected - asked < .seconds(3), "not after the 10 s backoff: \(connected - asked)")
                #expect(try await client.request(TestReq(param1: "again")).result1 == "echo:again")
            }
            var seen: [ConnectionState] = []
            for await state in states { seen.append(state) }
            guard seen.count >= 2, case .disconnected(.closedByClient) = seen[seen.count - 2],
                case .stopped(nil) = seen.last
            else {
                Issue.record("\(seen)")
                return
            }
        }
    }

    #if TLS
    /// A server that answers the ClientHello with a fatal `handshake_failure` alert (what a
    /// server with no protocol version or cipher in common with the client sends): not one of
    /// the named refusals, so `TLSFailure.other`, which is not final: the client reconnects
    /// after the backoff, and with `maxAttempts: 1` gives up after the second attempt.
    @Test func anotherHandshakeFailureIsOtherAndRetried() async throws {
        let accepted = NIOLockedValueBox(0)
        let server = try await plainServer { [RefusesTheHandshake(accepted: accepted)] }
        defer { server.close(promise: nil) }
        var configuration = Self.quiet()
        configuration.reconnect.maxAttempts = 1
        configuration.connectTimeout = .seconds(5)
        configuration.tls = ClientTLS(trustRoots: .system)
        let (error, states, took) = await runUntilStopped(port: try #require(server.localAddress?.port), configuration)
        guard case let .gaveUp(attempts: 2, last: .connectFailed(.tls(last)))? = error as? FrameClientError,
            case let .other(underlying) = last
        else {
            Issue.record("\(String(describing: error)); \(states)")
            return
        }
        #expect(!last.isFinal)
        #expect("\(underlying)".contains("ALERT_HANDSHAKE_FAILURE"), "\(underlying)")
        let kinds = states.map { state -> String in
            switch state {
            case .connecting: "connecting"
            case .disconnected(.connectFailed(.tls(.other))): "other"
            case .reconnecting(attempt: 1, _): "reconnecting"
            case let .stopped(stopped as FrameClientError):
                if case .gaveUp(attempts: 2, last: .connectFailed(.tls(.other))) = stopped {
                    "stopped"
                } else {
                    "\(state)"
                }
            default: "\(state)"
            }
        }
        #expect(kinds == ["connecting", "other", "reconnecting", "other", "stopped"], "\(states)")
        #expect(accepted.withLockedValue { $0 } == 2, "two connections: the failure was retried")
        #expect(took < .seconds(5))
    }

    /// Under TLS 1.3 a server that requires a client certificate refuses the client without one
    /// only after the client's side of the handshake is done: the connection comes up, then
    /// drops with `.transportError` (the server's CERTIFICATE_REQUIRED alert), not with a
    /// `TLSFailure`, and the client connects again.
    @Test func aRefusedClientCertificateDropsTheConnectionAsATransportError() async throws {
        let pki = try await TestCertificates.load()
        try await withGameServer(pki.serverConfiguration(pki.server, clientCertificateAuthorities: pki.ca)) { _, port in
            var configuration = pki.clientConfiguration(maxAttempts: nil)
            configuration.heartbeat = nil
            let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, configuration: configuration)
            let log = NATStateLog(client.states)
            let start = ContinuousClock.now
            try await client.running { _ in
                let connected = try await log.first(after: start, within: .seconds(5), "the connection") {
                    $0.isConnected
                }
                let dropped = try await log.first(after: connected, within: .seconds(5), "the alert") {
                    if case let .disconnected(.transportError(error)) = $0 {
                        "\(error)".contains("CERTIFICATE_REQUIRED")
                    } else {
                        false
                    }
                }
                _ = try await log.first(after: dropped, within: .seconds(5), "a reconnect") {
                    if case .reconnecting(attempt: 1, _) = $0 { true } else { false }
                }
            }
            #expect(
                log.matching(after: start) { if case .disconnected(.connectFailed) = $0 { true } else { false } }
                    .isEmpty,
                "\(log.states)")
        }
    }
    #endif

    // MARK: Connecting

    /// Cancelling `run()`'s task while requests wait for a connection (nothing listens, and the
    /// backoff is 10 s): they fail at once with `.stopped`, `run()` returns, the subscriptions to
    /// pushes and states end, the last state being `.stopped(nil)`.
    @Test func cancellingRunFailsWaitingRequestsWithStoppedAndEndsSubscriptions() async throws {
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: ShortLinkTests.refusing,
            configuration: Self.quiet(initialDelay: .seconds(10)))
        let log = NATStateLog(client.states)
        let states = client.states
        let pushes = client.pushes
        let running = Task { try await client.run() }
        _ = try await log.first(after: ContinuousClock.now - .seconds(1), within: .seconds(5), "the backoff") {
            if case .reconnecting = $0 { true } else { false }
        }
        let waiting = (0..<3).map { index in
            Task { try await client.request(TestReq(param1: "w\(index)"), timeout: .seconds(30)) }
        }
        let pushesEnded = Task { for await _ in pushes {} }
        let statesEnded = Task {
            var last: ConnectionState?
            for await state in states { last = state }
            return last
        }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        running.cancel()
        for task in waiting {
            let error = await #expect(throws: FrameClientError.self) { _ = try await task.value }
            guard case .stopped = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
        }
        #expect(ContinuousClock.now - cancelled < .seconds(2), "at once, not at the requests' deadline")
        try await running.value  // returns: cancelled, it throws nothing
        await pushesEnded.value
        guard case .stopped(nil)? = await statesEnded.value else {
            Issue.record("\(log.states)")
            return
        }
    }

    /// Sequence numbers of one byte (1 to 255): one request stays outstanding and another is
    /// given up (timed out, its reply withheld) while 600 more go around the numbers twice;
    /// neither number is given out again, and when the two replies finally come, the first
    /// answers its request and the late one is dropped, not taken for a push.
    @Test func aSequenceNumberOutstandingOrGivenUpIsNotReused() async throws {
        let seen = NIOLockedValueBox<[UInt64]>([])
        let server = try await plainServer { [AnswersOutOfOrder(seen: seen)] }
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        try await withFrameClient(ByteSequenceCommands.self, host: "127.0.0.1", port: port, configuration: Self.quiet())
        { client in
            let pushes = client.pushes
            let held = Task { try await client.request(command: 3, payload: Array("hold".utf8), timeout: .seconds(30)) }
            #expect(await eventually { seen.withLockedValue { $0.count } == 1 })
            let given = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(command: 3, payload: Array("late".utf8), timeout: .milliseconds(300))
            }
            guard case .timedOut(command: 3, after: .milliseconds(300)) = given else {
                Issue.record("\(String(describing: given))")
                return
            }
            for index in 0..<600 {
                let body = Array("n\(index)".utf8)
                #expect(try await client.request(command: 3, payload: body, timeout: .seconds(5)) == body)
            }
            #expect(
                try await client.request(command: 3, payload: Array("release".utf8), timeout: .seconds(5))
                    == Array("release".utf8))
            #expect(try await held.value == Array("hold".utf8))
            let numbers = seen.withLockedValue { $0 }
            var expected: [UInt64] = [1, 2]
            var next: UInt64 = 3
            for _ in 0..<601 {
                expected.append(next)
                next = next == 255 ? 3 : next + 1
            }
            #expect(numbers == expected)
            // The late reply (seq 2) came before "release"'s: dropped, so no push is waiting.
            let drained = Task {
                var iterator = pushes.makeAsyncIterator()
                return await iterator.next()
            }
            try await Task.sleep(for: .milliseconds(300))
            drained.cancel()
            #expect(await drained.value == nil)
        }
    }

    /// Without a heartbeat to check it with, `networkChanged()` drops the connection at once
    /// (`.closedByClient`), and it is made again after the first backoff delay.
    @Test func networkChangedWithoutAHeartbeatDropsTheConnectionAtOnce() async throws {
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: port, configuration: Self.quiet(initialDelay: .milliseconds(400)))
            let log = NATStateLog(client.states)
            try await client.running { client in
                #expect(client.heartbeatInterval == nil)
                #expect(try await client.request(TestReq(param1: "before")).result1 == "echo:before")
                let changed = ContinuousClock.now
                client.networkChanged()
                let dropped = try await log.first(after: changed, within: .seconds(2), "the drop") {
                    if case .disconnected(.closedByClient) = $0 { true } else { false }
                }
                _ = try await log.first(after: dropped, within: .seconds(2), "the first backoff delay") {
                    if case let .reconnecting(attempt: 1, delay) = $0 {
                        abs((delay - .milliseconds(400)).inSeconds) < 0.001
                    } else {
                        false
                    }
                }
                let connected = try await log.first(after: dropped, within: .seconds(3), "the next connection") {
                    $0.isConnected
                }
                // At once: not after a check's 3 s `checkTimeout` (the state log is polled, and
                // a loaded CI machine has taken 0.9 s to see it).
                #expect(dropped - changed < .milliseconds(2500), "at once: \(dropped - changed)")
                // The log's times are when its reader task saw each state, which can be late by
                // a loaded machine's scheduling; only `changed` is exact, and the connection
                // comes at least the 400 ms delay after it, however late it is seen.
                #expect(connected - changed >= .milliseconds(390), "after the backoff delay: \(connected - changed)")
                #expect(try await client.request(TestReq(param1: "after")).result1 == "echo:after")
            }
        }
    }

    /// `firstReconnectWindow` (here 10^7 s) delays the first reconnect after a drop of a
    /// connection that was up, by a random part of it: the client does not come back until
    /// `reconnectNow()`. Failed connects wait the plain delays (50 ms, 80 ms, 128 ms).
    @Test func firstReconnectWindowDelaysOnlyTheFirstReconnectAfterADrop() async throws {
        var configuration = Self.quiet()
        configuration.reconnect.firstReconnectWindow = .seconds(10_000_000)

        // Failed connects: no spread.
        let refused = FrameClient<GameCommands>(
            host: "127.0.0.1", port: ShortLinkTests.refusing, configuration: configuration)
        let refusedLog = NATStateLog(refused.states)
        try await refused.running { _ in
            let start = ContinuousClock.now - .seconds(1)
            for (attempt, milliseconds) in [(1, 50.0), (2, 80.0), (3, 128.0)] {
                _ = try await refusedLog.first(after: start, within: .seconds(5), "attempt \(attempt)") {
                    if case let .reconnecting(attempt: seen, delay) = $0, seen == attempt {
                        abs(delay.inSeconds - milliseconds / 1000) < 0.001
                    } else {
                        false
                    }
                }
            }
        }

        // A drop: the first connection of this peer closes on its first request.
        let peer = try await Peer.start("game", ["--drop-first", "1"])
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: peer.port, configuration: configuration)
        let log = NATStateLog(client.states)
        try await client.running { client in
            _ = try await client.connection(within: .seconds(5))
            let start = ContinuousClock.now
            let error = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "dropped"))
            }
            guard case .connectionLost(.closedByPeer) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            let waiting = try await log.first(after: start, within: .seconds(3), "the first reconnect's wait") {
                if case let .reconnecting(attempt: 1, delay) = $0 { delay > .seconds(1) } else { false }
            }
            try await Task.sleep(for: .milliseconds(1500))
            #expect(
                log.matching(after: waiting) { $0.isConnected }.isEmpty,
                "came back within its plain 50 ms delay: \(log.states)")
            let woken = ContinuousClock.now
            client.reconnectNow()
            _ = try await log.first(after: woken, within: .seconds(3), "the next connection") { $0.isConnected }
            #expect(try await client.request(TestReq(param1: "back")).result1 == "echo:back")
        }
    }

    // MARK: The short link

    /// Requests that go to the short link (the long one is refused): an error reply in the HTTP
    /// body throws `ErrorReply`, a status other than 2xx `HTTPStatusError`, a connection the
    /// HTTP server closes without answering URLSession's `URLError`, and no answer by the
    /// request's deadline `FrameClientError.timedOut` with the request's whole timeout.
    @Test func overTheShortLinkErrorRepliesItsOwnFailuresAndTimeoutsAreThrown() async throws {
        let http = try await plainServer { [CannedHTTP()] }
        defer { http.close(promise: nil) }
        let httpPort = try #require(http.localAddress?.port)
        func client(_ path: String) -> FrameClient<GameCommands> {
            var configuration = Self.quiet(initialDelay: .seconds(5))
            configuration.shortLink = HTTPFrameClient<GameCommands>(
                url: URL(string: "http://127.0.0.1:\(httpPort)/\(path)")!, requestLayout: .gameHTTPRequest,
                extras: ["playerId": 7, "sessionId": 9])
            return FrameClient(host: "127.0.0.1", port: ShortLinkTests.refusing, configuration: configuration)
        }
        func request(_ path: String, timeout: Duration = .seconds(10)) async throws -> DeliveredReply<TestRsp> {
            try await client(path).running { client in
                try await client.request(
                    TestReq(param1: path),
                    options: RequestOptions(timeout: timeout, fallback: .shortLink(after: .seconds(5))))
            }
        }

        let answered = try await request("echo")
        #expect(answered.reply.result1 == "echo" && answered.link == .short)

        let errorReply = await #expect(throws: ErrorReply<GameCommands>.self) { _ = try await request("error") }
        #expect(errorReply?.reply == .errorRsp(ErrorRsp(code: 401, message: "logged out")))

        let status = await #expect(throws: HTTPStatusError.self) { _ = try await request("status") }
        #expect(status?.status == 503 && status?.body == "busy\n", "\(String(describing: status))")

        let closed = await #expect(throws: URLError.self) { _ = try await request("close") }
        #expect(closed != nil)

        let start = ContinuousClock.now
        let silent = await #expect(throws: FrameClientError.self) {
            _ = try await request("silent", timeout: .seconds(1))
        }
        guard case .timedOut(command: 1, after: .seconds(1)) = silent else {
            Issue.record("\(String(describing: silent))")
            return
        }
        let took = ContinuousClock.now - start
        #expect(took >= .milliseconds(990) && took < .seconds(4), "\(took)")
    }

    /// `HTTPFrameClient.post`: a status other than 2xx is `HTTPStatusError` (the Python HTTP
    /// peer refuses a body framed in the TCP layout with 400); the table's error reply is
    /// `ErrorReply`; a body with no frame is `ShortReplyError.emptyBody`, one whose first frame
    /// answers another command `unexpectedReply`.
    @Test func postThrowsHTTPStatusErrorErrorReplyAndShortReplyError() async throws {
        let peer = try await Peer.start("http", ["--events", "0"])
        let wrongLayout = HTTPFrameClient<GameCommands>(
            url: URL(string: "http://127.0.0.1:\(peer.port)/game")!,
            requestLayout: GameCommands.layout)
        let refused = await #expect(throws: HTTPStatusError.self) {
            _ = try await wrongLayout.post(TestReq(param1: "x"))
        }
        #expect(refused?.status == 400)
        #expect(refused?.body.hasPrefix("malformed game request: ") == true, "\(String(describing: refused))")

        let http = try await plainServer { [CannedHTTP()] }
        defer { http.close(promise: nil) }
        let httpPort = try #require(http.localAddress?.port)
        func post(_ path: String) async throws -> ShortReply<GameCommands, TestRsp> {
            try await HTTPFrameClient<GameCommands>(
                url: URL(string: "http://127.0.0.1:\(httpPort)/\(path)")!,
                requestLayout: .gameHTTPRequest, extras: ["playerId": 7, "sessionId": 9]
            )
            .post(TestReq(param1: path))
        }
        #expect(try await post("echo").reply.result1 == "echo")
        let errorReply = await #expect(throws: ErrorReply<GameCommands>.self) { _ = try await post("error") }
        #expect(errorReply?.reply == .errorRsp(ErrorRsp(code: 401, message: "logged out")))
        #expect(errorReply?.header.command == GameCommands.errorCommand)
        let empty = await #expect(throws: ShortReplyError.self) { _ = try await post("empty") }
        #expect(empty == .emptyBody)
        let other = await #expect(throws: ShortReplyError.self) { _ = try await post("other") }
        #expect(other == .unexpectedReply(command: NoticeNtf.commandID, expected: TestRsp.commandID))
        let status = await #expect(throws: HTTPStatusError.self) { _ = try await post("status") }
        #expect(status?.status == 503 && status?.body == "busy\n", "\(String(describing: status))")
    }

    // MARK: swiftframe call

    #if TLS
    /// `swiftframe call --tls` with a CA file that is missing, or is no PEM: a usage error
    /// (64) naming the problem, found before connecting (nothing listens at the port, which
    /// would be exit status 2).
    @Test func callWithACAFileThatDoesNotLoadIsAUsageError() async throws {
        let notPEM = try CLIFiles.temporary(contents: Array("not a certificate\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        for caFile in ["/nonexistent/ca.pem", notPEM] {
            let result = try await offThePool {
                try runProcess(
                    Repository.builtExecutable("swiftframe"),
                    ["call"] + CallTests.game + [
                        "--host", "127.0.0.1", "--port", "\(ShortLinkTests.refusing)", "--tls", "--ca-file", caFile,
                        "Test_Req", #"param1: "x""#,
                    ])
            }
            #expect(result.status == 64, "\(caFile): \(result.stderr)")
            #expect(result.stderr.contains("--tls: bad TLS configuration: "), "\(caFile): \(result.stderr)")
            #expect(!result.stderr.contains("cannot connect"), "\(result.stderr)")
            #expect(result.stdoutText.isEmpty, "\(result.stdoutText)")
        }
    }
    #endif
}

// MARK: Servers and tables for the tests above

/// Refuses, in either direction, the frames whose body is a `TestReq` or `TestRsp` that says
/// so: "unsendable" going out, "echo:unreadable" coming in.
struct Refuses: FrameInterceptor {
    func intercept(_ frame: inout InterceptedFrame) throws {
        guard frame.command == TestReq.commandID else { return }
        switch frame.direction {
        case .outbound:
            if try TestReq(serializedBytes: frame.payload).param1 == "unsendable" {
                throw InterceptorRefusal(direction: .outbound)
            }
        case .inbound:
            if try TestRsp(serializedBytes: frame.payload).result1 == "echo:unreadable" {
                throw InterceptorRefusal(direction: .inbound)
            }
        }
    }
}

struct InterceptorRefusal: Error, Hashable {
    let direction: InterceptedFrame.Direction
}

/// Raw bodies, with a sequence number of one byte.
enum ByteSequenceCommands: CommandTable {
    static let layout = FrameLayout(checkedDescription: "magic:u8=0x7E seq:u8 cmd:u8 length:u16:body")

    static func decode(_ frame: Frame) throws(WireError) -> [UInt8] { Array(frame.payload) }
    static func decodeRequest(_ frame: Frame) throws(WireError) -> [UInt8] { Array(frame.payload) }
}

/// Echoes each frame of `ByteSequenceCommands` under its sequence number at once, recording the
/// number, except "hold" and "late": those are answered when "release" comes, before it.
final class AnswersOutOfOrder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let seen: NIOLockedValueBox<[UInt64]>
    private var decoder = FrameDecoder(layout: ByteSequenceCommands.layout)
    private var withheld: [Frame] = []

    init(seen: NIOLockedValueBox<[UInt64]>) {
        self.seen = seen
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        decoder.feed(buffer.readBytes(length: buffer.readableBytes) ?? [])
        do {
            while let frame = try decoder.nextFrame() {
                seen.withLockedValue { $0.append(frame.header.sequence ?? 0) }
                switch String(decoding: frame.payload, as: UTF8.self) {
                case "hold", "late":
                    withheld.append(frame)
                case "release":
                    for earlier in withheld { try answer(earlier, context: context) }
                    withheld.removeAll()
                    try answer(frame, context: context)
                default:
                    try answer(frame, context: context)
                }
            }
        } catch {
            context.close(promise: nil)
        }
        context.flush()
    }

    private func answer(_ frame: Frame, context: ChannelHandlerContext) throws {
        let layout = ByteSequenceCommands.layout
        let header = layout.header(command: layout.commandID(of: frame), sequence: frame.header.sequence)
        let bytes = try FrameEncoder(layout: layout).encode(header: header, payload: frame.payload)
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }
}

/// Resets the connection when the first bytes arrive: SO_LINGER with a zero timeout, then
/// close, which sends an RST instead of a FIN.
final class ResetsOnTheFirstRead: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let channel = context.channel
        guard let options = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Answers a TLS ClientHello with a fatal handshake_failure alert (a TLS 1.2 record of type
/// 21: level 2, description 40), counting the connections.
final class RefusesTheHandshake: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let accepted: NIOLockedValueBox<Int>

    init(accepted: NIOLockedValueBox<Int>) {
        self.accepted = accepted
    }

    func channelActive(context: ChannelHandlerContext) {
        accepted.withLockedValue { $0 += 1 }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let alert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: alert)), promise: nil)
    }
}

/// An HTTP/1.1 server of canned answers, chosen by the request's path: `/echo` answers the
/// `TestReq` in the body (framed in `.gameHTTPRequest`) with a `TestRsp` of its `param1`,
/// `/error` with the table's error reply, `/other` with a `NoticeNtf`, `/empty` with an empty
/// body, `/status` with 503; `/close` closes without answering, `/silent` never answers.
final class CannedHTTP: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var received: [UInt8] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        let separator = Array("\r\n\r\n".utf8)
        guard let headEnd = received.indices.first(where: { received[$0...].starts(with: separator) }) else { return }
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let length =
            lines.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let bodyStart = headEnd + separator.count
        guard received.count >= bodyStart + length else { return }
        let body = Array(received[bodyStart..<(bodyStart + length)])
        let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        received.removeAll()
        let reply: (status: Int, body: [UInt8])
        do {
            switch path {
            case "/echo":
                let frames = try FrameDecoder.decodeAll(body, layout: .gameHTTPRequest)
                guard let first = frames.first else { throw FrameError.missingValue(field: "frame") }
                let request = try TestReq(serializedBytes: first.payload)
                reply = (200, try GameCommands.encode(TestRsp(result1: request.param1)))
            case "/error": reply = (200, try GameCommands.encode(ErrorRsp(code: 401, message: "logged out")))
            case "/other": reply = (200, try GameCommands.encode(NoticeNtf(text: "not the reply", serial: 1)))
            case "/empty": reply = (200, [])
            case "/status": reply = (503, Array("busy\n".utf8))
            case "/silent": return
            default:
                context.close(promise: nil)
                return
            }
        } catch {
            context.close(promise: nil)
            return
        }
        let response =
            Array(
                "HTTP/1.1 \(reply.status) X\r\nContent-Type: application/octet-stream\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n\r\n"
                    .utf8)
            + reply.body
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response))).assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }
}

/// Temporary files for the command-line runs.
enum CLIFiles {
    static func temporary(contents: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swiftframe-promise-\(UUID().uuidString)"
        ).path
        guard FileManager.default.createFile(atPath: path, contents: Data(contents)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return path
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
