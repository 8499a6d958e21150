// FrameServer.runOnEventLoop: each request answered inside the event loop's read, in order;
// a peer that reads none of its replies stops the server reading its requests; a bad frame or a
// handler's error closes the connection after the replies before it.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
@testable import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct AnsweringInTheReadTests {
    /// 1,000 requests in one write: the replies come back in order, every one answered on the
    /// event loop.
    @Test func pipelinedRequestsAreAnsweredInOrderOnTheEventLoop() async throws {
        let onEventLoop = NIOLockedValueBox<[Bool]>([])
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.runOnEventLoop { request, context in
                onEventLoop.withLockedValue { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
                return try gameAnswer(request, context)
            }
        }
        defer { running.cancel() }
        let received = NIOLockedValueBox<[UInt8]>([])
        let peer = try await collectingConnection(port: try await server.port(), into: received)
        defer { peer.close(promise: nil) }
        var bytes: [UInt8] = []
        for number in 0..<1000 { bytes += try GameCommands.encode(TestReq(param1: "\(number)", param2: Int32(number))) }
        try await peer.writeAndFlush(ByteBuffer(bytes: bytes))

        let replyBytes = try (0..<1000).reduce(0) {
            $0 + (try GameCommands.encode(TestRsp(result1: "echo:\($1)", result2: Int64($1) * 2))).count
        }
        #expect(await eventually { received.withLockedValue { $0.count } == replyBytes })
        let replies = try GameCommands.decodeAll(received.withLockedValue { $0 })
        #expect(replies == (0..<1000).map { .testRsp(TestRsp(result1: "echo:\($0)", result2: Int64($0) * 2)) })
        #expect(onEventLoop.withLockedValue { $0 } == Array(repeating: true, count: 1000))
    }

    /// Requests of 1 KiB answered with 64 KiB each, to a peer that reads nothing: once the
    /// socket's buffers are full, the server stops reading (without that it would answer all
    /// 1,000, holding 64 MB of replies). When the peer reads, every request is answered.
    @Test func aPeerThatReadsNoRepliesStopsTheServerReading() async throws {
        let answered = NIOLockedValueBox(0)
        let reply = [UInt8](repeating: 7, count: 64 * 1024)
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.runOnEventLoop { _, _ in
                answered.withLockedValue { $0 += 1 }
                return ServerFrame(command: TestRsp.commandID, payload: reply)
            }
        }
        defer { running.cancel() }
        let received = NIOLockedValueBox(0)
        let peer = try await nonReadingConnection(port: try await server.port(), counting: received)
        defer { peer.close(promise: nil) }
        let filler = String(repeating: "x", count: 1024)
        var bytes: [UInt8] = []
        for number in 0..<1000 { bytes += try GameCommands.encode(TestReq(param1: filler, param2: Int32(number))) }
        peer.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)

        #expect(await eventually { answered.withLockedValue { $0 } > 0 })
        // Settled (the same count at two polls), then still short of the 1,000 300 ms later
        // (about 120 here: what the socket buffers hold).
        var last = -1
        #expect(
            await eventually {
                let now = answered.withLockedValue { $0 }
                defer { last = now }
                return now == last
            })
        try await Task.sleep(for: .milliseconds(300))
        let held = answered.withLockedValue { $0 }
        #expect(held < 500, "the server read on while its replies waited: \(held) answered")

        try await startReading(peer)
        let frameSize =
            try FrameEncoder(layout: GameCommands.layout).headerSize(payloadCount: reply.count) + reply.count
        #expect(await eventually(within: 20) { received.withLockedValue { $0 } == 1000 * frameSize })
        #expect(answered.withLockedValue { $0 } == 1000)
    }

    /// Two requests and a bad header in one write: both answered, then the connection closes.
    @Test func aBadFrameClosesTheConnectionAfterTheRepliesBeforeIt() async throws {
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task { try await server.runOnEventLoop(handler: gameAnswer) }
        defer { running.cancel() }
        let received = NIOLockedValueBox<[UInt8]>([])
        let peer = try await collectingConnection(port: try await server.port(), into: received)
        var bytes = try GameCommands.encode(TestReq(param1: "a"))
        bytes += try GameCommands.encode(TestReq(param1: "b"))
        bytes += [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
        try await peer.writeAndFlush(ByteBuffer(bytes: bytes))
        #expect(await closes(peer, within: 5))
        let replies = try GameCommands.decodeAll(received.withLockedValue { $0 })
        #expect(replies == [.testRsp(TestRsp(result1: "echo:a")), .testRsp(TestRsp(result1: "echo:b"))])
        #expect(await eventually { server.connectionIDs.isEmpty })
    }

    /// A handler's error closes its connection after the replies before it; another
    /// connection goes on.
    @Test func aHandlersErrorClosesOnlyItsConnection() async throws {
        struct Refused: Error {}
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.runOnEventLoop { request, context in
                if case let .testReq(request) = request, request.param1 == "refuse" { throw Refused() }
                return try gameAnswer(request, context)
            }
        }
        defer { running.cancel() }
        let port = try await server.port()
        let received = NIOLockedValueBox<[UInt8]>([])
        let refused = try await collectingConnection(port: port, into: received)
        var bytes = try GameCommands.encode(TestReq(param1: "first"))
        bytes += try GameCommands.encode(TestReq(param1: "refuse"))
        bytes += try GameCommands.encode(TestReq(param1: "never"))
        try await refused.writeAndFlush(ByteBuffer(bytes: bytes))
        #expect(await closes(refused, within: 5))
        #expect(
            try GameCommands.decodeAll(received.withLockedValue { $0 }) == [.testRsp(TestRsp(result1: "echo:first"))])

        try await FrameClient<GameCommands>(host: "127.0.0.1", port: port).running { client in
            let reply = try await client.request(TestReq(param1: "other"))
            #expect(reply.result1 == "echo:other")
        }
    }
}

