import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

/// The generated command tables and envelopes, end to end: whole frames out, typed values in.
@Suite struct FramedCommandTests {
    /// Decodes every frame of a stream with the table's layout, feeding it in small chunks.
    static func frames(_ bytes: [UInt8], layout: FrameLayout, chunk: Int = 3) throws -> [Frame] {
        var decoder = FrameDecoder(layout: layout)
        var frames: [Frame] = []
        var start = 0
        while start < bytes.count {
            decoder.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
            start += chunk
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        try decoder.finish()
        return frames
    }

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    // MARK: Game (format A)

    @Test func gameRequestFrameIsExact() throws {
        let request = TestReq(param1: "hello", param2: 42)
        let body = try Protoc.encode("param1: \"hello\" param2: 42", as: "Test_Req", file: "game.proto")
        let frame = try GameCommands.encode(request)
        // magic 0xFF | size = command + body | command 1 | body
        #expect(frame == Self.bigEndian32(0xFF) + Self.bigEndian32(UInt32(body.count + 4)) + Self.bigEndian32(1) + body)
        #expect(TestReq.commandID == 1 && TestRsp.commandID == 1 && ErrorRsp.commandID == 100_000)
        #expect(GameCommands.ID.test.rawValue == 1 && GameCommands.ID.heartBeat.rawValue == 99_900_002)
    }

    @Test func heartbeatIsAnEmptyRequestOfSizeFour() throws {
        #expect(try GameCommands.encode(EmptyReq()) == [0, 0, 0, 0xFF, 0, 0, 0, 4, 0x05, 0xF4, 0x5A, 0x62])
    }

    @Test func serverAndClientSeeTypedMessages() throws {
        let request = TestReq(param1: "p", param2: -7)
        let received = try Self.frames(try GameCommands.encode(request), layout: GameCommands.layout)
        #expect(try received.map(GameCommands.decodeRequest) == [.testReq(request)])

        let reply = TestRsp(result1: "ok", result2: Int64.max)
        let failure = ErrorRsp(code: 3, message: "bad param")
        let stream =
            try GameCommands.encode(reply) + GameCommands.encode(failure)
            + GameCommands.encode(TestRsp(), command: 99_900_001) + GameCommands.encode(TestRsp(), command: 4242)
        let inbound = try Self.frames(stream, layout: GameCommands.layout).map(GameCommands.decode)
        #expect(
            inbound == [
                .testRsp(reply), .errorRsp(failure), .systemLogout(payload: []),
                .unknown(command: 4242, payload: []),
            ])
        // The request knows its response type.
        #expect(TestReq.Response.self == TestRsp.self)
    }

    @Test func httpResponseBodyHoldsSeveralFramesEachCutByItsOwnSize() throws {
        let reply = TestRsp(result1: String(repeating: "r", count: 300), result2: 1)
        let event = ErrorRsp(code: 9, message: "kicked")
        let body = try GameCommands.encode(reply) + GameCommands.encode(event) + GameCommands.encode(EmptyReq())
        #expect(try GameCommands.decodeAll(body) == [.testRsp(reply), .errorRsp(event), .heartBeat(payload: [])])
    }

