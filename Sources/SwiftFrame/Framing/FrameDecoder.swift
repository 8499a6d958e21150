/// Cuts a byte stream into frames of one layout, whatever pieces the bytes arrive in: one
/// read may hold several frames, part of one, or stop inside a header.
///
///     var decoder = FrameDecoder(layout: .gameTCP)
///     decoder.feed(bytesFromTheSocket)
///     while let frame = try decoder.nextFrame() { handle(frame) }
///     ...
///     try decoder.finish()   // at end of stream: a partial frame left is `.truncated`
///
/// - A length is checked against `maxFrameSize` as soon as it is read, before the body
///   arrives, and nothing is ever allocated on a header's word: the buffer grows only by the
///   bytes fed.
/// - Payloads are slices of the decoder's buffer, not copies. An array fed while nothing is
///   buffered is kept as it is, and so is an array fed while a frame is still incomplete: the
///   decoder copies from it only the bytes that complete that frame, then cuts the following
///   frames out of the array itself. So a frame that lies within one read is never copied. An
///   array that lies wholly inside the frame being completed (the middle of a large frame) is
///   copied into place as it is fed, and so is the rest of a frame begun in an earlier read: the
///   bytes that complete it are copied from the new array when it is fed, and the frames after
///   them are cut out of that array.
/// - `withNextFrame(_:)` hands a frame's payload over as the bytes where they lie, for the
///   length of a call, without making a `Frame` (no reference counted per frame): decode a
///   message straight from it, and copy only what you keep.
/// - `cutFrame(in:at:)` cuts a frame out of bytes the caller holds (a socket read in a buffer of
///   its own) while the decoder holds nothing, so that only what spans reads has to be fed;
///   `bytesWanted` says how much to feed to finish a frame the decoder holds the start of.
/// - Errors carry the stream offset of the field at fault. Under `.fail` the first error is
///   thrown again by every later call. Under `.resynchronize(maxSkip:)` a bad header is thrown
///   once, then decoding goes on from the next magic.
public struct FrameDecoder: Sendable {
    public let layout: FrameLayout
    let plan: FramePlan
    /// Bytes fed and not yet dropped; `buffer[start...]` is not consumed yet.
    @usableFromInline var buffer: [UInt8] = []
    var start = 0
    /// Stream offset of `buffer[0]`.
    var base = 0
    /// True while `buffer` is an array the caller fed (shared with the caller, so the decoder
    /// never appends to it in place).
    var bufferIsFed = false
    /// Arrays fed while `buffer` still held bytes: their bytes follow `buffer`'s in the stream.
    /// The first is `next`, of which the bytes before `nextOffset` have been moved into `buffer`
    /// already; any fed after it wait in `later` (from `laterHead` on). Usually there is only
    /// `next`: the rest of a frame that straddles two reads, and the frames after it.
    var next: [UInt8] = []
    var nextOffset = 0
    var later: [[UInt8]] = []
    var laterHead = 0
    /// Bytes of `next` (from `nextOffset`) and `later`; zero when nothing is queued.
    var queuedByteCount = 0
    /// The decoder's own array, set aside while `buffer` is a fed one, to be reused (with its
    /// capacity) for the next frame that has to be copied together.
    var spare: [UInt8] = []
    /// The error that ended the stream.
    var poison: FrameError?
    /// While looking for a magic after a bad header: the stream offset of that header.
    var resyncFrom: Int?
    /// The header at `start`, already read and checked, while its body is incomplete.
    var pending: Pending? {
        didSet { pendingFrameSize = pending.map { $0.headerSize + $0.payloadCount } ?? 0 }
    }
    /// The size of the `pending` frame, header included; 0 when there is none. Read where copying
    /// `pending` (its header) would cost more than the check.
    var pendingFrameSize = 0
    /// The size of the frame at `start`, header included, when the fast path has read and checked
    /// its header and found the frame incomplete; 0 otherwise. Lets each read of a large frame's
    /// middle be appended, and `nextFrame()` answer nil, without reading the header again.
    var incompleteFrameSize = 0
    /// Every header field has a fixed width, so a buffered header is read with no per-field
    /// bounds checks.
    let fixedHeader: Bool
    /// The header in the form of the per-frame fast path; nil when a field needs the general
    /// path (a varint length, a type with known values, an extra field).
    let quick: QuickHeader?

