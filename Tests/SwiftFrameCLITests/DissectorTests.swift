import Foundation
import SwiftFrame
import SwiftFrameCapture
import SwiftFrameFixtures
import TestSupport
import Testing

/// `swiftframe dissector` writes a Lua dissector for a fixture's command table; Debian's tshark
/// runs it on a capture of encoded frames (split across segments and glued together) and must
/// show the header fields, the command names and the decoded message fields, for the game, IM
/// and Erlang layouts. tshark must be installed (scripts/ensure-capture-tools.sh, which CI runs
/// first): without it these tests fail, saying so.
@Suite struct DissectorTests {
    static let client = CaptureEndpoint(address: [127, 0, 0, 1], port: 50_123)
    static let server = CaptureEndpoint(address: [127, 0, 0, 1], port: 9000)

    @Test func game() throws {
        let request = try GameCommands.encode(TestReq(param1: "hi", param2: 7))
        let reply = try GameCommands.encode(TestRsp(result1: "echo:hi", result2: 42))
        let push = try GameCommands.encode(NoticeNtf(text: "maintenance at noon", serial: 3))
        let output = try dissect(
            proto: "game.proto",
            segments: [
                // The request split in two segments; the reply and a push glued in one.
                (true, Array(request.prefix(5))), (true, Array(request.dropFirst(5))), (false, reply + push),
            ])
        for expected in [
            "magic: 0x000000ff", "cmd: CMD_TEST (1)", "direction: client to server", "param1 = hi",
            "param2 = 7", "direction: server to client", "result1 = echo:hi", "result2 = 42",
            "cmd: CMD_NOTICE (200)", "text = maintenance at noon", "swiftframe: game.proto: CMD_NOTICE Notice_Ntf",
        ] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
    }

    /// The request's envelopes unwrapped to login_request, and the reply's respon read as the
    /// response login_request declares, as inspect reads them.
    @Test func imUnwrapsEnvelopes() throws {
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret")))))
        let request = try ImCommands.encode(login, sequence: 7)
        let reply = try ImCommands.encode(
            CommonRespon(isSuc: true, respon: try LoginResponse(uid: 1003, token: "tok-neo").serializedBytes()),
            sequence: 7)
        let output = try dissect(
            proto: "im.proto", others: ["common.proto", "user.proto"],
            segments: [(true, request), (false, reply)])
        for expected in [
            "magic: 0x81", "seq: 7", "type: FRAME_TYPE_REQUEST (2)", "holds User_msg", "holds login_request",
            "nick_name = neo", "pwd = secret", "Common > User_msg > login_request", "isSuc = true",
            "respon holds login_response", "uid = 1003", "token = tok-neo", "CommonRespon > login_response",
        ] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
    }

