// The two clients under test: swiftframe's FrameClient, and what a SwiftNIO user writes for
// the same wire format with NIO's own pieces (LengthFieldBasedFrameDecoder, LengthFieldPrepender
// and NIORequestResponseWithIDHandler from swift-nio-extras), over plain TCP or, with
// NIOSSLClientHandler in front, TLS. Both encode and decode the body with the same generated
// message code, so only the transport differs.

import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL
import SwiftFrame
import SwiftFrameBenchMessages
import SwiftFrameNIO

/// How both clients of a row connect.
struct ClientOptions: Sendable {
    /// TLS, trusting the benchmark's CA alone and checking the name "localhost"; nil: plain TCP.
    var tls: ClientTLSOptions?
    /// A token stamped into every request's body as field `stampField`: swiftframe's client
    /// does it with BodyFieldStamp, behind FrameLogging with its lines dropped by the logger's
    /// level; the plain client appends the same bytes itself.
    var stamp: String?

    static let plain = ClientOptions()
}

/// Each client's TLS settings, made from the same certificates.
struct ClientTLSOptions: Sendable {
    /// swiftframe's.
    let swiftframe: ClientTLS
    /// The plain client's (swift-nio-ssl's context, made once).
    let nio: NIOSSLContext

    init(_ certificates: BenchCertificates) throws {
        swiftframe = ClientTLS(serverName: BenchCertificates.serverName, trustRoots: .certificates(.bytes(certificates.authority)))
        nio = try certificates.clientContext()
    }
}

/// The field the stamp goes in: one `Bench_Flat` does not declare, so both sides keep it as an
/// unknown field when they decode the echoed reply.
let stampField = 15

/// The stamp's bytes as BodyFieldStamp writes them: the tag, the length, the token.
func appendStamp(_ token: String, to body: inout [UInt8]) {
    func varint(_ value: Int) {
        var value = UInt64(value)
        while value >= 0x80 {
            body.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        body.append(UInt8(value))
    }
    varint(stampField << 3 | 2)
    varint(token.utf8.count)
    body += token.utf8
}

/// What a benchmark does with a client.
protocol BenchClient: Sendable {
    /// On the caller's executor (an actor's, say), as far as the client lets it.
    nonisolated(nonsending) func request(_ message: Bench_Flat) async throws -> Bench_Flat
    func send(_ message: Bench_Flat) async throws
    func close() async
    /// The client's event loop as a task executor, for callers that run there.
    var eventLoopExecutor: any TaskExecutor { get }
}

// MARK: swiftframe

struct SwiftFrameBenchClient: BenchClient {
    let client: FrameClient<BenchCommands>
    let running: Task<Void, any Error>

    static func connect(port: Int, options: ClientOptions) async throws -> SwiftFrameBenchClient {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.tls = options.tls?.swiftframe
        if let token = options.stamp {
            var quiet = Logger(label: "bench.frames")
            quiet.logLevel = .warning  // FrameLogging logs at .info: every line is dropped
            configuration.interceptors = [BodyFieldStamp(field: stampField) { token }, FrameLogging(logger: quiet)]
        }
        let client = FrameClient<BenchCommands>(
            host: "127.0.0.1", port: port, configuration: configuration, eventLoopGroup: Loops.client)
        let running = Task { try await client.run() }
        // The TLS handshake is part of connecting.
        _ = try await client.connection(within: .seconds(10))
        return SwiftFrameBenchClient(client: client, running: running)
    }

    nonisolated(nonsending) func request(_ message: Bench_Flat) async throws -> Bench_Flat {
        try await client.request(message)
    }

    func send(_ message: Bench_Flat) async throws {
        try await client.send(message)
    }

    func close() async {
        running.cancel()
        _ = await running.result
    }

    var eventLoopExecutor: any TaskExecutor { client.eventLoopExecutor }
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
    let stamp: String?

    /// With `requests` false, the pipeline has no NIORequestResponseWithIDHandler and takes
    /// frames to send one way. With TLS, NIOSSLClientHandler goes first, and the client is
    /// returned once the handshake is done.
    static func connect(port: Int, requests: Bool, options: ClientOptions) async throws -> NIOBenchClient {
        let channel = try await connectPlainNIO(port: port, options: options) { pipeline in
            try pipeline.addHandlers(
                ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)),
                LengthFieldPrepender(lengthFieldBitLength: .fourBytes),
                NIOFrameCodec())
            if requests { try pipeline.addHandler(NIORequestResponseWithIDHandler<NIOFrame, NIOFrame>()) }
        }
        return NIOBenchClient(channel: channel, nextID: NIOLockedValueBox(0), stamp: options.stamp)
    }

    private func frame(_ message: Bench_Flat) throws -> NIOFrame {
        let id = nextID.withLockedValue { id in
            id &+= 1
            return id
        }
        var body = try message.serializedBytes()
        if let stamp { appendStamp(stamp, to: &body) }
        return NIOFrame(requestID: id, command: 1, body: ByteBuffer(bytes: body))
    }

    nonisolated(nonsending) func request(_ message: Bench_Flat) async throws -> Bench_Flat {
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

    var eventLoopExecutor: any TaskExecutor { LoopExecutor(loop: channel.eventLoop) }
}

/// A channel to the server on `port` from the client's loop, with Nagle off, NIOSSLClientHandler
/// first when `options` ask for TLS (returned once the handshake is done), then what
/// `handlers` add: the plain client's pipeline, and the floor's.
func connectPlainNIO(
    port: Int, options: ClientOptions,
    handlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
) async throws -> any Channel {
    let handshake = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)
    let channel = try await ClientBootstrap(group: Loops.client)
        .connectTimeout(.seconds(10))
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                if let tls = options.tls?.nio {
                    let done = channel.eventLoop.makePromise(of: Void.self)
                    handshake.withLockedValue { $0 = done.futureResult }
                    try pipeline.addHandlers(
                        try NIOSSLClientHandler(context: tls, serverHostname: BenchCertificates.serverName),
                        HandshakeWaiter(done: done))
                }
                try handlers(pipeline)
            }
        }
        .connect(host: "127.0.0.1", port: port)
        .get()
    if let done = handshake.withLockedValue({ $0 }) {
        try await within(10, "the TLS handshake") { try await done.get() }
    }
    return channel
}

/// What a SwiftNIO user writes to run a task on a channel's event loop: each job posted to the
/// loop and run there.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
