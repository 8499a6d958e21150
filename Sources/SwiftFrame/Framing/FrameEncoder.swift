/// Writes frames of one layout. Every value is checked against its field: a payload too
/// large for the length field or the maximum frame size, a header value wider than its field,
/// a type the layout does not list, or a field with no value in the header is an error, never
/// a silently truncated frame. On error nothing is written.
public struct FrameEncoder: Sendable {
    public let layout: FrameLayout
    @usableFromInline let plan: FramePlan

    /// Traps if `layout` breaks a rule (possible only after its properties were changed).
    public init(layout: FrameLayout) {
        self.layout = layout
        self.plan = layout.checkedPlan
    }

    /// The layout's header in the form written with no reference counted, when it has one.
    var quick: QuickHeader? { plan.quick }

    /// The most bytes a header of this layout takes: its fixed fields, and 10 for a varint
    /// length (a transport reserves this much before `writeHeader(_:payloadCount:into:)`).
    public var largestHeaderSize: Int { plan.largestHeaderSize }

    /// A frame with `payload` as its body.
    public func encode(header: FrameHeader, payload: some Collection<UInt8>) throws(FrameError) -> [UInt8] {
        var bytes: [UInt8] = []
        try append(header: header, payload: payload, to: &bytes)
        return bytes
    }

