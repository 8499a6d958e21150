import Foundation
import SwiftFrameDescriptors
import TestSupport
import Testing

@testable import SwiftFrameGenerator

/// The command configuration file (`--swiftframe_opt=Config=<path>`, a text-format
/// swiftframe.Config): the same tables as the annotations, checked the same way, with errors
/// that name the line.
@Suite struct ConfigTests {
    static let conventions = Repository.root.appendingPathComponent("Fixtures/conventions").path

    /// The command table block of a generated file, with the package prefix removed.
    static func table(_ swift: String, prefix: String = "") -> String {
        let lines = swift.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("Commands: SwiftFrame.CommandTable") }),
            let end = lines[start...].firstIndex(of: "}")
        else { return "" }
        return lines[start...end].joined(separator: "\n").replacingOccurrences(of: prefix, with: "")
    }

    static func writeConfig(_ text: String) throws -> String {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("swiftframe.txtpb").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theConfigFileGivesTheTableTheAnnotationsGive() throws {
        let annotated = try String(contentsOfFile: Support.fixtureProtos + "/game.proto", encoding: .utf8)
        // The fixture is game_plain.proto; here it stands in for game.proto.
        let plain = try String(contentsOfFile: Self.conventions + "/game/game_plain.proto", encoding: .utf8)
        let config = try String(contentsOfFile: Self.conventions + "/game/game.txtpb", encoding: .utf8)
        let path = try Self.writeConfig(config.replacingOccurrences(of: "game_plain.proto", with: "game.proto"))
        let (first, fromAnnotations) = try Support.generate(["game.proto": annotated])
        let (second, fromConfig) = try Support.generate(["game.proto": plain], parameter: "Config=\(path)")
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        let expected = Self.table(fromAnnotations["game.swiftframe.swift"] ?? "")
        #expect(expected.contains("static let heartbeatCommand: Swift.UInt32? = 99900002"))
        #expect(Self.table(fromConfig["game.swiftframe.swift"] ?? "", prefix: "PlainGame_") == expected)
    }

    /// A configured command may name no message (the IM heartbeat, a logout): it gets the
    /// table an id enum value with no message gets, and error_reply and heartbeat can name it.
    @Test func aCommandMayNameNoMessage() throws {
        let messages = """
            message Login_Req { string name = 1; }
            message Login_Rsp { int32 code = 1; }
            """
        let annotated = """
            syntax = "proto3";
            import "swiftframe/options.proto";
            option (swiftframe.layout) = "u16-u16";
            enum Cmd {
              option (swiftframe.command_table) = true;
              NONE = 0;
              HEARTBEAT = 1 [(swiftframe.heartbeat) = true];
              LOGIN = 2;
              LOGOUT = 3;
            }
            \(messages)
            """
        let path = try Self.writeConfig(
            """
            table {
              file: "p.proto"
              layout: "u16-u16"
              command { id: 1 name: "HEARTBEAT" }
              command { id: 2 name: "LOGIN" request: "Login_Req" response: "Login_Rsp" }
              command { id: 3 name: "LOGOUT" }
              heartbeat: "HEARTBEAT"
            }
            """)
        let (first, fromAnnotations) = try Support.generate(["p.proto": annotated])
        let (second, fromConfig) = try Support.generate(
            ["p.proto": "syntax = \"proto3\";\n" + messages],
            parameter: "Config=\(path)")
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        #expect(first.status == 0, "\(first.stderr)")
        let expected = Self.table(fromAnnotations["p.swiftframe.swift"] ?? "")
        #expect(expected.contains("case heartbeat(payload: [Swift.UInt8])"))
        #expect(expected.contains("static let heartbeatCommand: Swift.UInt32? = 1"))
        #expect(Self.table(fromConfig["p.swiftframe.swift"] ?? "") == expected)
        #expect(try Support.typecheck(fromConfig) == [])

        // With no name either, the command is named by its id; in a table of its own it is
        // the whole table. A command that repeats an id enum's value adds nothing to it, and
        // the value is no longer reported as matching no message.
        let bare = try Self.writeConfig(
            """
            table { file: "p.proto" layout: "u16-u16" command { id: 1 } error_reply: "command 1" }
            table { file: "q.proto" layout: "u16-u16" id_enum: "Q" command { id: 7 } }
            """)
        let (result, generated) = try Support.generate(
            [
                "p.proto": "syntax = \"proto3\";\n",
                "q.proto": "syntax = \"proto3\";\nenum Q { Q_NONE = 0; Q_BYE = 7; }\n",
            ],
            parameter: "Config=\(bare)")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let p = try #require(generated["p.swiftframe.swift"])
        #expect(p.contains("case command1 = 1 // command 1"))
        #expect(p.contains("case 1: return .command1(payload: Swift.Array(frame.payload))"))
        #expect(p.contains("static let errorCommand: Swift.UInt32? = 1"))
        let q = try #require(generated["q.swiftframe.swift"])
        #expect(q.contains("case bye = 7 // Q_BYE"))
        #expect(q.contains("case 7: return .bye(payload: Swift.Array(frame.payload))"))
        #expect(try Support.typecheck(generated) == [])
    }

    /// The IM fixture's files as the server team keeps them, with its config file
    /// (Fixtures/conventions/im): `table_name` names the table, which is emitted into the Swift
    /// file of the .proto its `file` names; without the key the table is named after that file.
    @Test func tableNameNamesTheTable() throws {
        let directory = Self.conventions + "/im"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".proto") }
            .sorted()
        #expect(names == ["im_base.proto", "im_common.proto", "im_error.proto", "im_user.proto"])
        var files: [String: String] = [:]
        for name in names { files[name] = try String(contentsOfFile: directory + "/" + name, encoding: .utf8) }
        let config = try String(contentsOfFile: directory + "/im.txtpb", encoding: .utf8)
        #expect(config.contains(#"table_name: "ImServerCommands""#))

        let (result, generated) = try Support.generate(files, parameter: "Config=\(try Self.writeConfig(config))")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let common = try #require(generated["im_common.swiftframe.swift"])
        #expect(common.contains("public enum ImServerCommands: SwiftFrame.CommandTable {"))
        #expect(common.contains("case heartbeat = 1 // HEARTBEAT"))
        #expect(!generated.values.contains { $0.contains("Im_ImCommonCommands") })
        #expect(
            generated.filter { $0.value.contains(": SwiftFrame.CommandTable {") }.keys.sorted() == [
                "im_common.swiftframe.swift"
            ])
        // Compiled with code that names the table: the type is there under that name.
        var sources = generated
        sources["uses_the_table.swift"] = """
            import SwiftFrame
            func table() -> any SwiftFrame.CommandTable.Type { ImServerCommands.self }
            func login() throws -> [Swift.UInt8] {
                let login = try Im_Common(.user(Im_UserMsg(.login(Im_LoginRequest(nickName: "neo", pwd: "pw")))))
                return try ImServerCommands.encode(login, sequence: 1)
            }
            """
        #expect(try Support.typecheck(sources) == [])

        // Without the key the table is named after the file it hangs on, package prefix first.
        let unnamed = config.split(separator: "\n").filter { !$0.contains("table_name") }.joined(separator: "\n")
        let (plain, byFile) = try Support.generate(files, parameter: "Config=\(try Self.writeConfig(unnamed))")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(
            byFile["im_common.swiftframe.swift"]?.contains("public enum Im_ImCommonCommands: SwiftFrame.CommandTable {")
                == true)
    }

    /// A table whose ids come from annotations takes its name alone from the config file.
    @Test func anAnnotatedTableNamedByTheConfigFile() throws {
        var files: [String: String] = [:]
        for name in ["im.proto", "common.proto", "error.proto", "user.proto", "base.proto"] {
            files[name] = try String(contentsOfFile: Support.fixtureProtos + "/" + name, encoding: .utf8)
        }
        let path = try Self.writeConfig(#"table { file: "im.proto" table_name: "Chat" }"#)
        let (result, generated) = try Support.generate(files, parameter: "Config=\(path)")
        #expect(result.status == 0, "\(result.stderr)")
        let im = try #require(generated["im.swiftframe.swift"])
        #expect(im.contains("public enum Chat: SwiftFrame.CommandTable {"))
        #expect(!im.contains("ImCommands"))
        #expect(try Support.typecheck(generated) == [])
    }

    /// A table name that cannot name the table fails generation, naming the file and why.
    @Test(arguments: [
        (
            "Chat Commands",
            "p.proto: error: config table: table_name \"Chat Commands\" is not a Swift identifier: use ASCII letters, digits and underscores, not starting with a digit"
        ),
        ("2Commands", "p.proto: error: config table: table_name \"2Commands\" is not a Swift identifier"),
        ("protocol", "p.proto: error: config table: table_name \"protocol\" is a Swift keyword"),
        ("Protocol", "p.proto: error: config table: table_name \"Protocol\" is reserved"),
        (
            "Data",
            "p.proto: error: config table: table_name \"Data\" would hide the standard library's or Foundation's Data"
        ),
        (
            "LoginReq",
            "p.proto: error: config table: table_name \"LoginReq\" is already the name of message Login_Req of p.proto; choose another"
        ),
        (
            "Cmd",
            "p.proto: error: config table: table_name \"Cmd\" is already the name of enum Cmd of p.proto; choose another"
        ),
        (
            "QCommands",
            "p.proto: error: config table: table_name \"QCommands\" is the name of the command table of q.proto; choose another"
        ),
        (
            "QTable",
            "q.proto: error: config table: table_name \"QTable\" is also the table_name of p.proto; each table needs a name of its own"
        ),
    ])
    func badTableNamesFailGeneration(name: String, message: String) throws {
        let files = [
            "p.proto": "syntax = \"proto3\";\nenum Cmd { CMD_NONE = 0; CMD_LOGIN = 1; }\nmessage Login_Req {}\n",
            "q.proto": "syntax = \"proto3\";\nenum Q { Q_NONE = 0; Q_BYE = 7; }\n",
        ]
        let qTable = name == "QTable" ? #" table_name: "QTable""# : ""
        let path = try Self.writeConfig(
            """
            table { file: "p.proto" layout: "u16-u16" id_enum: "Cmd" table_name: "\(name)" }
            table { file: "q.proto" layout: "u16-u16" id_enum: "Q"\(qTable) }
            """)
        let (result, generated) = try Support.generate(files, parameter: "Config=\(path)")
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(generated.isEmpty)
    }

    /// A table has one name, and a name needs a table.
    @Test func aTableNameNeedsOneTable() throws {
        let files = ["p.proto": "syntax = \"proto3\";\nmessage Login_Req {}\n", "q.proto": "syntax = \"proto3\";\n"]
        let path = try Self.writeConfig(
            """
            table { file: "p.proto" layout: "u16-u16" command { id: 1 request: "Login_Req" } table_name: "A" }
            table { file: "p.proto" table_name: "B" }
            table { file: "q.proto" table_name: "C" }
            """)
        let (result, generated) = try Support.generate(files, parameter: "Config=\(path)")
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(
                #"p.proto: error: config table: table_name is given as "A" and "B"; a table has one name"#),
            "\(result.stderr)")
        #expect(
            result.stderr.contains(
                #"q.proto: error: config table: table_name "C" names no table: the file has no command ids"#))
        #expect(generated.isEmpty)
    }

    /// protoc reads every fixture config file as a swiftframe.Config: the schema users can
    /// check theirs against.
    @Test func fixtureConfigsMatchTheSchema() throws {
        for convention in ["game", "mid", "msgid", "et", "im"] {
            let directory = Self.conventions + "/" + convention
            let config = try #require(
                try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".txtpb") })
            let text = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + config))
            let result = try runProcess(
                Protoc.executable,
                [
                    "-I", Support.optionsProtos, "--encode=swiftframe.Config",
                    "swiftframe/config.proto",
                ], input: [UInt8](text))
            #expect(result.status == 0, "\(convention): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
        }
    }

    @Test(arguments: [
        ("table { fiel: \"a.proto\" }", "line 1, column 9: swiftframe.Table has no field 'fiel'"),
        ("table {\n  file: 3\n}", "line 2, column 9: 'file' takes a quoted string"),
        ("table { file: \"a.proto", "line 1, column 15: unterminated string"),
        ("table { command { id: -1 } }", "line 1, column 23: 'id' takes a non-negative integer of 32 bits"),
        ("table { file: \"a.proto\"", "line 1, column 24: missing '}'"),
    ])
    func badConfigFilesNameTheLine(text: String, message: String) throws {
        let path = try Self.writeConfig(text)
        let (result, files) = try Support.generate(
            ["a.proto": "syntax = \"proto3\";\nmessage A {}\n"],
            parameter: "Config=\(path)")
        #expect(result.status != 0)
        #expect(result.stderr.contains("option Config=\(path): \(message)"), "\(result.stderr)")
        #expect(files.isEmpty)
    }

    /// An id given twice, by the .proto and by the config file, fails naming both.
    @Test func idsFromBothSourcesAreCheckedTogether() throws {
        let proto = """
            syntax = "proto3";
            enum Cmd { CMD_NONE = 0; CMD_LOGIN = 1; }
            message Login_Req { string name = 1; }
            message Logout_Req {}
            message Big_Req {}
            """
        let path = try Self.writeConfig(
            """
            table { file: "p.proto" layout: "u16-u16" id_enum: "Cmd" command { id: 1 request: "Logout_Req" } }
            """)
        let (result, _) = try Support.generate(["p.proto": proto], parameter: "Config=\(path)")
        #expect(
            result.stderr.contains("error: command 1: requests Login_Req and Logout_Req both claim it"),
            "\(result.stderr)")

        let misnamed = try Self.writeConfig("table { file: \"q.proto\" } table { file: \"p.proto\" id_enum: \"Cmds\" }")
        let (unknown, _) = try Support.generate(["p.proto": proto], parameter: "Config=\(misnamed)")
        #expect(
            unknown.stderr.contains("config table: file \"q.proto\" is not among the files to generate (p.proto)"),
            "\(unknown.stderr)")
        #expect(unknown.stderr.contains("p.proto: error: config table: id_enum \"Cmds\" is no enum of this file"))

        let wide = try Self.writeConfig(
            "table { file: \"p.proto\" layout: \"u16-u16\" command { id: 70000 request: \"Big_Req\" } }")
        let (tooWide, _) = try Support.generate(["p.proto": proto], parameter: "Config=\(wide)")
        #expect(
            tooWide.stderr.contains(
                "p.proto: error: command table: command Big_Req = 70000 does not fit the layout's 2-byte field"),
            "\(tooWide.stderr)")
    }

    /// Ids in names (the Erlang backend's Cs_/Sc_), from the config file.
    @Test func idsInNamesFromTheConfigFile() throws {
        let proto = """
            syntax = "proto3";
            message Cs_20001 { string account = 1; }
            message Sc_20001 { int32 code = 1; }
            message Sc_20002 { string text = 1; }
            """
        let path = try Self.writeConfig(
            #"table { file: "e.proto" layout: "erlang" request_prefix: "Cs_" response_prefix: "Sc_" }"#)
        let (result, generated) = try Support.generate(["e.proto": proto], parameter: "Config=\(path)")
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["e.swiftframe.swift"])
        #expect(swift.contains("case cs20001 = 20001 // Cs_20001"))
        #expect(swift.contains("case sc20002 = 20002 // Sc_20002"))
        #expect(swift.contains("extension Cs20001: SwiftFrame.RequestMessage"))
        #expect(try Support.typecheck(generated) == [])
    }

    /// A comment decides a message's side over its name: `ChatReq`, named as a response by
    /// `//ResponseType`, is not also a request paired with `ChatRsp` by their shared stem.
    @Test func commentsDecideRolesOverNames() throws {
        let proto = """
            syntax = "proto3";
            //ResponseType ChatReq
            message SendChat { string text = 1; }
            message ChatReq { string text = 1; }
            message ChatRsp { int32 code = 1; }
            """
        let path = try Self.writeConfig(#"table { file: "c.proto" layout: "erlang" comments { start: 100 } }"#)
        let (result, generated) = try Support.generate(["c.proto": proto], parameter: "Config=\(path)")
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["c.swiftframe.swift"])
        #expect(swift.contains("extension SendChat: SwiftFrame.RequestMessage"))
        #expect(swift.contains("public typealias Response = ChatReq"))
        #expect(!swift.contains("extension ChatReq: SwiftFrame.RequestMessage"))
        #expect(try Support.typecheck(generated) == [])
    }

    /// An IM-style envelope described in the config file, with no option in the .proto.
    @Test func envelopesFromTheConfigFile() throws {
        let proto = """
            syntax = "proto3";
            package im;
            enum Method { METHOD_USER = 0; METHOD_ROOM = 1; }
            message User { string name = 1; }
            message UserReply { int32 code = 1; }
            message Common { Method method = 1; bytes body = 2; }
            """
        let path = try Self.writeConfig(
            """
            envelope {
              message: "im.Common" body: "body" selected_by: "method"
              choice { value: "METHOD_USER" holds: "User" response: "UserReply" }
            }
            """)
        let (result, generated) = try Support.generate(["im.proto": proto], parameter: "Config=\(path)")
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["im.swiftframe.swift"])
        #expect(swift.contains("public func decodedBody() throws(SwiftFrame.WireError) -> Body"))
        #expect(swift.contains("case user(Im_User)"))
        #expect(swift.contains("extension Im_User: SwiftFrame.RequestMessage"))
        #expect(try Support.typecheck(generated) == [])
    }
}
