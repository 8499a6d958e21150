import NIOCore
import SwiftFrame

/// Cuts the `ByteBuffer`s of a channel's reads into frames, copying only what spans reads.
///
/// - A frame that lies wholly in a read is cut where it lies (its header read by the
///   `FrameDecoder`, as everywhere): its payload is a slice of the read (`getSlice`, no copy).
/// - A frame that runs past the end of a read, its header whole and checked, is kept in a
///   buffer of its own, which grows by the bytes of the next reads (never
///   by what the header claims) until the frame is whole; then it is cut from there, and its
///   payload is a slice of that buffer: one copy, of that frame's bytes only. That buffer is
///   kept for the next such frame, and reused once the app has let go of the slice.
/// - Everything else goes through the `FrameDecoder`'s buffered path: a header split across
///   reads, a bad header (reported, then skipped under `resync`), and an error that ends the
///   stream. Those frames come out as
///   `Frame`s, slices of the decoder's buffer; the decoder is fed no more than it needs to
///   finish them, so the frames that follow in the same read are cut where they lie again.
struct FrameSlicer: Sendable {
    /// A frame cut from a read, or put together by the decoder.
    enum Piece {
        case slice(FrameSlice)
        case frame(Frame)

        var header: FrameHeader {
            switch self {
            case let .slice(slice): slice.header
            case let .frame(frame): frame.header
            }
        }

        /// As a `Frame`: a copy of a slice's payload.
        var frame: Frame {
            switch self {
            case let .slice(slice): slice.copy()
            case let .frame(frame): frame
            }
        }

        /// As a `FrameSlice`: a copy of a frame's payload (out of the decoder's buffer).
        var slice: FrameSlice {
            switch self {
            case let .slice(slice): slice
            case let .frame(frame): FrameSlice(copying: frame)
            }
        }

        /// Calls `body` with the payload's bytes where they lie.
        func withPayload<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            switch self {
            case let .slice(slice): slice.payload.withUnsafeReadableBytes(body)
            case let .frame(frame): frame.payload.withUnsafeBytes(body)
            }
        }
    }

    private(set) var decoder: FrameDecoder
    /// The bytes so far of a frame that runs past the reads so far (its header checked);
    /// `partialFrameSize` is its size, header included.
    private var partial: ByteBuffer?
    private var partialFrameSize = 0
    /// The buffer the last partial frame was put together in, kept for the next one: once the
    /// app has let go of that frame's slice, its memory is reused without an allocation (and
    /// while it holds the slice, `clear()` gives a fresh buffer of the same capacity). Its
    /// capacity is that of a frame actually received, never one a header merely claimed.
    private var spare: ByteBuffer?

    init(layout: FrameLayout) {
        decoder = FrameDecoder(layout: layout)
    }

    /// What the decoder handlers do with a read: every complete frame passed to `deliver`
    /// (which fires it down the pipeline), and a bad header under `resync` fired as an error.
    mutating func fire(_ buffer: inout ByteBuffer, to context: ChannelHandlerContext, _ deliver: (Piece) -> Void)
        throws(FrameError)
    {
        try cut(&buffer) { result in
            switch result {
            case let .success(piece): deliver(piece)
            case let .failure(error): context.fireErrorCaught(error)
            }
        }
    }

    /// Takes all of `buffer` and passes on every complete frame, in order. A bad header under
    /// `resync` is passed on as a failure and skipped (decoding goes on from the next magic);
    /// an error that ends the stream is thrown (the rest of `buffer` is dropped).
    mutating func cut(_ buffer: inout ByteBuffer, _ deliver: (Result<Piece, FrameError>) -> Void) throws(FrameError) {
        do throws(FrameError) {
            if let failure = decoder.failure { throw failure }
            while buffer.readableBytes > 0 {
                if partial != nil {
                    completePartial(from: &buffer, deliver)
                } else if decoder.bufferedByteCount > 0 {
                    let count = min(decoder.bytesWanted, buffer.readableBytes)
                    buffer.readWithUnsafeReadableBytes { bytes in
                        decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                        return count
                    }
                    try drain(deliver)
                } else {
                    try cutWhole(from: &buffer, deliver)
                }
            }
        } catch {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            throw error
        }
    }

    /// Cuts the frames that lie wholly in `buffer`, then keeps or feeds what is left.
    private mutating func cutWhole(from buffer: inout ByteBuffer, _ deliver: (Result<Piece, FrameError>) -> Void)
        throws(FrameError)
    {
        let reader = buffer.readerIndex
        var position = 0
        let stop = buffer.withUnsafeReadableBytes { bytes in
            while true {
                let cut = decoder.cutFrame(in: bytes, at: position)
                guard case let .frame(frame) = cut else { return cut }
                // In bounds: the frame lies within the readable bytes.
                let payload = buffer.getSlice(at: reader &+ frame.payload.lowerBound, length: frame.payload.count)!
                deliver(.success(.slice(FrameSlice(header: frame.header, payload: payload, offset: frame.offset))))
                position = frame.end
            }
        }
        buffer.moveReaderIndex(forwardBy: position)
        guard buffer.readableBytes > 0 else { return }
        if case let .incomplete(frameSize) = stop {
            // Into a buffer of its own (the spare one when there is one), which grows by the
            // bytes of the next reads, not by what the header claims.
            var own = spare ?? ByteBuffer()
            spare = nil
            own.clear()
            own.writeBuffer(&buffer)
            partial = own
            partialFrameSize = frameSize
            return
        }
        buffer.readWithUnsafeReadableBytes { bytes in
            decoder.feed(bytes)
            return bytes.count
        }
        try drain(deliver)
    }

    /// Appends to the partial frame what it still misses of `buffer`, and passes it on once whole.
    private mutating func completePartial(from buffer: inout ByteBuffer, _ deliver: (Result<Piece, FrameError>) -> Void)
    {
        let missing = partialFrameSize &- partial!.readableBytes
        var bytes = buffer.readSlice(length: min(missing, buffer.readableBytes))!
        partial!.writeBuffer(&bytes)
        guard partial!.readableBytes == partialFrameSize, let whole = partial else { return }
        partial = nil
        spare = whole
        let cut = whole.withUnsafeReadableBytes { decoder.cutFrame(in: $0, at: 0) }
        guard case let .frame(frame) = cut else {
            preconditionFailure("a frame whose header checked out did not cut once whole: \(cut)")
        }
        let payload = whole.getSlice(at: whole.readerIndex &+ frame.payload.lowerBound, length: frame.payload.count)!
        deliver(.success(.slice(FrameSlice(header: frame.header, payload: payload, offset: frame.offset))))
    }

    /// Passes on the frames the decoder can cut from what it was fed.
    private mutating func drain(_ deliver: (Result<Piece, FrameError>) -> Void) throws(FrameError) {
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return }
                deliver(.success(.frame(frame)))
            } catch {
                guard decoder.failure == nil, case .resynchronize = decoder.layout.badHeaderPolicy else { throw error }
                deliver(.failure(error))
            }
        }
    }

    /// At the end of the stream: `.truncated` if the bytes of a partial frame are left, or the
    /// error that ended the stream.
    func finish() throws(FrameError) {
        guard let partial else {
            try decoder.finish()
            return
        }
        var decoder = decoder
        partial.withUnsafeReadableBytes { decoder.feed($0) }
        try decoder.finish()
    }
}

