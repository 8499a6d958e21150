// The server the idle benchmark measures, in a process of its own (`TransportBench serve-idle
// KIND`, started by `TransportBench idle`), so that neither the client sockets nor the driver
// count in its RSS. It prints `port P limit L` once listening, then answers `count` on its
// standard input with the number of connections it holds, `queue` with the length of its
// listening socket's accept queue (connections the kernel has completed that the server has not
// yet accepted), and exits on `quit` or at the end of its input (the driver gone).
//
//   swiftframe  FrameServer<BenchCommands>, echoing each request, with no idle timeout
//   swiftframe-loop  the same with its handlers on the event loop (handlersRunOnEventLoop)
//   swiftframe-read  the same answering inside the event loop's read (runOnEventLoop)
//   nio         ServerBootstrap with NIO's length-field decoder and prepender around a handler
//               that decodes each request and writes it back, flushing at the end of each read:
//               what a SwiftNIO user writes for the same wire format
//   nio-async   the same decoder and prepender under NIO's own async API: each connection an
//               `NIOAsyncChannel` served by a task of its own that reads its frames with
//               `for try await` and writes each reply through the outbound writer (the shape of
//               NIO's async echo server example): what a SwiftNIO user writes with `async` code,
//               the peer of FrameServer's `async` handlers

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import SwiftFrame
import SwiftFrameBenchMessages
import SwiftFrameNIO

func serveIdle(kind: String) async throws {
    let limit = raiseFileLimit()
    let port: Int
    let count: @Sendable () -> Int
    switch kind {
    case "swiftframe", "swiftframe-loop", "swiftframe-read":
        var configuration = ServerConfiguration()
        configuration.handlersRunOnEventLoop = kind == "swiftframe-loop"
        // The default closes a connection that sent nothing for 5 minutes; a run takes less,
        // but the measurement must not depend on that.
        configuration.idleTimeout = nil
        let server = FrameServer<BenchCommands>(port: 0, configuration: configuration)
        // Ends with the process.
        if kind == "swiftframe-read" {
            Task { try await server.runOnEventLoop { request, _ in try ServerFrame(request) } }
        } else {
            Task { try await server.run { request, _ in try ServerFrame(request) } }
        }
        port = try await server.port(within: .seconds(10))
        count = { server.connectionIDs.count }
    case "nio":
        let open = NIOLockedValueBox(0)
        let channel = try await within(10, "binding the SwiftNIO server") { try await startFrameEchoServer(open: open) }
        port = channel.localAddress!.port!
        count = { open.withLockedValue { $0 } }
    case "nio-async":
        let open = NIOLockedValueBox(0)
        let server = try await within(10, "binding the SwiftNIO async server") { try await bindAsyncEchoServer() }
        port = server.channel.localAddress!.port!
        count = { open.withLockedValue { $0 } }
        // Ends with the process.
        Task { try await serveAsyncEcho(server, open: open) }
    default:
        fail("serve-idle takes swiftframe, swiftframe-loop, swiftframe-read, nio or nio-async, not '\(kind)'")
    }
    guard let listener = listeningDescriptor(port: port) else { fail("no listening socket on port \(port)") }
    answer("port \(port) limit \(limit)")
    // A blocking read holds its thread: one of its own, not one of the task pool's two.
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread {
            while let line = readLine(), line != "quit" {
                switch line {
                case "count": answer("count \(count())")
                case "queue": answer("queue \(acceptQueueLength(listener))")
                default: answer("unknown command \(line)")
                }
            }
            done.resume()
        }.start()
    }
    exit(0)
}

/// This process's socket listening on `port` (the server's, which neither server hands out).
private func listeningDescriptor(port: Int) -> Int32? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    for descriptor in names.compactMap(Int32.init) {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else { continue }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if named == 0, Int(UInt16(bigEndian: address.sin_port)) == port { return descriptor }
    }
    return nil
}

/// Connections waiting in a listening socket's accept queue: Linux gives the queue's length as
/// `tcpi_unacked` of a listening socket's TCP_INFO.
private func acceptQueueLength(_ descriptor: Int32) -> Int {
    var info = tcp_info()
    var size = socklen_t(MemoryLayout<tcp_info>.size)
    guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &size) == 0 else { return -1 }
    return Int(info.tcpi_unacked)
}

/// A line to the driver, unbuffered.
private func answer(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}

