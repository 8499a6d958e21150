// The two clients under test: swiftframe's FrameClient, and what a SwiftNIO user writes for
// the same wire format with NIO's own pieces (LengthFieldBasedFrameDecoder, LengthFieldPrepender
// and NIORequestResponseWithIDHandler from swift-nio-extras). Both encode and decode the body
// with the same generated message code, so only the transport differs.

import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import SwiftFrame
import SwiftFrameBenchMessages
import SwiftFrameNIO

/// What a benchmark does with a client.
protocol BenchClient: Sendable {
    func request(_ message: Bench_Flat) async throws -> Bench_Flat
    func send(_ message: Bench_Flat) async throws
    func close() async
}

// MARK: swiftframe

struct SwiftFrameBenchClient: BenchClient {
    let client: FrameClient<BenchCommands>
    let running: Task<Void, any Error>

    static func connect(port: Int) async throws -> SwiftFrameBenchClient {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        let client = FrameClient<BenchCommands>(host: "127.0.0.1", port: port, configuration: configuration)
        let running = Task { try await client.run() }
        _ = try await client.connection(within: .seconds(10))
        return SwiftFrameBenchClient(client: client, running: running)
    }

    func request(_ message: Bench_Flat) async throws -> Bench_Flat {
        try await client.request(message)
    }

    func send(_ message: Bench_Flat) async throws {
        try await client.send(message)
    }

    func close() async {
        running.cancel()
        _ = await running.result
    }
}

// MARK: Plain SwiftNIO

/// A frame after the length: the command, the sequence number as the request id, the body.
struct NIOFrame: NIORequestIdentifiable, Sendable {
    var requestID: UInt32
    var command: UInt32
    var body: ByteBuffer
}

/// ByteBuffer (a frame without its length) <-> NIOFrame.
final class NIOFrameCodec: ChannelDuplexHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = NIOFrame
    typealias OutboundIn = NIOFrame
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let command = buffer.readInteger(as: UInt32.self), let id = buffer.readInteger(as: UInt32.self) else {
            context.fireErrorCaught(ByteToMessageDecoderError.PayloadTooLargeError())
            return
        }
        context.fireChannelRead(wrapInboundOut(NIOFrame(requestID: id, command: command, body: buffer)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        var buffer = context.channel.allocator.buffer(capacity: 8 + frame.body.readableBytes)
        buffer.writeInteger(frame.command)
        buffer.writeInteger(frame.requestID)
        buffer.writeImmutableBuffer(frame.body)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }
}

struct NIOBenchClient: BenchClient {
    let channel: any Channel
    let nextID: NIOLockedValueBox<UInt32>

    /// With `requests` false, the pipeline has no NIORequestResponseWithIDHandler and takes
    /// frames to send one way.
    static func connect(port: Int, requests: Bool) async throws -> NIOBenchClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandlers(
                        ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)),
                        LengthFieldPrepender(lengthFieldBitLength: .fourBytes),
                        NIOFrameCodec())
                    if requests { try pipeline.addHandler(NIORequestResponseWithIDHandler<NIOFrame, NIOFrame>()) }
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return NIOBenchClient(channel: channel, nextID: NIOLockedValueBox(0))
    }

    private func frame(_ message: Bench_Flat) throws -> NIOFrame {
        let id = nextID.withLockedValue { id in
            id &+= 1
            return id
        }
        return NIOFrame(requestID: id, command: 1, body: ByteBuffer(bytes: try message.serializedBytes()))
    }

    func request(_ message: Bench_Flat) async throws -> Bench_Flat {
        let promise = channel.eventLoop.makePromise(of: NIOFrame.self)
        channel.writeAndFlush((try frame(message), promise), promise: nil)
        let reply = try await promise.futureResult.get()
        return try Bench_Flat(serializedBytes: Array(reply.body.readableBytesView))
    }

    func send(_ message: Bench_Flat) async throws {
        // Fire and forget, waiting only when the channel's buffer is full, as swiftframe's does.
        let frame = try frame(message)
        if channel.isWritable {
            channel.writeAndFlush(frame, promise: nil)
        } else {
            try await channel.writeAndFlush(frame)
        }
    }

    func close() async {
        try? await channel.close()
    }
}
