// A served connection's read-idle timeout on a testing channel: the pipeline `FrameServer`
// builds for each connection (CloseWhenIdle, FrameSliceHandler, ServingHandler) with a handler
// that waits until the test lets it reply, and the event `IdleStateHandler` sends at the
// timeout fired by the test at each turn from the request's read to its reply's write. No
// socket and no clock (IdleStateHandler reads the real one), so no scheduling of a loaded
// machine between the accept and the request.

import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import SwiftFrame
import SwiftFrameFixtures
@testable import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct ServedConnectionIdleTests {
    /// What the handler has done, and whether it may reply.
    final class Handler: Sendable {
        let entered = NIOLockedValueBox(0)
        let mayReply = NIOLockedValueBox(false)
        let replied = NIOLockedValueBox(0)

        func handle(_ frame: Frame, on connection: ServedConnection) async -> Bool {
            entered.withLockedValue { $0 += 1 }
            while !mayReply.withLockedValue({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
            let reply = OutboundFrame(header: frame.header, payload: Array(frame.payload))
            // Queued from the event loop, where the testing loop runs the write it posts only
            // when the test runs the loop: the reply waits, unwritten, after the task has ended.
            guard let loop = connection.channel.eventLoop as? NIOAsyncTestingEventLoop else { return false }
            do { try await loop.executeInContext { _ = try connection.writer.queue(reply) } } catch { return false }
            replied.withLockedValue { $0 += 1 }
            return true
        }
    }

    /// A connection's pipeline on a testing channel, as `FrameServer` builds it.
    static func served(by handler: Handler) async throws -> (NIOAsyncTestingChannel, ServedConnection) {
        let channel = NIOAsyncTestingChannel()
        let connection = ServedConnection(
            id: 1, channel: channel,
            chain: InterceptorChain([], side: .server, channel: channel, table: GameCommands.self),
            logger: Logger(label: "test"),
            handling: .inTasks(onEventLoop: false, handle: { await handler.handle($0, on: $1) }), done: { _ in })
        try await channel.testingEventLoop.executeInContext {
            let slices = FrameSliceHandler(layout: GameCommands.layout)
            try channel.pipeline.syncOperations.addHandlers(
                CloseWhenIdle(connection), slices,
                ServingHandler(connection, after: slices, layout: GameCommands.layout))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        return (channel, connection)
    }

    /// What `IdleStateHandler` sends when nothing was read for its timeout.
    static func timeout(_ channel: NIOAsyncTestingChannel) async throws {
        try await channel.testingEventLoop.executeInContext {
            channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        }
        await channel.testingEventLoop.run()
    }

    static var request: ByteBuffer {
        get throws { ByteBuffer(bytes: try GameCommands.encode(TestReq(param1: "slow"))) }
    }

    @Test func aSilentConnectionClosesAfterTheIdleTimeout() async throws {
        let (channel, _) = try await Self.served(by: Handler())
        #expect(channel.isActive)
        try await Self.timeout(channel)
        #expect(!channel.isActive)
    }

    /// Timeouts at every turn from the request's read to its reply's write keep the connection:
    /// the frame queued before its task starts, the task at work, and the reply written. Once
    /// the reply is out and the peer silent, the next timeout closes it.
    @Test func timeoutsWhileARequestIsAtWorkKeepTheConnection() async throws {
        let handler = Handler()
        let (channel, connection) = try await Self.served(by: handler)
        try await channel.writeInbound(try Self.request)
        // The frame is queued; its task may not have started yet.
        try await Self.timeout(channel)
        #expect(channel.isActive)
        #expect(await eventually { handler.entered.withLockedValue { $0 } == 1 })
        // The task has taken the last frame and is at work.
        for _ in 0..<3 {
            try await Self.timeout(channel)
            #expect(channel.isActive)
        }
        handler.mayReply.withLockedValue { $0 = true }
        #expect(await eventually { handler.replied.withLockedValue { $0 } == 1 && !connection.isHandling })
        // The task has ended; its reply waits to be written.
        try await Self.timeout(channel)
        #expect(channel.isActive)
        await channel.testingEventLoop.run()
        let written = try await channel.readOutbound(as: ByteBuffer.self)
        #expect(written == (try Self.request))
        #expect(channel.isActive)
        try await Self.timeout(channel)
        #expect(!channel.isActive)
    }
}
