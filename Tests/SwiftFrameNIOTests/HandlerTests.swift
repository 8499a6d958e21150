// The encoder handler on an EmbeddedChannel, and the inputs NIOTestUtils'
// ByteToMessageDecoderVerifier feeds the decoder (SliceHandlerTests).

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
