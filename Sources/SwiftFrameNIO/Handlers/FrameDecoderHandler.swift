import NIOCore
import SwiftFrame

/// Cuts the bytes of a channel into `Frame`s of one layout, for pipelines of your own:
///
///     try channel.pipeline.syncOperations.addHandlers(
///         ByteToMessageHandler(FrameDecoderHandler(layout: GameCommands.layout)),
///         MessageToByteHandler(FrameEncoderHandler(layout: GameCommands.layout)))
///
/// Every read is handed to a `FrameDecoder`, which keeps what it needs of it, so the
/// `ByteBuffer` is always consumed whole and every complete frame in it is fired at once. A
/// bad header is a `FrameError` fired down the pipeline; under the layout's default policy it
/// ends the stream (the handler then drops whatever follows), and under `resync=N` decoding
/// goes on from the next magic. At the end of the stream, bytes of an incomplete frame are
/// reported as `FrameError.truncated`.
public struct FrameDecoderHandler: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = Frame

    private var decoder: FrameDecoder

    public init(layout: FrameLayout) {
        self.decoder = FrameDecoder(layout: layout)
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try frames(from: &buffer) { result in
            switch result {
            case let .success(frame): context.fireChannelRead(Self.wrapInboundOut(frame))
            case let .failure(error): context.fireErrorCaught(error)
            }
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
        if buffer.readableBytes > 0 {
            buffer.withUnsafeReadableBytes { decoder.feed($0) }
            buffer.moveReaderIndex(to: buffer.writerIndex)
        }
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return }
                deliver(.success(frame))
            } catch {
                guard decoder.failure == nil, case .resynchronize = decoder.layout.badHeaderPolicy else { throw error }
                deliver(.failure(error))
            }
        }
    }

    /// At the end of the stream: `.truncated` if the bytes of a partial frame are left.
    public func finish() throws(FrameError) {
        try decoder.finish()
    }
}
