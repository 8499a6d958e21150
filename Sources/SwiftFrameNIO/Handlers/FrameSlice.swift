import NIOCore
import SwiftFrame

/// A frame whose payload is a slice of the `ByteBuffer` it was read into: no byte of it was
/// copied to make it. What `FrameSliceDecoderHandler` passes on.
///
/// Decode a message straight from it with `decode(_:)`; `copy()` makes a `Frame` with a payload
/// of its own. Holding the slice holds the whole buffer it lies in (a socket read, up to the
/// channel's receive buffer size), so an app that keeps frames for long should keep copies or
/// decoded messages.
public struct FrameSlice: Sendable, Hashable {
    public var header: FrameHeader
    /// The body, a slice of the buffer the frame was read into (or, for a frame the decoder had
    /// to put together, a buffer of its own).
    public var payload: ByteBuffer
    /// Stream offset of the frame's first byte.
    public var offset: Int

    public init(header: FrameHeader, payload: ByteBuffer, offset: Int) {
        self.header = header
        self.payload = payload
        self.offset = offset
    }

    /// The message the payload encodes, decoded where the bytes lie.
    public func decode<M: FramePayload>(_ type: M.Type = M.self) throws(WireError) -> M {
        try payload.withUnsafeReadableBytes { bytes throws(WireError) in try M(framePayload: bytes) }
    }

    /// A `Frame` with a copy of the payload.
    public func copy() -> Frame {
        Frame(header: header, payload: ArraySlice(payload.readableBytesView), offset: offset)
    }
}

extension FrameSlice {
    /// A slice holding a copy of `frame`'s payload.
    init(copying frame: Frame) {
        self.init(header: frame.header, payload: ByteBuffer(bytes: frame.payload), offset: frame.offset)
    }
}

extension CommandTable {
    /// Decodes a frame a client received from its payload where it lies in the buffer, through
    /// `decode(_: BorrowedFrame)`.
    public static func decode(_ slice: FrameSlice) throws(WireError) -> Inbound {
        try slice.payload.withUnsafeReadableBytes { bytes throws(WireError) in
            try decode(BorrowedFrame(header: slice.header, payload: bytes, offset: slice.offset))
        }
    }

    /// Decodes a frame a server received from its payload where it lies in the buffer, through
    /// `decodeRequest(_: BorrowedFrame)`.
    public static func decodeRequest(_ slice: FrameSlice) throws(WireError) -> Request {
        try slice.payload.withUnsafeReadableBytes { bytes throws(WireError) in
            try decodeRequest(BorrowedFrame(header: slice.header, payload: bytes, offset: slice.offset))
        }
    }
}
