import NIOCore
import SwiftFrame

/// Cuts the bytes of a channel into `FrameSlice`s of one layout, as a channel handler of its
/// own: put it in the pipeline as it is, with no `ByteToMessageHandler` around it.
///
///     try channel.pipeline.syncOperations.addHandlers(
///         FrameSliceHandler(layout: GameCommands.layout),
///         MessageToByteHandler(FrameEncoderHandler(layout: GameCommands.layout)))
///
/// It passes on what `FrameSliceDecoderHandler` passes on, cut the same way (a frame that lies
/// wholly in a read is a slice of it; one that spans reads is copied once into a buffer of its
/// own), for less work per read: every read is consumed whole, so it needs none of the
/// accumulation a `ByteToMessageHandler` keeps for decoders that leave bytes behind, which is
/// a large part of a read's cost when a frame spans many reads.
///
/// - A bad header is a `FrameError` fired down the pipeline. Under the layout's default policy
///   it ends the stream: each read after it is dropped, and the same error fired again for it
///   (as `ByteToMessageHandler` reports data received after its decoder failed). Under
///   `resync=N` decoding goes on from the next magic.
/// - When the channel's input ends (`channelInactive`, or half-closure's `inputClosed`), the
///   bytes of an incomplete frame are reported as `FrameError.truncated`, once; reads after
///   that are dropped.
/// - A read that reaches it while it is passing on the frames of another (a handler after it
///   firing a read from the head of the pipeline) is cut after that one, in order; an end of
///   input reported meanwhile (a handler after it closing the channel) is handled after them.
///
/// It is no `RemovableChannelHandler`. A pipeline that changes protocol midway uses
/// `FrameSliceDecoderHandler` in a `ByteToMessageHandler`, which can be removed (the bytes of a
/// frame begun and not finished are then reported as `truncated`).
public final class FrameSliceHandler: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = FrameSlice

    private var slicer: BoxedSlicer
    /// True while the frames of a read are being passed on: the slicer is in use, so reads and
    /// an end of input arriving then wait (`queued`, `endPending`).
    private var cutting = false
    /// Rarely more than empty (an array, which allocates nothing until then).
    private var queued: [ByteBuffer] = []
    private var endPending = false
    /// An error has ended the stream (later reads report it again).
    private var failed = false {
        didSet { receiver?.streamEnded = streamEnded }
    }
    private var inputEnded = false {
        didSet { receiver?.streamEnded = streamEnded }
    }
    /// Where `FrameServer`'s pipeline takes the slices: its handler after this one, called
    /// directly, and told when the stream has ended (before the error that ends it). A slice
    /// fired as a read is boxed into an `NIOAny` (it is larger than the existential's inline
    /// storage): an allocation and a dynamic cast per frame.
    var receiver: ServingHandler?

    public init(layout: FrameLayout) {
        slicer = BoxedSlicer(BoxedSlicer.Recipe(layout: layout))
    }

    /// A handler whose slicer is made from `recipe` at the first read (`FrameServer` shares
    /// one between its connections).
    init(_ recipe: BoxedSlicer.Recipe) {
        slicer = BoxedSlicer(recipe)
    }

    /// Whether the stream has ended: input closed, or an error that ended it. Known to a later
    /// handler's `errorCaught`, it tells a bad header skipped under `resync` from an error that
    /// ends the stream.
    var streamEnded: Bool { inputEnded || failed }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !inputEnded else { return }
        var buffer = unwrapInboundIn(data)
        guard !cutting else {
            queued.append(buffer)
            return
        }
        cutting = true
        while true {
            do throws(FrameError) {
                try slicer.modify { slicer throws(FrameError) in
                    try slicer.fire(&buffer, to: context) { piece in
                        if let receiver {
                            receiver.received(piece.slice)
                        } else {
                            // NIOAny(_:) rather than `Self.wrapInboundOut`: in a class `Self` is the
                            // dynamic type, and the generic call it makes checks the value's type
                            // at run time.
                            context.fireChannelRead(NIOAny(piece.slice))
                        }
                    }
                }
            } catch {
                failed = true
                context.fireErrorCaught(error)
            }
            guard !queued.isEmpty else { break }
            buffer = queued.removeFirst()
        }
        cutting = false
        if endPending { endOfInput(context: context) }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        endOfInput(context: context)
        context.fireChannelInactive()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent { endOfInput(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Reports the bytes of an incomplete frame as `.truncated`, once (nothing when an error
    /// ended the stream already).
    private func endOfInput(context: ChannelHandlerContext) {
        guard !cutting else {
            endPending = true
            return
        }
        guard !inputEnded else { return }
        inputEnded = true
        endPending = false
        guard !failed else { return }
        do throws(FrameError) {
            try slicer.finish()
        } catch {
            context.fireErrorCaught(error)
        }
    }
}
