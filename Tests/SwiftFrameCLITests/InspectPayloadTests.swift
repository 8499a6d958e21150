import Foundation
import SwiftFrame
import SwiftFrameCapture
import SwiftFrameFixtures
import TestSupport
import Testing

/// `swiftframe inspect --proto ...`: each frame's payload as its command's message in text
/// format, by direction, envelopes unwrapped; a payload that does not parse is shown raw.
@Suite struct InspectPayloadTests {
    static let client = CaptureEndpoint(address: [127, 0, 0, 1], port: 50_124)
    static let server = CaptureEndpoint(address: [127, 0, 0, 1], port: 9000)
    static let game = ["--proto", Repository.fixtureProtos + "/game.proto", "-I", Repository.fixtureProtos]

    @Test func captureByDirection() throws {
        let capture = try Self.capture([
            (true, try GameCommands.encode(TestReq(param1: "hi", param2: 7))),
            (false, try GameCommands.encode(TestRsp(result1: "echo:hi", result2: 42))),
        ])
        let result = try runInspect(Self.game + ["--port", "9000"], capture: capture)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(lines)")
        #expect(
            lines[0].hasSuffix("dir=client->server offset=0 magic=255 length=10 cmd=1 payload=6 CMD_TEST Test_Req"),
            "\(lines)")
        #expect(Array(lines[1...2]) == ["  param1: \"hi\"", "  param2: 7"])
        #expect(
            lines[3].hasSuffix("dir=server->client offset=0 magic=255 length=15 cmd=1 payload=11 CMD_TEST Test_Rsp"),
            "\(lines)")
        #expect(Array(lines[4...5]) == ["  result1: \"echo:hi\"", "  result2: 42"])
    }

    @Test func envelopesAndAStreamOnStandardInput() throws {
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret")))))
        let stream = try ImCommands.encode(login, sequence: 7)
        let protos = ["im.proto", "common.proto", "user.proto"].flatMap {
            ["--proto", Repository.fixtureProtos + "/" + $0]
        }
        // A raw stream has no direction: --sent-by says whose it is (the default reads replies).
        let result = try runProcess(
            Repository.builtExecutable("swiftframe"),
            ["inspect"] + protos + ["-I", Repository.fixtureProtos, "--sent-by", "client"], input: stream)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutText == """
                frame offset=0 magic=129 seq=7 type=2 length=19 payload=19 FRAME_TYPE_REQUEST Common > User_msg > login_request
                  nick_name: "neo"
                  pwd: "secret"

                """)
    }

    /// A capture that starts after the request was sent: the reply's respon has no request to
    /// be read through, so it stays bytes, and a note says why.
    @Test func aReplyWithNoRequestKeepsItsResponseRaw() throws {
        let server = CaptureEndpoint(address: [127, 0, 0, 1], port: 9100)
        let reply = try ImCommands.encode(
            CommonRespon(isSuc: true, respon: try LoginResponse(uid: 5, token: "t").serializedBytes()),
            sequence: 3)
        var writer = CaptureWriter(format: .pcapng)
        let capture =
            writer.fileHeader
            + writer.records(
                seconds: 1_764_000_000, nanoseconds: 0, from: server, to: Self.client,
                payload: reply)
        let protos = ["im.proto", "common.proto", "user.proto"].flatMap {
            ["--proto", Repository.fixtureProtos + "/" + $0]
        }
        let result = try runInspect(protos + ["-I", Repository.fixtureProtos, "--port", "9100"], capture: capture)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("FRAME_TYPE_REQUEST CommonRespon") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("  # no request seen that this reply answers") == true, "\(lines)")
        #expect(lines.contains("  isSuc: true") && lines.contains { $0.hasPrefix("  respon: \"") }, "\(lines)")

        let json = try runInspect(
            protos + ["-I", Repository.fixtureProtos, "--port", "9100", "--json"], capture: capture)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        #expect(object["message"] as? [String] == ["CommonRespon"])
        #expect((object["note"] as? String)?.hasPrefix("no request seen") == true, "\(object)")
    }

    /// Replies answered out of order are paired with their requests by sequence number: each
    /// respon is read as the response of its own request; an error reply with no respon shows
    /// none.
    @Test func repliesArePairedWithTheirRequestsBySequence() throws {
        let login = try ImCommands.encode(
            try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo"))))), sequence: 1)
        let info = try ImCommands.encode(try Common(.user(UserMsg(.userInfo(UserInfoRequest(uid: 7))))), sequence: 2)
        let logout = try ImCommands.encode(try Common(.user(UserMsg(.logout(LogoutRequest(uid: 7))))), sequence: 3)
        let infoReply = try ImCommands.encode(
            CommonRespon(isSuc: true, respon: try UserInfoResponse(userInfo: UserInfo(uid: 7)).serializedBytes()),
            sequence: 2)
        let loginReply = try ImCommands.encode(
            CommonRespon(isSuc: true, respon: try LoginResponse(uid: 9, token: "t").serializedBytes()), sequence: 1)
        let refused = try ImCommands.encode(CommonRespon(error: ErrorMsg(type: .invalidParams, msg: "no")), sequence: 3)
        let capture = try Self.capture([
            (true, login + info + logout), (false, infoReply), (false, loginReply + refused),
        ])
        let protos = ["im.proto", "common.proto", "user.proto"].flatMap {
            ["--proto", Repository.fixtureProtos + "/" + $0]
        }
        let result = try runInspect(protos + ["-I", Repository.fixtureProtos, "--port", "9000"], capture: capture)
        #expect(result.status == 0, "\(result.stderr)")
        let replies = result.stdoutText.components(separatedBy: "frame time=").filter {
            $0.contains("dir=server->client")
        }
        #expect(replies.count == 3, "\(result.stdoutText)")
        guard replies.count == 3 else { return }
        #expect(
            replies[0].hasSuffix(
                """
                seq=2 type=2 length=8 payload=8 FRAME_TYPE_REQUEST CommonRespon > User_info_response
                  isSuc: true
                  respon {
                    user_info {
                      uid: 7
                    }
                  }

                """), "\(replies[0])")
        #expect(
            replies[1].hasSuffix(
                """
                FRAME_TYPE_REQUEST CommonRespon > login_response
                  isSuc: true
                  respon {
                    uid: 9
                    token: "t"
                  }

                """), "\(replies[1])")
        #expect(
            replies[2].hasSuffix(
                """
                FRAME_TYPE_REQUEST CommonRespon
                  error {
                    type: invalid_params
                    msg: "no"
                  }

                """), "\(replies[2])")
    }

    /// An IM table whose pushes carry a bytes field: type 3 the replies' own message
    /// (CommonRespon), type 4 a message of its own with one bytes field. A push answers no
    /// request, so its bytes stay as they are with no note; a reply whose request the capture
    /// does not hold still gets the note.
    static let pushProto = """
        syntax = "proto3";
        import "common.proto";
        import "swiftframe/options.proto";
        option (swiftframe.layout) = "im";
        enum Push_frame_type {
          option (swiftframe.command_table) = true;
          PUSH_FRAME_TYPE_UNSPECIFIED = 0;
          PUSH_FRAME_TYPE_HEARTBEAT = 1 [(swiftframe.heartbeat) = true];
          PUSH_FRAME_TYPE_REQUEST = 2 [(swiftframe.request) = "Common", (swiftframe.response) = "CommonRespon"];
          PUSH_FRAME_TYPE_CHAT = 3 [(swiftframe.response) = "CommonRespon"];
          PUSH_FRAME_TYPE_PUSH = 4 [(swiftframe.response) = "Server_push"];
        }
        message Server_push { bytes payload = 1; }
        """

    /// An IM frame: `0x81 | seq u32 | type u8 | length u16 | body`.
    static func imFrame(sequence: UInt32, type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0x81] + withUnsafeBytes(of: sequence.bigEndian, Array.init) + [type]
            + withUnsafeBytes(of: UInt16(body.count).bigEndian, Array.init) + body
    }

    /// The segments of a capture of the push table: a login and its reply, a push of each
    /// kind, and a reply (seq 5) to a request the capture does not hold.
    static func pushSegments() throws -> [(toServer: Bool, bytes: [UInt8])] {
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo"))))).serializedBytes()
        let reply = try CommonRespon(isSuc: true, respon: try LoginResponse(uid: 9, token: "t").serializedBytes())
            .serializedBytes()
        let chat = try CommonRespon(respon: Array("raw".utf8)).serializedBytes()
        let push: [UInt8] = [0x0A, 5] + Array("hello".utf8)  // Server_push { payload: "hello" }
        let orphan = try CommonRespon(isSuc: true, respon: try LoginResponse(uid: 5, token: "u").serializedBytes())
            .serializedBytes()
        return [
            (true, imFrame(sequence: 1, type: 2, login)),
            (false, imFrame(sequence: 1, type: 2, reply)),
            (false, imFrame(sequence: 0, type: 4, push) + imFrame(sequence: 0, type: 3, chat)),
            (false, imFrame(sequence: 5, type: 2, orphan)),
        ]
    }

    @Test func pushesGetNoNoteAndAReplyWithoutItsRequestDoes() throws {
        let directory = try temporaryDirectory("swiftframe-inspect-push")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.pushProto.write(to: directory.appendingPathComponent("push.proto"), atomically: true, encoding: .utf8)
        let protos =
            ["--proto", directory.path + "/push.proto", "-I", directory.path, "-I", Repository.fixtureProtos]
            + ["common.proto", "user.proto"].flatMap { ["--proto", Repository.fixtureProtos + "/" + $0] }
        let capture = try Self.capture(try Self.pushSegments())
        let result = try runInspect(protos + ["--port", "9000"], capture: capture)
        #expect(result.status == 0, "\(result.stderr)")
        let frames = result.stdoutText.components(separatedBy: "frame time=").dropFirst()
        #expect(frames.count == 5, "\(result.stdoutText)")
        guard frames.count == 5 else { return }
        let (reply, push, chat, orphan) = (
            frames[frames.startIndex + 1], frames[frames.startIndex + 2],
            frames[frames.startIndex + 3], frames[frames.startIndex + 4]
        )
        #expect(
            reply.hasSuffix(
                """
                seq=1 type=2 length=9 payload=9 PUSH_FRAME_TYPE_REQUEST CommonRespon > login_response
                  isSuc: true
                  respon {
                    uid: 9
                    token: "t"
                  }

                """), "\(reply)")
        #expect(
            push.hasSuffix(
                """
                seq=0 type=4 length=7 payload=7 PUSH_FRAME_TYPE_PUSH Server_push
                  payload: "hello"

                """), "\(push)")
        #expect(
            chat.hasSuffix(
                """
                seq=0 type=3 length=5 payload=5 PUSH_FRAME_TYPE_CHAT CommonRespon
                  respon: "raw"

                """), "\(chat)")
        #expect(
            orphan.contains(
                "seq=5 type=2 length=9 payload=9 PUSH_FRAME_TYPE_REQUEST CommonRespon\n"
                    + "  # no request seen that this reply answers"), "\(orphan)")
        #expect(
            result.stdoutText.components(separatedBy: "# no request seen").count == 2, "one note: \(result.stdoutText)")

        let json = try runInspect(protos + ["--port", "9000", "--json"], capture: capture)
        let objects = try json.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == 5, "\(json.stdoutText)")
        #expect(objects.map { $0["note"] != nil } == [false, false, false, false, true], "\(json.stdoutText)")
        #expect(objects.dropFirst(2).first?["message"] as? [String] == ["Server_push"], "\(json.stdoutText)")
    }

    @Test func aPayloadThatDoesNotParseIsShownRaw() throws {
        // Test_Req whose field 1 (a string) claims 9 bytes where 2 remain, then a good frame.
        let broken: [UInt8] = [0, 0, 0, 0xFF, 0, 0, 0, 8, 0, 0, 0, 1, 0x0A, 0x09, 0x68, 0x69]
        let good = try GameCommands.encode(TestReq(param1: "ok"))
        let result = try runProcess(
            Repository.builtExecutable("swiftframe"),
            ["inspect"] + Self.game + ["--sent-by", "client"], input: broken + good)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "frame offset=0 magic=255 length=8 cmd=1 payload=4 CMD_TEST Test_Req", "\(lines)")
        #expect(
            lines.count > 2 && lines[1].hasPrefix("  # not a Test_Req: ") && lines[1].hasSuffix("; raw:"), "\(lines)")
        #expect(lines.contains("frame offset=16 magic=255 length=8 cmd=1 payload=4 CMD_TEST Test_Req"), "\(lines)")
        #expect(lines.last == "  param1: \"ok\"", "\(lines)")
    }

    @Test func jsonObjectPerFrame() throws {
        let capture = try Self.capture([
            (true, try GameCommands.encode(TestReq(param1: "say \"hi\"\n", param2: 7))),
            (false, try GameCommands.encode(TestRsp(result1: "echo:hi", result2: 42)) + [0, 0, 0, 0xFE]),
        ])
        let result = try runInspect(Self.game + ["--port", "9000", "--json"], capture: capture)
        #expect(result.status == 1, "the bad magic after the reply is an error")
        let objects = try result.stdoutText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == 3, "\(result.stdoutText)")
        guard objects.count == 3 else { return }
        #expect(objects[0]["kind"] as? String == "frame")
        #expect(objects[0]["dir"] as? String == "client->server")
        #expect(objects[0]["to"] as? String == "127.0.0.1:9000")
        #expect((objects[0]["header"] as? [String: Any])?["cmd"] as? Int == 1)
        #expect(objects[0]["payload"] as? Int == 13)
        #expect(objects[0]["command"] as? String == "CMD_TEST")
        #expect(objects[0]["message"] as? [String] == ["Test_Req"])
        // Quotes and backslashes of the text format's own escapes, escaped again in JSON.
        #expect(objects[0]["text"] as? String == #"param1: "say \"hi\"\n" param2: 7"#)
        #expect(objects[0]["error"] is NSNull)
        #expect(objects[1]["dir"] as? String == "server->client")
        #expect(objects[1]["text"] as? String == "result1: \"echo:hi\" result2: 42")
        #expect(objects[2]["kind"] as? String == "error")
        #expect((objects[2]["reason"] as? String)?.contains("bad magic") == true, "\(objects[2])")
    }

    static func capture(_ segments: [(toServer: Bool, bytes: [UInt8])]) throws -> [UInt8] {
        var writer = CaptureWriter(format: .pcapng)
        var capture = writer.fileHeader
        capture += writer.handshake(seconds: 1_764_000_000, nanoseconds: 0, client: client, server: server)
        for (index, segment) in segments.enumerated() {
            capture += writer.records(
                seconds: 1_764_000_000 + UInt32(index), nanoseconds: 0,
                from: segment.toServer ? client : server, to: segment.toServer ? server : client,
                payload: segment.bytes)
        }
        return capture
    }

    func runInspect(_ arguments: [String], capture: [UInt8]) throws -> ProcessResult {
        let directory = try temporaryDirectory("swiftframe-inspect")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("capture.pcapng")
        try Data(capture).write(to: file)
        return try runProcess(Repository.builtExecutable("swiftframe"), ["inspect"] + arguments + [file.path])
    }
}
