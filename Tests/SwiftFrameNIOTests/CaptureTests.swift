// Captures made by the tests themselves: tcpdump on loopback while the client talks to the
// Python game peer (plain, split and cut writes), read back by `swiftframe inspect` as pcap and
// as pcapng (editcap's conversion); and FrameCapture's pcapng, read by tshark, which must
// follow its TCP stream to the bytes of the frames.
//
// tcpdump needs CAP_NET_RAW: the tests and CI run as root, which has it. As another user,
// `setcap cap_net_raw,cap_net_admin=eip /usr/bin/tcpdump` (once, as root) lets tcpdump capture.

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import TestSupport
import Testing

/// tcpdump capturing loopback traffic of one TCP port into a pcap file, until stopped.
final class Tcpdump: @unchecked Sendable {
    // @unchecked: the Process and pipe are set up in init and then only used by stop(), which
    // the test calls once after the traffic.
    private let process = Process()
    private let errors = Pipe()
    let path: String

    /// Starts it and waits (at most 20 s) for its `listening on` line.
    init(port: Int, path: String) throws {
        self.path = path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Through python3, which clears the signal mask the test process's thread passes on
        // (with SIGTERM blocked, tcpdump would not stop).
        let unblock =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"
        process.arguments = [
            "python3", "-c", unblock, "tcpdump", "-i", "lo", "-n", "-U", "--immediate-mode", "-B", "8192", "-Z", "root",
            "-w", path, "tcp port \(port)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let box = LineBox()
        let handle = errors.fileHandleForReading
        Thread {
            var text = ""
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                if text.contains("listening on") { break }
            }
            box.set(text)
        }.start()
        let text = box.wait(seconds: 20) ?? "nothing within 20 s"
        guard text.contains("listening on") else {
            process.terminate()
            throw PeerError(
                description: """
                    tcpdump -i lo did not start: \(text) (capturing needs CAP_NET_RAW: run the tests as root, \
                    or give tcpdump the capability with `setcap cap_net_raw,cap_net_admin=eip /usr/bin/tcpdump`)
                    """)
        }
    }