    struct Pending {
        var header: FrameHeader
        var headerSize: Int
        var payloadCount: Int
    }

    /// Traps if `layout` breaks a rule (possible only after its properties were changed).
    public init(layout: FrameLayout) {
        self.layout = layout
        self.plan = layout.checkedPlan
        self.fixedHeader = layout.fields.allSatisfy { $0.width > 0 }
        self.quick = plan.quick
    }

    /// Bytes fed and not yet returned in a frame (or skipped).
    public var bufferedByteCount: Int { buffer.count - start + queuedByteCount }

    /// The error that ended the stream (always under `.fail`; under `.resynchronize` when no
    /// magic was found in time), which every later call throws.
    public var failure: FrameError? { poison }

    // MARK: Feeding

    public mutating func feed(_ bytes: [UInt8]) {
        if incompleteFrameSize &- buffer.count >= bytes.count && start == 0 && !bufferIsFed && queuedByteCount == 0 {
            // The middle of a large frame, with the frame's start already in the decoder's own
            // array (checked first: this is every read but the first and last of such a frame).
            buffer.append(contentsOf: bytes)
            return
        }
        guard poison == nil, !bytes.isEmpty else { return }
        if start == buffer.count && queuedByteCount == 0 {
            // Everything so far is consumed: take the caller's array as it is (no copy).
            base += start
            start = 0
            setAside()
            buffer = bytes
            bufferIsFed = true
        } else if queuedByteCount == 0, let missing = bytesMissingAtStart() {
            // The frame at `start` is incomplete, and it is copied together anyway: what of
            // `bytes` belongs to it goes straight into the decoder's own array; the rest, if any,
            // waits as `next`, to be cut without a copy once that frame is taken.
            if missing >= bytes.count {
                makeAppendable(adding: bytes.count)
                buffer.append(contentsOf: bytes)
            } else {
                makeAppendable(adding: missing)
                buffer.append(contentsOf: bytes[..<missing])
                next = bytes
                nextOffset = missing
                queuedByteCount = bytes.count &- missing
            }
        } else if queuedByteCount == 0 {
            next = bytes
            nextOffset = 0
            queuedByteCount = bytes.count
        } else {
            later.append(bytes)
            queuedByteCount += bytes.count
        }
    }

    /// The bytes still missing from the frame at `start`, when its header is whole and checked
    /// (`pending`, or a header of the fast path that checks out) and the frame is incomplete;
    /// nil otherwise, and while looking for a magic.
    func bytesMissingAtStart() -> Int? {
        let available = buffer.count &- start
        if incompleteFrameSize > 0 {
            return incompleteFrameSize > available ? incompleteFrameSize &- available : nil
        }
        if pendingFrameSize > 0 {
            return pendingFrameSize > available ? pendingFrameSize &- available : nil
        }
        guard resyncFrom == nil, let quick, available >= quick.size else { return nil }
        var header = FrameHeader()
        let payloadCount = quick.read(buffer, at: start, into: &header)
        guard payloadCount >= 0 else { return nil }
        let frameSize = quick.size &+ payloadCount
        return frameSize > available ? frameSize &- available : nil
    }

