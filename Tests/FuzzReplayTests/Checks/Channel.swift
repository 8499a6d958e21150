import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import SwiftFrame
@testable import SwiftFrameNIO

/// The NIO decoder handler in an `EmbeddedChannel`, read in chunks the input chooses: the
/// frames and errors it passes down the pipeline, in order, are those of one-shot decoding
/// (under `resync`, a bad header is passed on and decoding goes on; otherwise the first error
/// ends the stream, and at the end a partial frame is `truncated`).
public func checkDecoderHandler(_ data: UnsafeRawBufferPointer) {
    guard let input = StreamInput(data) else { return }
    let recorder = Recorder()
    let channel = EmbeddedChannel()
    try! channel.pipeline.syncOperations.addHandlers(
        ByteToMessageHandler(FrameSliceDecoderHandler(layout: input.layout)), recorder)
    var chunks = input.chunks()
    while let chunk = chunks.next() {
        try! channel.writeInbound(channel.allocator.buffer(bytes: chunk))
    }
    _ = try! channel.finish()

    var decoder = FrameDecoder(layout: input.layout)
    decoder.feed(input.stream)
    var expected: [Result<Frame, FrameError>] = []
    var ended = false
    while !ended {
        do throws(FrameError) {
            guard let frame = try decoder.nextFrame() else { break }
            expected.append(.success(frame))
        } catch {
            expected.append(.failure(error))
            ended = decoder.failure != nil || !input.layout.resynchronizes
        }
    }
    if !ended {
        do throws(FrameError) { try decoder.finish() } catch { expected.append(.failure(error)) }
    }
    precondition(
        recorder.events == expected,
        "\(input.layout): the handler passed on \(recorder.events), one-shot decoding gave \(expected)")
}

extension FrameLayout {
    var resynchronizes: Bool {
        if case .resynchronize = badHeaderPolicy { return true }
        return false
    }
}

/// The end of a pipeline: the frames and frame errors that reach it, in order. After an error
/// that ends the stream, the decoder handler drops what follows (NIO says so with a
/// `ByteToMessageDecoderError`, which is not recorded).
private final class Recorder: ChannelInboundHandler {
    typealias InboundIn = FrameSlice
    var events: [Result<Frame, FrameError>] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        events.append(.success(unwrapInboundIn(data).copy()))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? FrameError {
            events.append(.failure(error))
        } else if !(error is ByteToMessageDecoderError) {
            fatalError("the handler passed on \(error), not a FrameError")
        }
    }
}

// MARK: The client's inbound path

/// The client's connection handler with requests outstanding, fed arbitrary bytes in chunks
/// and then left to time out and close: every request completes exactly once (a reply, an
/// error reply, a timeout or the lost connection), and only decoded frames come out as replies
/// or pushes.
///
/// Input: a table selector byte (even: the game layout, replies in order; odd: the IM layout,
/// replies by sequence number), the number of requests (low 3 bits, plus one), then a stream
/// input as for `checkFrames` without its layout byte.
public func checkClientInbound(_ data: UnsafeRawBufferPointer) {
    guard data.count >= 3 else { return }
    let requests = Int(data[1] & 7) + 1
    let rest = UnsafeRawBufferPointer(rebasing: data[2...])
    if data[0] & 1 == 0 {
        exerciseClient(GameTable.self, requests: requests, rest)
    } else {
        exerciseClient(ImTable.self, requests: requests, rest)
    }
}

private func exerciseClient<Table: CommandTable>(_: Table.Type, requests: Int, _ data: UnsafeRawBufferPointer) {
    guard let seed = data.first else { return }
    let stream = Array(data.dropFirst())
    let input = StreamInput(layout: Table.layout, seed: seed, stream: stream)
    let pushes = NIOLockedValueBox(0)
    let channel = EmbeddedChannel()
    let handler = ConnectionHandler<Table>(configuration: quiet, eventLoop: channel.eventLoop) { _ in
        pushes.withLockedValue { $0 += 1 }
    }
    try! channel.pipeline.syncOperations.addHandler(handler)
    try! channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    let waiters = (0..<requests).map { _ in ReplyWaiter() }
    // Due at once: the deadline timer runs when the embedded loop's clock is moved past it,
    // after the stream, and the handler compares deadlines with the real clock.
    let deadline = NIODeadline.now()
    for index in 0..<requests {
        let command = UInt32(index % 3 + 1)
        let write = ClientWrite(
            frame: OutboundFrame(header: Table.layout.header(command: command), payload: [UInt8(index)]),
            kind: .request(
                replyCommand: command, deadline: deadline, timeout: .seconds(1),
                waiter: waiters[index]))
        channel.write(write, promise: nil)
    }
    channel.flush()
    var decoded = FrameDecoder(layout: Table.layout)
    decoded.feed(stream)
    var frameCount = 0
    while (try? decoded.nextFrame()) ?? nil != nil { frameCount += 1 }

    var chunks = input.chunks()
    while let chunk = chunks.next(), channel.isActive {
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: chunk))
    }
    channel.embeddedEventLoop.advanceTime(to: .now() + .milliseconds(1))
    _ = try? channel.finish(acceptAlreadyClosed: true)
    let counts = waiters.map(\.completions)
    precondition(counts.allSatisfy { $0 == 1 }, "requests completed \(counts) times")
    precondition(pushes.withLockedValue { $0 } <= frameCount, "more pushes than frames in the stream")
}

/// The two command tables the client check runs: frames in, frames out; a frame whose body
/// starts with 0xFF does not decode (an error reply that is not one).
protocol FuzzTable: CommandTable where Inbound == Frame, Request == Frame {}

extension FuzzTable {
    static var heartbeatCommand: UInt32? { nil }
    static func decode(_ frame: Frame) throws(WireError) -> Frame {
        if frame.payload.first == 0xFF { throw .truncated(offset: 0) }
        return frame
    }
    static func decodeRequest(_ frame: Frame) throws(WireError) -> Frame { frame }
}

/// The game layout: no sequence numbers, so replies match in order.
enum GameTable: FuzzTable {
    static var layout: FrameLayout { .gameTCP }
    static var errorCommand: UInt32? { 9 }
}

/// The IM layout: replies match by sequence number.
enum ImTable: FuzzTable {
    static var layout: FrameLayout { .im }
    static var errorCommand: UInt32? { 4 }
}

/// The client's configuration with its log off: every input the fuzzer makes up is a protocol
/// error the handler logs, and millions of lines would only slow the run.
private let quiet: ClientConfiguration = {
    var configuration = ClientConfiguration()
    configuration.logger.logLevel = .critical
    return configuration
}()
