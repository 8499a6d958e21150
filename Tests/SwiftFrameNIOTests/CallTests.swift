// `swiftframe call` run as a process against the Python peers: typed replies, an error reply,
// pushes with --watch, a login and envelopes (IM), the HTTP short connection, and the exit
// status of each failure.

import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct CallTests {
    static let game = ["--proto", Repository.fixtureProtos + "/game.proto", "-I", Repository.fixtureProtos]
    static let im = ["im.proto", "common.proto", "user.proto"].flatMap { ["--proto", Repository.fixtureProtos + "/" + $0] }
        + ["-I", Repository.fixtureProtos]

    @Test func reply() async throws {
        let peer = try Peer("game")
        defer { peer.stop() }
        let result = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Test_Req", #"param1: "hi" param2: 21"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == """
            sent CMD_TEST Test_Req
            reply CMD_TEST cmd=1 Test_Rsp
              result1: "echo:hi"
              result2: 42

            """)
    }

    @Test func errorReplyByCommandName() async throws {
        let peer = try Peer("game")
        defer { peer.stop() }
        let result = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "CMD_SYSTEM_LOGOUT"])
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("error CMD_ERROR cmd=100000 Error_Rsp\n  code: 401\n  message: \"logged out\""),
                "\(result.stdoutText)")
    }

    @Test func watchPrintsPushes() async throws {
        let peer = try Peer("game", ["--notices", "2"])
        defer { peer.stop() }
        let result = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "--watch", "1",
                                                 "Test_Req", #"param1: "w""#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("push CMD_NOTICE cmd=200 Notice_Ntf\n  text: \"notice 2\"\n  serial: 2"),
                "\(result.stdoutText)")
    }

    @Test func loginThenARequestInEnvelopes() async throws {
        let peer = try Peer("im")
        defer { peer.stop() }
        let result = try await call(Self.im + ["--host", "127.0.0.1", "--port", "\(peer.port)",
                                               "--login", #"login_request nick_name: "neo" pwd: "secret""#,
                                               "User_info_request", "uid: 7"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("sent FRAME_TYPE_REQUEST Common > ... > login_request"), "\(lines)")
        // Each reply's respon, read as the response of the request it answers.
        #expect(result.stdoutText.contains("""
            reply FRAME_TYPE_REQUEST seq=1 type=2 CommonRespon > login_response
              isSuc: true
              respon {
                uid: 1003
                token: "tok-neo"
              }
            """), "\(lines)")
        #expect(result.stdoutText.contains("""
            reply FRAME_TYPE_REQUEST seq=2 type=2 CommonRespon > User_info_response
              isSuc: true
              respon {
                user_info {
                  uid: 7
                  nick_name: "user7"
                }
              }
            """), "\(lines)")
    }

    @Test func httpShortConnection() async throws {
        let peer = try Peer("http")
        defer { peer.stop() }
        let result = try await call(Self.game + ["--http", "http://127.0.0.1:\(peer.port)/", "--http-layout", "game-http-request",
                                                 "--extra", "playerId=7", "--extra", "sessionId=9", "Test_Req", #"param1: "web""#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("reply CMD_TEST cmd=1 Test_Rsp\n  result1: \"web:7:9\"\nevent CMD_NOTICE"),
                "\(result.stdoutText)")
    }

    @Test func failures() async throws {
        let peer = try Peer("game", ["--delay-ms", "3000"])
        defer { peer.stop() }
        let silent = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "--timeout", "0.5",
                                                 "Test_Req", #"param1: "x""#])
        #expect(silent.status == 2)
        #expect(silent.stderr.contains("no reply to CMD_TEST within 0.5 s"), "\(silent.stderr)")

        let refused = try await call(Self.game + ["--host", "127.0.0.1", "--port", "1", "Test_Req", ""])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("cannot connect to 127.0.0.1:1"), "\(refused.stderr)")

        let badText = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Test_Req", "param9: 1"])
        #expect(badText.status == 64)
        #expect(badText.stderr.contains("Test_Req: line 1, column 1: Test_Req has no field 'param9'"), "\(badText.stderr)")

        let unknown = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Nope_Req", ""])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Nope_Req is neither a request nor a command of game.proto"), "\(unknown.stderr)")
    }

    private func call(_ arguments: [String]) async throws -> ProcessResult {
        try await offThePool { try runProcess(Repository.builtExecutable("swiftframe"), ["call"] + arguments) }
    }
}
