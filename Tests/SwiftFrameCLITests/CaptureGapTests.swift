import Foundation
import TestSupport
import Testing

/// `swiftframe inspect` on a capture with a hole never filled: the bytes after it are held
/// (4 MiB a direction) and then given up on, which is an `error` line; with a magic the
/// direction is then searched for it, without one it is not decoded further. The other
/// direction goes on either way.
@Suite struct CaptureGapTests {
    /// Bytes held past the hole: 66 segments of 64,000, just over the 4 MiB `inspect` holds.
    static let heldSegments = 66
    static let segmentSize = 64_000

    /// A connection from its handshake: `first` from the client, then a hole of `missing` bytes,
    /// then `held` (cut into segments, given up on with the last), `after` from the client in
    /// order, and `reply` from the server. Times: the packet's number, in microseconds.
    static func capture(first: [UInt8], missing: Int, held: [UInt8], after: [UInt8], reply: [UInt8]) -> [UInt8] {
        var packets: [(UInt32, [UInt8])] = [
            (1, Built.tcp(Built.client, Built.server, seq: 0, flags: 0x02)),
            (2, Built.tcp(Built.server, Built.client, seq: 0, ack: 1, flags: 0x12)),
            (3, Built.tcp(Built.client, Built.server, seq: 1, first)),
        ]
        var sequence = UInt32(1 + first.count + missing)
        for start in stride(from: 0, to: held.count, by: segmentSize) {
            let piece = Array(held[start..<min(start + segmentSize, held.count)])
            packets.append((UInt32(packets.count + 1), Built.tcp(Built.client, Built.server, seq: sequence, piece)))
            sequence += UInt32(piece.count)
        }
        packets.append((UInt32(packets.count + 1), Built.tcp(Built.client, Built.server, seq: sequence, after)))
        packets.append((UInt32(packets.count + 1), Built.tcp(Built.server, Built.client, seq: 1, reply)))
        return Built.pcap(packets)
    }

    static let toServer = "from=10.0.0.1:5000 to=10.0.0.2:7000 dir=client->server"
    static let toClient = "from=10.0.0.2:7000 to=10.0.0.1:5000 dir=server->client"

    @Test func withAMagicTheDirectionIsSearchedForItAfterTheErrorLine() throws {
        let test = InspectTests.testFrame  // 14 bytes: CMD_TEST, body 08 01
        // The hole takes the first 5 bytes of a frame: the 9 after it hold no magic. Then one
        // frame filling the rest of the held bytes.
        let tail = Array(test.dropFirst(5))
        let payload = Self.heldSegments * Self.segmentSize - tail.count - 12
        let size = UInt32(4 + payload)
        let big: [UInt8] =
            [0, 0, 0, 0xFF] + Built.u32(size, big: true) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: payload)
        let bytes = Self.capture(first: test, missing: 5, held: tail + big, after: test, reply: InspectTests.heartbeat)
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: bytes)
        let givenUp = String(format: "1700000000.%06d", 3 + Self.heldSegments)
        let after = String(format: "1700000000.%06d", 4 + Self.heldSegments)
        let reply = String(format: "1700000000.%06d", 5 + Self.heldSegments)
        #expect(
            result.lines == [
                "frame time=1700000000.000003 \(Self.toServer) offset=0 magic=255 length=6 cmd=1 payload=2",
                "error time=\(givenUp) \(Self.toServer) bytes missing from the capture; looking for the magic",
                "note time=\(givenUp) \(Self.toServer) offset=0 the capture starts inside a frame (bad magic 0x600, expected 0xFF); looking for the magic",
                "frame time=\(givenUp) \(Self.toServer) offset=9 magic=255 length=\(size) cmd=1 payload=\(payload)",
                "frame time=\(after) \(Self.toServer) offset=\(9 + 12 + payload) magic=255 length=6 cmd=1 payload=2",
                "frame time=\(reply) \(Self.toClient) offset=0 magic=255 length=4 cmd=99900002 payload=0",
            ], "\(result.stdout)\(result.stderr)")
        #expect(result.status == 1, "the hole is an error")
    }

    @Test func withoutAMagicTheDirectionIsNotDecodedFurther() throws {
        // erlang: length u32 (bytes after it) | protocol u16 | body.
        let request: [UInt8] = [0, 0, 0, 4, 0, 1, 0x08, 0x01]
        let reply: [UInt8] = [0, 0, 0, 2, 0, 9]
        let held = [UInt8](repeating: 0, count: Self.heldSegments * Self.segmentSize)
        let bytes = Self.capture(first: request, missing: 3, held: held, after: request, reply: reply)
        let result = try CLI.inspect(["--layout", "erlang"], stream: bytes)
        let givenUp = String(format: "1700000000.%06d", 3 + Self.heldSegments)
        let replied = String(format: "1700000000.%06d", 5 + Self.heldSegments)
        #expect(
            result.lines == [
                "frame time=1700000000.000003 \(Self.toServer) offset=0 length=4 cmd=1 payload=2",
                "error time=\(givenUp) \(Self.toServer) bytes missing from the capture; this direction is not decoded further",
                "frame time=\(replied) \(Self.toClient) offset=0 length=2 cmd=9 payload=0",
            ], "\(result.stdout)\(result.stderr)")
        #expect(result.status == 1)
    }
}
