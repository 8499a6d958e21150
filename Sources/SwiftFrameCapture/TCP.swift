/// A TCP segment read from a capture (with or without data).
public struct TCPSegment: Sendable, Hashable {
    /// Seconds since 1970 (fractions from the capture's resolution).
    public var time: Double
    public var from: CaptureEndpoint
    public var to: CaptureEndpoint
    public var sequence: UInt32
    public var acknowledged: UInt32
    /// The TCP flags byte (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10).
    public var flags: UInt8
    public var payload: ArraySlice<UInt8>

    public init(
        time: Double, from: CaptureEndpoint, to: CaptureEndpoint, sequence: UInt32, acknowledged: UInt32 = 0,
        flags: UInt8 = 0x18, payload: ArraySlice<UInt8>
    ) {
        self.time = time
        self.from = from
        self.to = to
        self.sequence = sequence
        self.acknowledged = acknowledged
        self.flags = flags
        self.payload = payload
    }

    public var isSYN: Bool { flags & 0x02 != 0 }
    public var isACK: Bool { flags & 0x10 != 0 }

    /// The link types whose packets `init(packet:)` reads: Ethernet (1), BSD loopback (0, and
    /// OpenBSD's 12), raw IP (101, and 228/229, raw IPv4/IPv6), Linux cooked capture v1 (113)
    /// and v2 (276).
    public static let linkTypes: Set<UInt32> = [0, 1, 12, 101, 113, 228, 229, 276]

    /// The TCP segment in `packet` (IPv4 or IPv6, past its link-layer header); nil for
    /// anything else, a fragment, or a packet cut short before its TCP header ends.
    public init?(packet: CapturedPacket) {
        guard let segment = packet.data.withUnsafeBufferPointer({ Self.parse($0, linkType: packet.linkType) }) else {
            return nil
        }
        let base = packet.data.startIndex
        self.init(
            time: packet.time, from: segment.from, to: segment.to, sequence: segment.sequence,
            acknowledged: segment.acknowledged, flags: segment.flags,
            payload: packet.data[base + segment.payload.lowerBound..<base + segment.payload.upperBound])
    }

    private struct Parsed {
        var from: CaptureEndpoint
        var to: CaptureEndpoint
        var sequence: UInt32
        var acknowledged: UInt32
        var flags: UInt8
        var payload: Range<Int>
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, linkType: UInt32) -> Parsed? {
        var ip: Int  // index of the IP header
        switch linkType {
        case 1:  // Ethernet, with up to two VLAN tags
            var typeAt = 12
            while bytes.count >= typeAt + 2,
                bytes[typeAt] == 0x81 && bytes[typeAt + 1] == 0x00
                    || bytes[typeAt] == 0x88 && bytes[typeAt + 1] == 0xA8, typeAt < 20
            {
                typeAt += 4
            }
            ip = typeAt + 2
        case 0, 12: ip = 4  // BSD loopback: a 4-byte address family
        case 113: ip = 16  // Linux cooked capture v1
        case 276: ip = 20  // Linux cooked capture v2
        case 101, 228, 229: ip = 0  // raw IP
        default: return nil
        }
        guard bytes.count > ip else { return nil }
        func be16(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        func be32(_ at: Int) -> UInt32 { UInt32(be16(at)) << 16 | UInt32(be16(at + 2)) }
        func be64(_ at: Int) -> UInt64 { UInt64(be32(at)) << 32 | UInt64(be32(at + 4)) }
        let from: CaptureEndpoint, to: CaptureEndpoint
        var tcp: Int, end: Int
        switch bytes[ip] >> 4 {
        case 4:
            let headerLength = Int(bytes[ip] & 0x0F) * 4
            guard headerLength >= 20, bytes.count >= ip + headerLength, bytes[ip + 9] == 6 else { return nil }
            guard be16(ip + 6) & 0x3FFF == 0 else { return nil }  // a fragment
            let total = Int(be16(ip + 2))
            from = CaptureEndpoint(high: 0, low: UInt64(be32(ip + 12)), isIPv6: false, port: 0)
            to = CaptureEndpoint(high: 0, low: UInt64(be32(ip + 16)), isIPv6: false, port: 0)
            tcp = ip + headerLength
            end = total >= headerLength ? min(ip + total, bytes.count) : bytes.count  // 0: segmentation offload
        case 6:
            guard bytes.count >= ip + 40, bytes[ip + 6] == 6 else { return nil }  // no extension headers
            let payloadLength = Int(be16(ip + 4))
            from = CaptureEndpoint(high: be64(ip + 8), low: be64(ip + 16), isIPv6: true, port: 0)
            to = CaptureEndpoint(high: be64(ip + 24), low: be64(ip + 32), isIPv6: true, port: 0)
            tcp = ip + 40
            end = payloadLength > 0 ? min(tcp + payloadLength, bytes.count) : bytes.count
        default:
            return nil
        }
        guard end - tcp >= 20 else { return nil }
        let dataOffset = Int(bytes[tcp + 12] >> 4) * 4
        guard dataOffset >= 20, end - tcp >= dataOffset else { return nil }
        var source = from, destination = to
        source.port = be16(tcp)
        destination.port = be16(tcp + 2)
        return Parsed(
            from: source, to: destination, sequence: be32(tcp + 4), acknowledged: be32(tcp + 8), flags: bytes[tcp + 13],
            payload: tcp + dataOffset..<end)
    }
}

/// Follows every TCP connection of a capture: puts each direction's data back in order (a
/// segment seen again, a retransmission, is dropped; one that arrives early waits for the bytes
/// before it, up to `maxHeld` bytes per direction, past which the gap is given up), and tells
/// which side is the client: the side talking to `serverPort` when one is given, else the side
/// that sent the SYN, else unknown.
public struct TCPFollower: Sendable {
    public enum Role: Sendable, Hashable {
        case clientToServer, serverToClient, unknown
    }

