import Foundation
import TestSupport
import Testing

/// `swiftframe inspect` run as a process on captured streams; streams are written byte by byte
/// here, independently of the encoder.
@Suite struct InspectTests {
    // game-tcp: CMD_TEST with body 08 01 (size 6), then a heartbeat (size 4, cmd 99900002).
    static let testFrame: [UInt8] = [0, 0, 0, 0xFF, 0, 0, 0, 6, 0, 0, 0, 1, 0x08, 0x01]
    static let heartbeat: [UInt8] = [0, 0, 0, 0xFF, 0, 0, 0, 4, 0x05, 0xF4, 0x5A, 0x62]

    @Test func goodStream() throws {
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: Self.testFrame + Self.heartbeat)
        #expect(
            result.lines == [
                "frame offset=0 magic=255 length=6 cmd=1 payload=2",
                "frame offset=14 magic=255 length=4 cmd=99900002 payload=0",
            ])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    @Test func streamOnStandardInput() throws {
        // IM: heartbeat seq 7, then a request seq 8 with body 08 01.
        let stream: [UInt8] = [0x81, 0, 0, 0, 7, 1, 0, 0] + [0x81, 0, 0, 0, 8, 2, 0, 2, 0x08, 0x01]
        let result = try CLI.inspect(["--layout", "im"], stream: stream, viaStdin: true)
        #expect(
            result.lines == [
                "frame offset=0 magic=129 seq=7 type=1 length=0 payload=0",
                "frame offset=8 magic=129 seq=8 type=2 length=2 payload=2",
            ])
        #expect(result.status == 0)
    }

    @Test func badMagicEndsTheStream() throws {
        let result = try CLI.inspect(
            ["--layout", "game-tcp"], stream: Self.testFrame + [0, 0, 0, 0xFE, 0] + Self.heartbeat)
        #expect(
            result.lines == [
                "frame offset=0 magic=255 length=6 cmd=1 payload=2",
                "error offset=14 bad magic 0xFE, expected 0xFF",
            ])
        #expect(result.status == 1)
    }

    @Test func badMagicWithResyncGoesOn() throws {
        let result = try CLI.inspect(
            ["--layout", "game-tcp", "--resync", "64"],
            stream: Self.testFrame + [0, 0, 0, 0xFE, 0] + Self.heartbeat)
        #expect(
            result.lines == [
                "frame offset=0 magic=255 length=6 cmd=1 payload=2",
                "error offset=14 bad magic 0xFE, expected 0xFF",
                "frame offset=19 magic=255 length=4 cmd=99900002 payload=0",
            ])
        #expect(result.status == 1)
    }

    @Test func truncatedTail() throws {
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: Self.testFrame + Self.heartbeat.prefix(6))
        #expect(
            result.lines == [
                "frame offset=0 magic=255 length=6 cmd=1 payload=2",
                "error offset=14 truncated frame: the stream ends after 6 bytes of it",
            ])
        #expect(result.status == 1)
    }

    @Test func absurdLength() throws {
        let result = try CLI.inspect(["--layout", "game-tcp"], stream: [0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0])
        #expect(result.lines == ["error offset=4 frame of 4294967303 bytes exceeds the limit of 16777216"])
        #expect(result.status == 1)
    }

    @Test func customDescriptionFile() throws {
        let layout = try CLI.temporaryFile(
            contents: Array(
                """
                # an IM-like header with a flags byte and a little-endian length
                magic:u8=0x81 seq:u32 type:u8:known=1,2,3,4
                extra.flags:u8 length:u16le:body
                """.utf8))
        defer { try? FileManager.default.removeItem(atPath: layout) }
        let stream: [UInt8] = [0x81, 0, 0, 0, 1, 2, 7, 0x02, 0x00, 0xAA, 0xBB, 0x81, 0, 0, 0, 2, 9, 0, 0, 0]
        let result = try CLI.inspect(["--layout", layout], stream: stream)
        #expect(
            result.lines == [
                "frame offset=0 magic=129 seq=1 type=2 flags=7 length=2 payload=2",
                "error offset=16 unknown type 9",
            ])
        #expect(result.status == 1)
    }

    @Test func framesAcrossReadChunks() throws {
        // Three u32le frames of 3000 bytes: the second and third straddle 4 KiB reads.
        var stream: [UInt8] = []
        for index in 0..<3 {
            stream += [0xB8, 0x0B, 0x00, 0x00] + [UInt8](repeating: UInt8(index), count: 3000)
        }
        let result = try CLI.inspect(["--layout", "u32le"], stream: stream)
        #expect(
            result.lines == [
                "frame offset=0 length=3000 payload=3000",
                "frame offset=3004 length=3000 payload=3000",
                "frame offset=6008 length=3000 payload=3000",
            ])
        #expect(result.status == 0)
    }

    @Test func unknownLayoutListsThePresets() throws {
        let result = try CLI.inspect(["--layout", "no-such-layout"], stream: [])
        #expect(result.status == 64)
        #expect(result.lines.isEmpty)
        #expect(result.stderr.contains("'no-such-layout' is neither a preset nor a readable layout file."))
        #expect(
            result.stderr.contains(
                "Presets: game-tcp, game-http-request, erlang, erlang-total, im, u32le, varint, grpc, u16-u16, u16-u16-le, u32id-u32len"
            ))
    }

    @Test func badDescriptionFileNamesTheToken() throws {
        let layout = try CLI.temporaryFile(contents: Array("magic:u32=0xFF\nlength:u32:cmd+body cmd:u24\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: layout) }
        let result = try CLI.inspect(["--layout", layout], stream: [])
        #expect(result.status == 64)
        #expect(result.stderr.contains("\(layout): 'cmd:u24' at line 2, column 21: unknown type 'u24'"))
    }
}

/// Runs the `swiftframe` executable SwiftPM built for this test run.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    static func temporaryFile(contents: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("swiftframe-cli-\(UUID().uuidString)")
            .path
        guard FileManager.default.createFile(atPath: path, contents: Data(contents)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return path
    }

    /// `swiftframe inspect ARGS FILE`, or with the stream on standard input.
    static func inspect(_ arguments: [String], stream: [UInt8], viaStdin: Bool = false) throws -> Result {
        let streamFile = try temporaryFile(contents: stream)
        defer { try? FileManager.default.removeItem(atPath: streamFile) }
        let result = try runProcess(
            Repository.builtExecutable("swiftframe"),
            ["inspect"] + arguments + (viaStdin ? [] : [streamFile]),
            input: viaStdin ? stream : [])
        return Result(status: result.status, stdout: result.stdoutText, stderr: result.stderr)
    }
}
