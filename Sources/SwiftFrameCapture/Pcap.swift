/// Captures in the pcap format (what tcpdump writes and Wireshark reads): frames written by a
/// client or a server as TCP segments of made-up IP packets between the connection's two
/// addresses, and TCP streams read back from captures of real traffic. No Foundation.

/// One end of a TCP connection.
public struct CaptureEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public var address: [UInt8]
    public var port: UInt16

    public init(address: [UInt8], port: UInt16) {
        precondition(address.count == 4 || address.count == 16, "an IPv4 or IPv6 address")
        self.address = address
        self.port = port
    }

    public var description: String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        var groups: [String] = []
        for index in stride(from: 0, to: 16, by: 2) {
            groups.append(String(UInt16(address[index]) << 8 | UInt16(address[index + 1]), radix: 16))
        }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}

/// Writes pcap records: each call gives the bytes to append to the file. Keeps each direction's
/// TCP sequence number, so that Wireshark and tcpdump follow the streams.
public struct PcapWriter: Sendable {
    /// LINKTYPE_RAW: each packet starts at its IP header (version 4 or 6).
    static let linkTypeRaw: UInt32 = 101
    /// Payload bytes per made-up segment, under IPv4's 64 KiB packet size.
    static let segmentSize = 65_000

    private var sequences: [Flow: UInt32] = [:]

    private struct Flow: Hashable {
        let from: CaptureEndpoint
        let to: CaptureEndpoint
    }

    public init() {}

    /// The file's first 24 bytes.
    public static var fileHeader: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(UInt32(0xA1B2_C3D4))  // microsecond timestamps
        bytes.appendLittleEndian(UInt16(2))
        bytes.appendLittleEndian(UInt16(4))
        bytes.appendLittleEndian(UInt32(0))  // time zone
        bytes.appendLittleEndian(UInt32(0))  // accuracy
        bytes.appendLittleEndian(UInt32(262_144))  // snapshot length
        bytes.appendLittleEndian(linkTypeRaw)
        return bytes
    }

    /// The records of `payload` sent from `from` to `to` at `seconds`.`microseconds` since 1970.
    public mutating func records(
        seconds: UInt32, microseconds: UInt32, from: CaptureEndpoint, to: CaptureEndpoint, payload: [UInt8]
    ) -> [UInt8] {
        precondition(from.address.count == to.address.count, "both ends IPv4 or both IPv6")
        let flow = Flow(from: from, to: to)
        var sequence = sequences[flow] ?? 1
        let acknowledged = sequences[Flow(from: to, to: from)] ?? 1
        var bytes: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + Self.segmentSize, payload.count)
            let packet = Self.packet(from: from, to: to, sequence: sequence, acknowledged: acknowledged, payload: payload[start..<end])
            bytes.appendLittleEndian(seconds)
            bytes.appendLittleEndian(microseconds)
            bytes.appendLittleEndian(UInt32(packet.count))
            bytes.appendLittleEndian(UInt32(packet.count))
            bytes += packet
            sequence &+= UInt32(end - start)
            start = end
        } while start < payload.count
        sequences[flow] = sequence
        return bytes
    }

    private static func packet(
        from: CaptureEndpoint, to: CaptureEndpoint, sequence: UInt32, acknowledged: UInt32, payload: ArraySlice<UInt8>
    ) -> [UInt8] {
        var tcp: [UInt8] = []
        tcp.appendBigEndian(from.port)
        tcp.appendBigEndian(to.port)
        tcp.appendBigEndian(sequence)
        tcp.appendBigEndian(acknowledged)
        tcp += [5 << 4, 0x18]  // 20-byte header; PSH, ACK
        tcp.appendBigEndian(UInt16(65_535))  // window
        tcp += [0, 0, 0, 0]  // checksum (not checked by readers by default), urgent pointer
        var ip: [UInt8] = []
        if from.address.count == 4 {
            ip += [0x45, 0]
            ip.appendBigEndian(UInt16(20 + tcp.count + payload.count))
            ip += [0, 0, 0x40, 0, 64, 6, 0, 0]  // id, don't fragment, TTL, TCP, checksum (below)
            ip += from.address + to.address
            let checksum = internetChecksum(ip)
            ip[10] = UInt8(checksum >> 8)
            ip[11] = UInt8(checksum & 0xFF)
        } else {
            ip += [0x60, 0, 0, 0]
            ip.appendBigEndian(UInt16(tcp.count + payload.count))
            ip += [6, 64]  // TCP, hop limit
            ip += from.address + to.address
        }
        return ip + tcp + payload
    }

    private static func internetChecksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        for index in stride(from: 0, to: bytes.count, by: 2) {
            sum += UInt32(bytes[index]) << 8 | UInt32(index + 1 < bytes.count ? bytes[index + 1] : 0)
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
