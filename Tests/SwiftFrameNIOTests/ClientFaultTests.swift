// What the client does when things go wrong, against the Swift server: heartbeats that go
// unanswered, a server that goes away, cancelled requests, replies matched by a body id,
// garbage before a reply under a layout that resynchronizes.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct ClientFaultTests {
    @Test func unansweredHeartbeatsDropTheConnectionAndTheClientLogsInAgain() async throws {
        var configuration = ClientConfiguration()
        configuration.heartbeat = Heartbeat(interval: .milliseconds(500), timeout: .milliseconds(200), retries: 2)
        configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
        let logins = NIOLockedValueBox(0)
        let heartbeats = NIOLockedValueBox(0)
        let server = FrameServer<GameCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.run { request, context in
                    if case .emptyReq = request {
                        heartbeats.withLockedValue { $0 += 1 }
                        return nil  // never answered
                    }
                    return try await gameHandler(request, context)
                }
            }
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: try await server.port(), configuration: configuration
            ) { connection in
                _ = try await connection.request(TestReq(param1: "login"))
                logins.withLockedValue { $0 += 1 }
            }
            group.addTask { try await client.run() }
            // Wait for a connection, its drop, then the next connection (whose login must run
            // again). A drop before the first connection is up counts for nothing: on a loaded
            // machine the login's reply can come after three heartbeats went unanswered, and the
            // drop then ends the login, not a logged-in connection.
            var states: [ConnectionState] = []
            var loggedIn = false
            var dropped = false
            for await state in client.states {
                states.append(state)
                if case .disconnected(.heartbeatTimeout(attempts: 3)) = state, loggedIn { dropped = true }
                if state.isConnected {
                    if dropped { break }
                    loggedIn = true
                }
            }
            #expect(dropped, "\(states)")
            #expect(states.contains { if case .reconnecting = $0 { true } else { false } }, "\(states)")
            #expect(logins.withLockedValue { $0 } >= 2)
            #expect(heartbeats.withLockedValue { $0 } >= 3)
            group.cancelAll()
        }
    }

    @Test func whenTheServerGoesAwayPendingRequestsFailAtOnceAndNewOnesWaitForTheNextOne() async throws {
        var configuration = ClientConfiguration()
        // Retries stay frequent (at most 250 ms apart): with the backoff growing unbounded, a
        // second server slow to start on a loaded machine (ASan) left the next attempt past the
        // request's 10-second deadline.
        configuration.reconnect = Backoff(initialDelay: .milliseconds(100), maxDelay: .milliseconds(250), jitter: 0)
        let first = FrameServer<GameCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let firstRun = Task {
                try await first.run { request, context in
                    if case let .testReq(request) = request, request.param1 == "hang" {
                        try await Task.sleep(for: .seconds(30))  // never answers in time
                    }
                    return try await gameHandler(request, context)
                }
            }
            let port = try await first.port()
            let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, configuration: configuration)
            group.addTask { try await client.run() }
            #expect(try await client.request(TestReq(param1: "a")).result1 == "echo:a")
            let hanging = Task { try await client.request(TestReq(param1: "hang"), timeout: .seconds(20)) }
            try await Task.sleep(for: .milliseconds(100))
            let stop = ContinuousClock.now
            firstRun.cancel()  // the server stops, closing its connections
            // The server's close arrives as an orderly close, or as a reset when its socket still
            // held bytes it had not read: either way the pending request fails at once.
            let error = await #expect(throws: FrameClientError.self) { _ = try await hanging.value }
            if let error, case .connectionLost = error {
            } else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
            }
            #expect(ContinuousClock.now - stop < .seconds(2))

            // A new server on the same port: a request made now waits for the reconnect. The
            // first server's listening socket is closed only once its `run` has returned (its
            // connections may close before it): binding before then can find the port taken.
            _ = await firstRun.result
            let second = FrameServer<GameCommands>(port: port)
            group.addTask { try await second.run(handler: gameHandler) }
            #expect(try await second.port() == port)  // throws the bind error, if any
            // A long deadline: in a full parallel test run, synchronous suites keep the few
            // threads of Swift's task pool busy, and this request has taken 5 s to be answered.
            #expect(try await client.request(TestReq(param1: "b"), timeout: .seconds(30)).result1 == "echo:b")
            group.cancelAll()
        }
    }

    @Test func aCancelledRequestFreesItsSlotAndItsLateReplyIsDropped() async throws {
        let server = FrameServer<ImCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.run { request, _ in
                    guard case let .common(common) = request else { return nil }
                    if common.method == .friend { try await Task.sleep(for: .milliseconds(300)) }
                    return try ServerFrame(CommonRespon(isSuc: common.method == .friend))
                }
            }
            let client = FrameClient<ImCommands>(host: "127.0.0.1", port: try await server.port())
            group.addTask { try await client.run() }
            let slow = Task { try await client.request(Common(method: .friend)) }
            try await Task.sleep(for: .milliseconds(100))
            slow.cancel()
            await #expect(throws: CancellationError.self) { _ = try await slow.value }
            // The late reply (isSuc = true) is not taken for this request's, nor for a push.
            let next = try await client.request(Common(method: .user))
            #expect(next.isSuc == false)
            try await Task.sleep(for: .milliseconds(400))
            var pushes = client.pushes.makeAsyncIterator()
            let drained = Task { await pushes.next() }
            try await Task.sleep(for: .milliseconds(100))
            drained.cancel()
            #expect(await drained.value == nil)
            group.cancelAll()
        }
    }

    @Test func eachRequestTimesOutAtItsOwnDeadlineAndALateReplyIsNotTakenForTheNext() async throws {
        // In-order matching (the game layout has no seq): the server answers "slow" after 600 ms.
        try await withServerAndClient(
            GameCommands.self,
            handler: { request, context in
                if case let .testReq(request) = request, request.param1.hasPrefix("slow") {
                    try await Task.sleep(for: .milliseconds(600))
                }
                return try await gameHandler(request, context)
            }
        ) { _, client in
            // Connected first, so the short deadline below measures the wait for a reply alone.
            #expect(try await client.request(TestReq(param1: "warm-up")).result1 == "echo:warm-up")
            let long = Task { try await client.request(TestReq(param1: "slow-long"), timeout: .seconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            let start = ContinuousClock.now
            // A shorter deadline behind a longer one: it still fires first, on time.
            let error = await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "slow-short"), timeout: .milliseconds(200))
            }
            guard case .timedOut(command: 1, after: .milliseconds(200)) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            let waited = ContinuousClock.now - start
            #expect(waited >= .milliseconds(200) && waited < .seconds(2), "\(waited)")
            #expect(try await long.value.result1 == "echo:slow-long")
            // The reply to slow-short arrives late and is dropped; "next" gets its own.
            #expect(try await client.request(TestReq(param1: "next")).result1 == "echo:next")
        }
    }

    @Test func repliesMatchedByAnIDInTheBody() async throws {
        var configuration = ClientConfiguration()
        configuration.correlation = .bodyField(number: 90)  // an RpcId field in every body
        let server = FrameServer<GameCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.run { request, _ in
                    guard case let .testReq(request) = request else { return nil }
                    // The id arrives as field 90, unknown to TestReq; the reply carries it back.
                    var reply = TestRsp(result1: request.param1)
                    reply.unknownFields = request.unknownFields
                    return try ServerFrame(reply)
                }
            }
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: try await server.port(), configuration: configuration)
            group.addTask { try await client.run() }
            try await withThrowingTaskGroup(of: Void.self) { callers in
                for index in 0..<50 {
                    callers.addTask {
                        let reply = try await client.request(TestReq(param1: "r\(index)"))
                        #expect(reply.result1 == "r\(index)")
                    }
                }
                try await callers.waitForAll()
            }
            group.cancelAll()
        }
    }

    @Test func underResyncTheClientSkipsGarbageAndTakesTheReplyAfterIt() async throws {
        let server = try await plainServer { [GarbageThenEcho()] }
        defer { server.close(promise: nil) }
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        let replies = try await withFrameClient(
            ResyncCommands.self, host: "127.0.0.1", port: try #require(server.localAddress?.port),
            configuration: configuration
        ) { client in
            var replies: [[UInt8]] = []
            for body: [UInt8] in [[7, 7], [8]] {
                replies.append(try await client.request(command: 3, payload: body, timeout: .seconds(5)))
            }
            return replies
        }
        #expect(replies == [[7, 7], [8]])
    }
}

/// Raw bodies in a header with a magic byte, resynchronizing after a bad header.
enum ResyncCommands: CommandTable {
    static let layout = FrameLayout(checkedDescription: "magic:u8=0x81 seq:u32 type:u8 length:u16:body resync=64")

    static func decode(_ frame: Frame) throws(WireError) -> [UInt8] { Array(frame.payload) }
    static func decodeRequest(_ frame: Frame) throws(WireError) -> [UInt8] { Array(frame.payload) }
}

/// Answers every read with nine bytes of garbage (no magic among them), then the bytes read.
final class GarbageThenEcho: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var read = unwrapInboundIn(data)
        var reply = context.channel.allocator.buffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        reply.writeBuffer(&read)
        context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
    }
}
