import Foundation
import SwiftFrameCapture
import TestSupport
import Testing

/// Captures built byte by byte here (pcap and pcapng blocks, Ethernet, IPv4 and TCP headers),
/// independently of CaptureWriter, read by `swiftframe inspect` and by CaptureReader.
enum Built {
    static func u16(_ value: UInt16, big: Bool) -> [UInt8] {
        big ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
    static func u32(_ value: UInt32, big: Bool) -> [UInt8] {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        return big ? bytes.reversed() : bytes
    }

    /// An IPv4 packet (no checksums: readers do not check them) with a TCP segment.
    static func tcp(
        _ from: (UInt8, UInt16), _ to: (UInt8, UInt16), seq: UInt32, ack: UInt32 = 0, flags: UInt8 = 0x18,
        _ payload: [UInt8] = []
    ) -> [UInt8] {
        let tcp =
            u16(from.1, big: true) + u16(to.1, big: true) + u32(seq, big: true) + u32(ack, big: true)
            + [0x50, flags, 0xFF, 0xFF, 0, 0, 0, 0] + payload
        return [0x45, 0] + u16(UInt16(20 + tcp.count), big: true) + [0, 0, 0x40, 0, 64, 6, 0, 0]
            + [10, 0, 0, from.0] + [10, 0, 0, to.0] + tcp
    }

    static func ethernet(_ ip: [UInt8]) -> [UInt8] { [UInt8](repeating: 2, count: 12) + [0x08, 0x00] + ip }

    /// A classic pcap file of raw IP packets, microsecond times.
    static func pcap(_ packets: [(UInt32, [UInt8])]) -> [UInt8] {
        var bytes =
            u32(0xA1B2_C3D4, big: false) + u16(2, big: false) + u16(4, big: false) + [UInt8](repeating: 0, count: 8)
            + u32(65535, big: false) + u32(101, big: false)
        for (micros, packet) in packets {
            bytes +=
                u32(1_700_000_000, big: false) + u32(micros, big: false) + u32(UInt32(packet.count), big: false)
                + u32(UInt32(packet.count), big: false) + packet
        }
        return bytes
    }

    struct Pcapng {
        let big: Bool
        var bytes: [UInt8] = []

        mutating func block(_ type: UInt32, _ body: [UInt8]) {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            bytes +=
                u32(type, big: big) + u32(UInt32(padded.count + 12), big: big) + padded
                + u32(UInt32(padded.count + 12), big: big)
        }

        mutating func section() {
            block(
                0x0A0D_0D0A,
                u32(0x1A2B_3C4D, big: big) + u16(1, big: big) + u16(0, big: big) + [UInt8](repeating: 0xFF, count: 8))
        }

        mutating func interface(linkType: UInt16, resolution: UInt8?) {
            var body = u16(linkType, big: big) + u16(0, big: big) + u32(0, big: big)
            if let resolution { body += u16(9, big: big) + u16(1, big: big) + [resolution, 0, 0, 0] + [0, 0, 0, 0] }
            block(1, body)
        }

        mutating func packet(interface: UInt32, stamp: UInt64, _ data: [UInt8]) {
            block(
                6,
                u32(interface, big: big) + u32(UInt32(stamp >> 32), big: big)
                    + u32(UInt32(truncatingIfNeeded: stamp), big: big)
                    + u32(UInt32(data.count), big: big) + u32(UInt32(data.count), big: big) + data)
        }

        mutating func simplePacket(_ data: [UInt8]) {
            block(3, u32(UInt32(data.count), big: big) + data)
        }
    }

    static let client: (UInt8, UInt16) = (1, 5000)
    static let server: (UInt8, UInt16) = (2, 7000)
}

@Suite struct CaptureTests {
    static let testFrame = InspectTests.testFrame
    static let heartbeat = InspectTests.heartbeat

