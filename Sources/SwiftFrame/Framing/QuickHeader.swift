/// The header of a layout whose fields are all plain fixed-width integers (magic, length,
/// command, sequence, a type without a list of known values), at most `capacity` of them, in
/// a form read and written with no reference counted along the way: one byte per field, packed
/// into an integer. Frames of such a layout that lie wholly in the buffer are cut by `read`, and
/// headers are written by `write`; everything else (an incomplete frame, a header to report
/// on, a value that does not fit) goes the general way.
struct QuickHeader: Sendable {
    static let capacity = 8

    enum Role: UInt8 { case magic, length, command, sequence, type }

    /// Field `i` in byte `i` of `codes`: its width (1, 2, 4 or 8) in bits 0-3, big-endian in
    /// bit 4, signed in bit 5; its `Role` in bits 4i to 4i+3 of `roles`.
    private let codes: UInt64
    private let roles: UInt32
    private let count: Int
    /// Bytes of the whole header.
    let size: Int
    /// The length field's value is the payload size plus this.
    private let minimum: Int
    /// The largest payload `maxFrameSize` allows.
    private let largestPayload: Int
    /// The largest value the length field holds.
    private let lengthCapacity: UInt64
    private let magic: UInt64
    /// The length is the only field (`length:u32:body`, the commonest layout): `read` skips the
    /// loop over the fields.
    private let lengthOnly: Bool

    /// Nil when the layout has a field the fast path does not read (a varint length, an
    /// `extra` field, a type with known values) or more than `capacity` fields.
    init?(_ plan: FramePlan) {
        guard plan.fields.count <= Self.capacity else { return nil }
        var codes: UInt64 = 0
        var roles: UInt32 = 0
        for (index, field) in plan.fields.enumerated() {
            let role: Role
            switch field.kind {
            case .magic: role = .magic
            case .length: role = .length
            case .command: role = .command
            case .sequence: role = .sequence
            case let .type(known) where known.isEmpty: role = .type
            case .type, .extra: return nil
            }
            guard field.width > 0 else { return nil }
            let code = UInt64(field.width) | (field.byteOrder == .bigEndian ? 0x10 : 0) | (field.isSigned ? 0x20 : 0)
            codes |= code << UInt64(8 * index)
            roles |= UInt32(role.rawValue) << UInt32(4 * index)
        }
        self.codes = codes
        self.roles = roles
        self.count = plan.fields.count
        self.size = plan.fixedHeaderSize
        self.minimum = plan.spanOverhead + plan.adjustment
        self.largestPayload = plan.maxFrameSize - plan.fixedHeaderSize
        self.lengthCapacity = plan.lengthCapacity
        self.magic = plan.magic?.value ?? 0
        self.lengthOnly = count == 1 && roles == UInt32(Role.length.rawValue)
    }

    /// The header at `bytes[offset]` as the decoder's general path keeps it, when it is whole
    /// there and checks out; nil for the general reader to deal with (and report on).
    func pending(in bytes: [UInt8], at offset: Int) -> FrameDecoder.Pending? {
        guard bytes.count - offset >= size else { return nil }
        var header = FrameHeader()
        let payloadCount = read(bytes, at: offset, into: &header)
        guard payloadCount >= 0 else { return nil }
        return FrameDecoder.Pending(header: header, headerSize: size, payloadCount: payloadCount)
    }

    /// Reads the header at `bytes[offset]` (`size` bytes are there) into `header`: see below.
    @inline(__always)
    func read(_ bytes: [UInt8], at offset: Int, into header: inout FrameHeader) -> Int {
        bytes.withUnsafeBytes { read($0.baseAddress! + offset, into: &header) }
    }

    /// Reads the header at `address` (`size` bytes are there) into `header` and returns the
    /// payload size, or -1 when the general path must look at it (a wrong magic, a length out
    /// of range).
    @inline(__always)
    func read(_ address: UnsafeRawPointer, into header: inout FrameHeader) -> Int {
        if lengthOnly {  // the one field is the whole header: its width is `size`
            return payloadSize(
                FramePlan.loadUnchecked(address, width: size, byteOrder: Self.byteOrder(codes)), code: codes)
        }
        var address = address
        var payload = -1
        for index in 0..<count {
            let code = codes &>> UInt64(8 &* index)
            let width = Int(code & 0x0F)
            let value = FramePlan.loadUnchecked(address, width: width, byteOrder: Self.byteOrder(code))
            address += width
            switch Role(rawValue: UInt8(truncatingIfNeeded: roles &>> UInt32(4 &* index)) & 0x0F) {
            case .magic?:
                guard value == magic else { return -1 }
            case .length?:
                payload = payloadSize(value, code: code)
                guard payload >= 0 else { return -1 }
            case .command?:
                header.command = UInt32(truncatingIfNeeded: value)
            case .sequence?:
                header.sequence = value
            case .type?:
                header.type = value
            case nil:
                return -1
            }
        }
        return payload
    }

    /// Writes `header` for a body of `payloadCount` bytes at `address` (`size` bytes are there)
    /// and returns true; returns false when the general path must write it, to say what is
    /// wrong (a value missing or too wide for its field, a payload too large or too small).
    @inline(__always)
    func write(_ header: FrameHeader, payloadCount: Int, to address: UnsafeMutableRawPointer) -> Bool {
        guard payloadCount >= 0, payloadCount <= largestPayload else { return false }
        let length = payloadCount &+ minimum
        guard length >= 0, UInt64(length) <= lengthCapacity else { return false }
        var address = address
        for index in 0..<count {
            let code = codes &>> UInt64(8 &* index)
            let width = Int(code & 0x0F)
            let value: UInt64
            switch Role(rawValue: UInt8(truncatingIfNeeded: roles &>> UInt32(4 &* index)) & 0x0F) {
            case .magic?:
                value = magic
            case .length?:
                value = UInt64(length)
            case .command?:
                guard let command = header.command else { return false }
                value = UInt64(command)
            case .sequence?:
                guard let sequence = header.sequence else { return false }
                value = sequence
            case .type?:
                guard let type = header.type else { return false }
                value = type
            case nil:
                return false
            }
            guard width >= 8 || value &>> UInt64(8 &* width) == 0 else { return false }
            FramePlan.storeUnchecked(value, at: address, width: width, byteOrder: Self.byteOrder(code))
            address += width
        }
        return true
    }

    /// The byte order of the field whose code is in the low byte of `code`.
    @inline(__always)
    private static func byteOrder(_ code: UInt64) -> FrameLayout.ByteOrder {
        code & 0x10 != 0 ? .bigEndian : .littleEndian
    }

    /// The payload size a length field (of field code `code`) announces, or -1 when it is out
    /// of range: wire = payload + minimum, and the general path reports anything else.
    @inline(__always)
    private func payloadSize(_ value: UInt64, code: UInt64) -> Int {
        if code & 0x20 != 0, FramePlan.signExtended(value, width: Int(code & 0x0F)) < 0 { return -1 }
        guard value <= UInt64(Int.max) else { return -1 }
        let count = Int(value) &- minimum
        guard count >= 0, count <= largestPayload else { return -1 }
        return count
    }
}
