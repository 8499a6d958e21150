// Requests made from an actor stay on it: the request is encoded, and its reply decoded, on
// the caller's executor (an app's main actor, say), without a hop to Swift's global pool and
// back on each side of the round trip.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameNIO
import Testing

/// An actor on a thread of its own, as an app's main actor is on the main thread.
actor OwnThread {
    static let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    nonisolated var unownedExecutor: UnownedSerialExecutor { Self.loop.executor.asUnownedSerialExecutor() }

    /// A request through each of the client's request paths; after each, where its reply was decoded.
    func requestEachWay(_ client: FrameClient<PlaceNotingCommands>) async throws -> [String: Bool] {
        var decodedHere: [String: Bool] = [:]
        func check(_ name: String, _ reply: [UInt8]) {
            #expect(reply == Array(name.utf8))
            decodedHere[name] = PlaceNotingCommands.lastDecodedOnOwnThread.withLockedValue { $0 }
        }
        check("client", try await client.request(command: 1, payload: Array("client".utf8)))
        let connection = try await client.connection(within: .seconds(5))
        check("connection", try await connection.request(command: 1, payload: Array("connection".utf8)))
        check(
            "options",
            try await client.request(
                command: 1, payload: Array("options".utf8),
                options: RequestOptions(idempotent: true)
            ).reply)
        try await client.send(command: 2, payload: [1])
        return decodedHere
    }
}

/// Raw bodies; decoding notes whether it ran on `OwnThread`'s thread.
enum PlaceNotingCommands: CommandTable {
    static let layout = FrameLayout(checkedDescription: "length:u32:after cmd:u32 seq:u32")
    static let lastDecodedOnOwnThread = NIOLockedValueBox<Bool?>(nil)

    static func decode(_ frame: Frame) throws(WireError) -> [UInt8] {
        lastDecodedOnOwnThread.withLockedValue { $0 = OwnThread.loop.inEventLoop }
        return Array(frame.payload)
    }

    static func decodeRequest(_ frame: Frame) throws(WireError) -> [UInt8] { Array(frame.payload) }
}

/// Writes back every byte it reads.
final class EchoBytes: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

@Suite(.timeLimit(.minutes(1))) struct CallerIsolationTests {
    @Test func requestsFromAnActorAreEncodedAndDecodedOnIt() async throws {
        let server = try await plainServer { [EchoBytes()] }
        defer { server.close(promise: nil) }
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        let (fromTheActor, fromAPoolTask) = try await withFrameClient(
            PlaceNotingCommands.self, host: "127.0.0.1", port: try #require(server.localAddress?.port),
            configuration: configuration
        ) { client in
            let fromTheActor = try await OwnThread().requestEachWay(client)
            _ = try await client.request(command: 1, payload: [7])
            return (fromTheActor, PlaceNotingCommands.lastDecodedOnOwnThread.withLockedValue { $0 })
        }
        #expect(fromTheActor == ["client": true, "connection": true, "options": true])
        #expect(fromAPoolTask == false)
    }
}