    /// Appends a frame with `payload` as its body to `bytes`.
    public func append(header: FrameHeader, payload: some Collection<UInt8>, to bytes: inout [UInt8]) throws(FrameError)
    {
        try writeHeader(header, payloadCount: payload.count, to: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// A frame whose body is `message`, serialized straight after the header into one array
    /// allocated at the exact frame size. The message is sized once.
    @inlinable
    public func encode<M: Message>(header: FrameHeader, message: M) throws(FrameError) -> [UInt8] {
        var bytes: [UInt8] = []
        try append(header: header, message: message, to: &bytes)
        return bytes
    }

    /// Appends a frame whose body is `message` to `bytes`.
    @inlinable
    public func append<M: Message>(header: FrameHeader, message: M, to bytes: inout [UInt8]) throws(FrameError) {
        var writer = ProtoWriter()
        let size = message.computeSize(into: &writer.sizes)
        try writeHeader(header, payloadCount: size, to: &bytes)
        message.append(size: size, by: &writer, to: &bytes)
    }

    /// The header alone of a frame with `payloadCount` bytes of body, for a transport that
    /// writes the body from its own buffer after it.
    public func header(_ header: FrameHeader, payloadCount: Int) throws(FrameError) -> [UInt8] {
        var bytes: [UInt8] = []
        try writeHeader(header, payloadCount: payloadCount, to: &bytes, reservingPayload: false)
        return bytes
    }

    /// The header size of a frame with `payloadCount` bytes of body (it varies only with a
    /// varint length), or the error encoding such a payload would throw.
    public func headerSize(payloadCount: Int) throws(FrameError) -> Int {
        try checkedLength(payloadCount: payloadCount).headerSize
    }

    /// The length field's wire value and the header size, after checking the payload size
    /// against the length field and the maximum frame size.
    @usableFromInline
    func checkedLength(payloadCount: Int) throws(FrameError) -> (wire: UInt64, headerSize: Int) {
        let overhead = plan.spanOverhead + plan.adjustment
        guard let wire = plan.lengthWireValue(payloadCount: payloadCount) else {
            throw .payloadTooSmall(size: payloadCount, minimum: -overhead)
        }
        guard UInt64(wire) <= plan.lengthCapacity else {
            let capacity = plan.lengthCapacity > UInt64(Int.max) ? Int.max : Int(plan.lengthCapacity)
            throw .payloadTooLarge(size: payloadCount, limit: capacity - overhead)
        }
        var headerSize = plan.fixedHeaderSize
        if plan.fields[plan.lengthIndex].width == 0 { headerSize += Wire.varintSize(UInt64(wire)) }
        guard payloadCount <= plan.maxFrameSize - headerSize else {
            throw .payloadTooLarge(size: payloadCount, limit: plan.maxFrameSize - headerSize)
        }
        return (UInt64(wire), headerSize)
    }

    /// Writes the header of a frame with `payloadCount` bytes of body at the start of
    /// `memory`, which must hold `headerSize(payloadCount:)` bytes (`largestHeaderSize` always
    /// does), and returns its size: for a transport that writes into its own buffers (the body
    /// goes right after it). On error nothing counts as written.
    public func writeHeader(
        _ header: FrameHeader, payloadCount: Int, into memory: UnsafeMutableRawBufferPointer
    ) throws(FrameError) -> Int {
        if let quick, memory.count >= quick.size,
            quick.write(header, payloadCount: payloadCount, to: memory.baseAddress!)
        {
            return quick.size
        }
        let (wire, headerSize) = try checkedLength(payloadCount: payloadCount)
        precondition(memory.count >= headerSize, "room for \(memory.count) bytes, the header takes \(headerSize)")
        var sink = MemorySink(memory: memory)
        try store(header, wire: wire, into: &sink)
        return sink.count
    }

    /// Appends the header for a body of `payloadCount` bytes and makes room for the body
    /// (unless `reservingPayload` is false). Leaves `bytes` as it was on error.
    @usableFromInline
    func writeHeader(
        _ header: FrameHeader, payloadCount: Int, to bytes: inout [UInt8], reservingPayload: Bool = true
    ) throws(FrameError) {
        let (wire, headerSize) = try checkedLength(payloadCount: payloadCount)
        let needed = bytes.count + headerSize + (reservingPayload ? payloadCount : 0)
        if bytes.capacity < needed {
            // Exact for a fresh array; geometric when appending frame after frame.
            bytes.reserveCapacity(bytes.isEmpty ? needed : max(needed, 2 * bytes.capacity))
        }
        let mark = bytes.count
        do throws(FrameError) {
            try store(header, wire: wire, into: &bytes)
        } catch {
            bytes.removeSubrange(mark...)
            throw error
        }
    }

    /// The header's fields, in the layout's order, with `wire` in the length field.
    @usableFromInline
    func store<Sink: ByteSink>(_ header: FrameHeader, wire: UInt64, into sink: inout Sink) throws(FrameError) {
        for field in plan.fields {
            let value: UInt64
            switch field.kind {
            case let .magic(magic):
                value = magic
            case .length:
                if field.width == 0 {
                    var rest = wire
                    while rest >= 0x80 {
                        sink.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                        rest >>= 7
                    }
                    sink.append(UInt8(rest))
                    continue
                }
                value = wire
            case .command:
                guard let command = header.command else { throw .missingValue(field: "cmd") }
                value = UInt64(command)
            case .sequence:
                guard let sequence = header.sequence else { throw .missingValue(field: "seq") }
                value = sequence
            case let .type(known):
                guard let type = header.type else { throw .missingValue(field: "type") }
                if !known.isEmpty && !known.contains(type) { throw .unlistedType(value: type) }
                value = type
            case let .extra(name):
                guard let extra = header.extras[name] else { throw .missingValue(field: name) }
                value = extra
            }
            guard LayoutRules.fits(value, width: field.width) else {
                throw .valueOutOfRange(field: field.name, value: value, width: field.width)
            }
            FramePlan.store(value, width: field.width, byteOrder: field.byteOrder, into: &sink)
        }
    }
}

/// Where a header's bytes go: an array, or memory a transport lends (`MemorySink`).
@usableFromInline
protocol ByteSink {
    mutating func append(_ byte: UInt8)
}

extension Array: ByteSink where Element == UInt8 {}

/// Bytes written one after another into memory known to be large enough.
@usableFromInline
struct MemorySink: ByteSink {
    @usableFromInline let memory: UnsafeMutableRawBufferPointer
    @usableFromInline var count = 0

    @usableFromInline
    init(memory: UnsafeMutableRawBufferPointer) {
        self.memory = memory
    }

    @inlinable
    mutating func append(_ byte: UInt8) {
        memory[count] = byte
        count &+= 1
    }
}
