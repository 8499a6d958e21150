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
    /// What the JSON example of the TextFormat article says it prints and reads.
    @Test("The JSON example prints and reads what its comments say")
    func jsonExample() throws {
        let login = LoginRequest(nickName: "neo", port: 8080)
        #expect(try login.jsonString() == #"{"nickName":"neo","port":8080}"#)
        #expect(try LoginRequest(jsonString: #"{"nick_name":"neo","port":"8080"}"#) == login)
        #expect(try LoginRequest(jsonString: login.jsonString()) == login)
    }

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
    /// an extension may be declared in any file. protoc names them (`[legacy.nickname]`), and
    /// so does the printer given a registry that holds them, whose text reads back.
    @Test("Extensions print by number where protoc prints their names, and by name with a registry")
    func extensions() throws {
        var account = Legacy_Account(id: 1, name: "x")
        account[extension: Legacy_LegacyExtensions.nickname] = "nick"
        account[extension: Legacy_Holder.holderRank] = 7
        let text = try Protoc.decode(account.serializedBytes(), as: "legacy.Account", file: "legacy.proto")
        #expect(text.contains("[legacy.nickname]: \"nick\"\n"))
        let byNumber =
            text
            .replacingOccurrences(of: "[legacy.nickname]", with: "100")
            .replacingOccurrences(of: "[legacy.Holder.holder_rank]", with: "150")
        expectTextFormat(account, protocText: byNumber)
        var registry = MessageTypeRegistry()
        registry.register(Legacy_LegacyExtensions.nickname)
        registry.register(Legacy_Holder.holderRank)
        #expect(account.textFormatString(registry: registry) == text)
        let read = try Legacy_Account(textFormat: text, registry: registry)
        #expect(try read.serializedBytes() == account.serializedBytes())
    }

    /// The samples' text, written by hand in every style protoc reads (one line, lists,
    /// `< >`, comments), reads to the same bytes as `protoc --encode` makes of it.
    @Test("Text read back gives protoc --encode's bytes")
    func readingMatchesProtocEncode() throws {
        let cases: [(any Message.Type, String, String)] = [
            (Everything.self, Samples.fullText, "everything.proto"),
            (Everything.self, Samples.otherText, "everything.proto"),
            (TreeNode.self, Samples.treeText, "everything.proto"),
            (
                Everything.self,
                """
                # a comment
                r_int32: [1, -2, 0x7f, 010]  r_string: ['single', "dou" "ble"]
                nested < name: "angle" child { value: -3 } >; sign: SIGN_MAX, f_float: 1.5e+3f
                f_double: -Infinity r_double: [nan, 1e-5, 2E10] f_bool: t o_bool: False signs: 1000000
                """, "everything.proto"
            ),
        ]
        for (type, text, file) in cases {
            try Self.expectReadsAsProtoc(type, text, schema: .fixture(file))
        }
    }

    private static func expectReadsAsProtoc<M: Message>(_: M.Type, _ text: String, schema: ProtoSchema) throws {
        let read = try M(textFormat: text)
        #expect(try read.serializedBytes() == schema.encode(text, as: M.protoMessageName), "\(text)")
    }

    @Test(
        "Mistakes in text are reported with their line and column",
        arguments: [
            ("f_int32: 1\nf_nothing: 2", "line 2, column 1: Everything has no field 'f_nothing'"),
            ("f_int32: 2147483648", "line 1, column 10: 'f_int32' takes an integer of 32 bits"),
            ("f_uint32: -1", "line 1, column 11: 'f_uint32' takes a non-negative integer of 32 bits"),
            (
                "sign: SIGN_NONE",
                "line 1, column 7: 'sign' takes one of SIGN_ZERO, SIGN_NEGATIVE, SIGN_MIN, SIGN_MAX, SIGN_MILLION"
            ),
            ("nested { name: \"x\"", "line 1, column 19: missing '}'"),
            ("f_string \"x\"", "line 1, column 1: expected ':' after 'f_string'"),
            ("[ext]: 1", "line 1, column 1: '[ext]' is no extension of Everything that the registry holds"),
            ("f_string: \"\\377\"", "line 1, column 11: 'f_string' is not valid UTF-8"),
        ])
    func readingErrors(text: String, message: String) {
        #expect(throws: TextFormatError.self) { try Everything(textFormat: text) }
        do {
            _ = try Everything(textFormat: text)
        } catch {
            #expect(error.description == message)
        }
    }

    /// proto2 enums are closed: a number `Mood` does not declare is kept as an unknown field
    /// and prints as one, as protoc prints it. A map entry holding one is kept whole as an
    /// unknown field (as protobuf's C++ runtime keeps it) and prints by number at the end;
    /// protoc --decode, which parses into a dynamic message, keeps it in the map instead.
    @Test("A closed enum's undeclared numbers print as the unknown fields they are")
    func undeclaredClosedEnumValues() throws {
        let moodEntry = delimited(1, "k") + tag(2, .varint) + [1]
        let bytes =
            tag(1, .varint) + [5] + delimited(2, "n") + tag(4, .varint) + [1] + tag(5, .varint) + [2]
            + delimited(6, [3]) + delimited(15, moodEntry)
        let account = try Legacy_Account(serializedBytes: bytes)
        let text = try Protoc.decode(account.serializedBytes(), as: "legacy.Account", file: "legacy.proto")
        #expect(text.contains("4: 1\n5: 2\n6: 3\n"))
        let entryInMap = "moods {\n  key: \"k\"\n  value: MOOD_CALM\n  2: 1\n}\n"
        #expect(text.contains(entryInMap))
        expectTextFormat(
            account,
            protocText: text.replacingOccurrences(of: entryInMap, with: "")
                + "15 {\n  1: \"k\"\n  2: 1\n}\n")
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

    /// Every message of every fixture file, with every field set (values made from the
    /// message's own field table, nested two levels deep), prints as protoc prints it.
    @Test("Every fixture message prints as protoc --decode prints it")
    func everyFixtureMessage() throws {
        let conventions = Repository.root.appendingPathComponent("Fixtures/conventions").path
        let groups: [(schema: ProtoSchema, types: [any Message.Type])] = [
            (.fixture("base.proto"), [UserInfo.self]),
            (.fixture("collections.proto"), [Maps.self, Choices.self]),
            (.fixture("common.proto"), [Common.self, CommonRespon.self]),
            (.fixture("erlang.proto"), [Cs20001.self, Sc20001.self]),
            (.fixture("error.proto"), [ErrorMsg.self]),
            (
                .fixture("everything.proto"),
                [
                    Everything.self, Level1.self, Level2.self, Level3.self,
                    EverythingSubset.self, TreeNode.self, Ping.self, Pong.self,
                ]
            ),
            (.fixture("game.proto"), [TestReq.self, TestRsp.self, ErrorRsp.self, EmptyReq.self, NoticeNtf.self]),
            (.fixture("jsonnames.proto"), [Contact.self]),
            (
                .fixture("legacy.proto"),
                [
                    Legacy_Account.self, Legacy_Account.Profile.self, Legacy_Account.Visit.self,
                    Legacy_Defaults.self, Legacy_Holder.self,
                ]
            ),
            (.fixture("naming.proto"), [ErrorMessage.self, NamingEdgeCases.self, NamingEdgeCases.Protocol_.self]),
            (
                .fixture("user.proto"),
                [
                    UserMsg.self, SigninRequest.self, LoginRequest.self, LogoutRequest.self,
                    SiginResponse.self, LoginResponse.self, UserInfoRequest.self, UserInfoResponse.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/et", Protoc.include], files: ["OuterMessage_C_10001.proto"]),
                [ET_C2MTestRequest.self, ET_M2CTestResponse.self, ET_C2GPing.self, ET_G2CPing.self, ET_M2CNotice.self]
            ),
            (
                ProtoSchema(includes: [conventions + "/game", Protoc.include], files: ["game_plain.proto"]),
                [
                    PlainGame_TestReq.self, PlainGame_TestRsp.self, PlainGame_ErrorRsp.self, PlainGame_EmptyReq.self,
                    PlainGame_NoticeNtf.self,
                ]
            ),
            (
                ProtoSchema(
                    includes: [conventions + "/im", Protoc.include],
                    files: ["im_base.proto", "im_common.proto", "im_error.proto", "im_user.proto"]),
                [
                    Im_UserInfo.self, Im_Common.self, Im_CommonRespon.self, Im_ErrorMsg.self, Im_UserMsg.self,
                    Im_SigninRequest.self, Im_LoginRequest.self, Im_LogoutRequest.self, Im_SiginResponse.self,
                    Im_LoginResponse.self, Im_UserInfoRequest.self, Im_UserInfoResponse.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/mid", Protoc.include], files: ["mid.proto"]),
                [
                    Midgame_MsgId.self, Midgame_LoginReq.self, Midgame_LoginRsp.self, Midgame_HeartBeat.self,
                    Midgame_EnterRoomReq.self, Midgame_EnterRoomRsp.self, Midgame_RoomBroadcastNtf.self,
                    Midgame_ErrorNtf.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/msgid", Protoc.include], files: ["msgid.proto"]),
                [Msgid_LoginRequest.self, Msgid_LoginResponse.self, Msgid_ChatPush.self, Msgid_Ping.self]
            ),
        ]
        // The list above is every message the fixtures generate.
        let listed = Set(groups.flatMap { $0.types.map { $0.protoMessageName } })
        #expect(listed == Set(try Self.generatedMessageNames()))
        for (schema, types) in groups {
            for type in types { try Self.expectPrintsAsProtoc(type, schema: schema) }
        }
    }

    /// Prints as protoc prints the same bytes, and reads back from that text to what
    /// `protoc --encode` makes of it.
    private static func expectPrintsAsProtoc<M: Message>(_: M.Type, schema: ProtoSchema) throws {
        let message = try M(serializedBytes: SampleBytes.fields(M.textFormatFields, depth: 0), partial: true)
        #expect(!M.textFormatFields.isEmpty == !message.textFormatString().isEmpty, "\(M.protoMessageName)")
        let bytes = try message.serializedBytes(partial: true)
        let text = try schema.decode(bytes, as: M.protoMessageName)
        expectTextFormat(message, protocText: text)
        let read = try M(textFormat: text, partial: true)
        #expect(read == message, "\(M.protoMessageName): read back from\n\(text)")
        #expect(try read.serializedBytes(partial: true) == schema.encode(text, as: M.protoMessageName))
    }

    /// `protoMessageName` of every message in Fixtures/generated.
    private static func generatedMessageNames() throws -> [String] {
        let folder = Repository.root.appendingPathComponent("Fixtures/generated")
        let files = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        // The editions fixtures (Editions/) are left to EditionsTests: protoc 3.21, which these
        // tests compare with, reads no editions file.
        return try files.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Editions/") }.flatMap { name in
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .components(separatedBy: "static var protoMessageName: Swift.String { \"").dropFirst()
                .map { String($0.prefix { $0 != "\"" }) }
        }
    }
}
