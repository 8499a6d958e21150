// A payload type that is not a swiftframe message (its own codec, written by hand here, as
// SwiftFrameSwiftProtobuf gives SwiftProtobuf's messages theirs) through the client and a
// command table, against the Python game peer.

import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import TestSupport
import Testing

/// The game's Test_Req, coded by hand: field 1 a string, field 2 an int32.
struct HandCodedQuery: RequestMessage, CommandMessage {
    typealias Response = HandCodedAnswer
    static let protoMessageName = "Test_Req"
    static let commandID: UInt32 = GameCommands.ID.test.rawValue
    var text: String
    var number: Int32
    /// Makes `framePayloadBytes()` refuse, as a codec refuses a message it cannot encode.
    var refuse = false

    init(text: String, number: Int32) {
        self.text = text
        self.number = number
    }

    init(framePayload bytes: UnsafeRawBufferPointer) throws(WireError) {
        throw .rejected(message: Self.protoMessageName, reason: "only sent in these tests")
    }

    func framePayloadBytes() throws(WireError) -> [UInt8] {
        if refuse { throw .missingRequiredField(message: Self.protoMessageName, field: "") }
        return delimited(1, text) + tag(2, .varint) + varint(signed: Int64(number))
    }
}

/// The game's Test_Rsp, read by hand with swiftframe's reader: field 1 a string, field 2 an int64.
struct HandCodedAnswer: CommandMessage {
    static let protoMessageName = "Test_Rsp"
    static let commandID: UInt32 = GameCommands.ID.test.rawValue
    var text = ""
    var number: Int64 = 0

    init(text: String, number: Int64) {
        self.text = text
        self.number = number
    }

    init(framePayload bytes: UnsafeRawBufferPointer) throws(WireError) {
        var reader = ProtoReader(buffer: bytes)
        while reader.hasRemaining {
            switch try reader.readTag() {
            case 0x0A: text = try reader.readString()
            case 0x10: number = Int64(bitPattern: try reader.readVarint())
            case let tag: try reader.skipValue(tag: tag)
            }
        }
    }

    func framePayloadBytes() throws(WireError) -> [UInt8] {
        throw .rejected(message: Self.protoMessageName, reason: "only received in these tests")
    }
}

@Suite(.timeLimit(.minutes(1))) struct FramePayloadTests {
    @Test func aPayloadWithItsOwnCodecIsARequestAndAReplyOfTheClient() async throws {
        let peer = try await Peer.start("game", ["--split"])
        try await withClient(GameCommands.self, peer: peer) { client in
            let answer = try await client.request(HandCodedQuery(text: "hi", number: 4))
            #expect(answer == HandCodedAnswer(text: "echo:hi", number: 8))
            // The same peer answers swiftframe's own message for the same command alike.
            #expect(
                try await client.request(TestReq(param1: "hi", param2: 4)) == TestRsp(result1: "echo:hi", result2: 8))

            var refused = HandCodedQuery(text: "hi", number: 4)
            refused.refuse = true
            await #expect(throws: WireError.missingRequiredField(message: "Test_Req", field: "")) {
                _ = try await client.request(refused)
            }
            // The connection is still there for the next request.
            #expect(try await client.request(HandCodedQuery(text: "again", number: -1)).text == "echo:again")
        }
    }

    @Test func aTableFramesAPayloadWithItsOwnCodecAndSaysWhenItCannot() throws {
        let frame = try GameCommands.encode(HandCodedQuery(text: "hi", number: 4))
        #expect(frame == [0, 0, 0, 0xFF, 0, 0, 0, 10, 0, 0, 0, 1, 0x0A, 2, 0x68, 0x69, 0x10, 4])
        #expect(frame == (try GameCommands.encode(TestReq(param1: "hi", param2: 4))))

        var refused = HandCodedQuery(text: "hi", number: 4)
        refused.refuse = true
        #expect(throws: FrameError.unencodablePayload(.missingRequiredField(message: "Test_Req", field: ""))) {
            try GameCommands.encode(refused)
        }
        #expect(
            FrameError.unencodablePayload(.missingRequiredField(message: "Test_Req", field: "")).description
                == "the payload cannot be encoded: a required field of Test_Req is not set")
    }
}
