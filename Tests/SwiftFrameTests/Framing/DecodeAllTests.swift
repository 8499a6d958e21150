@testable import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

/// A complete buffer holding frames back to back: the game backend's HTTP response body.
@Suite struct DecodeAllTests {
    @Test func httpBodyWithAReplyAndTwoEventFrames() throws {
        let encoder = FrameEncoder(layout: .gameTCP)
        var body: [UInt8] = []
        try encoder.append(
            header: FrameHeader(command: GameCommands.ID.test.rawValue), message: TestRsp(result1: "done", result2: 42),
            to: &body)
        // Error_Rsp { code: 1, message: "x" } as raw bytes, then an empty logout event.
        try encoder.append(
            header: FrameHeader(command: GameCommands.ID.error.rawValue), payload: [0x08, 0x01, 0x12, 0x01, 0x78],
            to: &body)
        try encoder.append(header: FrameHeader(command: GameCommands.ID.systemLogout.rawValue), payload: [], to: &body)

        let frames = try FrameDecoder.decodeAll(body, layout: .gameTCP)
        #expect(
            frames.map(\.header.command) == [
                GameCommands.ID.test.rawValue, GameCommands.ID.error.rawValue, GameCommands.ID.systemLogout.rawValue,
            ])
        // The reply is cut by its own size, not "everything after byte 12".
        let reply = try TestRsp(serializedBytes: frames[0].payload)
        #expect(reply == TestRsp(result1: "done", result2: 42))
        #expect(frames[0].payload.count == 8)
        #expect(frames[1].offset == 20)
        #expect(Array(frames[1].payload) == [0x08, 0x01, 0x12, 0x01, 0x78])
        #expect(frames[2].offset == 37)
        #expect(frames[2].payload.isEmpty)
        #expect(frames[2].offset + 12 == body.count)
    }

    @Test func aBodyEndingInsideAFrameIsTruncated() throws {
        let encoder = FrameEncoder(layout: .gameTCP)
        let one = try encoder.encode(header: FrameHeader(command: 1), payload: [1, 2])
        let two = try encoder.encode(header: FrameHeader(command: 2), payload: [3, 4])
        #expect(
            frameError { () throws(FrameError) in _ = try FrameDecoder.decodeAll(one + two.dropLast(), layout: .gameTCP)
            }
                == .truncated(offset: 14, buffered: 13))
        #expect(
            frameError { () throws(FrameError) in _ = try FrameDecoder.decodeAll(one + [0, 0], layout: .gameTCP) }
                == .truncated(offset: 14, buffered: 2))
    }

    @Test func anEmptyBodyHasNoFrames() throws {
        #expect(try FrameDecoder.decodeAll([], layout: .gameTCP).isEmpty)
    }

    @Test func decodeAllThrowsTheFirstErrorWhateverThePolicy() throws {
        let layout = try FrameLayout(description: "magic:u32=0xFF length:u32:cmd+body cmd:u32 resync=100")
        let frame = try FrameEncoder(layout: layout).encode(header: FrameHeader(command: 1), payload: [])
        #expect(
            frameError { () throws(FrameError) in _ = try FrameDecoder.decodeAll([7] + frame, layout: layout) }
                == .badMagic(offset: 0, found: 0x0700_0000, expected: 0xFF))
    }
}