    public mutating func feed(_ bytes: ArraySlice<UInt8>) {
        guard poison == nil, !bytes.isEmpty else { return }
        if queuedByteCount > 0 {
            feed(Array(bytes))
            return
        }
        makeAppendable(adding: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard poison == nil, !bytes.isEmpty else { return }
        if queuedByteCount > 0 {
            feed(Array(bytes))
            return
        }
        makeAppendable(adding: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    /// Makes room in the decoder's own array for a frame of up to `byteCount` bytes, header
    /// included (at most the layout's `maxFrameSize`), and keeps it for later frames.
    ///
    /// A frame split across reads is copied together into that array. Without this call the
    /// array grows as the bytes of the first large frame arrive, doubling and copying what it
    /// holds each time, and then keeps its size. When you know your largest frame (a file
    /// transfer's chunk size, say), reserving it once saves those copies; the decoder itself
    /// never sizes anything from a header's word.
    public mutating func reserveCapacity(_ byteCount: Int) {
        let wanted = Swift.min(Swift.max(byteCount, 0), layout.maxFrameSize)
        if bufferIsFed {
            spare.reserveCapacity(wanted)
        } else {
            buffer.reserveCapacity(start + wanted)
        }
    }

    /// Drops the consumed front of the buffer once it is at least half of it.
    mutating func compact() {
        guard start > 0, start >= buffer.count - start else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: !bufferIsFed)
            bufferIsFed = false
        } else {
            buffer.removeSubrange(0..<start)
        }
        base += start
        start = 0
    }

    /// Gets `buffer` ready to grow by `count` bytes: a fed array is replaced by a copy of its
    /// unconsumed bytes (the caller's array is never written to), otherwise the consumed front is
    /// dropped as by `compact()`.
    mutating func makeAppendable(adding count: Int) {
        guard bufferIsFed else {
            compact()
            return
        }
        var own = spare
        spare = []
        own.removeAll(keepingCapacity: true)
        own.reserveCapacity(buffer.count - start + count)
        own.append(contentsOf: buffer[start...])
        base += start
        start = 0
        buffer = own
        bufferIsFed = false
    }

    /// Moves up to `count` queued bytes to the end of `buffer`.
    mutating func pull(_ count: Int) {
        var wanted = min(count, queuedByteCount)
        makeAppendable(adding: wanted)
        while wanted > 0 {
            let take = min(wanted, next.count - nextOffset)
            buffer.append(contentsOf: next[nextOffset..<(nextOffset + take)])
            wanted -= take
            queuedByteCount -= take
            nextOffset += take
            if nextOffset == next.count {
                advanceQueue()
            }
        }
    }

    /// `next` is used up: the first of `later` takes its place.
    mutating func advanceQueue() {
        nextOffset = 0
        guard laterHead < later.count else {
            next = []
            return
        }
        next = later[laterHead]
        later[laterHead] = []
        laterHead += 1
        if laterHead == later.count {
            later.removeAll(keepingCapacity: true)
            laterHead = 0
        }
    }

    /// Keeps the decoder's own array for reuse before `buffer` becomes a fed one.
    mutating func setAside() {
        if !bufferIsFed && buffer.capacity > spare.capacity {
            spare = buffer
        }
    }

    /// With `buffer` all consumed, makes the next queued array the buffer (no copy).
    mutating func takeQueuedArray() {
        let bytes = next
        let offset = nextOffset
        advanceQueue()
        queuedByteCount -= bytes.count - offset
        base += buffer.count - offset  // its first unread byte follows the buffer's last one
        setAside()
        buffer = bytes
        start = offset
        bufferIsFed = true
    }

    // MARK: Decoding

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func nextFrame() throws(FrameError) -> Frame? {
        guard let cut = try cutFrame() else { return nil }
        return Frame(header: cut.header, payload: buffer[cut.body..<cut.end], offset: cut.offset)
    }

    /// Cuts the next complete frame and calls `body` with it, its payload being the bytes where
    /// they lie in the decoder (no `Frame` is made, no reference counted): decode a message
    /// straight from `frame.payload`, and copy what you keep (`frame.copy()`); the pointer is
    /// valid only until `body` returns. Returns what `body` returns, or nil when more bytes are
    /// needed (with `body` not called).
    ///
    ///     while let login = try decoder.withNextFrame({ frame in try? Login(buffer: frame.payload) }) {
    ///         ...
    ///     }
    ///
    /// (That `login` is a `Login?`: nil when a payload did not decode.) Errors in the stream are
    /// thrown as by `nextFrame()`.
    @inlinable
    public mutating func withNextFrame<Result>(_ body: (BorrowedFrame) -> Result) throws(FrameError) -> Result? {
        guard let cut = try cutFrame() else { return nil }
        return buffer.withUnsafeBytes { bytes in
            body(
                BorrowedFrame(
                    header: cut.header, payload: UnsafeRawBufferPointer(rebasing: bytes[cut.body..<cut.end]),
                    offset: cut.offset))
        }
    }

    /// Where the frame just cut lies in `buffer`. The buffer is left as it is until the next
    /// call that feeds or cuts.
    @usableFromInline
    struct Cut {
        @usableFromInline var header: FrameHeader
        @usableFromInline var body: Int
        @usableFromInline var end: Int
        /// Stream offset of the frame's first byte.
        @usableFromInline var offset: Int
    }

    /// Cuts the next frame out of `buffer`, advancing `start` past it. The fast path: a header
    /// of plain fixed-width fields, with the whole frame in `buffer` (after taking the next
    /// queued array when `buffer` is used up); nil right away when simply more bytes are needed
    /// (nothing is queued, and the buffer ends at a frame boundary or inside a payload whose
    /// header checked out). Everything else goes the general way: a poisoned decoder,
    /// resynchronizing, frames and headers to copy together from queued arrays, headers to
    /// report on.
    @usableFromInline @inline(__always)
    mutating func cutFrame() throws(FrameError) -> Cut? {
        if incompleteFrameSize > 0 {
            if queuedByteCount == 0 && buffer.count &- start < incompleteFrameSize { return nil }
            incompleteFrameSize = 0  // complete now, or completed from the queue: read again below
        }
        if pendingFrameSize == 0, resyncFrom == nil, let quick, poison == nil {
            var available = buffer.count &- start
            if available == 0 {
                guard queuedByteCount > 0 else { return nil }
                takeQueuedArray()
                available = buffer.count &- start
            }
            if available >= quick.size {
                var header = FrameHeader()
                let payloadCount = quick.read(buffer, at: start, into: &header)
                if payloadCount >= 0 {
                    if available &- quick.size >= payloadCount {
                        let body = start &+ quick.size
                        let cut = Cut(header: header, body: body, end: body &+ payloadCount, offset: base &+ start)
                        start = cut.end
                        return cut
                    }
                    if queuedByteCount == 0 {
                        incompleteFrameSize = quick.size &+ payloadCount
                        return nil
                    }
                }
            }
        } else if pendingFrameSize > 0, queuedByteCount == 0, buffer.count &- start < pendingFrameSize {
            return nil  // the middle of a large frame was fed
        }
        return try cutInGeneral()
    }

    /// `cutFrame()` for everything the fast path leaves.
    mutating func cutInGeneral() throws(FrameError) -> Cut? {
        if poison != nil { try throwPoison() }
        if let from = resyncFrom {
            pull(queuedByteCount)
            guard try resynchronize(from: from) else { return nil }
        }
        while true {
            if start == buffer.count && queuedByteCount > 0 {
                takeQueuedArray()
            }
            let header: Pending
            if let pending {
                header = pending
            } else if let read = quick?.pending(in: buffer, at: start) {
                header = read
                pending = read
            } else {
                let outcome = buffer.withUnsafeBufferPointer { bytes in
                    plan.readHeader(bytes, at: start, streamBase: base, fixed: fixedHeader)
                }
                switch outcome {
                case .needMore:
                    guard queuedByteCount > 0 else { return nil }
                    // Enough for any header (a varint length takes at most 10 bytes).
                    pull(plan.fixedHeaderSize + 10 - (buffer.count - start))
                    continue
                case let .failure(error):
                    try fail(error)
                case let .header(read):
                    header = read
                    pending = read
                }
            }
            let frameSize = header.headerSize + header.payloadCount
            let available = buffer.count - start
            guard available >= frameSize else {
                guard queuedByteCount > 0 else { return nil }
                pull(frameSize - available)
                continue
            }
            let body = start + header.headerSize
            let cut = Cut(header: header.header, body: body, end: start + frameSize, offset: base + start)
            start = cut.end
            pending = nil
            return cut
        }
    }

    // MARK: Cutting from bytes the caller holds

    /// Cuts the frame that starts at `bytes[position]` where it lies, when the decoder holds no
    /// bytes: the caller's bytes are taken as the stream's next ones, up to the frame's end, and
    /// nothing is copied. For bytes that are read into buffers of the caller's own (a socket
    /// read): cut the frames that lie wholly there, and feed only what is left.
    ///
    ///     var position = 0
    ///     while case let .frame(frame) = decoder.cutFrame(in: bytes, at: position) {
    ///         handle(frame.header, bytes[frame.payload])
    ///         position = frame.end
    ///     }
    ///     decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[position...]))
    ///     while let frame = try decoder.nextFrame() { ... }
    ///
    /// The header is read as `nextFrame()` reads it. Nothing is taken unless a whole frame is
    /// returned: `.incomplete` (a header that checks out, a frame running past the end) and
    /// `.feed` (the decoder holds bytes, is resynchronizing or has failed, the bytes end inside
    /// a header, or the header is to be reported) leave the stream where it was, for the rest
    /// to be fed; a bad header is then reported by `nextFrame()`, with its stream offset.
    public mutating func cutFrame(in bytes: UnsafeRawBufferPointer, at position: Int) -> HeldCut {
        guard start == buffer.count, queuedByteCount == 0, pending == nil, resyncFrom == nil, poison == nil,
            position >= 0, position < bytes.count, let address = bytes.baseAddress
        else { return .feed }
        let available = bytes.count &- position
        let header: FrameHeader
        let headerSize: Int
        let payloadCount: Int
        if let quick {
            guard available >= quick.size else { return .feed }
            var read = FrameHeader()
            payloadCount = quick.read(address + position, into: &read)
            guard payloadCount >= 0 else { return .feed }
            header = read
            headerSize = quick.size
        } else {
            let outcome = bytes.withMemoryRebound(to: UInt8.self) { bytes in
                plan.readHeader(bytes, at: position, streamBase: base &+ start &- position, fixed: fixedHeader)
            }
            guard case let .header(read) = outcome else { return .feed }
            header = read.header
            headerSize = read.headerSize
            payloadCount = read.payloadCount
        }
        let frameSize = headerSize &+ payloadCount
        guard available >= frameSize else { return .incomplete(frameSize: frameSize) }
        let offset = base &+ start
        base &+= frameSize
        let body = position &+ headerSize
        return .frame(HeldFrame(header: header, payload: body..<(body &+ payloadCount), offset: offset))
    }

    /// How many more bytes to feed before `nextFrame()` can cut the frame whose start the decoder
    /// holds: the rest of it when its header is read, else what completes a header (more, for a
    /// varint length, than it may need); every byte, while looking for a magic. 0 when the decoder
    /// holds nothing, or has failed. Feeding no more than this keeps the bytes that follow out
    /// of the decoder, to be cut where they lie with `cutFrame(in:at:)`.
    public var bytesWanted: Int {
        guard poison == nil, bufferedByteCount > 0 else { return 0 }
        if resyncFrom != nil || queuedByteCount > 0 { return .max }
        let available = buffer.count &- start
        if incompleteFrameSize > 0 { return Swift.max(incompleteFrameSize &- available, 1) }
        if pendingFrameSize > 0 { return Swift.max(pendingFrameSize &- available, 1) }
        let headerSize = quick?.size ?? (fixedHeader ? plan.fixedHeaderSize : plan.fixedHeaderSize &+ 10)
        return Swift.max(headerSize &- available, 1)
    }

    /// Throws the error that ended the stream (kept out of line: copying it is not free).
    @inline(never)
    func throwPoison() throws(FrameError) {
        if let poison { throw poison }
    }

    /// At the end of the stream: throws `.truncated` if the bytes of an incomplete frame are
    /// left (after any complete frames still buffered, which are checked too), or the error that
    /// ended the stream. Call it once `nextFrame()` has returned nil.
    public func finish() throws(FrameError) {
        var rest = self
        while try rest.nextFrame() != nil {}
        guard rest.bufferedByteCount > 0 else { return }
        if let from = rest.resyncFrom {
            throw .magicNotFound(offset: from, skipped: rest.base + rest.buffer.count - from)
        }
        throw .truncated(offset: rest.base + rest.start, buffered: rest.bufferedByteCount)
    }

    /// Decodes a complete buffer holding frames back to back (such as an HTTP body with a reply
    /// and event frames), each cut by its own length. Throws the first error, whatever the
    /// layout's policy, and `.truncated` if the buffer ends inside a frame. The payloads are
    /// slices of `bytes`.
    public static func decodeAll(_ bytes: [UInt8], layout: FrameLayout) throws(FrameError) -> [Frame] {
        var decoder = FrameDecoder(layout: layout)
        decoder.buffer = bytes
        decoder.bufferIsFed = true
        var frames: [Frame] = []
        while let frame = try decoder.nextFrame() {
            frames.append(frame)
        }
        try decoder.finish()
        return frames
    }

    /// Reports a bad header at `start`: ends the stream under `.fail`; under `.resynchronize`
    /// drops the header's first byte and looks for the magic from there on the next call.
    mutating func fail(_ error: FrameError) throws(FrameError) -> Never {
        pending = nil
        if plan.maxSkip != nil {
            resyncFrom = base + start
            start += 1
        } else {
            poison = error
        }
        throw error
    }

    /// Advances `start` to the next magic. Returns false when more bytes are needed to tell;
    /// throws (and ends the stream) when the magic is not within `maxSkip` bytes of `from`.
    mutating func resynchronize(from: Int) throws(FrameError) -> Bool {
        guard let magic = plan.magic, let maxSkip = plan.maxSkip else { return true }
        let lastCandidate = from + maxSkip - base  // buffer index of the last allowed frame start
        let scanStart = start
        let (found, position) = buffer.withUnsafeBufferPointer { bytes -> (Bool?, Int) in
            var candidate = scanStart
            while candidate <= lastCandidate {
                let magicAt = candidate + magic.offset
                guard magicAt + magic.width <= bytes.count else { return (nil, candidate) }
                if FramePlan.load(bytes, at: magicAt, width: magic.width, byteOrder: magic.byteOrder) == magic.value {
                    return (true, candidate)
                }
                candidate += 1
            }
            return (false, candidate)
        }
        start = position
        switch found {
        case true?:
            resyncFrom = nil
            return true
        case nil:
            return false
        case false?:
            let error = FrameError.magicNotFound(offset: from, skipped: maxSkip)
            poison = error
            throw error
        }
    }
}

// MARK: - Reading a header

extension FramePlan {
    enum HeaderOutcome {
        case needMore
        case header(FrameDecoder.Pending)
        case failure(FrameError)
    }

