/// What is wrong with a capture file: what, and the file offset of the record or block at fault.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at offset \(offset)" }
}

/// The kinds of file `swiftframe inspect` reads, told apart by their first four bytes.
public enum CaptureFormat: Sendable, Hashable {
    case pcap, pcapng

    /// The format whose magic number `bytes` starts with; nil for anything else (a raw stream).
    public init?(magic bytes: some Collection<UInt8>) {
        let first = Array(bytes.prefix(4))
        if first == [0x0A, 0x0D, 0x0D, 0x0A] {
            self = .pcapng
        } else if [
            [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D],
        ]
        .contains(first) {
            self = .pcap
        } else {
            return nil
        }
    }
}

/// One packet of a capture: its time, the link type of its interface and its captured bytes.
public struct CapturedPacket: Sendable {
    /// Seconds since 1970, with the fraction the capture's resolution gives.
    public var time: Double
    public var linkType: UInt32
    /// A slice of the reader's buffer: use it before feeding the reader again.
    public var data: ArraySlice<UInt8>
    /// The file offset of its record or block.
    public var offset: Int

    /// `seconds` (a packet's `time`) as `swiftframe inspect` prints it: seconds since 1970 with
    /// six decimals. A time past what a 64-bit count of microseconds holds (a made-up pcapng
    /// resolution or offset can claim one) is printed as the number it is.
    public static func timeText(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds.magnitude < 9e12 else { return "\(seconds)" }
        let totalMicros = Int((seconds * 1e6).rounded())
        let sign = totalMicros < 0 ? "-" : ""
        let whole = totalMicros.magnitude / 1_000_000
        let digits = String(totalMicros.magnitude % 1_000_000)
        return sign + "\(whole)." + String(repeating: "0", count: 6 - digits.count) + digits
    }
}

/// Reads the packets of a pcap or pcapng file fed in pieces of any size, so that a capture of
/// any length is read in constant memory (the largest block, at most `maxBlockSize`, plus a
/// piece).
///
/// pcap: either byte order, microsecond or nanosecond timestamps. pcapng: sections in either
/// byte order, several interfaces each with its link type and timestamp resolution
/// (`if_tsresol`, `if_tsoffset`), Enhanced, Simple and (obsolete) Packet blocks; other blocks
/// are skipped. A record or block that claims more bytes than the file holds is a
/// `CaptureError` at the end (`finish()`), one larger than `maxBlockSize` as soon as its
/// header is read: nothing is ever allocated on a length's word.
public struct CaptureReader: Sendable {
    /// The largest record or block read; larger is an error.
    public static let maxBlockSize = 16 << 20

    private var buffer: [UInt8] = []
    /// `buffer[start...]` is not read yet.
    private var start = 0
    /// File offset of `buffer[0]`.
    private var base = 0
    private var failure: CaptureError?
    public private(set) var format: CaptureFormat?

    // pcap: the file header's settings.
    private var pcapLinkType: UInt32?
    private var pcapNanoseconds = false
    private var bigEndian = false

    // pcapng: the current section's interfaces.
    private struct Interface {
        var linkType: UInt32
        var snapshotLength: UInt32
        /// Timestamp units per second.
        var unitsPerSecond: UInt64 = 1_000_000
        var offsetSeconds: Int64 = 0
    }
    private var interfaces: [Interface] = []
    private var sectionStarted = false
    /// A Simple Packet Block has no time: it takes that of the packet before it.
    private var lastTime: Double = 0

    public init() {}

