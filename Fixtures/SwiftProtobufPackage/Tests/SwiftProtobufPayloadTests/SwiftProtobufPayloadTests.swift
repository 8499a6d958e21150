// SwiftProtobuf messages (protoc-gen-swift's output) as the payloads of the tables
// protoc-gen-swiftframe generates beside them (Messages=SwiftProtobuf): coded by SwiftProtobuf,
// framed and carried by swiftframe, against the Python peers over loopback.

import ErlangMessages
import Foundation
import GameMessages
import IMMessages
import SwiftFrame
import SwiftFrameNIO
import SwiftProtobuf
import Testing

/// A request of the IM format: `body` inside a `User_msg` of `cmd`, inside a `Common` (the
/// envelopes built by hand: SwiftProtobuf's messages get no envelope helpers yet).
func imRequest(_ cmd: User_cmd, _ body: some SwiftProtobuf.Message) throws -> Common {
    var message = User_msg()
    message.cmd = cmd
    message.body = try body.serializedData()
    var common = Common()
    common.method = .user
    common.body = try message.serializedData()
    return common
}

func login(_ nick: String, password: String = "secret") throws -> Common {
    var request = login_request()
    request.nickName = nick
    request.pwd = password
    return try imRequest(.login, request)
}

func userInfo(_ uid: UInt32) throws -> Common {
    var request = User_info_request()
    request.uid = uid
    return try imRequest(.userInfo, request)
}

@Suite struct CodecTests {
    @Test func aFrameHoldsSwiftProtobufsEncodingAndDecodesBackWithUnknownFieldsKept() throws {
        var request = Test_Req()
        request.param1 = "hi"
        request.param2 = 4
        let frame = try GameCommands.encode(request)
        #expect(frame == [0, 0, 0, 0xFF, 0, 0, 0, 10, 0, 0, 0, 1] + (try request.serializedBytes() as [UInt8]))

        // A reply with a field this version of the .proto does not know (9: "new").
        let body: [UInt8] = [0x0A, 2, 0x68, 0x69, 0x10, 8, 0x4A, 3, 0x6E, 0x65, 0x77]
        let decoded = try GameCommands.decode(Frame(header: FrameHeader(command: 1), payload: body[...], offset: 0))
        guard case let .testRsp(reply) = decoded else {
            Issue.record("\(decoded)")
            return
        }
        #expect(reply.result1 == "hi" && reply.result2 == 8)
        #expect(reply.unknownFields.data == Data([0x4A, 3, 0x6E, 0x65, 0x77]))
        #expect(try reply.framePayloadBytes() == body)
    }

    @Test func badPayloadsAreSwiftFramesErrorsWithTheirOffsets() throws {
        // The string of field 1 announces 5 bytes where 2 remain.
        #expect(throws: WireError.lengthPastEnd(offset: 1, length: 5, remaining: 2)) {
            try Test_Rsp(framePayload: [0x0A, 5, 0x68, 0x69])
        }
        #expect(throws: WireError.malformedVarint(offset: 1)) {
            try Test_Rsp(framePayload: [0x10] + [UInt8](repeating: 0xFF, count: 11))
        }
        // Invalid UTF-8 in a string: no structural fault for swiftframe's reader to place, so
        // SwiftProtobuf's own error, named.
        let error = #expect(throws: WireError.self) { try Test_Rsp(framePayload: [0x0A, 2, 0xC3, 0x28]) }
        guard case let .rejected(message, reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(message == "Test_Rsp")
        #expect(reason.contains("invalidUTF8"))
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct PeerTests {
    @Test func gameRequestsErrorRepliesAndNotices() async throws {
        let peer = try await Peer.start("game", ["--split", "--notices", "2"])
        try await withClient(GameCommands.self, peer: peer) { client in
            var request = Test_Req()
            request.param1 = "hi"
            request.param2 = 4
            let reply = try await client.request(request)
            #expect(reply.result1 == "echo:hi" && reply.result2 == 8)
            do {
                _ = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
                Issue.record("logout answered without an error")
            } catch let error as ErrorReply<GameCommands> {
                guard case let .errorRsp(reply) = error.reply else {
                    Issue.record("\(error)")
                    return
                }
                #expect(reply.code == 401 && reply.message == "logged out")
            }
            var pushes = client.pushes.makeAsyncIterator()
            for serial in 1...2 {
                guard case let .noticeNtf(notice)? = await pushes.next() else {
                    Issue.record("no notice \(serial)")
                    return
                }
                #expect(notice.text == "notice \(serial)" && notice.serial == Int64(serial))
            }
        }
    }

    @Test func erlangEntersAScene() async throws {
        let peer = try await Peer.start("erlang", ["--split"])
        try await withClient(ErlangCommands.self, peer: peer) { client in
            var request = Cs_20001()
            request.sceneID = 7
            let reply = try await client.request(request)
            #expect(reply.sceneID == 7 && reply.pos == 70 && reply.message == "entered 7")
        }
    }

    @Test func imLoginPushesAnd64CallersOfUserInfo() async throws {
        let peer = try await Peer.start("im", ["--split", "--pushes", "2", "--out-of-order", "8"])
        try await withClient(
            ImCommands.self, peer: peer,
            onConnect: { connection in
                let reply = try await connection.request(try login("neo"))
                guard reply.isSuc else { throw PeerFailure(description: "login refused: \(reply)") }
                let answer = try login_response(serializedBytes: reply.respon)
                guard answer.token == "tok-neo" else { throw PeerFailure(description: "token \(answer.token)") }
            }
        ) { client in
            var pushes = client.pushes.makeAsyncIterator()
            for _ in 1...2 {
                guard case let .push(payload)? = await pushes.next() else {
                    Issue.record("no push")
                    return
                }
                #expect(payload == [UInt8](repeating: UInt8(ascii: "p"), count: 16))
            }
            let matched = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        var matched = 0
                        for uid in stride(from: UInt32(task), to: 640, by: 64) {
                            let reply = try await client.request(try userInfo(uid))
                            let info = try User_info_response(serializedBytes: reply.respon)
                            if info.userInfo.uid == uid && info.userInfo.nickName == "user\(uid)" { matched += 1 }
                        }
                        return matched
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(matched == 640)
        }
    }

    @Test func imHeartbeatsGoUnansweredSoTheClientReconnectsAndLogsInAgain() async throws {
        let logins = FileManager.default.temporaryDirectory.appendingPathComponent("logins-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logins) }
        let peer = try await Peer.start("im", ["--split", "--no-heartbeat", "--logins-file", logins.path])
        var configuration = ClientConfiguration()
        configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
        configuration.heartbeat = Heartbeat(interval: .milliseconds(500), timeout: .milliseconds(300), retries: 3)
        try await withClient(
            ImCommands.self, peer: peer, configuration: configuration,
            onConnect: { connection in
                let reply = try await connection.request(try login("neo"))
                guard reply.isSuc else { throw PeerFailure(description: "login refused") }
            }
        ) { client in
            var dropped = false
            for await state in client.states {
                if case .disconnected(.heartbeatTimeout(attempts: 4)) = state { dropped = true }
                if dropped, case .connected = state { break }
            }
        }
        let lines = try String(contentsOf: logins, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 2 && lines.allSatisfy { $0 == "login neo" })
    }
}
