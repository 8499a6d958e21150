/// Captures in the pcapng and pcap formats (what Wireshark and tcpdump write): frames written
/// by a client or a server as TCP segments of made-up IP packets between the connection's two
/// addresses, and TCP streams read back from captures of real traffic. No Foundation.

/// One end of a TCP connection. The address is held inline (no allocation), so that a reader
/// can key its tables by endpoints at the rate packets arrive.
public struct CaptureEndpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address's bytes, big-endian: an IPv4 address in the low 32 bits of `low`.
    let high: UInt64
    let low: UInt64
    public let isIPv6: Bool
    public var port: UInt16

    /// `address`: 4 bytes (IPv4) or 16 (IPv6).
    public init(address: [UInt8], port: UInt16) {
        precondition(address.count == 4 || address.count == 16, "an IPv4 or IPv6 address")
        var high: UInt64 = 0, low: UInt64 = 0
        for (index, byte) in address.enumerated() {
            if address.count == 16 && index < 8 {
                high = high << 8 | UInt64(byte)
            } else {
                low = low << 8 | UInt64(byte)
            }
        }
        self.init(high: high, low: low, isIPv6: address.count == 16, port: port)
    }

    init(high: UInt64, low: UInt64, isIPv6: Bool, port: UInt16) {
        self.high = high
        self.low = low
        self.isIPv6 = isIPv6
        self.port = port
    }

    /// 4 bytes (IPv4) or 16 (IPv6).
    public var address: [UInt8] {
        if !isIPv6 { return (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * $0)) } }
        return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    public static func < (lhs: CaptureEndpoint, rhs: CaptureEndpoint) -> Bool {
        (lhs.isIPv6 ? 1 : 0, lhs.high, lhs.low, lhs.port) < (rhs.isIPv6 ? 1 : 0, rhs.high, rhs.low, rhs.port)
    }

    public var description: String {
        let bytes = address
        if !isIPv6 { return bytes.map(String.init).joined(separator: ".") + ":\(port)" }
        var groups: [String] = []
        for index in stride(from: 0, to: 16, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}

/// Writes a capture file of made-up TCP/IP packets: each call gives the bytes to append to the
/// file. Each connection can start with a made-up handshake (SYN, SYN-ACK, ACK) and keeps each
/// direction's sequence and acknowledgment numbers, so that Wireshark, tshark and `swiftframe
/// inspect` follow the streams and know which side is the client.
public struct CaptureWriter: Sendable {
    public enum Format: Sendable, Hashable {
        /// pcapng (Wireshark's format): nanosecond timestamps.
        case pcapng
        /// The classic pcap format: microsecond timestamps.
        case pcap
    }

    /// LINKTYPE_RAW: each packet starts at its IP header (version 4 or 6).
    static let linkTypeRaw: UInt32 = 101
    /// Payload bytes per made-up segment, under IPv4's 64 KiB packet size.
    static let segmentSize = 65_000
    static let snapshotLength: UInt32 = 262_144

    public let format: Format
    private var sequences: [Flow: UInt32] = [:]

    private struct Flow: Hashable {
        let from: CaptureEndpoint
        let to: CaptureEndpoint
    }

    public init(format: Format = .pcapng) {
        self.format = format
    }

    /// The file's first bytes: pcap's 24-byte header, or pcapng's section header and the one
    /// interface (raw IP, nanosecond timestamps) every packet is on.
    public var fileHeader: [UInt8] {
        var bytes: [UInt8] = []
        switch format {
        case .pcap:
            bytes.appendLittleEndian(UInt32(0xA1B2_C3D4))  // microsecond timestamps
            bytes.appendLittleEndian(UInt16(2))
            bytes.appendLittleEndian(UInt16(4))
            bytes.appendLittleEndian(UInt32(0))  // time zone
            bytes.appendLittleEndian(UInt32(0))  // accuracy
            bytes.appendLittleEndian(Self.snapshotLength)
            bytes.appendLittleEndian(Self.linkTypeRaw)
        case .pcapng:
            var section: [UInt8] = []
            section.appendLittleEndian(UInt32(0x1A2B_3C4D))  // byte-order magic
            section.appendLittleEndian(UInt16(1))
            section.appendLittleEndian(UInt16(0))
            section.appendLittleEndian(UInt64.max)  // section length: not given
            section += Self.option(4, Array("swiftframe".utf8))  // shb_userappl
            section += [0, 0, 0, 0]  // opt_endofopt
            bytes += Self.block(type: 0x0A0D_0D0A, body: section)
            var interface: [UInt8] = []
            interface.appendLittleEndian(UInt16(Self.linkTypeRaw))
            interface.appendLittleEndian(UInt16(0))
            interface.appendLittleEndian(Self.snapshotLength)
            interface += Self.option(9, [9])  // if_tsresol: 10^-9 s
            interface += [0, 0, 0, 0]
            bytes += Self.block(type: 1, body: interface)
        }
        return bytes
    }

    /// A made-up three-way handshake from `client` to `server`: both sides start at sequence
    /// number 0, so the first byte of data each sends is number 1.
    public mutating func handshake(
        seconds: UInt32, nanoseconds: UInt32, client: CaptureEndpoint, server: CaptureEndpoint
    ) -> [UInt8] {
        precondition(client.isIPv6 == server.isIPv6, "both ends IPv4 or both IPv6")
        sequences[Flow(from: client, to: server)] = 1
        sequences[Flow(from: server, to: client)] = 1
        var bytes: [UInt8] = []
        bytes += record(
            seconds: seconds, nanoseconds: nanoseconds,
            packet: Self.packet(from: client, to: server, sequence: 0, acknowledged: 0, flags: 0x02, payload: [][...]))
        bytes += record(
            seconds: seconds, nanoseconds: nanoseconds,
            packet: Self.packet(from: server, to: client, sequence: 0, acknowledged: 1, flags: 0x12, payload: [][...]))
        bytes += record(
            seconds: seconds, nanoseconds: nanoseconds,
            packet: Self.packet(from: client, to: server, sequence: 1, acknowledged: 1, flags: 0x10, payload: [][...]))
        return bytes
    }

    /// The records of `payload` sent from `from` to `to` at `seconds`.`nanoseconds` since 1970
    /// (a segment each 65,000 bytes). A flow with no handshake starts at sequence number 1.
    public mutating func records(
        seconds: UInt32, nanoseconds: UInt32, from: CaptureEndpoint, to: CaptureEndpoint, payload: [UInt8]
    ) -> [UInt8] {
        precondition(from.isIPv6 == to.isIPv6, "both ends IPv4 or both IPv6")
        let flow = Flow(from: from, to: to)
        var sequence = sequences[flow] ?? 1
        let acknowledged = sequences[Flow(from: to, to: from)] ?? 1
        var bytes: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + Self.segmentSize, payload.count)
            let packet = Self.packet(
                from: from, to: to, sequence: sequence, acknowledged: acknowledged, flags: 0x18,
                payload: payload[start..<end])
            bytes += record(seconds: seconds, nanoseconds: nanoseconds, packet: packet)
            sequence &+= UInt32(end - start)
            start = end
        } while start < payload.count
        sequences[flow] = sequence
        return bytes
    }

    private func record(seconds: UInt32, nanoseconds: UInt32, packet: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        switch format {
        case .pcap:
            bytes.appendLittleEndian(seconds)
            bytes.appendLittleEndian(nanoseconds / 1000)
            bytes.appendLittleEndian(UInt32(packet.count))
            bytes.appendLittleEndian(UInt32(packet.count))
            bytes += packet
        case .pcapng:
            let time = UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
            var body: [UInt8] = []
            body.appendLittleEndian(UInt32(0))  // interface
            body.appendLittleEndian(UInt32(truncatingIfNeeded: time >> 32))
            body.appendLittleEndian(UInt32(truncatingIfNeeded: time))
            body.appendLittleEndian(UInt32(packet.count))
            body.appendLittleEndian(UInt32(packet.count))
            body += packet
            body += [UInt8](repeating: 0, count: (4 - packet.count % 4) % 4)
            bytes = Self.block(type: 6, body: body)
        }
        return bytes
    }

    /// A pcapng block: type, total length, body (a multiple of 4 bytes), total length again.
    static func block(type: UInt32, body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(type)
        bytes.appendLittleEndian(UInt32(body.count + 12))
        bytes += body
        bytes.appendLittleEndian(UInt32(body.count + 12))
        return bytes
    }

    /// A pcapng option, padded to 4 bytes.
    static func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(code)
        bytes.appendLittleEndian(UInt16(value.count))
        return bytes + value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    static func packet(
        from: CaptureEndpoint, to: CaptureEndpoint, sequence: UInt32, acknowledged: UInt32, flags: UInt8,
        payload: ArraySlice<UInt8>
    ) -> [UInt8] {
        var tcp: [UInt8] = []
        tcp.appendBigEndian(from.port)
        tcp.appendBigEndian(to.port)
        tcp.appendBigEndian(sequence)
        tcp.appendBigEndian(acknowledged)
        tcp += [5 << 4, flags]  // 20-byte header
        tcp.appendBigEndian(UInt16(65_535))  // window
        tcp += [0, 0, 0, 0]  // checksum (below), urgent pointer
        tcp += payload
        // The pseudo-header of the TCP checksum: addresses, protocol, TCP length.
        var pseudo = from.address + to.address
        pseudo.appendBigEndian(UInt32(tcp.count))
        pseudo.appendBigEndian(UInt32(6))
        let tcpChecksum = internetChecksum(pseudo + tcp)
        tcp[16] = UInt8(tcpChecksum >> 8)
        tcp[17] = UInt8(tcpChecksum & 0xFF)
        var ip: [UInt8] = []
        if !from.isIPv6 {
            ip += [0x45, 0]
            ip.appendBigEndian(UInt16(20 + tcp.count))
            ip += [0, 0, 0x40, 0, 64, 6, 0, 0]  // id, don't fragment, TTL, TCP, checksum (below)
            ip += from.address + to.address
            let checksum = internetChecksum(ip)
            ip[10] = UInt8(checksum >> 8)
            ip[11] = UInt8(checksum & 0xFF)
        } else {
            ip += [0x60, 0, 0, 0]
            ip.appendBigEndian(UInt16(tcp.count))
            ip += [6, 64]  // TCP, hop limit
            ip += from.address + to.address
        }
        return ip + tcp
    }

    static func internetChecksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt64 = 0
        for index in stride(from: 0, to: bytes.count, by: 2) {
            sum += UInt64(bytes[index]) << 8 | UInt64(index + 1 < bytes.count ? bytes[index + 1] : 0)
        }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