    /// Bytes of one direction of a connection, ready in stream order.
    public struct Delivery {
        /// The connection's number, from 0 in the order they appear (a new SYN on the same
        /// addresses and ports starts a new one).
        public var connection: Int
        /// 0 or 1: which direction of the connection.
        public var direction: Int
        public var from: CaptureEndpoint
        public var to: CaptureEndpoint
        public var role: Role
        public var time: Double
        public var bytes: ArraySlice<UInt8>
        /// The first bytes of this direction, which the capture did not see start (no SYN): a
        /// frame may begin anywhere in them.
        public var midStream: Bool
        /// Bytes before these were lost (a gap given up): a frame may begin anywhere in them.
        public var afterGap: Bool
    }

    private struct Direction {
        var next: UInt32?
        var delivered = false
        var held: [UInt32: [UInt8]] = [:]
        var heldBytes = 0
        var synSeen = false
    }

    private struct Connection {
        var number: Int
        /// The lower endpoint of the key; direction 0 is from it.
        var low: CaptureEndpoint
        var high: CaptureEndpoint
        var client: CaptureEndpoint?
        var directions = [Direction(), Direction()]
    }

    private struct Key: Hashable {
        var low: CaptureEndpoint
        var high: CaptureEndpoint
    }

    public let serverPort: UInt16?
    public let maxHeld: Int
    private var table: [Key: Int] = [:]
    private var connections: [Connection] = []
    private var count = 0

    public init(serverPort: UInt16? = nil, maxHeld: Int = 4 << 20) {
        self.serverPort = serverPort
        self.maxHeld = maxHeld
    }

    /// Takes one segment; calls `deliver` with the bytes it makes ready (none, or more than
    /// one delivery when it fills a hole or a gap is given up).
    public mutating func add(_ segment: TCPSegment, deliver: (Delivery) throws -> Void) rethrows {
        let forward = segment.from < segment.to
        let key = forward ? Key(low: segment.from, high: segment.to) : Key(low: segment.to, high: segment.from)
        let direction = forward ? 0 : 1
        let index: Int
        if let known = table[key] {
            index = known
            // A SYN after data on the same ports: a new connection.
            let old = connections[index].directions[direction]
            if segment.isSYN, old.delivered || old.synSeen && old.next != segment.sequence &+ 1 {
                connections[index] = Connection(number: count, low: key.low, high: key.high)
                count += 1
            }
        } else {
            index = connections.count
            table[key] = index
            connections.append(Connection(number: count, low: key.low, high: key.high))
            count += 1
        }
        if segment.isSYN {
            connections[index].directions[direction].synSeen = true
            connections[index].directions[direction].next = segment.sequence &+ 1
            if connections[index].client == nil {
                connections[index].client = segment.isACK ? segment.to : segment.from
            }
        }
        guard !segment.payload.isEmpty, segment.flags & 0x04 == 0 else { return }  // no data, or a reset
        let role: Role
        if let serverPort, (segment.from.port == serverPort) != (segment.to.port == serverPort) {
            role = segment.to.port == serverPort ? .clientToServer : .serverToClient
        } else if let client = connections[index].client {
            role = client == segment.from ? .clientToServer : .serverToClient
        } else {
            role = .unknown
        }
        let delivery = Delivery(
            connection: connections[index].number, direction: direction, from: segment.from, to: segment.to, role: role,
            time: segment.time, bytes: [][...], midStream: false, afterGap: false)
        try Self.follow(
            segment, in: &connections[index].directions[direction], delivery: delivery, maxHeld: maxHeld,
            deliver: deliver)
    }

    private static func follow(
        _ segment: TCPSegment, in state: inout Direction, delivery template: Delivery, maxHeld: Int,
        deliver: (Delivery) throws -> Void
    ) rethrows {
        var delivery = template
        let payloadStart = segment.isSYN ? segment.sequence &+ 1 : segment.sequence
        guard let next = state.next else {
            // The first bytes seen of a direction whose start the capture missed.
            state.next = payloadStart &+ UInt32(segment.payload.count)
            state.delivered = true
            delivery.bytes = segment.payload
            delivery.midStream = true
            try deliver(delivery)
            return
        }
        let ahead = Int32(bitPattern: payloadStart &- next)
        if ahead > 0 {
            // Early: hold it (the longer of two copies of the same start) until its hole fills.
            let previous = state.held[payloadStart]?.count ?? 0
            if segment.payload.count > previous {
                state.held[payloadStart] = Array(segment.payload)
                state.heldBytes += segment.payload.count - previous
            }
            guard state.heldBytes > maxHeld else { return }
            // Give the hole up: go on from the earliest held segment.
            let earliest = state.held.keys.min { $0 &- next < $1 &- next }!
            state.next = earliest
            delivery.afterGap = true
        } else {
            let end = payloadStart &+ UInt32(segment.payload.count)
            guard Int32(bitPattern: end &- next) > 0 else { return }  // a retransmission
            delivery.bytes = segment.payload.dropFirst(Int(-ahead))
            state.next = end
            state.delivered = true
            try deliver(delivery)
        }
        // Held segments that now follow on.
        while !state.held.isEmpty, let current = state.next {
            guard let start = state.held.keys.first(where: { Int32(bitPattern: $0 &- current) <= 0 }) else { break }
            let data = state.held.removeValue(forKey: start)!
            state.heldBytes -= data.count
            let skip = Int(current &- start)
            guard skip < data.count else { continue }
            delivery.bytes = data[skip...]
            state.next = start &+ UInt32(data.count)
            state.delivered = true
            try deliver(delivery)
            delivery.afterGap = false
        }
    }
}