    /// Bytes read and not yet returned in a packet.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Appends the next bytes of the file.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func feed(_ bytes: some Collection<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        guard start > 0, start >= buffer.count / 2 || start >= 1 << 20 else { return }
        buffer.removeSubrange(0..<start)
        base += start
        start = 0
    }

    /// The next packet, or nil until more bytes are fed. Packets on interfaces of an unknown
    /// link type are returned too (the caller skips what it cannot read).
    public mutating func nextPacket() throws(CaptureError) -> CapturedPacket? {
        if let failure { throw failure }
        do throws(CaptureError) {
            return try readPacket()
        } catch {
            failure = error
            throw error
        }
    }

    /// At the end of the file: an error if bytes are left that do not make a whole record.
    public func finish() throws(CaptureError) {
        if let failure { throw failure }
        let left = buffer.count - start
        guard left > 0 else {
            if format == nil || (format == .pcap && pcapLinkType == nil) {
                throw CaptureError(offset: base + start, reason: "empty capture file")
            }
            return
        }
        if format == .pcap && pcapLinkType == nil || format == nil {
            throw CaptureError(offset: base + start, reason: "truncated file header (\(left) bytes)")
        }
        let claimed: Int
        if format == .pcap {
            claimed = left >= 16 ? 16 + Int(read32(start + 8)) : 16
        } else {
            claimed = left >= 8 ? Int(read32(start + 4)) : 8
        }
        throw CaptureError(
            offset: base + start,
            reason:
                "a \(format == .pcap ? "record" : "block") of \(claimed) bytes, past the end of the file (\(left) bytes left)"
        )
    }

    private mutating func readPacket() throws(CaptureError) -> CapturedPacket? {
        if format == nil {
            guard buffer.count - start >= 4 else { return nil }
            guard let found = CaptureFormat(magic: buffer[start..<start + 4]) else {
                throw CaptureError(offset: base + start, reason: "neither a pcap nor a pcapng file")
            }
            format = found
        }
        return format == .pcap ? try readPcap() : try readPcapng()
    }

    // MARK: pcap

    private mutating func readPcap() throws(CaptureError) -> CapturedPacket? {
        if pcapLinkType == nil {
            guard buffer.count - start >= 24 else { return nil }
            bigEndian = buffer[start] == 0xA1
            pcapNanoseconds = buffer[start] == 0x4D || buffer[start + 3] == 0x4D
            pcapLinkType = read32(start + 20) & 0x0FFF_FFFF
            start += 24
        }
        guard buffer.count - start >= 16 else { return nil }
        let length = Int(read32(start + 8))
        guard length <= Self.maxBlockSize else {
            throw CaptureError(
                offset: base + start, reason: "a record of \(length) bytes exceeds the limit of \(Self.maxBlockSize)")
        }
        guard buffer.count - start - 16 >= length else { return nil }
        let seconds = Double(read32(start))
        let fraction = Double(read32(start + 4)) / (pcapNanoseconds ? 1e9 : 1e6)
        let packet = CapturedPacket(
            time: seconds + fraction, linkType: pcapLinkType ?? 0, data: buffer[start + 16..<start + 16 + length],
            offset: base + start)
        start += 16 + length
        return packet
    }

    // MARK: pcapng

    private mutating func readPcapng() throws(CaptureError) -> CapturedPacket? {
        while true {
            guard buffer.count - start >= 12 else { return nil }
            let at = base + start
            let type = read32(start)
            if type == 0x0A0D_0D0A {  // Section Header Block: its byte-order magic sets the order
                switch (buffer[start + 8], buffer[start + 9], buffer[start + 10], buffer[start + 11]) {
                case (0x4D, 0x3C, 0x2B, 0x1A): bigEndian = false
                case (0x1A, 0x2B, 0x3C, 0x4D): bigEndian = true
                default: throw CaptureError(offset: at + 8, reason: "bad byte-order magic in a section header")
                }
            } else if !sectionStarted {
                throw CaptureError(
                    offset: at, reason: "a block of type 0x\(String(type, radix: 16)) before any section header")
            }
            let length = Int(read32(start + 4))
            guard length >= 12, length % 4 == 0 else {
                throw CaptureError(
                    offset: at + 4, reason: "block length \(length) is not a multiple of 4 of at least 12")
            }
            guard length <= Self.maxBlockSize else {
                throw CaptureError(
                    offset: at + 4, reason: "a block of \(length) bytes exceeds the limit of \(Self.maxBlockSize)")
            }
            guard buffer.count - start >= length else { return nil }
            guard Int(read32(start + length - 4)) == length else {
                throw CaptureError(
                    offset: at + length - 4,
                    reason:
                        "the block's trailing length \(read32(start + length - 4)) differs from its length \(length)")
            }
            let body = start + 8  // index of the body
            let bodyEnd = start + length - 4
            start += length
            switch type {
            case 0x0A0D_0D0A:
                guard length >= 28 else {
                    throw CaptureError(offset: at + 4, reason: "a section header of \(length) bytes")
                }
                let major = read16(body + 4)
                guard major == 1 else {
                    throw CaptureError(offset: at + 12, reason: "pcapng version \(major) is not 1")
                }
                sectionStarted = true
                interfaces = []
            case 1:  // Interface Description Block
                guard bodyEnd - body >= 8 else {
                    throw CaptureError(offset: at, reason: "an interface description of \(length) bytes")
                }
                var interface = Interface(linkType: UInt32(read16(body)), snapshotLength: read32(body + 4))
                try readOptions(from: body + 8, to: bodyEnd) { code, value, offset throws(CaptureError) in
                    switch code {
                    case 9:  // if_tsresol
                        guard value.count >= 1 else {
                            throw CaptureError(offset: offset, reason: "an empty if_tsresol")
                        }
                        let exponent = Int(value.first! & 0x7F)
                        if value.first! & 0x80 == 0 {
                            guard exponent <= 19 else {
                                throw CaptureError(offset: offset, reason: "if_tsresol 10^-\(exponent) is too fine")
                            }
                            interface.unitsPerSecond = (0..<exponent).reduce(1) { value, _ in value * 10 }
                        } else {
                            guard exponent <= 63 else {
                                throw CaptureError(offset: offset, reason: "if_tsresol 2^-\(exponent) is too fine")
                            }
                            interface.unitsPerSecond = 1 << UInt64(exponent)
                        }
                    case 14:  // if_tsoffset
                        guard value.count == 8 else {
                            throw CaptureError(offset: offset, reason: "an if_tsoffset of \(value.count) bytes")
                        }
                        let raw = value.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                        interface.offsetSeconds = Int64(bitPattern: bigEndian ? raw.byteSwapped : raw)
                    default:
                        break
                    }
                }
                interfaces.append(interface)
            case 6, 2:  // Enhanced Packet Block; Packet Block (obsolete: a 16-bit interface id)
                guard bodyEnd - body >= 20 else {
                    throw CaptureError(offset: at, reason: "a packet block of \(length) bytes")
                }
                let id = type == 6 ? Int(read32(body)) : Int(read16(body))
                guard id < interfaces.count else {
                    throw CaptureError(
                        offset: at + 8,
                        reason: "a packet on interface \(id), but the section describes \(interfaces.count)")
                }
                let captured = Int(read32(body + 12))
                guard captured <= bodyEnd - body - 20 else {
                    throw CaptureError(offset: at + 20, reason: "a packet of \(captured) bytes in a block of \(length)")
                }
                let interface = interfaces[id]
                let stamp = UInt64(read32(body + 4)) << 32 | UInt64(read32(body + 8))
                let time =
                    Double(interface.offsetSeconds) + Double(stamp / interface.unitsPerSecond)
                    + Double(stamp % interface.unitsPerSecond) / Double(interface.unitsPerSecond)
                lastTime = time
                return CapturedPacket(
                    time: time, linkType: interface.linkType, data: buffer[body + 20..<body + 20 + captured], offset: at
                )
            case 3:  // Simple Packet Block: interface 0, no time
                guard !interfaces.isEmpty else {
                    throw CaptureError(
                        offset: at, reason: "a simple packet block, but the section describes no interface")
                }
                guard bodyEnd - body >= 4 else {
                    throw CaptureError(offset: at, reason: "a simple packet block of \(length) bytes")
                }
                let original = Int(read32(body))
                var captured = min(original, bodyEnd - body - 4)
                if interfaces[0].snapshotLength > 0 { captured = min(captured, Int(interfaces[0].snapshotLength)) }
                return CapturedPacket(
                    time: lastTime, linkType: interfaces[0].linkType, data: buffer[body + 4..<body + 4 + captured],
                    offset: at)
            default:
                break  // a block this reader does not need (statistics, name resolution, custom...)
            }
        }
    }

    /// Calls `body` with each option (code, value, file offset) in `buffer[from..<to]`.
    private func readOptions(
        from: Int, to end: Int, _ body: (UInt16, ArraySlice<UInt8>, Int) throws(CaptureError) -> Void
    ) throws(CaptureError) {
        var index = from
        while end - index >= 4 {
            let code = read16(index)
            let length = Int(read16(index + 2))
            if code == 0 { return }
            guard length <= end - index - 4 else {
                throw CaptureError(
                    offset: base + index, reason: "an option of \(length) bytes past the end of its block")
            }
            try body(code, buffer[index + 4..<index + 4 + length], base + index)
            index += 4 + (length + 3) & ~3
        }
    }

    @inline(__always)
    private func read16(_ index: Int) -> UInt16 {
        let value = UInt16(buffer[index]) | UInt16(buffer[index + 1]) << 8
        return bigEndian ? value.byteSwapped : value
    }

    @inline(__always)
    private func read32(_ index: Int) -> UInt32 {
        let value =
            UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index + 2]) << 16 | UInt32(
                buffer[index + 3]) << 24
        return bigEndian ? value.byteSwapped : value
    }
}
