/// The values of a frame's header fields (magic and length are implied by the layout and the
/// payload). A value the layout has no field for is ignored when encoding.
public struct FrameHeader: Sendable, Hashable {
    public var command: UInt32? {
        get { present & Self.hasCommand != 0 ? commandValue : nil }
        set { commandValue = newValue ?? 0; mark(Self.hasCommand, newValue != nil) }
    }
    public var sequence: UInt64? {
        get { present & Self.hasSequence != 0 ? sequenceValue : nil }
        set { sequenceValue = newValue ?? 0; mark(Self.hasSequence, newValue != nil) }
    }
    public var type: UInt64? {
        get { present & Self.hasType != 0 ? typeValue : nil }
        set { typeValue = newValue ?? 0; mark(Self.hasType, newValue != nil) }
    }
    /// Values of the layout's `extra` fields, by name.
    public var extras: [String: UInt64] {
        get { extraValues ?? [:] }
        set { extraValues = newValue.isEmpty ? nil : newValue }
    }

    // Stored as plain integers with a mask of which are set (an absent value is stored as 0, so
    // the synthesized `==` and `hash(into:)` stay right), and the extras as nil rather than
    // empty: a header without extras (most of them) holds no reference and no optional, and
    // copying or dropping one is a few plain moves (three optionals made it a call per copy).
    private var commandValue: UInt32 = 0
    private var sequenceValue: UInt64 = 0
    private var typeValue: UInt64 = 0
    private var present: UInt8 = 0
    private var extraValues: [String: UInt64]?

    private static let hasCommand: UInt8 = 1
    private static let hasSequence: UInt8 = 2
    private static let hasType: UInt8 = 4

    private mutating func mark(_ bit: UInt8, _ isSet: Bool) {
        present = isSet ? present | bit : present & ~bit
    }

    public init(command: UInt32? = nil, sequence: UInt64? = nil, type: UInt64? = nil) {
        self.command = command
        self.sequence = sequence
        self.type = type
    }

    public init(command: UInt32? = nil, sequence: UInt64? = nil, type: UInt64? = nil, extras: [String: UInt64]) {
        self.init(command: command, sequence: sequence, type: type)
        self.extras = extras
    }
}

/// One decoded frame.
public struct Frame: Sendable, Hashable {
    public var header: FrameHeader
    /// The body, a slice of the decoder's buffer (no copy). Its indices are the buffer's:
    /// use `payload.startIndex`, or decode it directly with `M(serializedBytes: frame.payload)`.
    public var payload: ArraySlice<UInt8>
    /// Stream offset of the frame's first byte.
    public var offset: Int

    public init(header: FrameHeader, payload: ArraySlice<UInt8>, offset: Int) {
        self.header = header
        self.payload = payload
        self.offset = offset
    }

    /// Calls `body` with this frame as a `BorrowedFrame` over its payload's memory (no copy).
    @inlinable
    public func borrowed<Result>(_ body: (BorrowedFrame) throws(WireError) -> Result) throws(WireError) -> Result {
        do {
            return try payload.withUnsafeBytes { bytes in
                try body(BorrowedFrame(header: header, payload: bytes, offset: offset))
            }
        } catch {
            // `withUnsafeBytes` rethrows untyped; `body` throws nothing but `WireError`. (Not a
            // `Result` carried out of the closure: in unspecialized generic code that is a type
            // made at run time, a lookup at each call.)
            throw error as! WireError
        }
    }
}

/// A frame as `FrameDecoder.withNextFrame(_:)` hands it over: its payload is the bytes where
/// they lie in the decoder, valid only until that call's closure returns. Decode from it, or
/// `copy()` it to keep it.
public struct BorrowedFrame {
    public let header: FrameHeader
    /// The body, in the decoder's memory: do not keep the pointer.
    public let payload: UnsafeRawBufferPointer
    /// Stream offset of the frame's first byte.
    public let offset: Int

    /// A frame over `payload`, which must stay valid while the frame is used.
    @inlinable
    public init(header: FrameHeader, payload: UnsafeRawBufferPointer, offset: Int) {
        self.header = header
        self.payload = payload
        self.offset = offset
    }

    /// A `Frame` with a copy of the payload of its own.
    public func copy() -> Frame {
        Frame(header: header, payload: ArraySlice(payload), offset: offset)
    }
}

/// What `FrameDecoder.cutFrame(in:at:)` found at a position in bytes the caller holds.
public enum HeldCut: Sendable, Hashable {
    /// A frame lying wholly in the bytes, now taken: the stream goes on from its `end`.
    case frame(HeldFrame)
    /// A header that checks out, of a frame of `frameSize` bytes (header included) that runs
    /// past the end of the bytes. Nothing was taken: keep those bytes and cut the frame from
    /// them once it is whole, or feed them.
    case incomplete(frameSize: Int)
    /// Nothing to cut here without the decoder's help: feed the bytes from the position and
    /// take frames with `nextFrame()`, which reports a bad header. Nothing was taken.
    case feed
}

/// A frame cut out of bytes the caller holds: where its payload lies in them.
public struct HeldFrame: Sendable, Hashable {
    public let header: FrameHeader
    /// The payload's indices in the bytes the frame was cut from.
    public let payload: Range<Int>
    /// Stream offset of the frame's first byte.
    public let offset: Int

    /// Where the frame ends in those bytes: where the next one starts.
    public var end: Int { payload.upperBound }

    public init(header: FrameHeader, payload: Range<Int>, offset: Int) {
        self.header = header
        self.payload = payload
        self.offset = offset
    }
}
