// Round trips against protoc for every message of the IM, game, Erlang and naming
// fixtures, plus the default (empty) message of every fixture type.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("Fixture messages round-trip through protoc")
struct MessageRoundTripTests {
    // MARK: base.proto, error.proto, common.proto

    static let imCases: [RoundTripCase] = [
        RoundTripCase(
            "all fields",
            UserInfo(
                uid: 4_000_000_000, nickName: "小明 🐱", avatar: "https://example.com/a.png?x=1&y=2",
                lastLogin: 1_700_000_000_123),
            file: "base.proto",
            text:
                #"uid: 4000000000 nick_name: "小明 🐱" avatar: "https://example.com/a.png?x=1&y=2" last_login: 1700000000123"#
        ),
        RoundTripCase(
            "extremes",
            UserInfo(uid: .max, nickName: String(repeating: "n", count: 300), lastLogin: .min),
            file: "base.proto",
            text:
                #"uid: 4294967295 nick_name: "\#(String(repeating: "n", count: 300))" last_login: -9223372036854775808"#
        ),
        RoundTripCase(
            "all fields",
            ErrorMsg(type: .invalidParams, msg: "bad \"param\"\n\ttab"),
            file: "error.proto",
            text: #"type: invalid_params msg: "bad \"param\"\n\ttab""#
        ),
        RoundTripCase(
            "unknown enum number",
            ErrorMsg(type: .unrecognized(1), msg: "x"),
            file: "error.proto",
            text: #"type: 1 msg: "x""#
        ),
        RoundTripCase(
            "all fields",
            Common(method: .p2pConnect, body: [0x08, 0x96, 0x01, 0x00, 0xFF]),
            file: "common.proto",
            text: #"method: common_method_p2p_connect body: "\x08\x96\x01\x00\xff""#
        ),
        RoundTripCase(
            "every method",
            Common(method: .respond, body: Array(0...255)),
            file: "common.proto",
            text: "method: common_method_respond body: \"\(octalEscaped(Array(0...255)))\""
        ),
        RoundTripCase(
            "all fields",
            CommonRespon(isSuc: true, respon: [1, 2, 3], error: ErrorMsg(type: .invalidParams, msg: "oops")),
            file: "common.proto",
            text: #"isSuc: true respon: "\001\002\003" error { type: invalid_params msg: "oops" }"#
        ),
        RoundTripCase(
            "empty error present",
            CommonRespon(error: ErrorMsg()),
            file: "common.proto",
            text: "error { }"
        ),
    ]

