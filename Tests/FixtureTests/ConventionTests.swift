import Foundation
import SwiftFrame
import SwiftFrameDescriptors
import SwiftFrameFixtures
import TestSupport
import Testing

/// Command tables read from the conventions projects already use (Fixtures/conventions: each
/// an unmodified .proto and a config file): frames carry the convention's ids, bodies agree
/// with protoc, and requests name their responses.
@Suite struct ConventionTests {
    static let conventions = Repository.root.appendingPathComponent("Fixtures/conventions").path

    /// `protoc --encode` with a convention's directory on the include path.
    static func encode(_ text: String, as type: String, file: String, in convention: String) throws -> [UInt8] {
        try Protoc.encode(text, as: type, includes: [conventions + "/" + convention, Protoc.include], files: [file])
    }

    static func u16(_ value: Int, littleEndian: Bool = false) -> [UInt8] {
        let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return littleEndian ? bytes.reversed() : bytes
    }

    /// A game server's MID enum, read through `optional MID mid = 1 [default = LoginReq]`.
    @Test func idsFromFieldDefaults() throws {
        let request = Midgame_LoginReq(account: "neo", token: "t0k")
        let body = try Self.encode(
            "account: \"neo\" token: \"t0k\"", as: "midgame.LoginReq", file: "mid.proto", in: "mid")
        let frame = try Midgame_MidCommands.encode(request)
        #expect(frame == Self.u16(body.count) + Self.u16(1001) + body)  // length:u16:body cmd:u16
        let frames = try FrameDecoder.decodeAll(frame, layout: Midgame_MidCommands.layout)
        #expect(try Midgame_MidCommands.decodeRequest(frames[0]) == .loginReq(request))
        #expect(Midgame_LoginReq.Response.self == Midgame_LoginRsp.self)
        #expect(Midgame_EnterRoomReq.Response.self == Midgame_EnterRoomRsp.self)
        #expect(Midgame_LoginRsp.commandID == 1002 && Midgame_RoomBroadcastNtf.commandID == 1103)
        #expect(Midgame_MidCommands.heartbeatCommand == 1003 && Midgame_MidCommands.errorCommand == 1999)
        // A message whose name gives no direction travels both ways under its id.
        let beat = try Midgame_MidCommands.encode(Midgame_HeartBeat(clientTime: 5))
        let beatFrame = try FrameDecoder.decodeAll(beat, layout: Midgame_MidCommands.layout)[0]
        #expect(try Midgame_MidCommands.decode(beatFrame) == .heartBeat(Midgame_HeartBeat(clientTime: 5)))
        #expect(try Midgame_MidCommands.decodeRequest(beatFrame) == .heartBeat(Midgame_HeartBeat(clientTime: 5)))
    }

    /// `option (MsgID) = MSG_LOGIN_REQUEST;`, a custom option of the project's own.
    @Test func idsFromACustomMessageOption() throws {
        let request = Msgid_LoginRequest(account: "neo", password: "pw")
        let body = try Self.encode(
            "account: \"neo\" password: \"pw\"", as: "msgid.LoginRequest", file: "msgid.proto",
            in: "msgid")
        let frame = try Msgid_MsgidCommands.encode(request)
        #expect(Array(frame.dropFirst(8).prefix(4)) == [0, 0, 0x27, 0x11])  // cmd:u32 = 10001
        #expect(Array(frame.dropFirst(12)) == body)
        #expect(Msgid_LoginRequest.Response.self == Msgid_LoginResponse.self)
        #expect(Msgid_ChatPush.commandID == 10003 && Msgid_MsgidCommands.heartbeatCommand == 10004)
        let reply = try Msgid_MsgidCommands.encode(Msgid_LoginResponse(code: 0, session: "s"))
        let replyFrame = try FrameDecoder.decodeAll(reply, layout: Msgid_MsgidCommands.layout)[0]
        #expect(
            try Msgid_MsgidCommands.decode(replyFrame) == .loginResponse(Msgid_LoginResponse(code: 0, session: "s")))
    }

    /// The option itself is a typed extension of the shipped descriptor types.
    @Test func theCustomOptionReadsFromADescriptorSet() throws {
        let set = try Protoc.run(
            [
                "-I", Self.conventions + "/msgid", "-I", "/usr/include", "msgid.proto",
                "--descriptor_set_out=/dev/stdout",
            ], input: [])
        let file = try #require(try Google_Protobuf_FileDescriptorSet(serializedBytes: set).file.first)
        let options = try #require(file.messageType.first { $0.name == "LoginRequest" }?.options)
        #expect(options[extension: Msgid_MsgidExtensions.msgID] == .msgLoginRequest)
    }

    /// Ids in declaration order after the number in the file name, as ET's Proto2CS gives
    /// them (10001 in the name: the first message is 10002); `//ResponseType` comments.
    @Test func idsFromCommentsAndTheFileName() throws {
        let request = ET_C2MTestRequest(rpcId: 7, request: "hi")
        let body = try Self.encode(
            "RpcId: 7 request: \"hi\"", as: "ET.C2M_TestRequest",
            file: "OuterMessage_C_10001.proto", in: "et")
        let frame = try ET_OuterMessageC10001Commands.encode(request)
        #expect(frame == Self.u16(body.count, littleEndian: true) + Self.u16(10002, littleEndian: true) + body)
        #expect(ET_M2CTestResponse.commandID == 10003 && ET_C2GPing.commandID == 10004)
        #expect(ET_G2CPing.commandID == 10005 && ET_M2CNotice.commandID == 10006)
        #expect(ET_C2MTestRequest.Response.self == ET_M2CTestResponse.self)
        #expect(ET_C2GPing.Response.self == ET_G2CPing.self)
    }

    /// The IM server's files as its team keeps them, with a config file that lists the frame
    /// types, names the table (`table_name`) and describes the envelopes: the frames of the
    /// annotated fixture's ImCommands, from a table named as the config says.
    @Test func theIMServersFilesWithANamedTable() throws {
        let plain = try Im_Common(.user(Im_UserMsg(.login(Im_LoginRequest(nickName: "neo", pwd: "pw")))))
        let annotated = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "pw")))))
        #expect(try ImServerCommands.encode(plain, sequence: 7) == ImCommands.encode(annotated, sequence: 7))
        #expect(ImServerCommands.layout == ImCommands.layout && ImServerCommands.heartbeatCommand == 1)
        #expect(ImServerCommands.commandName(4) == "PUSH" && Im_Common.commandID == 2)
        #expect(Im_LoginRequest.Response.self == Im_LoginResponse.self)
        let reply = try ImCommands.encode(CommonRespon(isSuc: true, respon: [1, 2]), sequence: 7)
        let frame = try FrameDecoder.decodeAll(reply, layout: ImServerCommands.layout)[0]
        #expect(try ImServerCommands.decode(frame) == .commonRespon(Im_CommonRespon(isSuc: true, respon: [1, 2])))
        let push = try FrameDecoder.decodeAll([0x81, 0, 0, 0, 0, 4, 0, 1, 0x70], layout: ImServerCommands.layout)[0]
        #expect(try ImServerCommands.decode(push) == .push(payload: [0x70]))
    }
}
