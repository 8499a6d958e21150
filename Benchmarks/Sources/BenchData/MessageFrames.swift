// Frames cut and their messages decoded, as an app receives them: a stream of frames (u32
// big-endian length, then the body) whose bodies are one encoded message, fed in 4 KiB pieces.
// SwiftFrame's FrameDecoder with the message decoded from each payload slice, against NIO's
// LengthFieldBasedFrameDecoder (called directly, as in FrameStream.decodeNIODecoder) with
// SwiftProtobuf decoding each frame's bytes, copied out of the ByteBuffer as a NIO user must
// (SwiftProtobuf reads arrays, slices of arrays and Data, not a ByteBuffer).
import NIOCore
import SwiftFrame
import SwiftProtobuf

public struct MessageFrames: @unchecked Sendable {
    public let name: String
    public let frameCount: Int
    /// The stream in 4 KiB pieces, as arrays and as ByteBuffers.
    let chunks: [[UInt8]]
    let buffers: [ByteBuffer]
    let largestFrame: Int

    /// Frames of `body`, about `streamSize` bytes in all.
    public init(name: String, body: [UInt8], streamSize: Int = 1 << 20) {
        self.name = name
        frameCount = max(16, streamSize / (body.count + 4))
        largestFrame = body.count + 4
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frameCount * largestFrame)
        let length = UInt32(body.count)
        for _ in 0..<frameCount {
            bytes.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            bytes += body
        }
        chunks = stride(from: 0, to: bytes.count, by: FrameStream.chunkSize).map {
            Array(bytes[$0..<min($0 + FrameStream.chunkSize, bytes.count)])
        }
        buffers = chunks.map { ByteBuffer(bytes: $0) }
    }

    /// Messages decoded by SwiftFrame straight from the payloads where they lie
    /// (`withNextFrame`).
    public func decodeSwiftFrame<M: SwiftFrame.Message>(_ type: M.Type, check: (M) -> Bool = { _ in true }) -> Int {
        var decoder = FrameDecoder(layout: FrameStream.layout)
        decoder.reserveCapacity(largestFrame)
        var decoded = 0
        for chunk in chunks {
            decoder.feed(chunk)
            while let good = try! decoder.withNextFrame({ frame in check(try! M(buffer: frame.payload)) }) {
                if good { decoded &+= 1 }
            }
        }
        return decoded
    }

    /// The same with each frame taken as a `Frame` value (`nextFrame()`), the message decoded
    /// from its payload slice.
    public func decodeSwiftFrameValues<M: SwiftFrame.Message>(_ type: M.Type, check: (M) -> Bool = { _ in true }) -> Int {
        var decoder = FrameDecoder(layout: FrameStream.layout)
        decoder.reserveCapacity(largestFrame)
        var decoded = 0
        for chunk in chunks {
            decoder.feed(chunk)
            while let frame = try! decoder.nextFrame() {
                let message = try! M(serializedBytes: frame.payload)
                if check(message) { decoded &+= 1 }
            }
        }
        return decoded
    }

    /// Messages decoded by SwiftProtobuf from the frames NIO's decoder cuts.
    public func decodeNIO<P: SwiftProtobuf.Message>(_ type: P.Type, check: @escaping (P) -> Bool = { _ in true }) -> Int {
        let sink = DecodingSink<P>(check: check)
        FrameStream.feedNIODecoder(buffers, capacity: largestFrame + FrameStream.chunkSize, to: sink)
        return sink.decoded
    }
}

final class DecodingSink<P: SwiftProtobuf.Message>: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let check: (P) -> Bool
    var decoded = 0

    init(check: @escaping (P) -> Bool) {
        self.check = check
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let message = try! P(serializedBytes: Array(buffer.readableBytesView))
        if check(message) { decoded &+= 1 }
    }
}