    @Test func httpRequestsUseTheHTTPHeaderOfTheSameCommands() throws {
        let request = TestReq(param1: "p", param2: 1)
        let body = try request.serializedBytes()
        let frame = try GameCommands.encode(
            request, layout: .gameHTTPRequest,
            extras: ["playerId": 0x0102_0304_0506_0708, "sessionId": 9])
        // magic | playerId u64 | sessionId u64 | size (command + body) | command | body
        #expect(
            frame == Self.bigEndian32(0xFF) + [1, 2, 3, 4, 5, 6, 7, 8] + [0, 0, 0, 0, 0, 0, 0, 9]
                + Self.bigEndian32(UInt32(body.count + 4)) + Self.bigEndian32(1) + body)
        let received = try Self.frames(frame, layout: .gameHTTPRequest)
        #expect(received.first?.header.extras == ["playerId": 0x0102_0304_0506_0708, "sessionId": 9])
        #expect(try received.map(GameCommands.decodeRequest) == [.testReq(request)])
        // Without the extras the header cannot be written: a typed error, not zeros.
        #expect(throws: FrameError.self) { try GameCommands.encode(request, layout: .gameHTTPRequest) }
    }

    // MARK: Erlang (format B)

    @Test func erlangIdsComeFromMessageNames() throws {
        let request = Cs20001(sceneId: 3, line: 1, message: "hi")
        let body = try request.serializedBytes()
        let frame = try ErlangCommands.encode(request)
        // length counts the bytes after itself: the 2-byte protocol number and the body.
        #expect(frame == Self.bigEndian32(UInt32(body.count + 2)) + [0x4E, 0x21] + body)
        #expect(Cs20001.commandID == 20001 && Sc20001.commandID == 20001)
        #expect(Cs20001.Response.self == Sc20001.self)
        let reply = Sc20001(res: 1, sceneId: 3, pos: 9, status: 2, type: 5, defaultCombat: 1, message: "ok")
        let inbound = try Self.frames(try ErlangCommands.encode(reply), layout: ErlangCommands.layout)
        #expect(try inbound.map(ErlangCommands.decode) == [.sc20001(reply)])
    }

    // MARK: IM (format C) with nested envelopes

    @Test func imRequestIsOneLineAndItsReplyOneSwitch() throws {
        let login = LoginRequest(nickName: "neo", pwd: "pw", ip: "10.0.0.1", port: 5222)
        let request = try Common(.user(UserMsg(.login(login))))
        #expect(request.method == .user)
        let frame = try ImCommands.encode(request, sequence: 7)
        let body = try request.serializedBytes()
        // magic 0x81 | seq 7 | type 2 (request) | length u16 of the body | body
        #expect(frame == [0x81, 0, 0, 0, 7, 2, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body)

        // The server unwraps it, one level at a time.
        let received = try Self.frames(frame, layout: ImCommands.layout)
        #expect(received.first?.header.sequence == 7)
        guard case let .common(common)? = try received.map(ImCommands.decodeRequest).first,
            case let .user(userMessage) = try common.decodedBody(),
            case let .login(decoded) = try userMessage.decodedBody()
        else {
            Issue.record("the request did not unwrap to a login request")
            return
        }
        #expect(decoded == login)

        // The reply echoes the seq; its respon holds the request's Response type.
        let answer = LoginResponse(uid: 1001, token: "t0k")
        let reply = CommonRespon(isSuc: true, respon: try answer.serializedBytes())
        let replyFrames = try Self.frames(try ImCommands.encode(reply, sequence: 7), layout: ImCommands.layout)
        switch try ImCommands.decode(try #require(replyFrames.first)) {
        case let .commonRespon(respon):
            #expect(replyFrames.first?.header.sequence == 7)
            #expect(try LoginRequest.Response(serializedBytes: respon.respon) == answer)
        default:
            Issue.record("expected a CommonRespon")
        }
    }

    @Test func envelopeBytesMatchProtoc() throws {
        let login = LoginRequest(nickName: "neo", pwd: "pw")
        let loginBytes = try Protoc.encode("nick_name: \"neo\" pwd: \"pw\"", as: "login_request", file: "user.proto")
        let user = try UserMsg(.login(login))
        #expect(user.cmd == .login && user.body == loginBytes)
        let escaped = loginBytes.map { "\\" + String($0, radix: 8) }.joined()
        let userBytes = try Protoc.encode(
            "cmd: User_cmd_login body: \"\(escaped)\"", as: "User_msg", file: "user.proto")
        #expect(try user.serializedBytes() == userBytes)
    }

    @Test func envelopeValuesWithoutAMessageKeepTheirBytes() throws {
        let common = try Common(.other(method: .friend, bytes: [1, 2, 3]))
        #expect(common.method == .friend && common.body == [1, 2, 3])
        #expect(try common.decodedBody() == .other(method: .friend, bytes: [1, 2, 3]))
        var unknown = Common()
        unknown.method = .unrecognized(77)
        #expect(try unknown.decodedBody() == .other(method: .unrecognized(77), bytes: []))
        // A body that does not decode as the selected type is a typed error, not a crash.
        let broken = Common(method: .user, body: [0x0A, 0x09])
        #expect(throws: WireError.self) { try broken.decodedBody() }
    }

    @Test func imFrameTypesWithoutMessagesArriveAsPayloads() throws {
        let heartbeat = try ImCommands.encode(EmptyReq(), command: 1, sequence: 1)
        #expect(heartbeat == [0x81, 0, 0, 0, 1, 1, 0, 0])
        let push = try ImCommands.encode(TestRsp(result1: "x"), command: 4, sequence: 2)
        let inbound = try Self.frames(heartbeat + push, layout: ImCommands.layout).map(ImCommands.decode)
        #expect(inbound == [.heartbeat(payload: []), .push(payload: try TestRsp(result1: "x").serializedBytes())])
    }
}