    /// Pushes answer no request: a push's bytes stay as they are with no note, whether its
    /// message is the replies' own (CommonRespon) or one of its own; a reply whose request the
    /// capture does not hold is noted, as by inspect (`InspectPayloadTests`).
    @Test func pushesGetNoNoteAndAReplyWithoutItsRequestDoes() throws {
        let directory = try temporaryDirectory("swiftframe-dissector-push")
        defer { try? FileManager.default.removeItem(at: directory) }
        try InspectPayloadTests.pushProto.write(
            to: directory.appendingPathComponent("push.proto"), atomically: true, encoding: .utf8)
        for file in ["common.proto", "user.proto", "error.proto", "base.proto"] {
            try FileManager.default.copyItem(
                atPath: Repository.fixtureProtos + "/" + file, toPath: directory.path + "/" + file)
        }
        let output = try dissect(
            proto: "push.proto", others: ["common.proto", "user.proto"], directory: directory.path,
            segments: try InspectPayloadTests.pushSegments())
        for expected in [
            "swiftframe: push.proto: PUSH_FRAME_TYPE_REQUEST CommonRespon > login_response",
            "respon holds login_response",
            "uid = 9", "swiftframe: push.proto: PUSH_FRAME_TYPE_PUSH Server_push",
            "swiftframe: push.proto: PUSH_FRAME_TYPE_CHAT CommonRespon", "no request seen that this reply answers",
        ] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
        #expect(output.components(separatedBy: "no request seen").count == 2, "one note, for seq 5:\n\(output)")
        #expect(
            output.components(separatedBy: "holds login_response").count == 2,
            "one reply read through its request:\n\(output)")
    }

    /// The tshark command line of the DebuggingAProtocol article, run as it is written (by sh, in a
    /// folder laid out as it assumes: `protos`, `im.pcapng`, swiftframe's Protos folder where an
    /// app's package checks it out), with the built `swiftframe` first on PATH and no Wireshark
    /// preferences of its own: it must print exactly the output the article shows. The same
    /// command with `-V` in place of `-T fields` and what follows must print the article's tree.
    @Test func documentedTsharkCommandLine() throws {
        _ = try Self.tshark()
        let article = try String(
            contentsOfFile: Repository.root.path + "/Sources/SwiftFrame/SwiftFrame.docc/DebuggingAProtocol.md",
            encoding: .utf8)
        let command = try Self.block(after: "<!-- tested: tshark command", in: article)
        let expected = try Self.block(after: "<!-- tested: tshark output", in: article)
        let tree = try Self.block(after: "<!-- tested: tshark tree", in: article)

        let directory = try temporaryDirectory("swiftframe-documented-tshark")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = FileManager.default
        try files.createDirectory(at: directory.appendingPathComponent("protos"), withIntermediateDirectories: true)
        for file in ["im.proto", "common.proto", "user.proto", "error.proto", "base.proto"] {
            try files.copyItem(
                atPath: Repository.fixtureProtos + "/" + file, toPath: directory.path + "/protos/" + file)
        }
        let checkouts = directory.appendingPathComponent(".build/checkouts/swiftframe")
        try files.createDirectory(at: checkouts, withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: checkouts.path + "/Protos", withDestinationPath: Repository.optionsProtos)
        let home = directory.appendingPathComponent("home")
        try files.createDirectory(at: home, withIntermediateDirectories: true)

        // A login and its reply, then a push glued to the reply, on port 9002.
        let client = CaptureEndpoint(address: [127, 0, 0, 1], port: 50_200)
        let server = CaptureEndpoint(address: [127, 0, 0, 1], port: 9002)
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: "neo", pwd: "secret")))))
        let reply = CommonRespon(isSuc: true, respon: try LoginResponse(uid: 1003, token: "tok-neo").serializedBytes())
        let push = InspectPayloadTests.imFrame(sequence: 0, type: 4, Array(repeating: UInt8(ascii: "p"), count: 16))
        var writer = CaptureWriter(format: .pcapng)
        var capture =
            writer.fileHeader + writer.handshake(seconds: 1_764_000_000, nanoseconds: 0, client: client, server: server)
        capture += writer.records(
            seconds: 1_764_000_001, nanoseconds: 0, from: client, to: server,
            payload: try ImCommands.encode(login, sequence: 1))
        capture += writer.records(
            seconds: 1_764_000_002, nanoseconds: 0, from: server, to: client,
            payload: try ImCommands.encode(reply, sequence: 1) + push)
        try Data(capture).write(to: directory.appendingPathComponent("im.pcapng"))

        let products = URL(fileURLWithPath: Repository.builtExecutable("swiftframe")).deletingLastPathComponent().path
        func run(_ script: String) throws -> ProcessResult {
            try runProcess(
                "/bin/sh", ["-c", "set -e\ncd '\(directory.path)'\n" + script],
                environment: [
                    "PATH": products + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                    "HOME": home.path, "XDG_CONFIG_HOME": home.path,
                ])
        }
        let result = try run(command)
        #expect(result.status == 0, "the documented commands failed: \(result.stderr)")
        #expect(!result.stderr.contains("rror"), "an error: \(result.stderr)")
        #expect(result.stdoutText == expected, "tshark printed:\n\(result.stdoutText)\nthe article shows:\n\(expected)")

        let fields = try #require(command.range(of: "-T fields"), "the documented command has no -T fields")
        let treeResult = try run(String(command[..<fields.lowerBound]) + "-V -O swiftframe_im,protobuf\n")
        #expect(treeResult.status == 0, "\(treeResult.stderr)")
        let lines = treeResult.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var next = lines.startIndex
        for line in tree.split(separator: "\n").map(String.init) {
            guard let found = lines[next...].firstIndex(of: line) else {
                Issue.record(
                    "tshark -V printed no '\(line)' after the article's lines before it:\n\(treeResult.stdoutText)")
                return
            }
            next = found + 1
        }
    }

    /// tshark's path; a failure saying what to do when it is not installed.
    static func tshark() throws -> String {
        let path = Repository.onPath("tshark")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
            throw ProcessFailure(
                command: "tshark", status: 127,
                stderr: "tshark is not installed: "
                    + "scripts/ensure-capture-tools.sh installs it (CI runs it before the tests\(inCI ? "; this is CI" : ""))"
            )
        }
        return path
    }

    /// The text of the fenced block after the line of `article` that starts with `marker`, each
    /// line ending in a newline.
    static func block(after marker: String, in article: String) throws -> String {
        let lines = article.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(marker) }),
            let open = lines[(start + 1)...].firstIndex(where: { $0.hasPrefix("```") }),
            let close = lines[(open + 1)...].firstIndex(where: { $0 == "```" })
        else {
            throw ProcessFailure(
                command: "DebuggingAProtocol.md", status: 1, stderr: "no fenced block after '\(marker)'")
        }
        return lines[(open + 1)..<close].map { $0 + "\n" }.joined()
    }

    @Test func erlang() throws {
        let request = try ErlangCommands.encode(Cs20001(sceneId: 42))
        let reply = try ErlangCommands.encode(Sc20001(sceneId: 42, message: "entered 42"))
        let output = try dissect(proto: "erlang.proto", segments: [(true, request), (false, reply)])
        for expected in ["cmd: Cs_20001 (20001)", "scene_id = 42", "message = entered 42", "length: "] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
    }

    /// An unedited .proto whose ids come from the config file (ET's comments convention, a
    /// little-endian header): the same ids as the generated table.
    @Test func idsFromTheConfigFile() throws {
        let request = try ET_OuterMessageC10001Commands.encode(ET_C2MTestRequest(rpcId: 1, request: "hi"))
        let reply = try ET_OuterMessageC10001Commands.encode(ET_M2CTestResponse(rpcId: 1, response: "ok"))
        let output = try dissect(
            proto: "OuterMessage_C_10001.proto", directory: Repository.root.path + "/Fixtures/conventions/et",
            config: "et.txtpb", segments: [(true, request), (false, reply)])
        for expected in [
            "length: 7", "cmd: C2M_TestRequest (10002)", "request = hi", "cmd: M2C_TestResponse (10003)",
            "response = ok",
        ] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
    }

    /// A varint length before a command: the length's size depends on its value.
    @Test func varintLength() throws {
        let directory = try temporaryDirectory("swiftframe-dissector-varint")
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
        syntax = "proto3";
        import "swiftframe/options.proto";
        option (swiftframe.layout) = "length:varint:body cmd:u16";
        message Ping { option (swiftframe.request_id) = 7; string note = 1; }
        """.write(to: directory.appendingPathComponent("ping.proto"), atomically: true, encoding: .utf8)
        let note = String(repeating: "n", count: 200)  // a body of 203 bytes: a two-byte varint
        let body: [UInt8] = [0x0A, 0xC8, 0x01] + Array(note.utf8)
        let frame = varint(UInt64(body.count)) + [0, 7] + body
        let output = try dissect(proto: "ping.proto", directory: directory.path, segments: [(true, frame + frame)])
        for expected in ["length: 203", "cmd: Ping (7)", "note = \(note)", "swiftframe: ping.proto: Ping Ping"] {
            #expect(output.contains(expected), "tshark's output has no '\(expected)':\n\(output)")
        }
        #expect(output.components(separatedBy: "cmd: Ping (7)").count == 3, "two frames in one segment")
    }

    @Test func brokenProtoIsAUsageError() throws {
        let directory = try temporaryDirectory("swiftframe-dissector")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.proto")
        try "syntax = \"proto3\";\nmessage Broken { string name = 1 }\n".write(
            to: file, atomically: true, encoding: .utf8)
        let result = try runProcess(
            Repository.builtExecutable("swiftframe"),
            ["dissector", "-I", directory.path, "--proto", file.path, "--port", "9000"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("protoc failed") && result.stderr.contains("broken.proto:2"), "\(result.stderr)")
    }

    /// The dissector of `proto` (with `others` on the command line too) run by tshark -V on a
    /// pcapng of `segments` (true: client to server).
    func dissect(
        proto: String, others: [String] = [], directory protoDirectory: String = Repository.fixtureProtos,
        config: String? = nil, segments: [(toServer: Bool, bytes: [UInt8])]
    ) throws -> String {
        let directory = try temporaryDirectory("swiftframe-dissector")
        defer { try? FileManager.default.removeItem(at: directory) }
        var writer = CaptureWriter(format: .pcapng)
        var capture = writer.fileHeader
        capture += writer.handshake(seconds: 1_764_000_000, nanoseconds: 0, client: Self.client, server: Self.server)
        for (index, segment) in segments.enumerated() {
            capture += writer.records(
                seconds: 1_764_000_000 + UInt32(index), nanoseconds: 0,
                from: segment.toServer ? Self.client : Self.server,
                to: segment.toServer ? Self.server : Self.client, payload: segment.bytes)
        }
        let capturePath = directory.appendingPathComponent("capture.pcapng").path
        try Data(capture).write(to: URL(fileURLWithPath: capturePath))

        let luaPath = directory.appendingPathComponent("dissector.lua").path
        let protos = ([proto] + others).map { protoDirectory + "/" + $0 }
        let generated = try runProcess(
            Repository.builtExecutable("swiftframe"),
            [
                "dissector", "-I", protoDirectory, "--port", "9000", "--table", proto,
                "--output", luaPath,
            ] + protos.flatMap { ["--proto", $0] }
                + (config.map { ["--config", protoDirectory + "/" + $0] } ?? []))
        #expect(generated.status == 0, "swiftframe dissector failed: \(generated.stderr)")

        // Wireshark finds the messages in its protobuf search paths, a table in its personal
        // configuration folder.
        let configuration = directory.appendingPathComponent("wireshark")
        try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
        let searchPaths = [(protoDirectory, "TRUE"), (Repository.optionsProtos, "FALSE"), (Protoc.include, "FALSE")]
            .map { "\"\($0.0)\",\"\($0.1)\"\n" }.joined()
        try searchPaths.write(
            to: configuration.appendingPathComponent("protobuf_search_paths"), atomically: true, encoding: .utf8)
        let tshark = try runProcess(
            try Self.tshark(), ["-r", capturePath, "-X", "lua_script:" + luaPath, "-V"],
            environment: ["XDG_CONFIG_HOME": directory.path])
        #expect(tshark.status == 0, "tshark failed: \(tshark.stderr)")
        #expect(!tshark.stderr.contains("Lua: Error"), "the dissector failed to load: \(tshark.stderr)")
        return tshark.stdoutText
    }
}