    /// Lets the last packets reach the file, then stops it (SIGTERM, on which it writes what
    /// it holds) and waits for it to exit (killed after 10 s).
    func stop() {
        Thread.sleep(forTimeInterval: 0.3)
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date(timeIntervalSinceNow: 10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct CaptureTests {
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swiftframe-\(UUID().uuidString).\(suffix)").path
    }

    static func inspect(_ arguments: [String]) async throws -> (status: Int32, lines: [String]) {
        let (status, output) = try await offThePool {
            try Peer.run([Repository.builtExecutable("swiftframe"), "inspect"] + arguments, seconds: 60)
        }
        return (status, output.split(separator: "\n").map(String.init))
    }

    @Test(arguments: [[String](), ["--split"], ["--cut"]])
    func tcpdumpOnLoopbackWhileTheClientTalksToThePeer(writes: [String]) async throws {
        let peer = try await Peer.start("game", writes + ["--notices", "2"])
        defer { peer.stop() }
        let path = Self.temporaryPath("pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tcpdump = try await offThePool { try Tcpdump(port: peer.port, path: path) }
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        try await withClient(GameCommands.self, peer: peer, configuration: configuration) { client in
            var pushes = client.pushes.makeAsyncIterator()
            for word in ["one", "two", "three"] {
                let reply = try await client.request(TestReq(param1: word))
                #expect(reply.result1 == "echo:\(word)")
            }
            #expect(await pushes.next() != nil)
            #expect(await pushes.next() != nil)
        }
        try await offThePool { tcpdump.stop() }

        let pcapng = Self.temporaryPath("pcapng")
        defer { try? FileManager.default.removeItem(atPath: pcapng) }
        let converted = try await offThePool { try Peer.run(["editcap", "-F", "pcapng", path, pcapng], seconds: 30) }
        #expect(converted.status == 0)

        for (file, arguments) in [(path, []), (pcapng, []), (path, ["--port", "\(peer.port)"])] {
            let (status, lines) = try await Self.inspect(["--layout", "game-tcp"] + arguments + [file])
            let text = lines.joined(separator: "\n")
            #expect(status == 0, "\(text)")
            #expect(lines.allSatisfy { $0.hasPrefix("frame time=") }, "\(text)")
            // Three requests out; three replies and two notices back, each labelled.
            let out = lines.filter { $0.contains("to=127.0.0.1:\(peer.port) dir=client->server ") }
            let back = lines.filter {
                $0.contains("from=127.0.0.1:\(peer.port) ") && $0.contains(" dir=server->client ")
            }
            #expect(out.count == 3 && back.count == 5 && lines.count == 8, "\(text)")
            #expect(out.allSatisfy { $0.contains(" cmd=1 ") }, "\(text)")
            // Interleaved by time: the first reply after the first request, the times in order.
            let times = lines.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("time=") }.flatMap { Double($0.dropFirst(5)) }
            }
            #expect(times == times.sorted() && times.count == 8, "\(text)")
            #expect(lines.first == out.first, "\(text)")
        }
    }

    @Test(arguments: [FrameCapture.Format.pcapng, .pcap])
    func frameCaptureIsFollowedByTsharkAndInspect(format: FrameCapture.Format) async throws {
        let peer = try await Peer.start("game", ["--split"])
        defer { peer.stop() }
        let path = Self.temporaryPath(format == .pcap ? "pcap" : "pcapng")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capture = try FrameCapture(path: path, format: format)
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.interceptors = [capture]
        let words = ["alpha", "beta"]
        try await withClient(GameCommands.self, peer: peer, configuration: configuration) { client in
            for word in words { _ = try await client.request(TestReq(param1: word)) }
        }
        capture.close()

        let (status, lines) = try await Self.inspect(["--layout", "game-tcp", path])
        #expect(status == 0 && lines.count == 4, "\(lines)")
        #expect(lines.filter { $0.contains(" dir=client->server ") }.count == 2, "\(lines)")
        #expect(lines.filter { $0.contains(" dir=server->client ") }.count == 2, "\(lines)")

        // tshark reads the file and follows stream 0: the client's bytes are its two frames.
        let follow = try await offThePool {
            try Peer.run(["tshark", "-r", path, "-q", "-z", "follow,tcp,raw,0"], seconds: 60)
        }
        #expect(follow.status == 0, "\(follow.output)")
        var client: [UInt8] = [], server: [UInt8] = []
        for line in follow.output.split(separator: "\n") where !line.hasPrefix("=") && !line.contains(":") {
            let hex = Array(line.trimmingCharacters(in: .whitespaces))
            guard !hex.isEmpty, hex.count % 2 == 0, hex.allSatisfy(\.isHexDigit) else { continue }
            let bytes: [UInt8] = stride(from: 0, to: hex.count, by: 2).map { offset in
                UInt8(String(hex[offset..<offset + 2]), radix: 16) ?? 0
            }
            if line.hasPrefix("\t") { server += bytes } else { client += bytes }
        }
        let sent = try FrameDecoder.decodeAll(client, layout: GameCommands.layout)
        #expect(try sent.map { try TestReq(serializedBytes: $0.payload).param1 } == words, "\(follow.output)")
        let received = try FrameDecoder.decodeAll(server, layout: GameCommands.layout)
        #expect(
            try received.map { try TestRsp(serializedBytes: $0.payload).result1 } == words.map { "echo:\($0)" },
            "\(follow.output)")

        // tshark sees the handshake (a SYN from the client, a SYN-ACK back, an ACK), then the
        // four frames, with no complaint from its sequence analysis.
        let flags = try await offThePool {
            try Peer.run(
                ["tshark", "-r", path, "-T", "fields", "-e", "tcp.flags.str", "-e", "tcp.analysis.flags"], seconds: 60)
        }
        let rows = flags.output.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        #expect(rows.count == 7, "\(flags.output)")
        #expect(
            rows.first?.first?.contains("S") == true && rows.dropFirst().first?.first?.contains("S") == true,
            "\(flags.output)")
        #expect(rows.allSatisfy { $0.count < 2 || $0[1].isEmpty }, "tshark's analysis flags: \(flags.output)")
    }

    /// The IM peer's replies are `CommonRespon`, whose `respon` bytes hold the response of the
    /// request answered: inspect pairs each reply with its request by sequence number and shows
    /// `respon` as that response (`login_response` for a login), with the fields protoc
    /// --decode shows for it, in the readable lines and in --json.
    @Test func imRepliesAreReadThroughTheRequestsTheyAnswer() async throws {
        let peer = try await Peer.start("im")
        defer { peer.stop() }
        let path = Self.temporaryPath("pcapng")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capture = try FrameCapture(path: path, format: .pcapng)
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.interceptors = [capture]
        let responses = try await withClient(ImCommands.self, peer: peer, configuration: configuration) { client in
            let login = try await client.request(
                try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret"))))))
            let info = try await client.request(try userInfo(7))
            return [login.respon, info.respon]
        }
        capture.close()
        #expect(try LoginResponse(serializedBytes: responses[0]) == LoginResponse(uid: 1003, token: "tok-neo"))

        let protos =
            ["im.proto", "common.proto", "user.proto"].flatMap { ["--proto", Repository.fixtureProtos + "/" + $0] }
            + ["-I", Repository.fixtureProtos]
        let (status, lines) = try await Self.inspect(protos + [path])
        let text = lines.joined(separator: "\n")
        #expect(status == 0, "\(text)")
        // What protoc --decode prints for the two responses, two more spaces in.
        let schema = ProtoSchema.fixture("user.proto")
        let login = try schema.decode(responses[0], as: "login_response").split(separator: "\n").map { "    " + $0 }
        let info = try schema.decode(responses[1], as: "User_info_response").split(separator: "\n").map { "    " + $0 }
        #expect(login == ["    uid: 1003", "    token: \"tok-neo\""])
        let replies = lines.indices.filter { lines[$0].contains(" dir=server->client ") }
        #expect(replies.count == 2, "\(text)")
        guard replies.count == 2 else { return }
        #expect(
            lines[replies[0]].contains(" seq=1 type=2 ")
                && lines[replies[0]].hasSuffix(" FRAME_TYPE_REQUEST CommonRespon > login_response"), "\(text)")
        #expect(
            Array(lines[(replies[0] + 1)...].prefix(login.count + 3)) == ["  isSuc: true", "  respon {"] + login + [
                "  }"
            ], "\(text)")
        #expect(lines[replies[1]].hasSuffix("FRAME_TYPE_REQUEST CommonRespon > User_info_response"), "\(text)")
        #expect(
            Array(lines[(replies[1] + 1)...].prefix(info.count + 3)) == ["  isSuc: true", "  respon {"] + info + [
                "  }"
            ], "\(text)")

        let (jsonStatus, objects) = try await Self.inspect(protos + ["--json", path])
        #expect(jsonStatus == 0)
        let replyObjects = try objects.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }.filter { $0["dir"] as? String == "server->client" }
        #expect(replyObjects.count == 2, "\(objects)")
        #expect(replyObjects.first?["message"] as? [String] == ["CommonRespon", "login_response"], "\(objects)")
        #expect(
            replyObjects.first?["text"] as? String == #"isSuc: true respon { uid: 1003 token: "tok-neo" }"#,
            "\(objects)")
        #expect(replyObjects.first?["note"] == nil, "\(objects)")
    }
}