/// Writes each frame (command, sequence number and body, after the length) back as it came, and
/// counts the connections open in `open`.
final class FrameEchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let open: NIOLockedValueBox<Int>

    init(open: NIOLockedValueBox<Int>) {
        self.open = open
    }

    func channelActive(context: ChannelHandlerContext) {
        open.withLockedValue { $0 += 1 }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        open.withLockedValue { $0 -= 1 }
        context.fireChannelInactive()
    }

    /// Answers each frame with `echo`, and closes the connection on one that does not decode.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let reply = echo(unwrapInboundIn(data), allocator: context.channel.allocator) else {
            context.close(promise: nil)
            return
        }
        context.write(wrapOutboundOut(reply), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// The reply of both plain servers to a frame after its length (the command and the request
/// id, then a `Bench_Flat`): command and id as they came, the request decoded and encoded back
/// as FrameServer's handler does; nil for a frame that does not decode.
func echo(_ frame: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer? {
    var frame = frame
    guard let command = frame.readInteger(as: UInt32.self), let id = frame.readInteger(as: UInt32.self),
          let request = try? Bench_Flat(serializedBytes: Array(frame.readableBytesView)),
          let body: [UInt8] = try? request.serializedBytes()
    else { return nil }
    var reply = allocator.buffer(capacity: 8 + body.count)
    reply.writeInteger(command)
    reply.writeInteger(id)
    reply.writeBytes(body)
    return reply
}

/// The plain SwiftNIO server of the idle benchmark, on a free loopback port, with the options
/// FrameServer sets (SO_REUSEADDR, TCP_NODELAY) and NIO's default backlog, as FrameServer has.
func startFrameEchoServer(open: NIOLockedValueBox<Int>) async throws -> any Channel {
    try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)),
                    LengthFieldPrepender(lengthFieldBitLength: .fourBytes),
                    FrameEchoHandler(open: open))
            }
        }
        .bind(host: "127.0.0.1", port: 0)
        .get()
}

/// The plain SwiftNIO server under NIO's async API: its listening channel, bound with the same
/// options and handlers as `startFrameEchoServer`, handing out each connection as an
/// `NIOAsyncChannel` of frames.
func bindAsyncEchoServer() async throws -> NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never> {
    try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .bind(host: "127.0.0.1", port: 0) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)),
                    LengthFieldPrepender(lengthFieldBitLength: .fourBytes))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
}

/// Serves each connection of `server` in a task of its own, answering its frames one by one as
/// `FrameEchoHandler` does, until the process ends.
func serveAsyncEcho(_ server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, open: NIOLockedValueBox<Int>) async throws {
    try await withThrowingDiscardingTaskGroup { group in
        try await server.executeThenClose { connections in
            for try await connection in connections {
                group.addTask {
                    open.withLockedValue { $0 += 1 }
                    defer { open.withLockedValue { $0 -= 1 } }
                    try? await connection.executeThenClose { frames, replies in
                        for try await frame in frames {
                            guard let reply = echo(frame, allocator: connection.channel.allocator) else { return }
                            try await replies.write(reply)
                        }
                    }
                }
            }
        }
    }
}

/// Raises this process's soft limit on open files to its hard limit (or to the kernel's
/// `fs.nr_open` when the hard limit is unlimited); returns the soft limit now in force.
@discardableResult
func raiseFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(resourceOpenFiles, &limit) == 0 else { return -1 }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        if raised.rlim_max == unlimited {
            let ceiling = (try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8))
                .flatMap { rlim_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            raised.rlim_cur = ceiling ?? limit.rlim_cur
        } else {
            raised.rlim_cur = raised.rlim_max
        }
        if setrlimit(resourceOpenFiles, &raised) == 0 { limit = raised }
    }
    return Int(limit.rlim_cur)
}

/// The hard limit on open files, and the soft limit as the process started with it.
func fileLimits() -> (soft: Int, hard: Int) {
    var limit = rlimit()
    guard getrlimit(resourceOpenFiles, &limit) == 0 else { return (-1, -1) }
    let hard = limit.rlim_max == unlimited ? Int.max : Int(limit.rlim_max)
    return (Int(limit.rlim_cur), hard)
}

/// RLIM_INFINITY, which Swift does not import (it is `(rlim_t) -1`).
private let unlimited = rlim_t.max

private let resourceOpenFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
