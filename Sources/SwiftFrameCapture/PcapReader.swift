/// What is wrong with a capture file.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at offset \(offset)" }
}

/// A TCP segment with data, read from a capture.
public struct TCPSegment: Sendable, Hashable {
    /// Seconds since 1970 (fractions from the capture's resolution).
    public var time: Double
    public var from: CaptureEndpoint
    public var to: CaptureEndpoint
    public var sequence: UInt32
    public var payload: ArraySlice<UInt8>
}

/// Reads the TCP segments of a pcap file: IPv4 or IPv6 over Ethernet, Linux cooked capture
/// (v1 and v2, what `tcpdump -i any` writes), BSD loopback or raw IP; either byte order,
/// microsecond or nanosecond timestamps. Packets that are not TCP with data are skipped;
/// a record that claims more bytes than the file holds is an error, not an allocation.
public struct PcapReader: Sendable {
    public let bytes: [UInt8]
    let bigEndian: Bool
    let nanoseconds: Bool
    let linkType: UInt32

    /// Whether `bytes` starts as a pcap file does.
    public static func isPcap(_ bytes: some Collection<UInt8>) -> Bool {
        [[0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D]]
            .contains(Array(bytes.prefix(4)))
    }

    public init(bytes: [UInt8]) throws(CaptureError) {
        guard bytes.count >= 24, Self.isPcap(bytes) else { throw CaptureError(offset: 0, reason: "not a pcap file") }
        self.bytes = bytes
        bigEndian = bytes[0] == 0xA1
        nanoseconds = bytes[0] == 0x4D || bytes[3] == 0x4D
        let raw = UInt32(bytes[20]) | UInt32(bytes[21]) << 8 | UInt32(bytes[22]) << 16 | UInt32(bytes[23]) << 24
        linkType = (bigEndian ? raw.byteSwapped : raw) & 0x0FFF_FFFF
        guard [1, 0, 101, 113, 228, 229, 276].contains(linkType) else {
            throw CaptureError(offset: 20, reason: "link type \(linkType) is not one this reader knows")
        }
    }

    /// Every TCP segment with data, in file order.
    public func segments() throws(CaptureError) -> [TCPSegment] {
        var segments: [TCPSegment] = []
        var offset = 24
        while offset < bytes.count {
            guard offset + 16 <= bytes.count else { throw CaptureError(offset: offset, reason: "truncated record header") }
            let seconds = Double(read32(offset))
            let fraction = Double(read32(offset + 4)) / (nanoseconds ? 1e9 : 1e6)
            let length = Int(read32(offset + 8))
            let start = offset + 16
            guard length <= bytes.count - start else {
                throw CaptureError(offset: offset, reason: "a record of \(length) bytes, past the end of the file")
            }
            if let segment = tcpSegment(bytes[start..<start + length], time: seconds + fraction) { segments.append(segment) }
            offset = start + length
        }
        return segments
    }

    private func read32(_ offset: Int) -> UInt32 {
        let value = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        return bigEndian ? value.byteSwapped : value
    }

