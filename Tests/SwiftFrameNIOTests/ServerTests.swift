// The server's own duties: a bad frame closes only its connection, silent connections are
// closed after the idle timeout, and pushes reach one connection or all.

import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// A bare loopback connection to `port`, for writing what no client would.
func rawConnection(port: Int) async throws -> any Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
}

/// Runs `server` with `handler` until cancelled, as `run` does or, `inTheRead`, as
/// `runOnEventLoop` does.
func serve<Table: CommandTable>(
    _ server: FrameServer<Table>, inTheRead: Bool, _ handler: @escaping FrameServer<Table>.SynchronousHandler
) async throws {
    if inTheRead {
        try await server.runOnEventLoop(handler: handler)
    } else {
        try await server.run(handler: handler)
    }
}

/// Whether `channel` is closed (by the other side) within `seconds`.
func closes(_ channel: any Channel, within seconds: Double) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask { (try? await channel.closeFuture.get()) != nil }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return false
        }
        defer { group.cancelAll() }
        return await group.next() ?? false
    }
}

/// Whether `condition` holds within `seconds` (5 unless told), polled.
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

@Suite(.timeLimit(.minutes(1))) struct ServerTests {
    @Test func aBadFrameClosesOnlyItsConnection() async throws {
        try await withServerAndClient(GameCommands.self, handler: gameHandler) { server, client in
            #expect(try await client.request(TestReq(param1: "before")).result1 == "echo:before")
            let bad = try await rawConnection(port: try await server.port())
            // A good frame, then a bad magic: the good one is answered, then the connection closed.
            var bytes = try GameCommands.encode(TestReq(param1: "raw"))
            bytes += [0, 0, 0, 0xEE, 0, 0, 0, 4, 0, 0, 0, 1]
            try await bad.writeAndFlush(ByteBuffer(bytes: bytes))
            #expect(await closes(bad, within: 5))
            #expect(try await client.request(TestReq(param1: "after")).result1 == "echo:after")
        }
    }

    /// Connections accepted but not yet handed to `run`'s loop when its task is cancelled are
    /// closed, not dropped: NIO drops what the listener's sequence holds, and a connection
    /// dropped before it was served trapped the process ("Deinited NIOAsyncWriter without
    /// calling finish()"). A burst of connections, then the cancellation at once.
    @Test func stoppingWithConnectionsNotYetServedClosesThemAll() async throws {
        for _ in 0..<5 {
            let server = FrameServer<GameCommands>(port: 0)
            let running = Task { try await server.run(handler: gameHandler) }
            let port = try await server.port()
            let clients = try await withThrowingTaskGroup(of: (any Channel).self) { group in
                for _ in 0..<64 { group.addTask { try await rawConnection(port: port) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            running.cancel()
            _ = await running.result
            for client in clients {
                #expect(await closes(client, within: 5))
            }
        }
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeout() async throws {
        var configuration = ServerConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        let server = FrameServer<GameCommands>(port: 0, configuration: configuration)
        let running = Task { try await server.run(handler: gameHandler) }
        defer { running.cancel() }
        let port = try await server.port()
        // Taken before connecting: the server's idle time starts when it accepts, after this.
        // (Taken after the connect, it measured 31 ms once on a loaded machine, where this task
        // resumed late from the connect.)
        let start = ContinuousClock.now
        let silent = try await rawConnection(port: port)
        #expect(await closes(silent, within: 5))
        #expect(ContinuousClock.now - start >= .milliseconds(250))
    }

    @Test func pushesReachOneConnectionOrAll() async throws {
        let server = FrameServer<GameCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run(handler: gameHandler) }
            let port = try await server.port()
            let first = FrameClient<GameCommands>(host: "127.0.0.1", port: port)
            let second = FrameClient<GameCommands>(host: "127.0.0.1", port: port)
            group.addTask { try await first.run() }
            group.addTask { try await second.run() }
            _ = try await first.request(TestReq(param1: "1"))
            _ = try await second.request(TestReq(param1: "2"))
            #expect(server.connectionIDs.count == 2)
            try await server.push(try ServerFrame(NoticeNtf(text: "one", serial: 1)), to: server.connectionIDs[0])
            await server.broadcast(try ServerFrame(NoticeNtf(text: "all", serial: 2)))
            // Each reads up to the broadcast: exactly one of them got the push before it.
            var received: [[GameCommands.Inbound]] = []
            for client in [first, second] {
                var pushes: [GameCommands.Inbound] = []
                for await push in client.pushes {
                    pushes.append(push)
                    if push == .noticeNtf(NoticeNtf(text: "all", serial: 2)) { break }
                }
                received.append(pushes)
            }
            let one = GameCommands.Inbound.noticeNtf(NoticeNtf(text: "one", serial: 1))
            #expect(received.map(\.count).sorted() == [1, 2], "\(received)")
            #expect(received.filter { $0.first == one }.count == 1, "\(received)")
            group.cancelAll()
        }
    }
}
