/// The values of a frame's header fields (magic and length are implied by the layout and the
/// payload). A value the layout has no field for is ignored when encoding.
public struct FrameHeader: Sendable, Hashable {
    public var command: UInt32?
    public var sequence: UInt64?
    public var type: UInt64?
    /// Values of the layout's `extra` fields, by name.
    public var extras: [String: UInt64] {
        get { extraValues ?? [:] }
        set { extraValues = newValue.isEmpty ? nil : newValue }
    }
    /// Nil rather than empty, so that a header without extras (most of them) is plain values:
    /// copying one, as every decoded frame does, touches no reference count.
    private var extraValues: [String: UInt64]?

    public init(command: UInt32? = nil, sequence: UInt64? = nil, type: UInt64? = nil) {
        self.command = command
        self.sequence = sequence
        self.type = type
        self.extraValues = nil
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
}
