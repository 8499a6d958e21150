// The channel handlers the NIO way: NIOTestUtils' ByteToMessageDecoderVerifier (every split,
// drip feed, many frames at once, leftovers) and EmbeddedChannel for errors and the encoder.

import NIOCore
import NIOEmbedded
import NIOTestUtils
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// A frame without its stream offset (which depends on what was fed before), for the verifier.
struct FrameContents: Equatable, Sendable {
    let header: FrameHeader
    let payload: [UInt8]
}

/// `FrameDecoderHandler`'s decoding, with frames compared by content.
struct ContentsDecoder: ByteToMessageDecoder {
    typealias InboundOut = FrameContents
    var inner: FrameDecoderHandler

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try inner.frames(from: &buffer) { result in
            switch result {
            case let .success(frame):
                context.fireChannelRead(
                    Self.wrapInboundOut(FrameContents(header: frame.header, payload: Array(frame.payload))))
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

@Suite struct HandlerTests {
    /// One input per case: a single frame, two frames glued, an empty body.
    static func pairs(_ layout: FrameLayout, header: (Int) -> FrameHeader) throws -> [(ByteBuffer, [FrameContents])] {
        let encoder = FrameEncoder(layout: layout)
        var pairs: [(ByteBuffer, [FrameContents])] = []
        for (index, sizes) in [[3], [0], [70, 1], [300]].enumerated() {
            var bytes: [UInt8] = []
            var frames: [FrameContents] = []
            for (part, size) in sizes.enumerated() {
                let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &+ part) }
                let h = header(index * 2 + part)
                try encoder.append(header: h, payload: payload, to: &bytes)
                frames.append(FrameContents(header: h, payload: payload))
            }
            pairs.append((ByteBuffer(bytes: bytes), frames))
        }
        return pairs
    }

    @Test func verifierOnTheGameLayout() throws {
        let pairs = try Self.pairs(.gameTCP) { FrameHeader(command: UInt32($0 + 1)) }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: pairs) {
            ContentsDecoder(inner: FrameDecoderHandler(layout: .gameTCP))
        }
    }

    @Test func verifierOnTheIMLayoutAndAVarintLength() throws {
        let im = try Self.pairs(.im) { FrameHeader(sequence: UInt64($0) * 0x0101_0101, type: UInt64($0 % 4 + 1)) }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: im) {
            ContentsDecoder(inner: FrameDecoderHandler(layout: .im))
        }
        let varint = try Self.pairs(.varint) { _ in FrameHeader() }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: varint) {
            ContentsDecoder(inner: FrameDecoderHandler(layout: .varint))
        }
    }

    @Test func aTruncatedTailIsReportedAtTheEnd() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoderHandler(layout: .gameTCP)))
        let frame = try GameCommands.encode(TestReq(param1: "hello", param2: 21))
        try channel.writeInbound(ByteBuffer(bytes: frame + frame.prefix(7)))
        let first = try #require(try channel.readInbound(as: Frame.self))
        #expect(try TestReq(serializedBytes: first.payload) == TestReq(param1: "hello", param2: 21))
        #expect(throws: FrameError.truncated(offset: frame.count, buffered: 7)) { _ = try channel.finish() }
    }

    @Test func aBadMagicIsATypedErrorAndNothingAfterItIsTaken() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoderHandler(layout: .gameTCP)))
        let good = try GameCommands.encode(TestReq(param1: "a"))
        var bad = good
        bad[3] = 0xFE
        #expect(throws: FrameError.badMagic(offset: good.count, found: 0xFE, expected: 0xFF)) {
            try channel.writeInbound(ByteBuffer(bytes: good + bad + good))
        }
        #expect(try channel.readInbound(as: Frame.self)?.offset == 0)
        #expect(try channel.readInbound(as: Frame.self) == nil)
        _ = try? channel.finish()
    }

    @Test func anAbsurdLengthFailsBeforeItsBodyArrives() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoderHandler(layout: .gameTCP)))
        // magic, size 0x7FFFFFF0, then nothing: refused on the header's word alone.
        let header: [UInt8] = [0, 0, 0, 0xFF, 0x7F, 0xFF, 0xFF, 0xF0, 0, 0, 0, 1]
        #expect(throws: FrameError.self) { try channel.writeInbound(ByteBuffer(bytes: header)) }
        _ = try? channel.finish()
    }

    @Test func underResyncAFrameAfterGarbageIsKept() throws {
        var layout = FrameLayout.gameTCP
        layout.badHeaderPolicy = .resynchronize(maxSkip: 64)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoderHandler(layout: layout)))
        let good = try GameCommands.encode(TestReq(param1: "after"))
        #expect(throws: FrameError.self) {
            try channel.writeInbound(ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] + good))
        }
        let frame = try #require(try channel.readInbound(as: Frame.self))
        #expect(try TestReq(serializedBytes: frame.payload).param1 == "after")
        #expect(try channel.finish().isClean)
    }

    @Test func theEncoderWritesWhatTheRuntimeEncodes() throws {
        let channel = EmbeddedChannel(handler: MessageToByteHandler(FrameEncoderHandler(layout: ImCommands.layout)))
        let common = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "pw")))))
        try channel.writeOutbound(try OutboundFrame(common, layout: ImCommands.layout, sequence: 7))
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(written.readableBytesView) == (try ImCommands.encode(common, sequence: 7)))
        #expect(try channel.finish().isClean)
    }

    @Test func theEncoderRefusesWhatTheLayoutCannotCarry() throws {
        let channel = EmbeddedChannel(handler: MessageToByteHandler(FrameEncoderHandler(layout: .im)))
        let tooLarge = OutboundFrame(
            header: FrameHeader(sequence: 1, type: 2), payload: Array(repeating: 0, count: 70_000))
        #expect(throws: FrameError.self) { try channel.writeOutbound(tooLarge) }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        _ = try? channel.finish()
    }
}
