// The frame-decoding benchmarks: one byte stream of frames with a u32 big-endian length prefix
// (counting the body), fed in 4 KiB chunks to SwiftFrame's FrameDecoder, to SwiftFrameNIO's
// decoder handlers and NIO's LengthFieldBasedFrameDecoder (each through ByteToMessageHandler in an
// EmbeddedChannel; NIO's also called directly), and copied with memcpy as the ceiling.
import Foundation
import NIOCore
import NIOEmbedded
import NIOExtras
import SwiftFrame
import SwiftFrameNIO

public struct FrameStream: @unchecked Sendable {
    /// `length:u32:body`: a 4-byte big-endian length of the payload, then the payload.
    public static let layout = try! FrameLayout(description: "length:u32:body")
    public static let chunkSize = 4096
    /// Payload sizes of the three streams.
    public static let payloadSizes = [64, 1024, 65536]

    public let payloadSize: Int
    public let frameCount: Int
    public let bytes: [UInt8]
    /// `bytes` in 4 KiB pieces.
    public let chunks: [[UInt8]]
    /// The same pieces as ByteBuffers.
    public let buffers: [ByteBuffer]

    /// Frames of `payloadSize` bytes, about `streamSize` bytes in all (at least 16 frames).
    public init(payloadSize: Int, streamSize: Int = 1 << 20) {
        self.payloadSize = payloadSize
        frameCount = Self.shape(payloadSize: payloadSize, streamSize: streamSize).frameCount
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frameCount * (payloadSize + 4))
        for frame in 0..<frameCount {
            let length = UInt32(payloadSize)
            bytes.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            for index in 0..<payloadSize {
                bytes.append(UInt8(truncatingIfNeeded: frame &* 31 &+ index))
            }
        }
        self.bytes = bytes
        chunks = stride(from: 0, to: bytes.count, by: Self.chunkSize).map {
            Array(bytes[$0..<min($0 + Self.chunkSize, bytes.count)])
        }
        buffers = chunks.map { ByteBuffer(bytes: $0) }
    }

    /// Frame count and stream bytes of the stream of `payloadSize` frames.
    public static func shape(payloadSize: Int, streamSize: Int = 1 << 20) -> (frameCount: Int, byteCount: Int) {
        let count = max(16, streamSize / (payloadSize + 4))
        return (count, count * (payloadSize + 4))
    }

    public var name: String { Self.streamName(payloadSize: payloadSize) }

    public static func streamName(payloadSize: Int) -> String {
        payloadSize >= 1024 ? "\(payloadSize / 1024)KiB" : "\(payloadSize)B"
    }

    public static func benchmarkName(_ stream: String, _ decoder: String) -> String {
        "frames \(stream) \(decoder)"
    }

    public static let decoders = [
        "SwiftFrame", "SwiftFrame-Frame", "SwiftFrame-inbound", "SwiftFrame-slices", "NIO-handler", "NIO-decoder", "memcpy",
    ]

    // MARK: The four ways through the stream; each returns the payload bytes seen.

    /// SwiftFrame's FrameDecoder, fed the 4 KiB arrays, with room reserved for the largest
    /// frame (as the NIO decoder's caller below is given an accumulation buffer sized for it).
    /// Each frame is taken with `withNextFrame`: its payload is read where it lies.
    public func decodeSwiftFrame() -> Int {
        var decoder = FrameDecoder(layout: Self.layout)
        decoder.reserveCapacity(payloadSize + 4)
        var total = 0
        for chunk in chunks {
            decoder.feed(chunk)
            while let count = try! decoder.withNextFrame({ $0.payload.count }) {
                total &+= count
            }
        }
        return total
    }

    /// The same, each frame taken as a `Frame` value (`nextFrame()`): a slice of the decoder's
    /// array, which the app may keep.
    public func decodeSwiftFrameValues() -> Int {
        var decoder = FrameDecoder(layout: Self.layout)
        decoder.reserveCapacity(payloadSize + 4)
        var total = 0
        for chunk in chunks {
            decoder.feed(chunk)
            while let frame = try! decoder.nextFrame() {
                total &+= frame.payload.count
            }
        }
        return total
    }

    /// NIO's LengthFieldBasedFrameDecoder in a ByteToMessageHandler, in an EmbeddedChannel, with a
    /// handler after it that counts the payload bytes (the usual way to run it).
    public func decodeNIOHandler() -> Int {
        let sink = Sink()
        feedChannel([ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldLength: .four)), sink])
        return sink.bytes
    }

    /// SwiftFrameNIO's FrameSliceHandler, a channel handler of its own (no ByteToMessageHandler),
    /// the same way: frames passed on as `decodeSwiftFrameSliceHandler` passes them.
    public func decodeSwiftFrameInbound() -> Int {
        let sink = SliceSink()
        feedChannel([FrameSliceHandler(layout: Self.layout), sink])
        return sink.bytes
    }

    /// SwiftFrameNIO's FrameSliceDecoderHandler in a ByteToMessageHandler, the same way: as
    /// `decodeNIOHandler`, each frame passed on with its payload a slice of the read (a frame
    /// that spans reads put together in a buffer of its own).
    public func decodeSwiftFrameSliceHandler() -> Int {
        let sink = SliceSink()
        feedChannel([ByteToMessageHandler(FrameSliceDecoderHandler(layout: Self.layout)), sink])
        return sink.bytes
    }

    /// Writes the 4 KiB reads into a new EmbeddedChannel whose pipeline is `handlers`, then
    /// finishes it.
    private func feedChannel(_ handlers: [any ChannelHandler]) {
        let channel = EmbeddedChannel()
        try! channel.pipeline.syncOperations.addHandlers(handlers)
        for buffer in buffers {
            try! channel.writeInbound(buffer)
        }
        _ = try! channel.finish()
    }

    /// NIO's LengthFieldBasedFrameDecoder called directly: the chunks are appended to one
    /// ByteBuffer and `decode(context:buffer:)` is called until it needs more data. The context is
    /// that of a pass-through handler followed by the counting handler. The buffer is allocated
    /// for the largest frame plus a read (a read is appended whole, with the next frame's start).
    public func decodeNIODecoder() -> Int {
        let sink = Sink()
        Self.feedNIODecoder(buffers, capacity: payloadSize + 4 + Self.chunkSize, to: sink)
        return sink.bytes
    }

    /// Feeds `buffers` to NIO's LengthFieldBasedFrameDecoder, called directly with an
    /// accumulation buffer of `capacity` bytes, the frames going to `sink`.
    static func feedNIODecoder(_ buffers: [ByteBuffer], capacity: Int, to sink: any ChannelHandler) {
        let channel = EmbeddedChannel()
        let head = PassThrough()
        try! channel.pipeline.syncOperations.addHandlers([head, sink])
        let context = try! channel.pipeline.syncOperations.context(handler: head)
        let decoder = LengthFieldBasedFrameDecoder(lengthFieldLength: .four)
        var accumulated = ByteBufferAllocator().buffer(capacity: capacity)
        for buffer in buffers {
            var buffer = buffer
            accumulated.writeBuffer(&buffer)
            while case .continue = try! decoder.decode(context: context, buffer: &accumulated) {}
            accumulated.discardReadBytes()
        }
        _ = try! channel.finish()
    }

    /// The ceiling: the same 4 KiB pieces copied with memcpy into one buffer of the stream's size.
    public func copy(into destination: UnsafeMutableRawPointer) -> Int {
        var offset = 0
        for chunk in chunks {
            chunk.withUnsafeBytes { source in
                _ = memcpy(destination + offset, source.baseAddress!, source.count)
            }
            offset &+= chunk.count
        }
        return offset
    }

    public func run(_ decoder: String, destination: UnsafeMutableRawPointer) -> Int {
        switch decoder {
        case "SwiftFrame": decodeSwiftFrame()
        case "SwiftFrame-Frame": decodeSwiftFrameValues()
        case "SwiftFrame-inbound": decodeSwiftFrameInbound()
        case "SwiftFrame-slices": decodeSwiftFrameSliceHandler()
        case "NIO-handler": decodeNIOHandler()
        case "NIO-decoder": decodeNIODecoder()
        case "memcpy": copy(into: destination)
        default: fatalError("unknown decoder \(decoder)")
        }
    }

    /// Checks that every decoder sees every payload byte.
    public func verify() {
        let destination = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 64)
        defer { destination.deallocate() }
        let payload = frameCount * payloadSize
        precondition(decodeSwiftFrame() == payload, "SwiftFrame: wrong payload total")
        precondition(decodeSwiftFrameValues() == payload, "SwiftFrame, Frame values: wrong payload total")
        precondition(decodeSwiftFrameInbound() == payload, "SwiftFrame inbound handler: wrong payload total")
        precondition(decodeSwiftFrameSliceHandler() == payload, "SwiftFrame slice handler: wrong payload total")
        precondition(decodeNIOHandler() == payload, "NIO handler: wrong payload total")
        precondition(decodeNIODecoder() == payload, "NIO decoder: wrong payload total")
        precondition(copy(into: destination) == bytes.count)
        precondition(memcmp(destination, bytes, bytes.count) == 0)
    }
}

final class Sink: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    var bytes = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes &+= unwrapInboundIn(data).readableBytes
    }
}

final class SliceSink: ChannelInboundHandler {
    typealias InboundIn = FrameSlice
    var bytes = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes &+= unwrapInboundIn(data).payload.readableBytes
    }
}

final class PassThrough: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
}