/// A bare connection that reads nothing until `startReading`, then counts the bytes it receives.
private func nonReadingConnection(port: Int, counting received: NIOLockedValueBox<Int>) async throws -> any Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.autoRead, value: false)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteCounter(received: received))
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
}

/// Lets a `nonReadingConnection` read.
private func startReading(_ peer: any Channel) async throws {
    try await peer.setOption(.autoRead, value: true).get()
    peer.read()
}

/// A bare connection that keeps every byte it receives.
private func collectingConnection(port: Int, into received: NIOLockedValueBox<[UInt8]>) async throws -> any Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteCollector(received: received))
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
}

private final class ByteCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received: NIOLockedValueBox<[UInt8]>

    init(received: NIOLockedValueBox<[UInt8]>) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytesView
        received.withLockedValue { $0 += bytes }
    }
}

@Suite(.timeLimit(.minutes(1))) struct PushingFromTheReadTests {
    /// A handler answering in the read pushes to its own connection and broadcasts to all,
    /// without waiting: its push and the broadcast reach its peer before its reply, and the
    /// broadcast reaches the other peer.
    @Test func aHandlerPushesAndBroadcastsBeforeItsReply() async throws {
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.runOnEventLoop { request, context in
                guard case let .testReq(request) = request else { return nil }
                try context.push(try ServerFrame(NoticeNtf(text: "to you: \(request.param1)")))
                let taken = server.broadcast(try ServerFrame(NoticeNtf(text: "to all: \(request.param1)")))
                return try ServerFrame(TestRsp(result1: request.param1, result2: Int64(taken)))
            }
        }
        defer { running.cancel() }
        let port = try await server.port()
        let (mine, theirs) = (NIOLockedValueBox<[UInt8]>([]), NIOLockedValueBox<[UInt8]>([]))
        let other = try await collectingConnection(port: port, into: theirs)
        defer { other.close(promise: nil) }
        #expect(await eventually { server.connectionIDs.count == 1 })
        let peer = try await collectingConnection(port: port, into: mine)
        defer { peer.close(promise: nil) }
        #expect(await eventually { server.connectionIDs.count == 2 })
        try await peer.writeAndFlush(ByteBuffer(bytes: try GameCommands.encode(TestReq(param1: "hi"))))

        let expected: [GameCommands.Inbound] = [
            .noticeNtf(NoticeNtf(text: "to you: hi")), .noticeNtf(NoticeNtf(text: "to all: hi")),
            .testRsp(TestRsp(result1: "hi", result2: 2)),
        ]
        let expectedBytes =
            try GameCommands.encode(NoticeNtf(text: "to you: hi")).count
            + GameCommands.encode(NoticeNtf(text: "to all: hi")).count
            + GameCommands.encode(TestRsp(result1: "hi", result2: 2)).count
        #expect(await eventually { mine.withLockedValue { $0.count } == expectedBytes })
        #expect(try GameCommands.decodeAll(mine.withLockedValue { $0 }) == expected)
        #expect(await eventually { theirs.withLockedValue { $0.count } > 0 })
        #expect(
            try GameCommands.decodeAll(theirs.withLockedValue { $0 }) == [.noticeNtf(NoticeNtf(text: "to all: hi"))])
    }

    /// Pushes of 64 KiB from the handlers of one read are taken up to the channel's limit, then
    /// refused with `FrameServerError.outboundFull` (the connection stays open); once the peer
    /// reads, every push taken arrives.
    @Test func aPushThatCannotWaitIsRefusedWhileThePeerReadsNothing() async throws {
        let (taken, refused) = (NIOLockedValueBox(0), NIOLockedValueBox(0))
        let body = [UInt8](repeating: 7, count: 64 * 1024)
        let server = FrameServer<GameCommands>(port: 0)
        let running = Task {
            try await server.runOnEventLoop { _, context in
                do {
                    try context.push(ServerFrame(command: NoticeNtf.commandID, payload: body))
                    taken.withLockedValue { $0 += 1 }
                } catch FrameServerError.outboundFull {
                    refused.withLockedValue { $0 += 1 }
                }
                return nil
            }
        }
        defer { running.cancel() }
        let received = NIOLockedValueBox(0)
        let peer = try await nonReadingConnection(port: try await server.port(), counting: received)
        defer { peer.close(promise: nil) }
        // 400 requests in one write, answered in one read: the pushes fill the channel's buffer
        // (its writes are flushed at the end of the read), and the rest are refused.
        var requests: [UInt8] = []
        for number in 0..<400 { requests += try GameCommands.encode(TestReq(param2: Int32(number))) }
        try await peer.writeAndFlush(ByteBuffer(bytes: requests))
        #expect(await eventually { taken.withLockedValue { $0 } + refused.withLockedValue { $0 } == 400 })
        #expect(refused.withLockedValue { $0 } > 0, "every push was queued")
        #expect(peer.isActive)

        try await startReading(peer)
        let frameSize = try FrameEncoder(layout: GameCommands.layout).headerSize(payloadCount: body.count) + body.count
        #expect(
            await eventually(within: 20) { received.withLockedValue { $0 } == taken.withLockedValue { $0 } * frameSize }
        )
    }
}