    /// The TCP segment in one packet, past its link-layer header; nil for anything else.
    private func tcpSegment(_ packet: ArraySlice<UInt8>, time: Double) -> TCPSegment? {
        var ip = packet
        switch linkType {
        case 1:  // Ethernet, with up to two VLAN tags
            var typeAt = ip.startIndex + 12
            while ip.count > typeAt - ip.startIndex + 2, ip[typeAt] == 0x81 || ip[typeAt] == 0x88, ip[typeAt + 1] == 0x00 || ip[typeAt + 1] == 0xA8 {
                typeAt += 4
            }
            guard ip.endIndex >= typeAt + 2 else { return nil }
            ip = ip[(typeAt + 2)...]
        case 0:  // BSD loopback: a 4-byte address family
            ip = ip.dropFirst(4)
        case 113:  // Linux cooked capture v1
            ip = ip.dropFirst(16)
        case 276:  // Linux cooked capture v2
            ip = ip.dropFirst(20)
        default:  // raw IP
            break
        }
        guard let first = ip.first else { return nil }
        let from: [UInt8], to: [UInt8], tcp: ArraySlice<UInt8>
        switch first >> 4 {
        case 4:
            let headerLength = Int(first & 0x0F) * 4
            guard ip.count >= max(headerLength, 20), ip[ip.startIndex + 9] == 6 else { return nil }
            let total = Int(ip[ip.startIndex + 2]) << 8 | Int(ip[ip.startIndex + 3])
            from = Array(ip[ip.startIndex + 12..<ip.startIndex + 16])
            to = Array(ip[ip.startIndex + 16..<ip.startIndex + 20])
            tcp = ip[ip.startIndex + headerLength..<ip.startIndex + min(max(total, headerLength), ip.count)]
        case 6:
            guard ip.count >= 40, ip[ip.startIndex + 6] == 6 else { return nil }  // no extension headers
            let payloadLength = Int(ip[ip.startIndex + 4]) << 8 | Int(ip[ip.startIndex + 5])
            from = Array(ip[ip.startIndex + 8..<ip.startIndex + 24])
            to = Array(ip[ip.startIndex + 24..<ip.startIndex + 40])
            tcp = ip[ip.startIndex + 40..<ip.startIndex + min(40 + payloadLength, ip.count)]
        default:
            return nil
        }
        guard tcp.count >= 20 else { return nil }
        let base = tcp.startIndex
        let dataOffset = Int(tcp[base + 12] >> 4) * 4
        guard dataOffset >= 20, tcp.count > dataOffset else { return nil }
        func port(_ at: Int) -> UInt16 { UInt16(tcp[base + at]) << 8 | UInt16(tcp[base + at + 1]) }
        let sequence = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(tcp[base + 4 + $1]) }
        return TCPSegment(
            time: time, from: CaptureEndpoint(address: from, port: port(0)), to: CaptureEndpoint(address: to, port: port(2)),
            sequence: sequence, payload: tcp[(base + dataOffset)...])
    }
}

/// Puts each direction's TCP data back in order: a segment repeated (a retransmission) is
/// dropped, one that arrives early waits for the bytes before it (up to `maxHeld` bytes per
/// direction; past that, the gap is given up and reported).
public struct TCPReassembler: Sendable {
    public struct Flow: Sendable, Hashable {
        public let from: CaptureEndpoint
        public let to: CaptureEndpoint
    }

    private var next: [Flow: UInt32] = [:]
    private var held: [Flow: [UInt32: ArraySlice<UInt8>]] = [:]
    public let maxHeld: Int

    public init(maxHeld: Int = 16 << 20) {
        self.maxHeld = maxHeld
    }

    /// The bytes `segment` makes ready for its flow, in stream order, and whether bytes were
    /// lost before them (a gap given up).
    public mutating func add(_ segment: TCPSegment) -> (flow: Flow, bytes: [UInt8], gap: Bool) {
        let flow = Flow(from: segment.from, to: segment.to)
        var expected = next[flow] ?? segment.sequence
        var ready: [UInt8] = []
        var gap = false
        var pending = held[flow] ?? [:]
        pending[segment.sequence] = pending[segment.sequence].map { $0.count >= segment.payload.count ? $0 : segment.payload } ?? segment.payload
        while true {
            // The held segment that covers `expected`, trimmed of what was read already.
            if let (start, data) = pending.first(where: { $0.key &- expected >= UInt32(bitPattern: Int32.min) || $0.key == expected }) {
                pending.removeValue(forKey: start)
                let skip = Int(expected &- start)
                if skip < data.count {
                    ready += data.dropFirst(skip)
                    expected = start &+ UInt32(data.count)
                }
                continue
            }
            if pending.values.reduce(0, { $0 + $1.count }) > maxHeld, let earliest = pending.keys.min(by: { $0 &- expected < $1 &- expected }) {
                gap = true
                expected = earliest
                continue
            }
            break
        }
        next[flow] = expected
        held[flow] = pending
        return (flow, ready, gap)
    }
}
