import NIOCore
import SwiftFrame

/// Cuts the bytes of a channel into `FrameSlice`s of one layout, as a decoder inside NIO's
/// `ByteToMessageHandler`: for a pipeline that removes it midway (to change protocol), which a
/// `ByteToMessageHandler` allows. Every other pipeline uses `FrameSliceHandler`, which passes on
/// the same for less work per read, and is not removable. A frame that lies wholly in a read is
/// passed on with its payload a slice of that read's `ByteBuffer`, not a copy; `slice.copy()`
/// makes a `Frame` of it, to keep.
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
        slicer = BoxedSlicer(BoxedSlicer.Recipe(layout: layout))
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
