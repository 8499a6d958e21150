// A client's lifetime over loopback sockets: scoped to a closure, run twice, stopped for good by
// a rejected login, typed connect failures, pushes and states fanned out to several readers,
// and the server's port() with its deadline.

import NIOConcurrencyHelpers
import NIOCore
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// Runs `body` with a server of `Table` (on a free port) served by `handler`.
func withServer<Table: CommandTable, Result: Sendable>(
    _ table: Table.Type, configuration: ServerConfiguration = ServerConfiguration(),
    handler: @escaping FrameServer<Table>.Handler,
    _ body: @Sendable @escaping (FrameServer<Table>, Int) async throws -> Result
) async throws -> Result {
    let server = FrameServer<Table>(port: 0, configuration: configuration)
    return try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask {
            try await server.run(handler: handler)
            return nil
        }
        defer { group.cancelAll() }
        return try await body(server, try await server.port())
    }
}

struct LoginFailed: Error {}

@Suite(.timeLimit(.minutes(1))) struct ClientLifetimeTests {
    @Test func withFrameClientReturnsTheBodysValueAndClosesTheConnection() async throws {
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            let reply = try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port) { client in
                try await client.request(TestReq(param1: "scoped", param2: 2))
            }
            #expect(reply == TestRsp(result1: "echo:scoped", result2: 4))
            let closed = await eventually { server.connectionIDs.isEmpty }
            #expect(closed, "the connection outlived the scope")
        }
    }

    @Test func aBodyThatThrowsClosesTheConnectionAndRethrows() async throws {
        struct Oops: Error {}
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            await #expect(throws: Oops.self) {
                try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port) { client in
                    _ = try await client.request(TestReq(param1: "x"))
                    #expect(server.connectionIDs.count == 1)
                    throw Oops()
                }
            }
            let closed = await eventually { server.connectionIDs.isEmpty }
            #expect(closed)
        }
    }

    @Test func runWhileRunningIsATypedErrorAndRunAfterReturningConnectsAgain() async throws {
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port)
            try await client.running { client in
                let reply = try await client.request(TestReq(param1: "first"))  // run() is running now
                #expect(reply.result1 == "echo:first")
                let error = await #expect(throws: FrameClientError.self) { try await client.run() }
                guard case .alreadyRunning = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
            }
            // Stopped: a request fails at once instead of waiting out its deadline.
            let error = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq())
            }
            guard case .stopped = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            let second = try await client.running { client in try await client.request(TestReq(param1: "second")) }
            #expect(second.result1 == "echo:second")
        }
    }

    @Test func aRejectedLoginEndsTheClientWithTheAppsErrorAndIsNotRetried() async throws {
        let logins = NIOLockedValueBox(0)
        try await withServer(
            ImCommands.self,
            handler: { request, _ in
                logins.withLockedValue { $0 += 1 }
                return try ServerFrame(
                    CommonRespon(isSuc: false, error: ErrorMsg(type: .invalidParams, msg: "wrong password")))
            }
        ) { _, port in
            var configuration = quickReconnect()
            configuration.requestTimeout = .seconds(20)
            let client = FrameClient<ImCommands>(host: "127.0.0.1", port: port, configuration: configuration) {
                connection in
                let reply = try await connection.request(Common())
                guard reply.isSuc else { throw FinalFailure(LoginFailed()) }
            }
            let states = client.states
            let start = ContinuousClock.now
            // The request waiting for a connection fails with the login's error, and so does the scope.
            await #expect(throws: LoginFailed.self) {
                try await client.running { client in _ = try await client.request(Common()) }
            }
            #expect(ContinuousClock.now - start < .seconds(5), "failed at once, not at the request's deadline")
            var seen: [ConnectionState] = []
            for await state in states { seen.append(state) }
            #expect(
                seen.map(\.description) == [
                    "connecting", "disconnected reason=login failed: LoginFailed()", "stopped error=LoginFailed()",
                ])
            if seen.count == 3, case let .disconnected(.loginFailed(error)) = seen[1],
                case let .stopped(final?) = seen[2]
            {
                #expect(error is LoginFailed && final is LoginFailed, "typed, not strings")
            } else {
                Issue.record("\(seen)")
            }
            try await Task.sleep(for: .milliseconds(300))  // several backoff delays: nothing retries
            #expect(logins.withLockedValue { $0 } == 1)
        }
    }

    /// What a scoped body is doing when the client stops for good.
    enum BodyShape: String, CaseIterable, Sendable {
        case makingRequests, readingPushes, readingStates, sleeping, awaitingItsOwnStream
    }

    /// The client stops for good (`onConnect` throws a `FinalFailure`, after one connection
    /// that logged in, so the body is well under way): `withFrameClient` cancels its body,
    /// whatever it awaits, and throws the app's error, at once rather than when the body would
    /// have ended by itself (a minute).
    @Test(arguments: BodyShape.allCases)
    func aFinalFailureCancelsTheBodyAndIsThrown(_ shape: BodyShape) async throws {
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            let logins = NIOLockedValueBox(0)
            var configuration = ClientConfiguration()
            configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
            let start = ContinuousClock.now
            let error = await #expect(throws: LoginFailed.self) {
                try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration,
                    onConnect: { _ in
                        // The first login succeeds; the body then drops the connection, and the
                        // second login is refused for good.
                        if logins.withLockedValue({
                            $0 += 1; return $0
                        }) > 1 {
                            throw FinalFailure(LoginFailed())
                        }
                    }
                ) { client in
                    _ = try await client.request(TestReq(param1: "first"))
                    client.reconnectNow()
                    switch shape {
                    case .makingRequests:
                        while true {
                            _ = try? await client.request(TestReq(param1: "again"), timeout: .seconds(60))
                            try Task.checkCancellation()
                        }
                    case .readingPushes:
                        for await _ in client.pushes {}
                    case .readingStates:
                        for await _ in client.states {}
                    case .sleeping:
                        try await Task.sleep(for: .seconds(60))
                    case .awaitingItsOwnStream:
                        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                        defer { continuation.finish() }
                        for await _ in stream {}
                    }
                }
            }
            #expect(error != nil)
            #expect(ContinuousClock.now - start < .seconds(10), "\(shape): at the failure, not at the body's end")
            #expect(logins.withLockedValue { $0 } == 2)
            _ = server
        }
    }

    /// A body that returns its value once the client has stopped (its push stream ended)
    /// sees the failure thrown instead.
    @Test func aBodyThatListensUntilThePushesEndSeesTheFinalFailure() async throws {
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            _ = await #expect(throws: LoginFailed.self) {
                try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port,
                    onConnect: { _ in throw FinalFailure(LoginFailed()) }
                ) { client in
                    for await _ in client.pushes {}
                    return "listened"
                }
            }
        }
    }

    @Test func aRefusedConnectIsTypedAndGivingUpSaysWhy() async throws {
        var configuration = quickReconnect()
        configuration.reconnect.maxAttempts = 1
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: try freePort(), configuration: configuration)
        let states = client.states
        let error = await #expect(throws: FrameClientError.self) { try await client.run() }
        guard case .gaveUp(attempts: 2, last: .connectFailed(.refused)) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        var refusals = 0
        for await state in states {
            if case .disconnected(.connectFailed(.refused)) = state { refusals += 1 }
        }
        #expect(refusals == 2)
    }

    @Test func everyReaderGetsEveryPushAndAStalledOneLosesOnlyItsOwn() async throws {
        let pushCount = 300
        try await withServer(
            GameCommands.self,
            handler: { request, context in
                if case let .testReq(request) = request, request.param1 == "flood" {
                    for serial in 1...pushCount {
                        try await context.push(ServerFrame(NoticeNtf(text: "n", serial: Int64(serial))))
                    }
                }
                return try await gameHandler(request, context)
            }
        ) { _, port in
            var configuration = ClientConfiguration()
            configuration.pushBufferSize = 50
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                // Two readers that keep up (one with a buffer big enough for the flood), one that never reads.
                let first = client.subscribeToPushes(bufferSize: pushCount)
                let second = client.subscribeToPushes(bufferSize: pushCount)
                let stalled = client.pushes
                let states = [client.states, client.states]
                _ = try await client.request(TestReq(param1: "flood"))
                // Subscribed once the connection is up: it starts with the current state.
                let late = client.states
                // The connection is not slowed by the stalled reader: requests go on.
                #expect(try await client.request(TestReq(param1: "after")).result1 == "echo:after")
                for subscription in [first, second] {
                    var serials: [Int64] = []
                    for await push in subscription {
                        if case let .noticeNtf(notice) = push { serials.append(notice.serial) }
                        if serials.count == pushCount { break }
                    }
                    #expect(serials == (1...pushCount).map(Int64.init))
                    #expect(subscription.dropped == 0)
                }
                #expect(stalled.dropped == pushCount - 50)
                #expect(client.droppedPushes == pushCount - 50)
                // The stalled reader still has the newest 50.
                var kept: [Int64] = []
                for await push in stalled {
                    if case let .noticeNtf(notice) = push { kept.append(notice.serial) }
                    if kept.count == 50 { break }
                }
                #expect(kept == (pushCount - 49...pushCount).map(Int64.init))
                // Every state reader saw the connection come up, the late one included.
                for subscription in states + [late] {
                    var iterator = subscription.makeAsyncIterator()
                    var connected = false
                    while !connected, let state = await iterator.next() { connected = state.isConnected }
                    #expect(connected)
                }
            }
        }
    }

    @Test func theServersPortHasADeadlineAndEndsWithTheServer() async throws {
        let server = FrameServer<GameCommands>(port: 0)
        // Before run(): waits, then a typed error at the deadline.
        let early = await #expect(throws: FrameServerError.self) {
            _ = try await server.port(within: .milliseconds(100))
        }
        #expect(early == .notListening(after: .milliseconds(100)))
        // A cancelled wait ends at once.
        let waiting = Task { try await server.port(within: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(ContinuousClock.now - start < .seconds(2))
        // Running: the port; after run() returns: .stopped.
        let running = Task { try await server.run(handler: gameHandler) }
        #expect(try await server.port() > 0)
        // A second run while the first runs: a typed error, and the first goes on.
        let second = await #expect(throws: FrameServerError.self) { try await server.run(handler: gameHandler) }
        #expect(second == .alreadyRunning)
        #expect(try await server.port() > 0)
        running.cancel()
        _ = try? await running.value
        let late = await #expect(throws: FrameServerError.self) { _ = try await server.port() }
        #expect(late == .stopped)
        // After run() has returned, run() listens again.
        let again = Task { try await server.run(handler: gameHandler) }
        // Until the new run has started, port() still answers that the last one stopped.
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = try? await server.port()
            if port == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let client = try await rawConnection(port: try #require(port))
        try await client.writeAndFlush(ByteBuffer(bytes: try GameCommands.encode(TestReq(param1: "again"))))
        again.cancel()
        _ = try? await again.value
        #expect(await closes(client, within: 5))
    }
}