/// A `FrameSlicer` held by reference and copied on write, for the decoder handlers, made at
/// the first read.
///
/// `ByteToMessageHandler` moves its decoder out of an optional and back around every read
/// (two `swap`s through the decoder's value witnesses, six moves). A slicer is large, most of
/// it its `FrameDecoder`'s layout and state, so a handler holding one inline copied it several
/// times per read; held here, the handler is two words. Until the first read it
/// holds only what to make the slicer from, which handlers can share: a connection that never
/// sends (a server holds thousands) never makes one.
struct BoxedSlicer: Sendable {
    /// What a slicer is made from.
    final class Recipe: Sendable {
        let layout: FrameLayout

        init(layout: FrameLayout) {
            self.layout = layout
        }
    }

    private final class Storage: @unchecked Sendable {
        // Safe to share: written only through `BoxedSlicer.modify`, which first makes the
        // storage unique (copy on write), so storage that two copies of a handler share is
        // only ever read.
        var slicer: FrameSlicer

        init(_ slicer: FrameSlicer) {
            self.slicer = slicer
        }
    }

    /// What the slicer is made from, until the first read. Two plain references rather than
    /// an enum of the two: an enum with two class payloads marks its case in the pointer's
    /// spare bits, and LeakSanitizer, not recognising such a pointer, reported the storage as
    /// leaked when a process exited with a connection open.
    private let recipe: Recipe
    private var storage: Storage?

    init(_ recipe: Recipe) {
        self.recipe = recipe
    }

    /// At the end of the stream: `.truncated` if the bytes of a partial frame are left.
    func finish() throws(FrameError) {
        try storage?.slicer.finish()
    }

    /// Calls `body` with the slicer to change, first copying it if another handler shares it.
    mutating func modify<Result, Failure: Error>(
        _ body: (inout FrameSlicer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if storage == nil {
            storage = Storage(FrameSlicer(layout: recipe.layout))
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(storage.unsafelyUnwrapped.slicer)
        }
        return try body(&storage.unsafelyUnwrapped.slicer)
    }
}
