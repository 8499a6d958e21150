// The wire format both clients speak, `length:u32:after cmd:u32 seq:u32` (the length counts
// the command, the sequence number and the body, as NIO's LengthFieldBasedFrameDecoder reads
// it), the message they carry, and the echo server both talk to (over plain TCP or TLS).

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SwiftFrame
import SwiftFrameBenchMessages

/// swiftframe's side: a command table written by hand, as the plugin would write it.
enum BenchCommands: CommandTable {
    static let layout = FrameLayout(checkedDescription: "length:u32:after cmd:u32 seq:u32")

    static func decode(_ frame: BorrowedFrame) throws(WireError) -> Bench_Flat {
        try Bench_Flat(buffer: frame.payload)
    }

    static func decodeRequest(_ frame: BorrowedFrame) throws(WireError) -> Bench_Flat {
        try Bench_Flat(buffer: frame.payload)
    }
}

extension Bench_Flat: CommandMessage, RequestMessage {
    public static let commandID: UInt32 = 1
    public typealias Response = Bench_Flat
}

/// A message of exactly `size` encoded bytes (its `payload` field alone).
func benchMessage(size: Int) -> Bench_Flat {
    let count = size - 1 - (size - 3 < 128 ? 1 : 2)
    return Bench_Flat(payload: [UInt8](repeating: 0xA5, count: count))
}

/// Echoes every byte back (so each frame comes back with its own sequence number), or counts
/// them when `expected` is set and succeeds `done` once that many have arrived.
final class EchoServerHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: the counters are touched on the channel's event loop only.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let counter: ByteCounter?

    init(counter: ByteCounter?) {
        self.counter = counter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if let counter {
            counter.add(buffer.readableBytes)
        } else {
            context.write(data, promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if counter == nil { context.flush() }
    }
}

/// Bytes received by a counting server; `wait(for:)` returns once that many have arrived.
final class ByteCounter: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NIOLock()
    private var received = 0
    private var target = Int.max
    private var promise: EventLoopPromise<Void>?

    func add(_ count: Int) {
        lock.withLock {
            received += count
            if received >= target { promise?.succeed(); promise = nil }
        }
    }

    func expect(_ bytes: Int, on loop: EventLoop) -> EventLoopFuture<Void> {
        lock.withLock {
            received = 0
            target = bytes
            let promise = loop.makePromise(of: Void.self)
            self.promise = promise
            return promise.futureResult
        }
    }
}

/// The event loops of the transport rows: one thread for the servers, one for the client under
/// test. Both clients' connections run on `client` and every server connection on `server`, so
/// neither client can land on the server's thread (which NIO's round-robin over a shared group
/// would decide by how many channels were made before, differently for the two clients).
enum Loops {
    static let server = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let client = MultiThreadedEventLoopGroup(numberOfThreads: 1)
}

/// A server on a free loopback port; `counter` nil echoes, otherwise counts. With `tls`, the
/// handler sees the bytes after swift-nio-ssl has decrypted them.
func startServer(counter: ByteCounter?, tls: NIOSSLContext? = nil) async throws -> any Channel {
    try await ServerBootstrap(group: Loops.server)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls)) }
                try pipeline.addHandler(EchoServerHandler(counter: counter))
            }
        }
        .bind(host: "127.0.0.1", port: 0)
        .get()
}
