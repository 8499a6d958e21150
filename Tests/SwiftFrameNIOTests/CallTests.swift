// `swiftframe call` run as a process against the Python peers: typed replies, an error reply,
// pushes with --watch, a login and envelopes (IM), the HTTP short connection, and the exit
// status of each failure.

import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct CallTests {
    static let game = ["--proto", Repository.fixtureProtos + "/game.proto", "-I", Repository.fixtureProtos]
    static let im =
        ["im.proto", "common.proto", "user.proto"].flatMap { ["--proto", Repository.fixtureProtos + "/" + $0] }
        + ["-I", Repository.fixtureProtos]

    @Test func reply() async throws {
        let peer = try await Peer.start("game")
        defer { peer.stop() }
        let result = try await call(
            Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Test_Req", #"param1: "hi" param2: 21"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutText == """
                sent CMD_TEST Test_Req
                reply CMD_TEST cmd=1 Test_Rsp
                  result1: "echo:hi"
                  result2: 42

                """)
    }

    @Test func errorReplyByCommandName() async throws {
        let peer = try await Peer.start("game")
        defer { peer.stop() }
        let result = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "CMD_SYSTEM_LOGOUT"])
        #expect(result.status == 1)
        #expect(
            result.stdoutText.contains("error CMD_ERROR cmd=100000 Error_Rsp\n  code: 401\n  message: \"logged out\""),
            "\(result.stdoutText)")
    }

    @Test func watchPrintsPushes() async throws {
        let peer = try await Peer.start("game", ["--notices", "2"])
        defer { peer.stop() }
        let result = try await call(
            Self.game + [
                "--host", "127.0.0.1", "--port", "\(peer.port)", "--watch", "1",
                "Test_Req", #"param1: "w""#,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutText.contains("push CMD_NOTICE cmd=200 Notice_Ntf\n  text: \"notice 2\"\n  serial: 2"),
            "\(result.stdoutText)")
    }

    @Test func loginThenARequestInEnvelopes() async throws {
        let peer = try await Peer.start("im")
        defer { peer.stop() }
        let result = try await call(
            Self.im + [
                "--host", "127.0.0.1", "--port", "\(peer.port)",
                "--login", #"login_request nick_name: "neo" pwd: "secret""#,
                "User_info_request", "uid: 7",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("sent FRAME_TYPE_REQUEST Common > ... > login_request"), "\(lines)")
        // Each reply's respon, read as the response of the request it answers.
        #expect(
            result.stdoutText.contains(
                """
                reply FRAME_TYPE_REQUEST seq=1 type=2 CommonRespon > login_response
                  isSuc: true
                  respon {
                    uid: 1003
                    token: "tok-neo"
                  }
                """), "\(lines)")
        #expect(
            result.stdoutText.contains(
                """
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
        let peer = try await Peer.start("http")
        defer { peer.stop() }
        let result = try await call(
            Self.game + [
                "--http", "http://127.0.0.1:\(peer.port)/", "--http-layout", "game-http-request",
                "--extra", "playerId=7", "--extra", "sessionId=9", "Test_Req", #"param1: "web""#,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutText.contains("reply CMD_TEST cmd=1 Test_Rsp\n  result1: \"web:7:9\"\nevent CMD_NOTICE"),
            "\(result.stdoutText)")
    }

    @Test func failures() async throws {
        let peer = try await Peer.start("game", ["--delay-ms", "3000"])
        defer { peer.stop() }
        let silent = try await call(
            Self.game + [
                "--host", "127.0.0.1", "--port", "\(peer.port)", "--timeout", "0.5",
                "Test_Req", #"param1: "x""#,
            ])
        #expect(silent.status == 2)
        #expect(silent.stderr.contains("no reply to CMD_TEST within 0.5 s"), "\(silent.stderr)")

        let refused = try await call(Self.game + ["--host", "127.0.0.1", "--port", "1", "Test_Req", ""])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("cannot connect to 127.0.0.1:1"), "\(refused.stderr)")

        let badText = try await call(
            Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Test_Req", "param9: 1"])
        #expect(badText.status == 64)
        #expect(
            badText.stderr.contains("Test_Req: line 1, column 1: Test_Req has no field 'param9'"), "\(badText.stderr)")

        let unknown = try await call(Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "Nope_Req", ""])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.contains("Nope_Req is neither a request nor a command of game.proto"), "\(unknown.stderr)")
    }

    #if TLS
    /// `--tls` against the Python game peer speaking TLS with a certificate of this test run's
    /// CA: a reply with the CA, the name and the key's pin; a pin of another key, a name the
    /// certificate is not for and a chain to no trusted root are refused before any request,
    /// exit status 2, naming the failure; TLS flags that do not load are usage errors.
    @Test func overTLS() async throws {
        let pki = try await TestCertificates.load()
        let peer = try await offThePool {
            try Peer("game", ["--tls-cert", pki.server.certificate, "--tls-key", pki.server.key])
        }
        defer { peer.stop() }
        let tls = ["--host", "127.0.0.1", "--port", "\(peer.port)", "--tls", "--ca-file", pki.ca]
        let request = ["Test_Req", #"param1: "tls""#]

        let reply = try await call(Self.game + tls + ["--server-name", "localhost", "--pin", pki.serverPin] + request)
        #expect(reply.status == 0, "\(reply.stderr)")
        #expect(
            reply.stdoutText == """
                sent CMD_TEST Test_Req
                reply CMD_TEST cmd=1 Test_Rsp
                  result1: "echo:tls"

                """, "\(reply.stderr)")

        let pinned = try await call(Self.game + tls + ["--server-name", "localhost", "--pin", pki.otherPin] + request)
        #expect(pinned.status == 2)
        #expect(
            pinned.stderr.contains(
                "TLS with 127.0.0.1:\(peer.port) failed: pin mismatch: the server's key is \(pki.serverPin)"),
            "\(pinned.stderr)")
        #expect(
            !pinned.stdoutText.contains("sent"), "nothing is sent before the server is accepted: \(pinned.stdoutText)")

        // The certificate above lists DNS:localhost and IP:127.0.0.1: a connection to that
        // address naming another server is refused, the IP SAN being no match for a DNS name.
        let wrongName = try await call(Self.game + tls + ["--server-name", "game.example.com"] + request)
        #expect(wrongName.status == 2)
        #expect(
            wrongName.stderr.contains("failed: hostname mismatch: the certificate is not for game.example.com"),
            "\(wrongName.stderr)")
        // Without --server-name the address is the name, which the IP SAN matches.
        let byAddress = try await call(Self.game + tls + request)
        #expect(byAddress.status == 0, "\(byAddress.stderr)")

        // A certificate for other.example only.
        let other = try await offThePool {
            try Peer("game", ["--tls-cert", pki.otherName.certificate, "--tls-key", pki.otherName.key])
        }
        defer { other.stop() }
        let otherTLS = ["--host", "127.0.0.1", "--port", "\(other.port)", "--tls", "--ca-file", pki.ca]
        let named = try await call(Self.game + otherTLS + ["--server-name", "localhost"] + request)
        #expect(named.status == 2)
        #expect(
            named.stderr.contains("failed: hostname mismatch: the certificate is not for localhost"), "\(named.stderr)")
        let rightName = try await call(Self.game + otherTLS + ["--server-name", "other.example"] + request)
        #expect(rightName.status == 0, "\(rightName.stderr)")

        // Without the CA the chain leads to no root the system trusts.
        let untrusted = try await call(
            Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "--tls"] + request)
        #expect(untrusted.status == 2)
        #expect(untrusted.stderr.contains("failed: untrusted chain"), "\(untrusted.stderr)")

        let usage = try await call(
            Self.game + ["--host", "127.0.0.1", "--port", "\(peer.port)", "--pin", pki.serverPin] + request)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--ca-file, --server-name and --pin go with --tls"), "\(usage.stderr)")
        let badPin = try await call(Self.game + tls + ["--pin", "sha256/not-base64!"] + request)
        #expect(badPin.status == 64)
        #expect(badPin.stderr.contains("--tls: "), "\(badPin.stderr)")
    }

    /// `--http` with an https:// URL goes through URLSession's TLS, which checks the server
    /// against the system's roots only (this run's CA is not among them: a transport failure);
    /// `--tls` is for the long connection.
    @Test func httpsGoesThroughURLSession() async throws {
        let pki = try await TestCertificates.load()
        let peer = try await offThePool {
            try Peer("http", ["--tls-cert", pki.server.certificate, "--tls-key", pki.server.key])
        }
        defer { peer.stop() }
        let url = "https://127.0.0.1:\(peer.port)/"
        let arguments =
            Self.game + [
                "--http", url, "--http-layout", "game-http-request", "--extra", "playerId=7",
                "--extra", "sessionId=9", "Test_Req", #"param1: "web""#,
            ]
        let refused = try await call(arguments)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("POST \(url): "), "\(refused.stderr)")
        let usage = try await call(arguments + ["--tls"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--tls is for --host and --port"), "\(usage.stderr)")
    }
    #endif

    private func call(_ arguments: [String]) async throws -> ProcessResult {
        try await offThePool { try runProcess(Repository.builtExecutable("swiftframe"), ["call"] + arguments) }
    }
}