    @Test(arguments: [false, true]) func pcapngOfEitherByteOrderWithTwoInterfaces(bigEndian: Bool) throws {
        var file = Built.Pcapng(big: bigEndian)
        file.section()
        file.interface(linkType: 1, resolution: nil)  // Ethernet, microseconds
        file.block(0x0000_0BAD, [1, 2, 3, 4, 5])  // a block no reader knows
        file.interface(linkType: 101, resolution: 9)  // raw IP, nanoseconds
        file.packet(
            interface: 0, stamp: 1_700_000_000_000_001,
            Built.ethernet(Built.tcp(Built.client, Built.server, seq: 99, flags: 0x02)))
        file.packet(
            interface: 1, stamp: 1_700_000_000_000_002_000,
            Built.tcp(Built.server, Built.client, seq: 499, ack: 100, flags: 0x12))
        file.packet(
            interface: 1, stamp: 1_700_000_000_000_003_000,
            Built.tcp(Built.client, Built.server, seq: 100, Self.testFrame))
        file.simplePacket(Built.ethernet(Built.tcp(Built.server, Built.client, seq: 500, Self.heartbeat)))
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: file.bytes)
        #expect(
            result.lines == [
                "frame time=1700000000.000003 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=client->server offset=0 magic=255 length=6 cmd=1 payload=2",
                "frame time=1700000000.000003 from=10.0.0.2:7000 to=10.0.0.1:5000 dir=server->client offset=0 magic=255 length=4 cmd=99900002 payload=0",
            ], "\(result.stdout)\(result.stderr)")
        #expect(result.status == 0)
    }

    @Test func segmentsOutOfOrderAndRetransmittedAreReadOnceInOrder() throws {
        let stream = Self.testFrame + Self.heartbeat  // 26 bytes, cut at 5 and 14
        let a = Array(stream[0..<5]), b = Array(stream[5..<14]), c = Array(stream[14...])
        let packets: [(UInt32, [UInt8])] = [
            (1, Built.tcp(Built.client, Built.server, seq: 0, flags: 0x02)),
            (2, Built.tcp(Built.server, Built.client, seq: 0, ack: 1, flags: 0x12)),
            (3, Built.tcp(Built.client, Built.server, seq: 15, c)),
            (4, Built.tcp(Built.client, Built.server, seq: 1, a)),
            (5, Built.tcp(Built.client, Built.server, seq: 1, a)),  // a retransmission
            (6, Built.tcp(Built.client, Built.server, seq: 1, a + b)),  // a retransmission with more
            (7, Built.tcp(Built.client, Built.server, seq: 6, b)),
        ]
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: Built.pcap(packets))
        #expect(
            result.lines == [
                "frame time=1700000000.000006 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=client->server offset=0 magic=255 length=6 cmd=1 payload=2",
                "frame time=1700000000.000006 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=client->server offset=14 magic=255 length=4 cmd=99900002 payload=0",
            ], "\(result.stdout)\(result.stderr)")
        #expect(result.status == 0)
    }

    @Test func aCaptureThatStartsMidStreamResyncsOnTheMagic() throws {
        // No SYN: the first bytes are the tail of a frame.
        let packets: [(UInt32, [UInt8])] = [
            (1, Built.tcp(Built.client, Built.server, seq: 7000, [0x08, 0x01, 0x00] + Self.testFrame)),
            (2, Built.tcp(Built.server, Built.client, seq: 9000, Self.heartbeat)),
        ]
        let unknown = try CLI.inspect(["--layout", "game-tcp"], stream: Built.pcap(packets))
        #expect(unknown.lines.count == 3, "\(unknown.stdout)")
        #expect(
            unknown.lines.first?.hasPrefix(
                "note time=1700000000.000001 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=unknown offset=0 the capture starts inside a frame"
            ) == true, "\(unknown.stdout)")
        #expect(
            unknown.lines.dropFirst().first
                == "frame time=1700000000.000001 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=unknown offset=3 magic=255 length=6 cmd=1 payload=2"
        )
        #expect(unknown.status == 0)
        let byPort = try CLI.inspect(["--layout", "game-tcp", "--port", "7000"], stream: Built.pcap(packets))
        #expect(
            byPort.lines.dropFirst() == [
                "frame time=1700000000.000001 from=10.0.0.1:5000 to=10.0.0.2:7000 dir=client->server offset=3 magic=255 length=6 cmd=1 payload=2",
                "frame time=1700000000.000002 from=10.0.0.2:7000 to=10.0.0.1:5000 dir=server->client offset=0 magic=255 length=4 cmd=99900002 payload=0",
            ], "\(byPort.stdout)")
    }

    @Test func malformedCapturesAreTypedErrors() throws {
        var header = Built.Pcapng(big: false)
        header.section()
        header.interface(linkType: 101, resolution: nil)
        var full = header
        full.packet(interface: 0, stamp: 1, Built.tcp(Built.client, Built.server, seq: 1, Self.testFrame))
        let cases: [([UInt8], String)] = [
            // A block that claims 2 GiB: refused when its header is read, nothing allocated.
            (
                header.bytes + Built.u32(6, big: false) + Built.u32(0x7FFF_FFF0, big: false)
                    + [UInt8](repeating: 0, count: 40),
                "a block of 2147483632 bytes exceeds the limit of 16777216 at offset \(header.bytes.count + 4)"
            ),
            (Array(full.bytes.dropLast(10)), "past the end of the file"),
            (Array(full.bytes.dropLast(4)) + Built.u32(12, big: false), "the block's trailing length 12 differs"),
            (
                header.bytes
                    + {
                        var next = Built.Pcapng(big: false); next.packet(interface: 3, stamp: 1, [1]); return next.bytes
                    }(),
                "a packet on interface 3, but the section describes 1"
            ),
            (
                Array(header.bytes.prefix(8)) + [0x12, 0x34, 0x56, 0x78] + header.bytes.dropFirst(12),
                "bad byte-order magic in a section header at offset 8"
            ),
            (
                Built.pcap([(1, [1, 2, 3])]).dropLast(2),
                "a record of 19 bytes, past the end of the file (17 bytes left)"
            ),
        ]
        for (bytes, message) in cases {
            let result = try CLI.inspect(["--layout", "game-tcp"], stream: bytes)
            #expect(result.status == 1, "\(message): \(result.stdout)")
            #expect(result.stderr.contains(message), "\(message): \(result.stderr)")
        }
    }

    @Test func theReaderGivesTheSamePacketsWhateverPiecesItIsFed() throws {
        var file = Built.Pcapng(big: true)
        file.section()
        file.interface(linkType: 101, resolution: 0x80 | 20)  // 2^-20 s
        for index in 0..<20 {
            file.packet(
                interface: 0, stamp: UInt64(index) << 20 | 1 << 19,
                Built.tcp(
                    Built.client, Built.server, seq: UInt32(index), [UInt8](repeating: UInt8(index), count: index)))
        }
        func read(_ pieceSize: Int) throws -> [String] {
            var reader = CaptureReader()
            var packets: [String] = []
            var offset = 0
            while offset < file.bytes.count {
                reader.feed(file.bytes[offset..<min(offset + pieceSize, file.bytes.count)])
                offset += pieceSize
                while let packet = try reader.nextPacket() {
                    packets.append("\(packet.time) \(packet.linkType) \(Array(packet.data)) \(packet.offset)")
                }
            }
            try reader.finish()
            return packets
        }
        let whole = try read(file.bytes.count)
        #expect(whole.count == 20)
        #expect(whole.first?.hasPrefix("0.5 101 ") == true)
        #expect(try read(1) == whole)
        #expect(try read(7) == whole)
    }

    @Test func aGapGivenUpIsReportedAndDecodingGoesOnAtTheNextMagic() {
        var follower = TCPFollower(maxHeld: 20)
        let client = CaptureEndpoint(address: [10, 0, 0, 1], port: 5000),
            server = CaptureEndpoint(address: [10, 0, 0, 2], port: 7000)
        var got: [(bytes: [UInt8], gap: Bool, mid: Bool)] = []
        for (sequence, count) in [(0, 10), (20, 10), (30, 11)] {
            let segment = TCPSegment(
                time: 0, from: client, to: server, sequence: UInt32(sequence),
                payload: [UInt8](repeating: UInt8(sequence), count: count)[...])
            follower.add(segment) { got.append((Array($0.bytes), $0.afterGap, $0.midStream)) }
        }
        #expect(got.map(\.bytes.count) == [10, 10, 11])
        #expect(got.map(\.gap) == [false, true, false])
        #expect(got.map(\.mid) == [true, false, false])
    }

    /// Not a fuzz target (FuzzTesting/ has none for captures yet): 5,000 mutations of a valid
    /// pcapng and pcap, fed in random pieces, end in packets or a typed error, never a crash.
    @Test func mutatedCapturesNeverCrash() {
        var file = Built.Pcapng(big: false)
        file.section()
        file.interface(linkType: 1, resolution: 9)
        file.interface(linkType: 101, resolution: nil)
        file.packet(interface: 0, stamp: 5, Built.ethernet(Built.tcp(Built.client, Built.server, seq: 0, flags: 0x02)))
        file.packet(interface: 1, stamp: 6, Built.tcp(Built.client, Built.server, seq: 1, Self.testFrame))
        file.simplePacket(Built.ethernet(Built.tcp(Built.server, Built.client, seq: 9, Self.heartbeat)))
        let seeds = [file.bytes, Built.pcap([(1, Built.tcp(Built.client, Built.server, seq: 1, Self.testFrame))])]
        var random = SystemRandomNumberGenerator()
        for round in 0..<5_000 {
            var bytes = seeds[round % 2]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 4..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...8, using: &random)))
                default:
                    bytes.insert(
                        contentsOf: [UInt8](repeating: 0xFF, count: Int.random(in: 1...4, using: &random)), at: index)
                }
                if bytes.count <= 4 { break }
            }
            var reader = CaptureReader()
            var follower = TCPFollower(maxHeld: 64)
            var offset = 0
            reading: while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...64, using: &random))
                reader.feed(bytes[offset..<end])
                offset = end
                do {
                    while let packet = try reader.nextPacket() {
                        if let segment = TCPSegment(packet: packet) { follower.add(segment) { _ in } }
                    }
                } catch {
                    break reading
                }
            }
            _ = try? reader.finish()
        }
    }
}
