// The editions fixtures (Fixtures/editions: a game protocol as an edition 2023 file, an IM
// protocol as an edition 2024 file): what each feature makes of the Swift and of the wire,
// checked against bytes assembled by hand from the encoding's rules.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("Editions: features in Swift and on the wire")
struct EditionsTests {
    @Test("LEGACY_REQUIRED is proto2's required: encoding and decoding fail while it is unset")
    func legacyRequired() throws {
        #expect(throws: WireError.missingRequiredField(message: "arena.Enter_Req", field: "token")) {
            try Arena_EnterReq(level: 3).serializedBytes()
        }
        #expect(throws: WireError.missingRequiredField(message: "arena.Enter_Req", field: "token")) {
            try Arena_EnterReq(serializedBytes: tag(2, .varint) + [3])
        }
        #expect(try Arena_EnterReq(token: "t").serializedBytes() == delimited(1, "t"))
    }

    @Test("IMPLICIT presence writes nothing for the default; EXPLICIT writes what is set")
    func presence() throws {
        // The file's scalars are implicit: level 0 is not written, and reads back as 0.
        #expect(try Arena_EnterReq(token: "t", level: 0).serializedBytes() == delimited(1, "t"))
        #expect(try Arena_EnterReq(token: "t", level: 5).serializedBytes() == delimited(1, "t") + tag(2, .varint) + [5])
        // team is explicit (a Swift optional): set, it is written.
        var explicit = Arena_EnterReq(token: "t")
        explicit.team = .red
        #expect(try explicit.serializedBytes() == delimited(1, "t") + tag(3, .varint) + [1])
        // Edition 2024's default is explicit: an empty string set is written; mime is implicit.
        var attachment = Chat_Attachment()
        attachment.data = []
        #expect(try attachment.serializedBytes() == delimited(1, []))
        attachment.mime = ""
        #expect(try attachment.serializedBytes() == delimited(1, []))
    }

    @Test("A CLOSED enum keeps a number it does not list as an unknown field")
    func closedEnum() throws {
        let bytes = delimited(1, "t") + tag(3, .varint) + [9]
        let decoded = try Arena_EnterReq(serializedBytes: bytes)
        #expect(decoded.team == nil)
        #expect(try decoded.serializedBytes() == bytes)
        #expect(try Arena_EnterReq(serializedBytes: delimited(1, "t") + tag(3, .varint) + [2]).team == .blue)
    }

    @Test("PACKED writes one run, EXPANDED a tag per element; either is read")
    func repeatedEncoding() throws {
        let reply = Arena_EnterRsp(playerId: 1, scores: [1, 2], history: [-1, 1])
        let expected =
            tag(1, .varint) + [1] + delimited(2, [1, 2]) + tag(3, .varint) + [1] + tag(3, .varint) + [2]
        #expect(try reply.serializedBytes() == expected)
        // Each read the other way too.
        let swapped = tag(2, .varint) + [1] + tag(2, .varint) + [2] + delimited(3, [1, 2])
        let read = try Arena_EnterRsp(serializedBytes: swapped)
        #expect(read.scores == [1, 2] && read.history == [-1, 1])
    }

    @Test("DELIMITED writes a message between start and end tags, as a proto2 group")
    func delimitedMessage() throws {
        let reply = Arena_EnterRsp(spawn: Arena_Position(x: 1, y: -1))
        let expected = tag(4, .startGroup) + tag(1, .varint) + [2] + tag(2, .varint) + [1] + tag(4, .endGroup)
        #expect(try reply.serializedBytes() == expected)
        #expect(try Arena_EnterRsp(serializedBytes: expected) == reply)
        // The same message elsewhere is length-prefixed, as the feature is the field's.
        let moved = Arena_MovedNtf(playerId: 2, to: Arena_Position(x: 1))
        #expect(try moved.serializedBytes() == tag(1, .varint) + [2] + delimited(2, tag(1, .varint) + [2]))
        // The text format names the field by its own name (it is no group).
        #expect(reply.textFormatString().hasPrefix("spawn {"))
    }

    @Test("Both files' command tables frame their messages")
    func commandTables() throws {
        let request = Arena_EnterReq(token: "t")
        let body = try request.serializedBytes()
        // magic u32 0xFF | size u32 (command + body) | command u32 | body
        #expect(
            try Arena_ArenaCommands.encode(request)
                == [0, 0, 0, 0xFF] + bigEndian32(UInt32(4 + body.count)) + [0, 0, 0, 1] + body)
        let delivered = Chat_Delivered(messageId: 7, readers: [1, 2])
        let frame = try Chat_ChatCommands.encode(delivered)
        let frames = try FramedCommandTests.frames(frame, layout: Chat_ChatCommands.layout)
        #expect(try frames.map(Chat_ChatCommands.decode) == [.delivered(delivered)])
        #expect(Chat_SendRequest.Response.self == Chat_SendResponse.self)
    }

    private func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
