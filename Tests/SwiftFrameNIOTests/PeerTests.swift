// The client and the server against the Python reference peers (Tests/Peers/peer.py, Google's
// protobuf runtime for the bodies) over loopback sockets, with the peers cutting their writes
// into tiny pieces glued to the next frame, and misbehaving on request.

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// Runs `body` with a client of `Table` connected to `peer`, its `run()` in a child task.
func withClient<Table: CommandTable, Result: Sendable>(
    _ table: Table.Type, peer: Peer, configuration: ClientConfiguration = ClientConfiguration(),
    onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
    _ body: @Sendable @escaping (FrameClient<Table>) async throws -> Result
) async throws -> Result {
    let client = FrameClient<Table>(
        host: "127.0.0.1", port: peer.port, configuration: configuration, onConnect: onConnect)
    return try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask {
            try await client.run()
            return nil
        }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

func userInfo(_ uid: UInt32) throws -> Common {
    try Common(.user(UserMsg(.userInfo(UserInfoRequest(uid: uid)))))
}

/// A configuration that reconnects quickly, for tests of drops.
func quickReconnect() -> ClientConfiguration {
    var configuration = ClientConfiguration()
    configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
    return configuration
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct PeerTests {
    @Test func gameRequestsErrorRepliesAndNotices() async throws {
        let peer = try await Peer.start("game", ["--split", "--notices", "2"])
        try await withClient(GameCommands.self, peer: peer) { client in
            #expect(
                try await client.request(TestReq(param1: "hi", param2: 4)) == TestRsp(result1: "echo:hi", result2: 8))
            do {
                _ = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
                Issue.record("logout answered without an error")
            } catch let error as ErrorReply<GameCommands> {
                #expect(error.reply == .errorRsp(ErrorRsp(code: 401, message: "logged out")))
            }
            var pushes = client.pushes.makeAsyncIterator()
            #expect(await pushes.next() == .noticeNtf(NoticeNtf(text: "notice 1", serial: 1)))
            #expect(await pushes.next() == .noticeNtf(NoticeNtf(text: "notice 2", serial: 2)))
        }
    }

    @Test func sendsFromSeveralTasksAllArriveEachTaskInOrder() async throws {
        // Four tasks send 200 frames of 2 KiB each without waiting, more than the client queues
        // before a send waits for its write; the game peer answers every Test_Req, and the
        // answers, awaited by no request, come back as pushes.
        let peer = try await Peer.start("game", [])
        let (tasks, frames) = (4, 200)
        let padding = String(repeating: "x", count: 2048)
        try await withClient(GameCommands.self, peer: peer) { client in
            var pushes = client.pushes.makeAsyncIterator()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<frames {
                            try await client.send(TestReq(param1: "\(task) \(index) \(padding)", param2: Int32(index)))
                        }
                    }
                }
                try await group.waitForAll()
            }
            var next = [Int](repeating: 0, count: tasks)
            for _ in 0..<tasks * frames {
                guard case let .testRsp(reply) = await pushes.next() else {
                    Issue.record("not an echo")
                    return
                }
                let words = reply.result1.split(separator: " ")
                guard words.count == 3, let task = Int(words[0].dropFirst("echo:".count)), let index = Int(words[1])
                else {
                    Issue.record("unexpected echo \(reply.result1.prefix(40))")
                    return
                }
                #expect(index == next[task], "task \(task): frame \(index) came when \(next[task]) was due")
                #expect(words[2] == padding[...])
                next[task] = index + 1
            }
            #expect(next == [Int](repeating: frames, count: tasks))
        }
    }

    @Test func tenThousandRequestsFrom64TasksWithRepliesOutOfOrder() async throws {
        // Writes are whole here: a peer writing 10,000 replies in pieces with pauses would take
        // minutes (the split and glued writes are tested in the other tests).
        let peer = try await Peer.start("im", ["--out-of-order", "16"])
        try await withClient(ImCommands.self, peer: peer) { client in
            let matched = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        var matched = 0
                        for index in stride(from: task, to: 10_000, by: 64) {
                            let reply = try await client.request(try userInfo(UInt32(index)))
                            let info = try UserInfoRequest.Response(serializedBytes: reply.respon)
                            if info.userInfo?.uid == UInt32(index) { matched += 1 }
                        }
                        return matched
                    }
                }
                var total = 0
                for try await count in group { total += count }
                return total
            }
            #expect(matched == 10_000)
        }
    }

    @Test func aPeerThatClosesMidFrameFailsTheRequestAtOnce() async throws {
        let peer = try await Peer.start("game", ["--half-frame-after", "1"])
        try await withClient(GameCommands.self, peer: peer) { client in
            let start = ContinuousClock.now
            await #expect(throws: FrameClientError.self) {
                do {
                    _ = try await client.request(TestReq(param1: "cut"))
                } catch let error as FrameClientError {
                    guard case .connectionLost(.badFrame(.truncated)) = error else {
                        Issue.record("expected a truncated frame, got \(error)")
                        throw error
                    }
                    throw error
                }
            }
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test func garbageIsATypedErrorAndTheClientReconnects() async throws {
        let peer = try await Peer.start("game", ["--split", "--garbage-after", "2"])
        try await withClient(GameCommands.self, peer: peer, configuration: quickReconnect()) { client in
            #expect(try await client.request(TestReq(param1: "one")).result1 == "echo:one")
            do {
                _ = try await client.request(TestReq(param1: "two"))
                Issue.record("a reply came instead of garbage")
            } catch FrameClientError.connectionLost(.badFrame(.badMagic)) {
            }
            // Reconnected: the next request goes out on a new connection.
            #expect(try await client.request(TestReq(param1: "three")).result1 == "echo:three")
            var states: [ConnectionState] = []
            for await state in client.states {
                states.append(state)
                if states.filter(\.isConnected).count == 2 { break }
            }
            #expect(
                states.contains { if case .disconnected(.badFrame(.badMagic)) = $0 { true } else { false } },
                "\(states)")
        }
    }

    @Test func anAbsurdLengthIsRefusedOnTheHeadersWord() async throws {
        let peer = try await Peer.start("game", ["--absurd-length-after", "1"])
        try await withClient(GameCommands.self, peer: peer) { client in
            let start = ContinuousClock.now
            do {
                _ = try await client.request(TestReq(param1: "x"))
                Issue.record("a reply came instead of an absurd length")
            } catch FrameClientError.connectionLost(.badFrame(.frameTooLarge(_, let size, let limit))) {
                #expect(size > UInt64(limit))
            }
            // Refused as soon as the header came, not at the request's deadline.
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test func unansweredHeartbeatsReconnectAndLogInAgain() async throws {
        let logins = FileManager.default.temporaryDirectory.appendingPathComponent("logins-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logins) }
        let peer = try await Peer.start("im", ["--split", "--no-heartbeat", "--logins-file", logins.path])
        var configuration = quickReconnect()
        configuration.heartbeat = Heartbeat(interval: .milliseconds(500), timeout: .milliseconds(300), retries: 3)
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret")))))
        try await withClient(
            ImCommands.self, peer: peer, configuration: configuration,
            onConnect: { connection in
                let reply = try await connection.request(login)
                guard reply.isSuc else { throw FrameClientError.stopped }
            }
        ) { client in
            let start = ContinuousClock.now
            var states: [ConnectionState] = []
            var dropped: ContinuousClock.Instant?
            for await state in client.states {
                states.append(state)
                if case .disconnected(.heartbeatTimeout(attempts: 4)) = state { dropped = .now }
                if dropped != nil, state.isConnected { break }
            }
            // Bound: idle 0.5 s + 4 heartbeats of 0.3 s after the login, 1.7 s; allow for load.
            #expect(dropped.map { $0 - start < .seconds(5) } == true, "\(states)")
        }
        let lines = try String(contentsOf: logins, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 2)
    }

    @Test func aServerRestartFailsPendingRequestsAtOnceAndNewOnesSucceedAfterReconnect() async throws {
        let first = try await Peer.start("game", ["--delay-ms", "3000"])
        let port = first.port
        try await withClient(GameCommands.self, peer: first, configuration: quickReconnect()) { client in
            let pending = Task { try await client.request(TestReq(param1: "slow"), timeout: .seconds(20)) }
            try await Task.sleep(for: .milliseconds(300))
            let stop = ContinuousClock.now
            first.stop()
            let error = await #expect(throws: FrameClientError.self) { _ = try await pending.value }
            guard case .connectionLost(.closedByPeer) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(ContinuousClock.now - stop < .seconds(2))
            let second = try await Peer.start("game", ["--split"], port: port)
            defer { second.stop() }
            #expect(try await client.request(TestReq(param1: "back"), timeout: .seconds(10)).result1 == "echo:back")
        }
    }

    @Test func aSlowConsumerOfPushesKeepsMemoryBounded() async throws {
        let peer = try await Peer.start("im", ["--push-flood", "5000", "--push-bytes", "64"])
        var configuration = ClientConfiguration()
        configuration.pushBufferSize = 100
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret")))))
        try await withClient(ImCommands.self, peer: peer, configuration: configuration) { client in
            #expect(try await client.request(login).isSuc)
            // Nobody reads pushes while the flood arrives; a request after it proves it is in.
            var waited = 0
            while client.droppedPushes < 4_900 && waited < 100 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(client.droppedPushes == 4_900)
            var kept = 0
            var pushes = client.pushes.makeAsyncIterator()
            while kept < 100, await pushes.next() != nil { kept += 1 }
            #expect(kept == 100)
            #expect(try await client.request(command: ImCommands.ID.heartbeat.rawValue) == .heartbeat(payload: []))
        }
    }

    // MARK: The Swift server against the Python clients

    /// With the handler in a task and in the event loop's read (`runOnEventLoop`).
    @Test(arguments: [false, true]) func theServerAnswersThePythonGameClientAndClosesOnGarbage(inTheRead: Bool)
        async throws
    {
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task { try await serve(server, inTheRead: inTheRead, gameAnswer) }
        defer { running.cancel() }
        let port = try await server.port()
        let result = try await offThePool {
            try Peer.runClient("game-client", ["--port", "\(port)", "--requests", "20", "--split", "--garbage"])
        }
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Test_Rsp result1=echo:req1 result2=2")
        #expect(lines.count == 23)
        #expect(lines.suffix(3) == ["heartbeat ok", "done", "closed"])
    }

    /// A pipeline of one's own: `FrameSliceHandler` before a handler that decodes each request
    /// from its slice, serving the Python game client, which splits its frames across writes
    /// (frames spanning reads) and ends with garbage (a bad header that ends the stream).
    @Test func frameSliceHandlerInAPipelineOfOnesOwnServesThePythonGameClient() async throws {
        let listener = try await plainServer {
            [
                FrameSliceHandler(layout: GameCommands.layout),
                MessageToByteHandler(FrameEncoderHandler(layout: GameCommands.layout)),
                GameOverSlices(),
            ]
        }
        defer { listener.close(promise: nil) }
        let port = try #require(listener.localAddress?.port)
        let result = try await offThePool {
            try Peer.runClient("game-client", ["--port", "\(port)", "--requests", "20", "--split", "--garbage"])
        }
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Test_Rsp result1=echo:req1 result2=2")
        #expect(lines.suffix(3) == ["heartbeat ok", "done", "closed"])
    }

    @Test(arguments: [false, true]) func theServerEchoesSequenceNumbersToThePythonIMClient(inTheRead: Bool) async throws
    {
        let server = FrameServer<ImCommands>(port: 0)
        let running = Task {
            try await serve(server, inTheRead: inTheRead) { request, _ in
                guard case let .common(common) = request, case let .user(user) = try common.decodedBody(),
                    case let .userInfo(info) = try user.decodedBody()
                else { return nil }
                let answer = UserInfoResponse(userInfo: UserInfo(uid: info.uid, nickName: "user\(info.uid)"))
                return try ServerFrame(CommonRespon(isSuc: true, respon: answer.serializedBytes()))
            }
        }
        defer { running.cancel() }
        let port = try await server.port()
        let result = try await offThePool {
            try Peer.runClient("im-client", ["--port", "\(port)", "--requests", "200"])
        }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("replies ok 200"))
    }
}

/// Answers the game client's frames, each request decoded from its slice: `Test_Req` with
/// `echo:param1` and twice `param2`, a heartbeat with a heartbeat; anything else, and any
/// error the frame handler passes on, closes the connection.
private final class GameOverSlices: ChannelInboundHandler {
    typealias InboundIn = FrameSlice
    typealias OutboundOut = OutboundFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let slice = unwrapInboundIn(data)
        do {
            switch slice.header.command {
            case TestReq.commandID:
                let request = try slice.decode(TestReq.self)
                let reply = TestRsp(result1: "echo:" + request.param1, result2: Int64(request.param2) * 2)
                context.writeAndFlush(
                    wrapOutboundOut(try OutboundFrame(reply, layout: GameCommands.layout)), promise: nil)
            case GameCommands.heartbeatCommand:
                context.writeAndFlush(wrapOutboundOut(OutboundFrame(header: slice.header, payload: [])), promise: nil)
            default:
                context.close(promise: nil)
            }
        } catch {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
