// How the server handles each connection's frames: a slow handler makes it stop reading
// rather than queue whatever the peer sends, a request the peer sent just before closing is
// still handled, and stopping the server cancels a handler at work.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
@testable import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct ServedConnectionTests {
    /// 1,000 requests of 4 KiB in one write (4 MB, which the loopback socket buffers hold),
    /// while the handler waits on the first: the server reads a few reads' worth past its
    /// queue's limit and stops; once the handler goes on, every request is handled, in order.
    @Test func aSlowHandlerHoldsBackReadsAndLosesNothing() async throws {
        let open = NIOLockedValueBox(false)
        let handled = NIOLockedValueBox<[Int32]>([])
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.run { request, _ in
                guard case let .testReq(request) = request else { return nil }
                handled.withLockedValue { $0.append(request.param2) }
                while !open.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                return nil
            }
        }
        defer { running.cancel() }
        let peer = try await rawConnection(port: try await server.port())
        defer { peer.close(promise: nil) }
        let filler = String(repeating: "x", count: 4096)
        var bytes: [UInt8] = []
        for number in 0..<1000 { bytes += try GameCommands.encode(TestReq(param1: filler, param2: Int32(number))) }
        peer.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)

        #expect(await eventually(within: 5) { handled.withLockedValue { $0.count } == 1 })
        let connection = try #require(server.connectionIDs.first)
        // Reading stops once 16 frames wait; NIO's reads already under way in that turn of the
        // event loop (up to 16 of up to 64 KiB: 256 of these frames) still come in.
        #expect(await eventually(within: 5) { (server.queued(on: connection)?.now ?? 0) >= 16 })
        try await Task.sleep(for: .milliseconds(300))
        let queued = try #require(server.queued(on: connection))
        #expect(queued.most <= 16 + 16 * 65536 / 4096, "\(queued)")

        open.withLockedValue { $0 = true }
        #expect(await eventually(within: 20) { handled.withLockedValue { $0.count } == 1000 })
        #expect(handled.withLockedValue { $0 } == Array(0..<1000))
    }

    /// A request followed at once by the peer's close is handled all the same.
    @Test func aRequestSentJustBeforeTheCloseIsHandled() async throws {
        let (server, running, handled) = slowEchoServer(taking: .milliseconds(50))
        defer { running.cancel() }
        let peer = try await rawConnection(port: try await server.port())
        var bytes = try GameCommands.encode(TestReq(param1: "first"))
        bytes += try GameCommands.encode(TestReq(param1: "last words"))
        try await peer.writeAndFlush(ByteBuffer(bytes: bytes))
        try await peer.close()
        #expect(await eventually(within: 5) { handled.withLockedValue { $0 } == ["first", "last words"] })
        #expect(await eventually(within: 5) { server.connectionIDs.isEmpty })
    }

    /// A peer waiting for a reply slower than the idle timeout (1.5 s against 0.5 s) is silent,
    /// but not idle: the connection stays open until the reply is written, and is closed once
    /// silent after it.
    @Test func aSlowReplyOutlastsTheIdleTimeout() async throws {
        var configuration = ServerConfiguration()
        configuration.idleTimeout = .milliseconds(500)
        let server = FrameServer<GameCommands>(port: 0, configuration: configuration)
        let started = NIOLockedValueBox(0)
        let running = Task {
            try await server.run { request, context in
                started.withLockedValue { $0 += 1 }
                try await Task.sleep(for: .milliseconds(1500))
                return try await gameHandler(request, context)
            }
        }
        defer { running.cancel() }
        let port = try await server.port()
        // The idle time runs from the accept, and the request goes once this task resumes
        // from the connect: a loaded machine has taken longer than the 500 ms, and the server
        // then rightly closes a silent connection. Only that case is tried again (the handler
        // never started); a connection closed with its request at work fails the test.
        for attempt in 1...3 {
            let before = started.withLockedValue { $0 }
            let peer = try await rawConnection(port: port)
            let replies = NIOLockedValueBox(0)
            try await peer.pipeline.addHandler(ByteCounter(received: replies))
            try? await peer.writeAndFlush(ByteBuffer(bytes: try GameCommands.encode(TestReq(param1: "slow"))))
            #expect(await eventually(within: 5) { started.withLockedValue { $0 } > before || !peer.isActive })
            if started.withLockedValue({ $0 }) == before && attempt < 3 {
                try? await peer.closeFuture.get()
                continue
            }
            // The reply comes after 1.5 s, three idle timeouts later.
            #expect(await eventually(within: 5) { replies.withLockedValue { $0 } > 0 })
            #expect(await closes(peer, within: 5))
            return
        }
    }

    /// Under a layout that resynchronizes, garbage before a request is skipped and the request
    /// answered on the same connection; under one that does not, it closes the connection.
    @Test func garbageIsSkippedUnderResyncAndClosesOtherwise() async throws {
        let server = FrameServer<ResyncCommands>(port: 0)
        let running = Task { try await server.run { request, _ in ServerFrame(command: 2, payload: request) } }
        defer { running.cancel() }
        let peer = try await rawConnection(port: try await server.port())
        let received = NIOLockedValueBox(0)
        try await peer.pipeline.addHandler(ByteCounter(received: received))
        let frame = try FrameEncoder(layout: ResyncCommands.layout).encode(
            header: ResyncCommands.layout.header(command: 1, sequence: 5), payload: [7, 7, 7])
        for _ in 0..<2 {
            try await peer.writeAndFlush(ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8, 9] + frame))
        }
        // Two replies of a 9-byte header and 3 bytes each.
        #expect(await eventually(within: 5) { received.withLockedValue { $0 } == 2 * frame.count })
        #expect(peer.isActive)

        // The game layout fails on a bad magic: the same garbage closes the connection.
        let game = FrameServer<GameCommands>(port: 0)
        let gameRunning = Task { try await game.run(handler: gameHandler) }
        defer { gameRunning.cancel() }
        let gamePeer = try await rawConnection(port: try await game.port())
        try await gamePeer.writeAndFlush(ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))
        #expect(await closes(gamePeer, within: 5))
    }

    /// A bad frame read while the handler is still at the frames before it waits behind them:
    /// each is answered, then the connection closes, and nothing read after the bad frame is
    /// handled.
    @Test func aBadFrameClosesTheConnectionOnceTheFramesBeforeItAreAnswered() async throws {
        // Long enough for the bad frame to arrive while the first request is handled.
        let (server, running, handled) = slowEchoServer(taking: .milliseconds(200))
        defer { running.cancel() }
        let peer = try await rawConnection(port: try await server.port())
        let received = NIOLockedValueBox(0)
        try await peer.pipeline.addHandler(ByteCounter(received: received))
        let badMagic: [UInt8] = [0, 0, 0, 0xEE, 0, 0, 0, 4, 0, 0, 0, 1]
        let bytes =
            try GameCommands.encode(TestReq(param1: "a")) + GameCommands.encode(TestReq(param1: "b"))
            + badMagic + GameCommands.encode(TestReq(param1: "after"))
        try await peer.writeAndFlush(ByteBuffer(bytes: bytes))
        #expect(await closes(peer, within: 5))
        #expect(handled.withLockedValue { $0 } == ["a", "b"])
        let replies = try GameCommands.encode(TestRsp(result1: "a")).count * 2
        #expect(received.withLockedValue { $0 } == replies)
    }

    /// Cancelling `run` while a handler is at work cancels that handler and closes its
    /// connection; `run` returns once the handler has.
    @Test func stoppingCancelsAHandlerAtWork() async throws {
        let started = NIOLockedValueBox(false)
        let cancelled = NIOLockedValueBox(false)
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.run { _, _ in
                started.withLockedValue { $0 = true }
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    cancelled.withLockedValue { $0 = true }
                    throw error
                }
                return nil
            }
        }
        let peer = try await rawConnection(port: try await server.port())
        try await peer.writeAndFlush(ByteBuffer(bytes: try GameCommands.encode(TestReq(param1: "slow"))))
        #expect(await eventually(within: 5) { started.withLockedValue { $0 } })
        let stopping = ContinuousClock.now
        running.cancel()
        _ = await running.result
        #expect(ContinuousClock.now - stopping < .seconds(5))
        #expect(cancelled.withLockedValue { $0 })
        #expect(await closes(peer, within: 5))
        #expect(server.connectionIDs.isEmpty)
    }
}

