// Frames cut from the reads where they lie, with payloads as slices of the reads: FrameSliceHandler
// and FrameSliceDecoderHandler (in a ByteToMessageHandler), against the runtime's
// FrameDecoder.decodeAll over the same bytes, under every way of splitting them into reads.

import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOTestUtils
import SwiftFrame
import SwiftFrameFixtures
@testable import SwiftFrameNIO
import Testing

/// `FrameSliceDecoderHandler`'s decoding, with frames compared by content.
struct SliceContentsDecoder: ByteToMessageDecoder {
    typealias InboundOut = FrameContents
    var inner: FrameSliceDecoderHandler

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try inner.slices(from: &buffer) { result in
            switch result {
            case let .success(slice):
                context.fireChannelRead(
                    Self.wrapInboundOut(
                        FrameContents(header: slice.header, payload: Array(slice.payload.readableBytesView))))
            case let .failure(error):
                context.fireErrorCaught(error)
            }
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        _ = try decode(context: context, buffer: &buffer)
        try inner.finish()
        return .needMoreData
    }
}

/// Records the frames (copied) and errors a `FrameSliceHandler` passes on; `onFrame` is called
/// after each frame is recorded.
final class SliceRecorder: ChannelInboundHandler {
    typealias InboundIn = FrameSlice
    var seen: [Seen] = []
    var onFrame: ((ChannelHandlerContext, FrameSlice) -> Void)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let slice = unwrapInboundIn(data)
        seen.append(.frame(slice.copy()))
        onFrame?(context, slice)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        seen.append(.error(error as! FrameError))
    }
}

/// What a handler passed on: a frame (payload, header, offset) or an error.
enum Seen: Equatable {
    case frame(Frame)
    case error(FrameError)
}

