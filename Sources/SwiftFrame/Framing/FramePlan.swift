/// A validated layout with the numbers the decoder and encoder need precomputed.
@usableFromInline
struct FramePlan: Sendable {
    @usableFromInline let fields: [FrameLayout.Field]
    @usableFromInline let lengthIndex: Int
    @usableFromInline let span: FrameLayout.LengthSpan
    @usableFromInline let adjustment: Int
    /// Bytes of every fixed-width field (a varint length adds its own size).
    @usableFromInline let fixedHeaderSize: Int
    /// Bytes of the fields after the length field.
    @usableFromInline let afterLengthSize: Int
    @usableFromInline let commandWidth: Int
    @usableFromInline let maxFrameSize: Int
    /// The largest wire value the length field holds.
    @usableFromInline let lengthCapacity: UInt64
    /// Magic value, width, byte order and offset in the frame, when the layout has one.
    @usableFromInline let magic: (value: UInt64, width: Int, byteOrder: FrameLayout.ByteOrder, offset: Int)?
    @usableFromInline let maxSkip: Int?
    /// The most bytes a header takes: the fixed fields, and 10 for a varint length.
    let largestHeaderSize: Int
    /// The header in the packed form read and written with no reference counted, when the
    /// layout has one (made here, once per layout, like the rest of the plan).
    private(set) var quick: QuickHeader?

    /// The plan of a layout that follows every rule (`LayoutRules.check` found nothing).
    init(_ layout: FrameLayout) {
        fields = layout.fields
        maxFrameSize = layout.maxFrameSize
        var lengthIndex = 0
        var span = FrameLayout.LengthSpan.body
        var adjustment = 0
        var fixed = 0
        var commandWidth = 0
        var magic: (value: UInt64, width: Int, byteOrder: FrameLayout.ByteOrder, offset: Int)?
        for (index, field) in fields.enumerated() {
            switch field.kind {
            case let .length(fieldSpan, fieldAdjustment):
                lengthIndex = index
                span = fieldSpan
                adjustment = fieldAdjustment
            case .command:
                commandWidth = field.width
            case let .magic(value):
                magic = (value, field.width, field.byteOrder, fixed)
            default:
                break
            }
            fixed += field.width
        }
        self.lengthIndex = lengthIndex
        self.span = span
        self.adjustment = adjustment
        self.fixedHeaderSize = fixed
        self.afterLengthSize = fields[(lengthIndex + 1)...].reduce(0) { $0 + $1.width }
        self.commandWidth = commandWidth
        self.magic = magic
        let length = fields[lengthIndex]
        switch (length.width, length.isSigned) {
        case (0, _), (8, false): lengthCapacity = .max
        case (let width, false): lengthCapacity = (1 << UInt64(8 * width)) - 1
        case (let width, true): lengthCapacity = (1 << UInt64(8 * width - 1)) - 1
        }
        if case let .resynchronize(maxSkip) = layout.badHeaderPolicy {
            self.maxSkip = maxSkip
        } else {
            self.maxSkip = nil
        }
        largestHeaderSize = fixed + (length.width == 0 ? 10 : 0)
        quick = QuickHeader(self)
    }

    /// Bytes the length counts besides the payload. For a whole-frame span (never a varint)
    /// that is the fixed header.
    @inlinable
    var spanOverhead: Int {
        switch span {
        case .body: 0
        case .commandAndBody: commandWidth
        case .afterLength: afterLengthSize
        case .wholeFrame: fixedHeaderSize
        }
    }

    /// The length field's wire value for a payload of `payloadCount` bytes, or nil when it is
    /// negative (a negative adjustment larger than what is counted).
    @inlinable
    func lengthWireValue(payloadCount: Int) -> Int? {
        let value = payloadCount + spanOverhead + adjustment
        return value >= 0 ? value : nil
    }

    // MARK: Integers

    @inlinable
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, width: Int, byteOrder: FrameLayout.ByteOrder)
        -> UInt64
    {
        var value: UInt64 = 0
        if byteOrder == .bigEndian {
            for position in index..<(index + width) {
                value = value << 8 | UInt64(bytes[position])
            }
        } else {
            var position = index + width
            while position > index {
                position -= 1
                value = value << 8 | UInt64(bytes[position])
            }
        }
        return value
    }

    /// A `width`-byte two's-complement value, read as unsigned, with its sign extended.
    @inlinable
    static func signExtended(_ value: UInt64, width: Int) -> Int64 {
        let shift = UInt64(64 &- 8 &* width)
        return Int64(bitPattern: value &<< shift) &>> shift
    }

    /// Stores the low `width` bytes (1, 2, 4 or 8) of `value` at `address`.
    @inline(__always)
    static func storeUnchecked(
        _ value: UInt64, at address: UnsafeMutableRawPointer, width: Int, byteOrder: FrameLayout.ByteOrder
    ) {
        let bigEndian = byteOrder == .bigEndian
        switch width {
        case 1:
            address.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2:
            let raw = UInt16(truncatingIfNeeded: value)
            address.storeBytes(of: bigEndian ? raw.bigEndian : raw.littleEndian, toByteOffset: 0, as: UInt16.self)
        case 4:
            let raw = UInt32(truncatingIfNeeded: value)
            address.storeBytes(of: bigEndian ? raw.bigEndian : raw.littleEndian, toByteOffset: 0, as: UInt32.self)
        default:
            address.storeBytes(of: bigEndian ? value.bigEndian : value.littleEndian, toByteOffset: 0, as: UInt64.self)
        }
    }

    @inlinable
    static func store<Sink: ByteSink>(
        _ value: UInt64, width: Int, byteOrder: FrameLayout.ByteOrder, into bytes: inout Sink
    ) {
        if byteOrder == .bigEndian {
            var shift = 8 * width
            while shift > 0 {
                shift -= 8
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        } else {
            for byte in 0..<width {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)))
            }
        }
    }
}
