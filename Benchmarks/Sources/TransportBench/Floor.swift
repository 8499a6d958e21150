// The floor of the round-trip rows: the least a client can do with the same threads as the two
// under test. The caller's task writes a frame made once, through the client's event loop, and
// waits; the loop resumes it when as many bytes have come back. No encoding, no frame reading,
// no request ids, no decoding: what is left is the wake-ups and system calls every client of
// this shape pays (the caller's thread, the client's loop, the server's loop; the caller's
// thread is a pool thread, the loop itself or an actor's thread, as the row places it), so a
// client's time above the floor is the time its own code adds.

import NIOCore
import SwiftFrameBenchMessages

/// Counts the bytes that come back and resumes the one waiting caller once a frame's worth has.
final class FloorHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: `waiter` and `received` are touched on the channel's event loop only.
    typealias InboundIn = ByteBuffer

    let frameSize: Int
    var received = 0
    var waiter: UnsafeContinuation<Void, Never>?

    init(frameSize: Int) {
        self.frameSize = frameSize
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if received >= frameSize, let waiter {
            received -= frameSize
            self.waiter = nil
            waiter.resume()
        }
    }
}

struct FloorBenchClient: BenchClient {
    let channel: any Channel
    let handler: FloorHandler
    let frame: ByteBuffer

    /// Round trips of `message` alone: its frame is made here, once.
    static func connect(port: Int, message: Bench_Flat, options: ClientOptions) async throws -> FloorBenchClient {
        var frame = ByteBuffer()
        var body = try message.serializedBytes()
        if let stamp = options.stamp { appendStamp(stamp, to: &body) }
        frame.writeInteger(UInt32(8 + body.count))
        frame.writeInteger(UInt32(1))
        frame.writeInteger(UInt32(1))
        frame.writeBytes(body)
        let handler = FloorHandler(frameSize: frame.readableBytes)
        let channel = try await connectPlainNIO(port: port, options: options) { try $0.addHandler(handler) }
        return FloorBenchClient(channel: channel, handler: handler, frame: frame)
    }

    nonisolated(nonsending) func request(_ message: Bench_Flat) async throws -> Bench_Flat {
        let (channel, handler, frame) = (channel, handler, frame)
        await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
            channel.eventLoop.execute {
                handler.waiter = waiter
                channel.writeAndFlush(frame, promise: nil)
            }
        }
        return message
    }

    func send(_ message: Bench_Flat) async throws {
        channel.writeAndFlush(frame, promise: nil)
    }

    func close() async {
        try? await channel.close()
    }

    var eventLoopExecutor: any TaskExecutor { LoopExecutor(loop: channel.eventLoop) }
}