@Suite(.timeLimit(.minutes(1))) struct HandlerPlacementTests {
    /// Where a request handler runs: on Swift's global pool by default, on the connection's
    /// event loop with `handlersRunOnEventLoop`; the replies are the same.
    @Test(arguments: [false, true]) func handlersRunWhereTheConfigurationSays(onEventLoop: Bool) async throws {
        var configuration = ServerConfiguration()
        configuration.handlersRunOnEventLoop = onEventLoop
        let ranOnEventLoop = NIOLockedValueBox<[Bool]>([])
        let server = FrameServer<GameCommands>(port: 0, configuration: configuration)
        let running = Task {
            try await server.run { request, context in
                ranOnEventLoop.withLockedValue { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
                return try await gameHandler(request, context)
            }
        }
        defer { running.cancel() }
        try await FrameClient<GameCommands>(host: "127.0.0.1", port: try await server.port()).running { client in
            for number in 0..<20 {
                let reply = try await client.request(TestReq(param1: "\(number)"))
                #expect(reply.result1 == "echo:\(number)")
            }
        }
        #expect(ranOnEventLoop.withLockedValue { $0 } == Array(repeating: onEventLoop, count: 20))
    }

    /// A client's caller that prefers `eventLoopExecutor` runs on its current connection's
    /// event loop after every request, also after a reconnect has put the connection on another
    /// loop (each connection here goes to the other loop of two, by its bootstrap); a caller
    /// without the preference runs off the loops.
    @Test func aCallerPreferringTheClientsExecutorRunsOnItsConnectionsLoop() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let both = Array(loops.makeIterator())
        let connections = NIOLockedValueBox(0)
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, eventLoopGroup: loops) { _ in
                let loop = connections.withLockedValue { count in
                    count += 1
                    return both[count % 2]
                }
                return NIOClientTCPBootstrap(ClientBootstrap(group: loop), tls: NIOInsecureNoTLS())
            }
            try await client.running { client in
                // Where the code after each request ran, and the loop of the connection it used.
                func requests(_ count: Int) async throws -> [(ran: (any EventLoop)?, connection: any EventLoop)] {
                    var places: [(ran: (any EventLoop)?, connection: any EventLoop)] = []
                    for number in 0..<count {
                        let reply = try await client.request(TestReq(param1: "\(number)"))
                        #expect(reply.result1 == "echo:\(number)")
                        let connection = try await client.connection(within: .seconds(5))
                        places.append((MultiThreadedEventLoopGroup.currentEventLoop, connection.channel.eventLoop))
                    }
                    return places
                }
                #expect(try await requests(5).allSatisfy { $0.ran == nil })
                try await withTaskExecutorPreference(client.eventLoopExecutor) {
                    var loopsUsed: Set<ObjectIdentifier> = []
                    for round in 0..<3 {
                        if round > 0 {
                            let before = server.connectionIDs
                            client.reconnectNow()
                            #expect(
                                await eventually { server.connectionIDs.count == 1 && server.connectionIDs != before })
                        }
                        for place in try await requests(5) {
                            #expect(place.ran === place.connection, "round \(round): not on the connection's loop")
                            loopsUsed.insert(ObjectIdentifier(place.connection))
                        }
                    }
                    #expect(loopsUsed.count == 2, "the connections were not on both loops")
                }
            }
        }
        try await loops.shutdownGracefully()
    }

    /// A caller preferring `eventLoopExecutor` whose job was enqueued while no connection was
    /// ready runs on whichever loop the group gave it; it is moved to the connection's loop
    /// before its next request or send, even when nothing there would suspend it (the connection
    /// is ready, and a reply may come before the caller waits for it).
    @Test func aCallerLeftOnAnotherLoopMovesToTheConnectionsLoop() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let both = Array(loops.makeIterator())
        let loginMayEnd = NIOLockedValueBox(false)
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: port,
                onConnect: { _ in _ = await eventually { loginMayEnd.withLockedValue { $0 } } }, eventLoopGroup: loops,
                bootstrap: { _ in NIOClientTCPBootstrap(ClientBootstrap(group: both[0]), tls: NIOInsecureNoTLS()) })
            try await client.running { client in
                try await withTaskExecutorPreference(client.eventLoopExecutor) {
                    // While the login holds the connection back, each job goes to any loop:
                    // sleep until one lands on the loop the connection is not on.
                    var tries = 0
                    while MultiThreadedEventLoopGroup.currentEventLoop !== both[1], tries < 500 {
                        try await Task.sleep(for: .milliseconds(1))
                        tries += 1
                    }
                    try #require(MultiThreadedEventLoopGroup.currentEventLoop === both[1])
                    // Still in that job: the login ends, and the connection becomes ready.
                    loginMayEnd.withLockedValue { $0 = true }
                    let deadline = ContinuousClock.now + .seconds(5)
                    while client.machine.withLockedValue({ $0.connection == nil }), ContinuousClock.now < deadline {}
                    try #require(MultiThreadedEventLoopGroup.currentEventLoop === both[1], "left the job")
                    let connection = try await client.connection(within: .seconds(1))
                    #expect(connection.channel.eventLoop === both[0])
                    let moved = MultiThreadedEventLoopGroup.currentEventLoop
                    #expect(moved === both[0], "not moved by connection(within:)")
                    #expect(try await client.request(TestReq(param1: "moved")).result1 == "echo:moved")
                    let afterRequest = MultiThreadedEventLoopGroup.currentEventLoop
                    #expect(afterRequest === both[0], "not on the loop after a request")
                }
            }
        }
        try await loops.shutdownGracefully()
    }
}

/// Counts the bytes a bare connection receives.
/// A running server whose handler takes `delay` over each `TestReq`, then notes its `param1`
/// in `handled` and echoes it in a `TestRsp`.
private func slowEchoServer(
    taking delay: Duration
) -> (FrameServer<GameCommands>, running: Task<Void, any Error>, handled: NIOLockedValueBox<[String]>) {
    let handled = NIOLockedValueBox<[String]>([])
    let server = FrameServer<GameCommands>(port: 0)
    let running = Task {
        try await server.run { request, _ in
            guard case let .testReq(request) = request else { return nil }
            try await Task.sleep(for: delay)
            handled.withLockedValue { $0.append(request.param1) }
            return try ServerFrame(TestRsp(result1: request.param1))
        }
    }
    return (server, running, handled)
}

final class ByteCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received: NIOLockedValueBox<Int>

    init(received: NIOLockedValueBox<Int>) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytes
        received.withLockedValue { $0 += bytes }
    }
}