    @Test("IM envelope and error messages", arguments: imCases)
    func imMessages(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: user.proto

    static let userCases: [RoundTripCase] = [
        RoundTripCase(
            "all fields",
            UserMsg(cmd: .userInfo, body: Array("{\"k\":1}".utf8) + [0x00, 0xC3, 0x28]),
            file: "user.proto",
            text: #"cmd: User_cmd_user_info body: "{\"k\":1}\000\303(""#
        ),
        RoundTripCase(
            "unknown command",
            UserMsg(cmd: .unrecognized(1), body: [0x2A]),
            file: "user.proto",
            text: #"cmd: 1 body: "*""#
        ),
        RoundTripCase(
            "all fields",
            SigninRequest(nickName: "Zoë", pwd: "p@ss wörd"),
            file: "user.proto",
            text: #"nick_name: "Zoë" pwd: "p@ss wörd""#
        ),
        RoundTripCase(
            "all fields",
            LoginRequest(
                nickName: "alice", pwd: "s3cret", ip: "192.168.1.10", port: 65535,
                deviceName: "iPhone 15 “Pro”", deviceId: "3F2504E0-4F89-11D3-9A0C-0305E82C3301", version: "1.2.3-beta+5"
            ),
            file: "user.proto",
            text: #"""
                nick_name: "alice" pwd: "s3cret" ip: "192.168.1.10" port: 65535
                device_name: "iPhone 15 “Pro”" device_id: "3F2504E0-4F89-11D3-9A0C-0305E82C3301" version: "1.2.3-beta+5"
                """#
        ),
        RoundTripCase(
            "negative port",
            LoginRequest(port: -1),
            file: "user.proto",
            text: "port: -1"
        ),
        RoundTripCase(
            "all fields",
            LogoutRequest(uid: .min),
            file: "user.proto",
            text: "uid: -2147483648"
        ),
        RoundTripCase(
            "all fields",
            SiginResponse(uid: 123_456, token: "tok.en-_~"),
            file: "user.proto",
            text: #"uid: 123456 token: "tok.en-_~""#
        ),
        RoundTripCase(
            "all fields",
            LoginResponse(uid: .max, token: String(repeating: "ab", count: 100)),
            file: "user.proto",
            text: #"uid: 4294967295 token: "\#(String(repeating: "ab", count: 100))""#
        ),
        RoundTripCase(
            "all fields",
            UserInfoRequest(uid: 1),
            file: "user.proto",
            text: "uid: 1"
        ),
        RoundTripCase(
            "all fields",
            UserInfoResponse(userInfo: UserInfo(uid: 9, nickName: "nine", avatar: "9.png", lastLogin: 99)),
            file: "user.proto",
            text: #"user_info { uid: 9 nick_name: "nine" avatar: "9.png" last_login: 99 }"#
        ),
        RoundTripCase(
            "empty user_info present",
            UserInfoResponse(userInfo: UserInfo()),
            file: "user.proto",
            text: "user_info { }"
        ),
    ]

    @Test("IM user commands", arguments: userCases)
    func userMessages(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: game.proto, erlang.proto

    static let gameCases: [RoundTripCase] = [
        RoundTripCase(
            "all fields",
            TestReq(param1: "hello", param2: -42),
            file: "game.proto",
            text: #"param1: "hello" param2: -42"#
        ),
        RoundTripCase(
            "all fields",
            TestRsp(result1: "ok ✅", result2: .min),
            file: "game.proto",
            text: #"result1: "ok ✅" result2: -9223372036854775808"#
        ),
        RoundTripCase(
            "all fields",
            ErrorRsp(code: 100_000, message: "server error"),
            file: "game.proto",
            text: #"code: 100000 message: "server error""#
        ),
        RoundTripCase(
            "all fields (none)",
            EmptyReq(),
            file: "game.proto",
            text: "",
            expectEmpty: true
        ),
        RoundTripCase(
            "all fields",
            Cs20001(sceneId: 10_001, line: 3, message: "进入场景"),
            file: "erlang.proto",
            text: #"scene_id: 10001 line: 3 message: "进入场景""#
        ),
        RoundTripCase(
            "all fields",
            Sc20001(res: 1, sceneId: 10_001, pos: 0x7FFF_FFFF, status: 2, type: 3, defaultCombat: .max, message: "ok"),
            file: "erlang.proto",
            text: #"res: 1 scene_id: 10001 pos: 2147483647 status: 2 type: 3 default_combat: 4294967295 message: "ok""#
        ),
    ]

    @Test("Game and Erlang protocol messages", arguments: gameCases)
    func gameMessages(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    // MARK: naming.proto

    static let namingCases: [RoundTripCase] = [
        RoundTripCase(
            "all fields",
            ErrorMessage(code: -3),
            file: "naming.proto",
            text: "code: -3"
        ),
        RoundTripCase(
            "all fields",
            NamingEdgeCases.Protocol_(version: 3),
            file: "naming.proto",
            text: "version: 3"
        ),
        RoundTripCase(
            "every field set",
            NamingEdgeCases(
                type: 1, default_: 2, self_: 3, description_: "described", unknownFields_: 5,
                size: 6, tag: 7, reader: 8, writer: 9, cache: 10, value: 11,
                httpStatus: 12, urlPath: 13,
                error: ErrorMessage(code: 14),
                protocol_: NamingEdgeCases.Protocol_(version: 15)
            ),
            file: "naming.proto",
            text: #"""
                type: 1 default: 2 self: 3 description: "described" unknown_fields: 5
                size: 6 tag: 7 reader: 8 writer: 9 cache: 10 value: 11
                HTTP_status: 12 URLPath: 13
                error { code: 14 } protocol { version: 15 }
                """#
        ),
        RoundTripCase(
            "negative values in the clashing names",
            NamingEdgeCases(
                size: -1, tag: .min, reader: .max, writer: -2, cache: -3, value: -4,
                error: ErrorMessage(), protocol_: NamingEdgeCases.Protocol_()
            ),
            file: "naming.proto",
            text: "size: -1 tag: -2147483648 reader: 2147483647 writer: -2 cache: -3 value: -4 error { } protocol { }"
        ),
    ]

    @Test("Naming edge cases", arguments: namingCases)
    func namingMessages(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    /// A name-clashing field must not shadow the message's real unknown fields.
    @Test("unknown_fields field and unknownFields storage are distinct")
    func unknownFieldsFieldIsNotStorage() throws {
        let extra = tag(99, 0) + varint(5)
        let bytes = tag(5, 0) + varint(7) + extra
        let decoded = try NamingEdgeCases(serializedBytes: bytes)
        #expect(decoded.unknownFields_ == 7)
        #expect(decoded.unknownFields.bytes == extra)
        #expect(try decoded.serializedBytes() == bytes)
    }

    // MARK: Defaults

    /// The default of every message type in every fixture file encodes to nothing, which
    /// also checks every `protoMessageName` is a name protoc knows.
    static let emptyCases: [RoundTripCase] = [
        .empty(UserInfo.self, file: "base.proto"),
        .empty(Common.self, file: "common.proto"),
        .empty(CommonRespon.self, file: "common.proto"),
        .empty(ErrorMsg.self, file: "error.proto"),
        .empty(UserMsg.self, file: "user.proto"),
        .empty(SigninRequest.self, file: "user.proto"),
        .empty(LoginRequest.self, file: "user.proto"),
        .empty(LogoutRequest.self, file: "user.proto"),
        .empty(SiginResponse.self, file: "user.proto"),
        .empty(LoginResponse.self, file: "user.proto"),
        .empty(UserInfoRequest.self, file: "user.proto"),
        .empty(UserInfoResponse.self, file: "user.proto"),
        .empty(TestReq.self, file: "game.proto"),
        .empty(TestRsp.self, file: "game.proto"),
        .empty(ErrorRsp.self, file: "game.proto"),
        .empty(EmptyReq.self, file: "game.proto"),
        .empty(Cs20001.self, file: "erlang.proto"),
        .empty(Sc20001.self, file: "erlang.proto"),
        .empty(Everything.self, file: "everything.proto"),
        .empty(Level1.self, file: "everything.proto"),
        .empty(Level2.self, file: "everything.proto"),
        .empty(Level3.self, file: "everything.proto"),
        .empty(EverythingSubset.self, file: "everything.proto"),
        .empty(TreeNode.self, file: "everything.proto"),
        .empty(Ping.self, file: "everything.proto"),
        .empty(Pong.self, file: "everything.proto"),
        .empty(ErrorMessage.self, file: "naming.proto"),
        .empty(NamingEdgeCases.self, file: "naming.proto"),
        .empty(NamingEdgeCases.Protocol_.self, file: "naming.proto"),
    ]

    @Test("Default messages encode to zero bytes", arguments: emptyCases)
    func defaults(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    /// Fields explicitly set to their defaults are not written (implicit presence).
    static let zeroValueCases: [RoundTripCase] = [
        RoundTripCase(
            "every field at its default",
            UserInfo(uid: 0, nickName: "", avatar: "", lastLogin: 0),
            file: "base.proto", text: "uid: 0 nick_name: \"\" avatar: \"\" last_login: 0", expectEmpty: true
        ),
        RoundTripCase(
            "every field at its default",
            Common(method: .user, body: []),
            file: "common.proto", text: "method: common_method_user body: \"\"", expectEmpty: true
        ),
        RoundTripCase(
            "every field at its default",
            NamingEdgeCases(type: 0, default_: 0, description_: "", httpStatus: 0),
            file: "naming.proto", text: "type: 0 default: 0 description: \"\" HTTP_status: 0", expectEmpty: true
        ),
    ]

    @Test("Fields set to their defaults are not written", arguments: zeroValueCases)
    func zeroValues(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    /// Every message type's protobuf full name, as protoc spells it.
    @Test("protoMessageName of every fixture message")
    func protoMessageNames() {
        let names: [(String, String)] = [
            (UserInfo.protoMessageName, "User_info"),
            (Common.protoMessageName, "Common"),
            (CommonRespon.protoMessageName, "CommonRespon"),
            (ErrorMsg.protoMessageName, "ErrorMsg"),
            (UserMsg.protoMessageName, "User_msg"),
            (SigninRequest.protoMessageName, "signin_request"),
            (LoginRequest.protoMessageName, "login_request"),
            (LogoutRequest.protoMessageName, "logout_request"),
            (SiginResponse.protoMessageName, "sigin_response"),
            (LoginResponse.protoMessageName, "login_response"),
            (UserInfoRequest.protoMessageName, "User_info_request"),
            (UserInfoResponse.protoMessageName, "User_info_response"),
            (TestReq.protoMessageName, "Test_Req"),
            (TestRsp.protoMessageName, "Test_Rsp"),
            (ErrorRsp.protoMessageName, "Error_Rsp"),
            (EmptyReq.protoMessageName, "Empty_Req"),
            (Cs20001.protoMessageName, "Cs_20001"),
            (Sc20001.protoMessageName, "Sc_20001"),
            (Everything.protoMessageName, "Everything"),
            (Level1.protoMessageName, "Everything.Level1"),
            (Level2.protoMessageName, "Everything.Level1.Level2"),
            (Level3.protoMessageName, "Everything.Level1.Level2.Level3"),
            (EverythingSubset.protoMessageName, "EverythingSubset"),
            (TreeNode.protoMessageName, "TreeNode"),
            (Ping.protoMessageName, "Ping"),
            (Pong.protoMessageName, "Pong"),
            (ErrorMessage.protoMessageName, "Error"),
            (NamingEdgeCases.protoMessageName, "Naming_edge_cases"),
            (NamingEdgeCases.Protocol_.protoMessageName, "Naming_edge_cases.Protocol"),
        ]
        for (actual, expected) in names {
            #expect(actual == expected)
        }
    }
}

/// Bytes as a text-format string body, every byte as a three-digit octal escape.
func octalEscaped(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 8)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }.joined()
}
