// Printing in protobuf's text format, against `protoc --decode` and `--decode_raw` of the same
// bytes. Every round-trip test also checks it (TestSupport's expectRoundTrip); these cover
// what round trips do not hold: unknown fields, extensions, and enums on their own.

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("Text format")
struct TextFormatTests {
    /// The fields `EverythingSubset` does not know print by number after the two it knows,
    /// as protoc prints the unknown fields of the same bytes.
    @Test("Unknown fields print by number, as protoc prints them")
    func unknownFields() throws {
        let subset = try EverythingSubset(serializedBytes: Samples.full.serializedBytes())
        let text = try Protoc.decode(subset.serializedBytes(), as: "EverythingSubset", file: "everything.proto")
        #expect(text.contains("\n1: 0x8000000000000000\n"))  // f_double, -0.0, as a fixed64
        expectTextFormat(subset, protocText: text)
    }

    /// A message that knows no fields prints what `protoc --decode_raw` prints, which is also
    /// what every message prints when generated with `TextFormat=Numbers`. The hand-made
    /// fields cover every wire type, and the guesses protoc makes about length-delimited ones.
    @Test("A message of unknown fields prints as protoc --decode_raw")
    func rawFields() throws {
        let handMade: [UInt8] = [
            0x08, 0x96, 0x01,  // 1: 150
            0x15, 0x01, 0x00, 0x00, 0x80,  // 2: fixed32
            0x19, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 3: fixed64
            0x22, 0x00,  // 4: empty, a string
            0x22, 0x02, 0x08, 0x01,  // 4: parses as fields, a message
            0x22, 0x01, 0x09,  // 4: a fixed64 tag cut short, a string
            0x22, 0x03, 0x41, 0x0A, 0xE9,  // 4: "A\n\351"
            0x2B, 0x08, 0x01, 0x32, 0x01, 0x00, 0x2C,  // 5: a group holding a varint and a string
            0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x00,  // 536870911: 0, the largest field number
        ]
        for bytes in [handMade, try Samples.full.serializedBytes(), try Samples.tree.serializedBytes()] {
            let raw = try EmptyReq(serializedBytes: bytes)
            expectTextFormat(raw, protocText: try Protoc.decodeRaw(bytes))
        }
    }

    /// Extensions are printed by number: a message's field table lists its own fields, and
    /// an extension may be declared in any file. protoc names them (`[legacy.nickname]`).
    @Test("Extensions print by number where protoc prints their names")
    func extensions() throws {
        var account = Legacy_Account(id: 1, name: "x")
        account[extension: Legacy_LegacyExtensions.nickname] = "nick"
        account[extension: Legacy_Holder.holderRank] = 7
        let text = try Protoc.decode(account.serializedBytes(), as: "legacy.Account", file: "legacy.proto")
        #expect(text.contains("[legacy.nickname]: \"nick\"\n"))
        let byNumber = text
            .replacingOccurrences(of: "[legacy.nickname]", with: "100")
            .replacingOccurrences(of: "[legacy.Holder.holder_rank]", with: "150")
        expectTextFormat(account, protocText: byNumber)
    }

    @Test("Enums print their proto names, or their number when they have none")
    func enums() {
        #expect("\(Sign.negative)" == "SIGN_NEGATIVE")
        #expect("\(Sign(rawValue: 9))" == "9")
        #expect("\(Legacy_Mood.angry)" == "MOOD_ANGRY")
        #expect("\(Aliased.uno)" == "ALIASED_ONE")  // an alias prints the number's first name
        #expect("\([UserCmd.login])" == "[User_cmd_login]")
    }

    @Test("print(message) shows nested messages in braces, on one line")
    func oneLine() {
        let response = UserInfoResponse(userInfo: UserInfo(uid: 42, nickName: "neo"))
        #expect("\(response)" == #"user_info { uid: 42 nick_name: "neo" }"#)
        #expect(response.textFormatString() == "user_info {\n  uid: 42\n  nick_name: \"neo\"\n}\n")
        #expect("\(UserInfoResponse())" == "")
    }
}