@Suite struct SliceHandlerTests {
    /// Frames of `sizes` back to back in `layout`, and what the runtime decodes from them.
    static func stream(_ layout: FrameLayout, sizes: [Int]) throws -> (bytes: [UInt8], frames: [Frame]) {
        let encoder = FrameEncoder(layout: layout)
        var bytes: [UInt8] = []
        for (index, size) in sizes.enumerated() {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }
            let header =
                layout.fields.contains { $0.kind == .command }
                ? FrameHeader(command: UInt32(index + 1))
                : layout.fields.contains { if case .type = $0.kind { true } else { false } }
                    ? FrameHeader(sequence: UInt64(index), type: UInt64(index % 4 + 1)) : FrameHeader()
            try encoder.append(header: header, payload: payload, to: &bytes)
        }
        return (bytes, try FrameDecoder.decodeAll(bytes, layout: layout))
    }

    /// Feeds `reads` to a slice decoder; returns what it passed on, and the error `finish()` threw
    /// (nil when clean).
    static func run(_ layout: FrameLayout, reads: [[UInt8]]) -> (slices: [Seen], slicesEnd: FrameError?) {
        var sliceHandler = FrameSliceDecoderHandler(layout: layout)
        var slices: [Seen] = []
        for read in reads {
            var buffer = ByteBuffer(bytes: read)
            do throws(FrameError) {
                try sliceHandler.slices(from: &buffer) { result in
                    switch result {
                    case let .success(slice): slices.append(.frame(slice.copy()))
                    case let .failure(error): slices.append(.error(error))
                    }
                }
            } catch {
                slices.append(.error(error))
            }
            #expect(buffer.readableBytes == 0)
        }
        var slicesEnd: FrameError?
        do throws(FrameError) { try sliceHandler.finish() } catch { slicesEnd = error }
        // FrameSliceHandler, in a channel, passes on the same; at the end of input it reports
        // an incomplete frame, not again an error that ended the stream.
        let inbound = try! Self.inbound(layout, reads: reads)
        #expect(inbound.seen == slices, "FrameSliceHandler, reads of \(reads.map(\.count))")
        let endWanted = slicesEnd.flatMap { slices.contains(.error($0)) ? nil : Seen.error($0) }
        #expect(
            inbound.end == (endWanted.map { [$0] } ?? []), "FrameSliceHandler's end, reads of \(reads.map(\.count))")
        return (slices, slicesEnd)
    }

    /// Writes `reads` into a channel through a `FrameSliceHandler`; returns what it passed on,
    /// and what it passed on when the channel went inactive.
    static func inbound(_ layout: FrameLayout, reads: [[UInt8]]) throws -> (seen: [Seen], end: [Seen]) {
        let channel = EmbeddedChannel()
        let recorder = SliceRecorder()
        try channel.pipeline.syncOperations.addHandlers([FrameSliceHandler(layout: layout), recorder])
        for read in reads {
            try channel.writeInbound(ByteBuffer(bytes: read))
        }
        let seen = recorder.seen
        channel.pipeline.fireChannelInactive()
        _ = try channel.finish()
        return (seen, Array(recorder.seen.dropFirst(seen.count)))
    }

    static func normalized(_ frames: [Frame]) -> [Seen] {
        frames.map { .frame(Frame(header: $0.header, payload: ArraySlice(Array($0.payload)), offset: $0.offset)) }
    }

    static let layouts: [(String, FrameLayout)] = [("game", .gameTCP), ("im", .im), ("varint", .varint)]

    @Test(arguments: layouts.map(\.0))
    func aStreamSplitInTwoAtEveryByte(_ name: String) throws {
        let layout = Self.layouts.first { $0.0 == name }!.1
        let (bytes, expected) = try Self.stream(layout, sizes: [3, 0, 70, 1, 300, 5])
        let want = Self.normalized(expected)
        for split in 0...bytes.count {
            let run = Self.run(layout, reads: [Array(bytes[..<split]), Array(bytes[split...])])
            #expect(run.slices == want, "split at \(split)")
            #expect(run.slicesEnd == nil)
        }
    }

    @Test(arguments: layouts.map(\.0))
    func aStreamSplitInThreeAtEveryPairOfBytes(_ name: String) throws {
        let layout = Self.layouts.first { $0.0 == name }!.1
        let (bytes, expected) = try Self.stream(layout, sizes: [2, 20, 0, 9])
        let want = Self.normalized(expected)
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let run = Self.run(
                    layout, reads: [Array(bytes[..<first]), Array(bytes[first..<second]), Array(bytes[second...])])
                #expect(run.slices == want, "split at \(first), \(second)")
            }
        }
    }

    @Test func aDripFeedAndAFrameLargerThanAnyRead() throws {
        let (bytes, expected) = try Self.stream(.gameTCP, sizes: [40_000, 1, 3_000, 0])
        let want = Self.normalized(expected)
        for readSize in [1, 7, 4096, 16_384] {
            let reads = stride(from: 0, to: bytes.count, by: readSize).map {
                Array(bytes[$0..<min($0 + readSize, bytes.count)])
            }
            let run = Self.run(.gameTCP, reads: reads)
            #expect(run.slices == want, "reads of \(readSize)")
            #expect(run.slicesEnd == nil)
        }
    }

    @Test func aKeptSliceOfAFramePutTogetherStaysIntactWhenTheNextOneIs() throws {
        let (bytes, expected) = try Self.stream(.gameTCP, sizes: [600, 600, 600])
        var handler = FrameSliceDecoderHandler(layout: .gameTCP)
        var kept: [FrameSlice] = []
        for start in stride(from: 0, to: bytes.count, by: 256) {
            var read = ByteBuffer(bytes: bytes[start..<min(start + 256, bytes.count)])
            try handler.slices(from: &read) { kept.append(try! $0.get()) }
        }
        #expect(
            kept.map { $0.copy() }
                == Self.normalized(expected).map { if case let .frame(frame) = $0 { frame } else { fatalError() } })
    }

    @Test func theVerifierOnTheSliceHandler() throws {
        let game = try HandlerTests.pairs(.gameTCP) { FrameHeader(command: UInt32($0 + 1)) }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: game) {
            SliceContentsDecoder(inner: FrameSliceDecoderHandler(layout: .gameTCP))
        }
        let im = try HandlerTests.pairs(.im) {
            FrameHeader(sequence: UInt64($0) * 0x0101_0101, type: UInt64($0 % 4 + 1))
        }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: im) {
            SliceContentsDecoder(inner: FrameSliceDecoderHandler(layout: .im))
        }
        let varint = try HandlerTests.pairs(.varint) { _ in FrameHeader() }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: varint) {
            SliceContentsDecoder(inner: FrameSliceDecoderHandler(layout: .varint))
        }
    }

    /// Through `ByteToMessageHandler(FrameSliceDecoderHandler)` and through `FrameSliceHandler`.
    @Test(arguments: [false, true])
    func severalFramesInOneReadAreSlicesOfIt(_ inbound: Bool) throws {
        let (bytes, expected) = try Self.stream(.gameTCP, sizes: [10, 0, 500, 33])
        let channel =
            inbound
            ? EmbeddedChannel(handler: FrameSliceHandler(layout: .gameTCP))
            : EmbeddedChannel(handler: ByteToMessageHandler(FrameSliceDecoderHandler(layout: .gameTCP)))
        let read = ByteBuffer(bytes: bytes)
        try channel.writeInbound(read)
        let readStart = read.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        for frame in expected {
            let slice = try #require(try channel.readInbound(as: FrameSlice.self))
            #expect(slice.header == frame.header && slice.offset == frame.offset)
            #expect(Array(slice.payload.readableBytesView) == Array(frame.payload))
            // The payload lies in the read's memory, at the frame's place: not a copy.
            let address = slice.payload.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
            if frame.payload.count > 0 {
                #expect(address == readStart + UInt(frame.payload.startIndex))
            }
        }
        #expect(try channel.readInbound(as: FrameSlice.self) == nil)
        #expect(try channel.finish().isClean)
    }

    @Test func underResyncGarbageIsReportedAndTheFramesAfterItKept() throws {
        var layout = FrameLayout.gameTCP
        layout.badHeaderPolicy = .resynchronize(maxSkip: 64)
        let (good, _) = try Self.stream(layout, sizes: [5, 300])
        let bytes = good.prefix(17) + [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] + good
        // Whole, and at every split: the same frames and errors (from both handlers: `run` checks
        // FrameSliceHandler too).
        let whole = Self.run(layout, reads: [Array(bytes)])
        #expect(whole.slices.filter { if case .frame = $0 { true } else { false } }.count == 3)
        #expect(whole.slices.contains { if case .error = $0 { true } else { false } })
        let frames = whole.slices.filter { if case .frame = $0 { true } else { false } }
        for split in 0...bytes.count {
            let run = Self.run(layout, reads: [Array(bytes[..<split]), Array(bytes[split...])])
            #expect(run.slices.filter { if case .frame = $0 { true } else { false } } == frames, "split at \(split)")
        }
    }

    @Test func aBadMagicEndsTheStreamWithATypedError() throws {
        let (good, _) = try Self.stream(.gameTCP, sizes: [4])
        var bad = good
        bad[3] = 0xFE
        let run = Self.run(.gameTCP, reads: [good + bad + good, good])
        let want: [Seen] = [
            .frame(Frame(header: FrameHeader(command: 1), payload: ArraySlice(good[12...]), offset: 0)),
            .error(.badMagic(offset: good.count, found: 0xFE, expected: 0xFF)),
            .error(.badMagic(offset: good.count, found: 0xFE, expected: 0xFF)),
        ]
        #expect(run.slices.count == 3)
        #expect(run.slices.dropFirst() == want.dropFirst())
        #expect(run.slicesEnd == .badMagic(offset: good.count, found: 0xFE, expected: 0xFF))
    }

    @Test func anEndInsideAFrameIsTruncation() throws {
        let (bytes, _) = try Self.stream(.gameTCP, sizes: [5, 100])
        // Ends inside the second header, then inside its body (the slice handler keeps that
        // frame's start in a buffer of its own): the same report at every split.
        for cut in [bytes.count - 100 - 5, bytes.count - 40] {
            for split in [0, 10, cut - 1] {
                let run = Self.run(.gameTCP, reads: [Array(bytes[..<split]), Array(bytes[split..<cut])])
                let truncated = FrameError.truncated(offset: 17, buffered: cut - 17)
                #expect(run.slicesEnd == truncated, "cut at \(cut), split at \(split)")
            }
        }
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameSliceDecoderHandler(layout: .gameTCP)))
        try channel.writeInbound(ByteBuffer(bytes: bytes.dropLast(40)))
        #expect(try channel.readInbound(as: FrameSlice.self)?.offset == 0)
        #expect(throws: FrameError.truncated(offset: 17, buffered: bytes.count - 40 - 17)) { _ = try channel.finish() }
    }

    @Test func anAbsurdLengthIsNotAllocated() throws {
        // magic, size 0x7FFFFFF0, then nothing: refused on the header's word alone.
        let header: [UInt8] = [0, 0, 0, 0xFF, 0x7F, 0xFF, 0xFF, 0xF0, 0, 0, 0, 1]
        let run = Self.run(.gameTCP, reads: [header])
        guard case .error(.frameTooLarge)? = run.slices.first else {
            Issue.record("expected frameTooLarge, got \(run.slices)")
            return
        }
    }

    @Test func aReadFiredFromTheHeadWhileFramesArePassedOnIsCutAfterThem() throws {
        let (bytes, expected) = try Self.stream(.gameTCP, sizes: [3, 4, 5, 6])
        let split = expected[2].offset
        let channel = EmbeddedChannel()
        let recorder = SliceRecorder()
        // On the first frame, the handler after FrameSliceHandler fires the rest of the stream
        // from the head of the pipeline, and closes the channel on the second, cutting the
        // rest short: the second read waits for the first, the end of input for both.
        var fired = false
        recorder.onFrame = { context, _ in
            if !fired {
                fired = true
                context.pipeline.syncOperations.fireChannelRead(
                    NIOAny(ByteBuffer(bytes: bytes[split..<(bytes.count - 2)])))
            } else if recorder.seen.count == 2 {
                context.pipeline.syncOperations.fireChannelInactive()
            }
        }
        try channel.pipeline.syncOperations.addHandlers([FrameSliceHandler(layout: .gameTCP), recorder])
        try channel.writeInbound(ByteBuffer(bytes: bytes[..<split]))
        let want =
            Self.normalized(Array(expected.prefix(3)))
            + [.error(.truncated(offset: expected[3].offset, buffered: bytes.count - 2 - expected[3].offset))]
        #expect(recorder.seen == want)
        // After the end of input, reads are dropped.
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        #expect(recorder.seen == want)
        _ = try channel.finish()
    }

    @Test func frameSliceHandlerReportsAnEndInsideAFrameOnHalfClosure() throws {
        let (bytes, _) = try Self.stream(.gameTCP, sizes: [5, 100])
        let channel = EmbeddedChannel()
        let recorder = SliceRecorder()
        try channel.pipeline.syncOperations.addHandlers([FrameSliceHandler(layout: .gameTCP), recorder])
        try channel.writeInbound(ByteBuffer(bytes: bytes.dropLast(40)))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.pipeline.fireChannelInactive()
        #expect(recorder.seen.count == 2)
        #expect(recorder.seen.last == .error(.truncated(offset: 17, buffered: bytes.count - 40 - 17)))
        _ = try channel.finish()
    }

    /// The client's reply path: a reply that lies within a read reaches the request's waiter
    /// as a slice of that read (kept until the caller waits), and decodes from there.
    @Test func aReplyReachesItsCallerAsASliceOfTheRead() async throws {
        let channel = EmbeddedChannel()
        let handler = ConnectionHandler<GameCommands>(
            configuration: ClientConfiguration(), eventLoop: channel.eventLoop, push: { _ in })
        try channel.pipeline.syncOperations.addHandler(handler)
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let waiter = ReplyWaiter()
        let frame = try OutboundFrame(TestReq(param1: "hi"), layout: GameCommands.layout)
        try channel.writeOutbound(
            ClientWrite(
                frame: frame,
                kind: .request(
                    replyCommand: TestRsp.commandID, deadline: .now() + .seconds(60), timeout: .seconds(60),
                    waiter: waiter)))
        #expect(try channel.readOutbound(as: ByteBuffer.self) != nil)
        let bytes = try GameCommands.encode(TestRsp(result1: "echo:hi", result2: 2))
        let read = ByteBuffer(bytes: bytes)
        try channel.writeInbound(read)
        let slice = try await waiter.reply()
        let readStart = read.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(slice.payload.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == readStart + 12)
        #expect(try slice.decode(TestRsp.self) == TestRsp(result1: "echo:hi", result2: 2))
        #expect(try GameCommands.decode(slice) == .testRsp(TestRsp(result1: "echo:hi", result2: 2)))
        _ = try? channel.finish()
    }
}
