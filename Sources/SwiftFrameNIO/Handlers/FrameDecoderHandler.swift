import NIOCore
import SwiftFrame

/// Cuts the bytes of a channel into `FrameSlice`s of one layout, as a decoder inside NIO's
/// `ByteToMessageHandler`: a frame that lies wholly in a read is passed on with its payload a
/// slice of that read's `ByteBuffer`, not a copy. `FrameSliceHandler` passes on the same as a
/// handler of its own, for less work per read.
///
///     try channel.pipeline.syncOperations.addHandlers(
///         ByteToMessageHandler(FrameSliceDecoderHandler(layout: GameCommands.layout)),
///         MessageToByteHandler(FrameEncoderHandler(layout: GameCommands.layout)))
///
/// Decode a message straight from the slice (`slice.decode(Login.self)`), and copy only what
/// you keep (`slice.copy()`). A frame that runs past the end of a read is kept, from its
/// header on, in a buffer of its own that grows by the bytes of the next reads (never by the
/// length a header claims) until the frame is whole: those bytes are copied once. A header
/// split across reads goes through a `FrameDecoder`, which is fed only the bytes that finish
/// it and its frame, and that frame's payload is copied once more into a buffer of its own.
///
/// Every `ByteBuffer` is consumed whole and every complete frame in it is fired at once. A bad
/// header is a `FrameError` fired down the pipeline; under the layout's default policy it ends
/// the stream (the handler then drops whatever follows), and under `resync=N` decoding goes on
/// from the next magic. At the end of the stream, bytes of an incomplete frame are reported as
/// `FrameError.truncated`.
public struct FrameSliceDecoderHandler: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = FrameSlice

    private var slicer: BoxedSlicer

    public init(layout: FrameLayout) {
        slicer = BoxedSlicer(BoxedSlicer.Recipe(layout: layout, keepsPartialFrames: true))
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try slicer.modify { slicer in
            try slicer.fire(&buffer, to: context) { context.fireChannelRead(Self.wrapInboundOut($0.slice)) }
        }
        return .needMoreData
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        try finish()
        return .needMoreData
    }

    /// Takes all of `buffer` and passes on every complete frame, in order. A bad header under
    /// `resync` is passed on as a failure and skipped (decoding goes on from the next magic);
    /// an error that ends the stream is thrown.
    public mutating func slices(
        from buffer: inout ByteBuffer, _ deliver: (Result<FrameSlice, FrameError>) -> Void
    ) throws(FrameError) {
        try slicer.modify { slicer throws(FrameError) in
            try slicer.cut(&buffer) { result in deliver(result.map(\.slice)) }
        }
    }

    /// At the end of the stream: `.truncated` if the bytes of a partial frame are left.
    public func finish() throws(FrameError) {
        try slicer.finish()
    }
}

/// Cuts the bytes of a channel into `Frame`s of one layout, for pipelines of your own that want
/// payloads as arrays:
///
///     try channel.pipeline.syncOperations.addHandlers(
///         ByteToMessageHandler(FrameDecoderHandler(layout: GameCommands.layout)),
///         MessageToByteHandler(FrameEncoderHandler(layout: GameCommands.layout)))
///
/// Each frame's payload is copied once, by itself, into an array: a frame that lies wholly in
/// a read is cut from the `ByteBuffer` where it lies and only its payload is copied; the bytes
/// of a frame that runs past the end of a read are copied into a `FrameDecoder`, and its
/// payload is a slice of the decoder's array. `FrameSliceDecoderHandler` passes payloads on as
/// slices of the reads instead, with no copy.
///
/// Every `ByteBuffer` is consumed whole and every complete frame in it is fired at once. A bad
/// header is a `FrameError` fired down the pipeline; under the layout's default policy it ends
/// the stream (the handler then drops whatever follows), and under `resync=N` decoding goes on
/// from the next magic. At the end of the stream, bytes of an incomplete frame are reported as
/// `FrameError.truncated`.
public struct FrameDecoderHandler: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = Frame

    private var slicer: BoxedSlicer

    public init(layout: FrameLayout) {
        slicer = BoxedSlicer(BoxedSlicer.Recipe(layout: layout, keepsPartialFrames: false))
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try slicer.modify { slicer in
            try slicer.fire(&buffer, to: context) { context.fireChannelRead(Self.wrapInboundOut($0.frame)) }
        }
        return .needMoreData
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        try finish()
        return .needMoreData
    }

    /// Takes all of `buffer` and passes on every complete frame, in order. A bad header under
    /// `resync` is passed on as a failure and skipped (decoding goes on from the next magic);
    /// an error that ends the stream is thrown.
    public mutating func frames(
        from buffer: inout ByteBuffer, _ deliver: (Result<Frame, FrameError>) -> Void
    ) throws(FrameError) {
        try slicer.modify { slicer throws(FrameError) in
            try slicer.cut(&buffer) { result in deliver(result.map(\.frame)) }
        }
    }

    /// At the end of the stream: `.truncated` if the bytes of a partial frame are left.
    public func finish() throws(FrameError) {
        try slicer.finish()
    }
}
