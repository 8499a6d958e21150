// The four `swiftframe-demo` scenarios against the Python peers, which cut their writes into
// tiny pieces glued to the next frame: the exact lines scripts rely on, and the exit status.

import Foundation
import TestSupport
import Testing

enum DemoProgram {
    /// The `swiftframe-demo` executable SwiftPM built for this test run.
    static var path: String { Repository.builtExecutable("swiftframe-demo") }

    /// Runs the demo to its end, waiting on a thread of its own: a blocked thread of Swift's
    /// small task pool is one the servers of the tests running beside it cannot have.
    static func run(_ arguments: [String], seconds: Double = 60) async throws -> (status: Int32, lines: [String]) {
        let (status, output) = try await offThePool { try Peer.run([path] + arguments, seconds: seconds) }
        return (status, output.split(separator: "\n").map(String.init))
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct DemoTests {
    @Test func game() async throws {
        let peer = try await Peer.start("game", ["--split"])
        let result = try await DemoProgram.run(["game", "--port", "\(peer.port)"])
        #expect(result.status == 0)
        #expect(
            result.lines == [
                "Test_Rsp result1=echo:hello result2=42",
                "heartbeat ok",
                "Error_Rsp code=401 message=logged out",
            ])
    }

    @Test func erlang() async throws {
        let peer = try await Peer.start("erlang", ["--split"])
        let result = try await DemoProgram.run(["erlang", "--port", "\(peer.port)"])
        #expect(result.status == 0)
        #expect(result.lines == ["Sc_20001 res=1 scene_id=42 pos=420 message=entered 42"])
    }

    @Test func imLoginPushesAndHeartbeat() async throws {
        let peer = try await Peer.start("im", ["--split", "--pushes", "3"])
        let result = try await DemoProgram.run(["im", "--port", "\(peer.port)"])
        #expect(result.status == 0)
        #expect(
            result.lines == [
                "login ok uid=1003 token=tok-neo",
                "push bytes=16", "push bytes=16", "push bytes=16",
                "heartbeat ok",
            ])
    }

    @Test func imWrongPassword() async throws {
        let peer = try await Peer.start("im", ["--split"])
        let result = try await DemoProgram.run(["im", "--port", "\(peer.port)", "--password", "nope"])
        #expect(result.status != 0)
        #expect(result.lines.first == "login failed type=2 msg=wrong password")
    }

    @Test func imWatchReconnectsAndLogsInAgain() async throws {
        // The peer drops each connection on its third frame (after the login and a heartbeat or
        // two, whichever of the demo's own and the idle ones come first).
        let peer = try await Peer.start("im", ["--split", "--drop-after", "3"])
        let result = try await DemoProgram.run([
            "im", "--port", "\(peer.port)", "--watch", "3", "--heartbeat-interval", "0.5",
        ])
        #expect(result.status == 0, "\(result.lines)")
        let lines = result.lines
        #expect(lines.first == "login ok uid=1003 token=tok-neo", "\(lines)")
        #expect(lines.contains("heartbeat ok"), "\(lines)")
        #expect(lines.contains("disconnected reason=closed by peer"), "\(lines)")
        #expect(lines.contains("reconnecting attempt=1"), "\(lines)")
        #expect(lines.contains("reconnected"), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("login ok") }.count >= 2, "\(lines)")
    }

    @Test func imWatchGoesOnWhenTheServerStopsAnsweringHeartbeats() async throws {
        let peer = try await Peer.start("im", ["--split", "--no-heartbeat"])
        let result = try await DemoProgram.run([
            "im", "--port", "\(peer.port)", "--watch", "4", "--timeout", "1",
            "--heartbeat-interval", "0.3", "--heartbeat-timeout", "0.2",
        ])
        let lines = result.lines
        #expect(result.status == 0, "\(lines)")
        #expect(lines.first == "login ok uid=1003 token=tok-neo", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("heartbeat failed error=") }, "\(lines)")
        #expect(lines.contains("disconnected reason=no heartbeat answer after 4 attempts"), "\(lines)")
        #expect(lines.contains("reconnecting attempt=1"), "\(lines)")
        #expect(lines.contains("reconnected"), "\(lines)")
    }

    /// The command line, with a shorter watch: a heartbeat every 0.5 s of idleness, its
    /// timeout the interval by default, so a server that never answers is found dead after
    /// 0.5 + 4 × 0.5 s, and the connection made again 0.5 s later, all while the demo runs.
    @Test func imWatchShowsADeadServerWithinSecondsAtTheDefaultHeartbeatTimeout() async throws {
        let peer = try await Peer.start("im", ["--split", "--no-heartbeat"])
        let start = Date()
        let result = try await DemoProgram.run([
            "im", "--port", "\(peer.port)", "--watch", "1", "--heartbeat-interval", "0.5",
        ])
        let took = Date().timeIntervalSince(start)
        let lines = result.lines
        #expect(result.status == 0, "\(lines)")
        #expect(lines.contains("disconnected reason=no heartbeat answer after 4 attempts"), "\(lines)")
        #expect(lines.contains("reconnecting attempt=1"), "\(lines)")
        #expect(lines.contains("reconnected"), "\(lines)")
        // Login, a second of pushes, the demo's own heartbeat failing with the drop (about 2.5 s
        // in), the watch's second: not the 40 s a 10 s timeout took.
        #expect(took < 8, "\(took) s")
        print("demo im --heartbeat-interval 0.5 against a server that never answers: \(lines) in \(took) s")
    }