    /// Reads and checks the header that starts at `bytes[frameStart]`, field by field: each
    /// field is checked as soon as its bytes are there, so a bad magic or an absurd length is
    /// reported without waiting for the rest.
    ///
    /// `fixed`: every field has a fixed width, so once `fixedHeaderSize` bytes are there, fields
    /// are loaded with no bounds checks.
    func readHeader(
        _ bytes: UnsafeBufferPointer<UInt8>, at frameStart: Int, streamBase: Int, fixed: Bool = false
    ) -> HeaderOutcome {
        var position = frameStart
        var header = FrameHeader()
        var payloadCount = 0
        let whole = fixed && bytes.count - frameStart >= fixedHeaderSize
        for field in fields {
            let offset = streamBase + position
            var value: UInt64 = 0
            if whole {
                value = FramePlan.loadUnchecked(
                    UnsafeRawPointer(bytes.baseAddress!) + position, width: field.width, byteOrder: field.byteOrder)
                position += field.width
            } else if field.width == 0 {
                // A varint length: at most 10 bytes, and the 10th may only hold the top bit.
                var shift: UInt64 = 0
                var index = position
                while true {
                    guard index < bytes.count else { return .needMore }
                    let byte = bytes[index]
                    index += 1
                    if shift == 63 && byte > 1 { return .failure(.malformedVarint(offset: offset)) }
                    value |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                position = index
            } else {
                guard bytes.count - position >= field.width else { return .needMore }
                value = FramePlan.load(bytes, at: position, width: field.width, byteOrder: field.byteOrder)
                position += field.width
            }
            switch field.kind {
            case let .magic(expected):
                if value != expected { return .failure(.badMagic(offset: offset, found: value, expected: expected)) }
            case .length:
                if field.isSigned {
                    let signed = FramePlan.signExtended(value, width: field.width)
                    if signed < 0 { return .failure(.negativeLength(offset: offset, value: signed)) }
                }
                let headerSize = position - frameStart + afterLengthSize
                switch payloadSize(lengthValue: value, headerSize: headerSize) {
                case let .success(count):
                    payloadCount = count
                case let .failure(error):
                    return .failure(error.at(offset))
                }
            case .command:
                header.command = UInt32(truncatingIfNeeded: value)
            case .sequence:
                header.sequence = value
            case let .type(known):
                if !known.isEmpty && !known.contains(value) {
                    return .failure(.unknownType(offset: offset, value: value))
                }
                header.type = value
            case let .extra(name):
                header.extras[name] = value
            }
        }
        return .header(
            FrameDecoder.Pending(header: header, headerSize: position - frameStart, payloadCount: payloadCount))
    }

    /// A 1, 2, 4 or 8-byte integer at `address`, which the caller has checked is in bounds.
    @inline(__always)
    static func loadUnchecked(_ address: UnsafeRawPointer, width: Int, byteOrder: FrameLayout.ByteOrder) -> UInt64 {
        let bigEndian = byteOrder == .bigEndian
        switch width {
        case 1:
            return UInt64(address.load(as: UInt8.self))
        case 2:
            let raw = address.loadUnaligned(as: UInt16.self)
            return UInt64(bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw))
        case 4:
            let raw = address.loadUnaligned(as: UInt32.self)
            return UInt64(bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        default:
            let raw = address.loadUnaligned(as: UInt64.self)
            return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
        }
    }

    /// The payload size a length field's value announces, checked against the span and the
    /// maximum frame size (offsets filled in by the caller).
    func payloadSize(lengthValue wire: UInt64, headerSize: Int) -> Result<Int, FrameError> {
        // wire = payload + spanOverhead + adjustment
        let minimum = spanOverhead + adjustment
        let payload: UInt64
        if minimum >= 0 {
            guard wire >= UInt64(minimum) else {
                return .failure(.lengthTooSmall(offset: 0, length: wire, minimum: UInt64(minimum)))
            }
            payload = wire - UInt64(minimum)
        } else {
            let (sum, overflow) = wire.addingReportingOverflow(UInt64(-minimum))
            payload = overflow ? .max : sum
        }
        let (frameSize, overflow) = payload.addingReportingOverflow(UInt64(headerSize))
        guard !overflow, frameSize <= UInt64(maxFrameSize) else {
            return .failure(.frameTooLarge(offset: 0, size: overflow ? .max : frameSize, limit: maxFrameSize))
        }
        return .success(Int(payload))
    }
}

extension FrameError {
    /// The same error at another offset (for errors built before the offset is known).
    func at(_ offset: Int) -> FrameError {
        switch self {
        case let .lengthTooSmall(_, length, minimum): .lengthTooSmall(offset: offset, length: length, minimum: minimum)
        case let .frameTooLarge(_, size, limit): .frameTooLarge(offset: offset, size: size, limit: limit)
        default: self
        }
    }
}