    @Test func imWatchGoesOnWhenTheServerDropsTheHeartbeatsConnection() async throws {
        // The second frame of each connection, the demo's heartbeat, is dropped with its connection.
        let peer = try await Peer.start("im", ["--split", "--drop-after", "2"])
        let result = try await DemoProgram.run(["im", "--port", "\(peer.port)", "--watch", "2"])
        let lines = result.lines
        #expect(result.status == 0, "\(lines)")
        #expect(lines.contains("heartbeat failed error=connection lost: closed by peer"), "\(lines)")
        #expect(lines.contains("reconnected"), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("login ok") }.count >= 2, "\(lines)")
    }

    @Test func imWrongPasswordIsNotRetriedWhileWatching() async throws {
        let peer = try await Peer.start("im", ["--split"])
        let start = Date()
        let result = try await DemoProgram.run(["im", "--port", "\(peer.port)", "--password", "nope", "--watch", "10"])
        #expect(result.status != 0)
        #expect(result.lines == ["login failed type=2 msg=wrong password"], "one login, no retries")
        #expect(Date().timeIntervalSince(start) < 8, "ended at the rejection, not after the watch")
    }

    #if TLS
    /// `--tls` with the test CA and the server's name.
    static func tlsArguments(_ pki: TestCertificates, serverName: String = "localhost", pin: String? = nil) -> [String]
    {
        ["--tls", "--ca-file", pki.ca, "--server-name", serverName] + (pin.map { ["--pin", $0] } ?? [])
    }

    static func tlsPeer(
        _ role: String, _ pki: TestCertificates, _ arguments: [String] = [],
        certificate: (certificate: String, key: String)? = nil
    ) throws -> Peer {
        let (certificate, key) = certificate ?? pki.server
        return try Peer(role, ["--split", "--tls-cert", certificate, "--tls-key", key] + arguments)
    }

    @Test func gameOverTLSWithAPinnedKey() async throws {
        let pki = try TestCertificates.shared()
        let peer = try Self.tlsPeer("game", pki)
        let result = try await DemoProgram.run(
            ["game", "--port", "\(peer.port)"] + Self.tlsArguments(pki, pin: pki.serverPin))
        #expect(result.status == 0, "\(result.lines)")
        #expect(
            result.lines == [
                "Test_Rsp result1=echo:hello result2=42",
                "heartbeat ok",
                "Error_Rsp code=401 message=logged out",
            ])
    }

    @Test func gameOverTLSRefusesAnotherKey() async throws {
        let pki = try TestCertificates.shared()
        let peer = try Self.tlsPeer("game", pki)
        let result = try await DemoProgram.run(
            ["game", "--port", "\(peer.port)"] + Self.tlsArguments(pki, pin: pki.otherPin))
        #expect(result.status != 0)
        #expect(result.lines == ["tls failed reason=pin mismatch: the server's key is \(pki.serverPin)"])
    }

    @Test func imOverTLS() async throws {
        let pki = try TestCertificates.shared()
        let peer = try Self.tlsPeer("im", pki, ["--pushes", "2"])
        let result = try await DemoProgram.run(
            ["im", "--port", "\(peer.port)"] + Self.tlsArguments(pki, pin: pki.serverPin))
        #expect(result.status == 0, "\(result.lines)")
        #expect(result.lines == ["login ok uid=1003 token=tok-neo", "push bytes=16", "push bytes=16", "heartbeat ok"])
    }

    @Test func imOverTLSRefusesAWrongNameEvenWhileWatching() async throws {
        let pki = try TestCertificates.shared()
        // A certificate for other.example only.
        let peer = try Self.tlsPeer("im", pki, certificate: pki.otherName)
        let start = Date()
        let result = try await DemoProgram.run(
            ["im", "--port", "\(peer.port)", "--watch", "10"] + Self.tlsArguments(pki))
        #expect(result.status != 0)
        #expect(result.lines == ["tls failed reason=hostname mismatch: the certificate is not for localhost"])
        #expect(Date().timeIntervalSince(start) < 8, "ended at the refusal, not retried for the watch")
    }
    #endif

    @Test func http() async throws {
        let peer = try await Peer.start("http", ["--events", "2"])
        let result = try await DemoProgram.run(["http", "--url", "http://127.0.0.1:\(peer.port)/game"])
        #expect(result.status == 0)
        #expect(result.lines.count == 3)
        #expect(result.lines.first == "Test_Rsp result1=web:7:9 result2=-10")
        #expect(result.lines.dropFirst().allSatisfy { $0.hasPrefix("event cmd=200 bytes=") }, "\(result.lines)")
    }
}
