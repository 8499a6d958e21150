import Foundation
import TestSupport
import Testing

/// `Messages=SwiftProtobuf`: tables naming protoc-gen-swift's types, and nothing it declares.
/// (Fixtures/SwiftProtobufPackage compiles such tables beside its real output: `make
/// check-swiftprotobuf`.)
@Suite struct SwiftProtobufTablesTests {
    static func generate(_ files: [String: String], parameter: String = "Messages=SwiftProtobuf") throws -> (
        ProcessResult, [String: String]
    ) {
        try Support.generate(files, parameter: parameter)
    }

    static let header = "syntax = \"proto3\";\nimport \"swiftframe/options.proto\";\n"

    @Test func namesAreProtocGenSwiftsPrefixesNestingAndEscapes() throws {
        let (result, files) = try Self.generate([
            "a.proto": Self.header + """
                package my_app.v1;
                option (swiftframe.layout) = "game-tcp";
                enum Cmd { option (swiftframe.command_table) = true; CMD_NONE = 0; CMD_LOGIN = 1; CMD_TYPE = 2; }
                message login_Req { message Inner {} }
                message login_Rsp {}
                message Type_Req {}
                """,
            "b.proto": Self.header + """
                package ignored.pkg;
                option swift_prefix = "XY";
                option (swiftframe.layout) = "game-tcp";
                enum Ids { option (swiftframe.command_table) = true; IDS_NONE = 0; IDS_PING = 3; }
                message Ping_Req {}
                message Type {}
                message Int {}
                """,
            "c.proto": Self.header + """
                option swift_prefix = "";
                package also.ignored;
                message Protocol {}
                message ProtocolMessage {}
                """,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try #require(files["a.swiftframe.swift"])
        #expect(a.contains("import SwiftFrameSwiftProtobuf"))
        #expect(a.contains("extension MyApp_V1_login_Req: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
        #expect(a.contains("extension MyApp_V1_login_Req.Inner: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
        #expect(a.contains("case 1: return .loginRsp(try MyApp_V1_login_Rsp(framePayload: frame.payload))"))
        #expect(a.contains("public typealias Response = MyApp_V1_login_Rsp"))
        // Nothing protoc-gen-swift declares: no message struct, no enum of the file's own.
        #expect(!a.contains("struct "))
        #expect(!a.contains("enum Cmd"))
        let b = try #require(files["b.swiftframe.swift"])
        #expect(b.contains("extension XYPing_Req: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
        #expect(b.contains("extension XYType: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
        let c = try #require(files["c.swiftframe.swift"])
        #expect(c.contains("extension ProtocolMessage: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
        #expect(c.contains("extension ProtocolMessageMessage: SwiftFrameSwiftProtobuf.SwiftProtobufPayload {}"))
    }

    @Test func aTopLevelNameWithoutPrefixIsEscapedAsProtocGenSwiftEscapesIt() throws {
        let (result, files) = try Self.generate([
            "n.proto":
                "syntax = \"proto3\";\nmessage Int {}\nmessage ___ {}\nmessage Extensions { enum Type { T = 0; } }\n"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let n = try #require(files["n.swiftframe.swift"])
        #expect(n.contains("extension IntMessage:"))
        #expect(n.contains("extension ___Message:"))
        #expect(n.contains("extension ExtensionsMessage:"))
    }

    @Test func envelopesAreLeftToTheAppWithAWarning() throws {
        let (result, files) = try Self.generate([
            "e.proto": Self.header + """
                enum Kind { KIND_NONE = 0; KIND_PING = 1; }
                message Ping {}
                message Envelope {
                  Kind kind = 1;
                  bytes body = 2 [(swiftframe.selected_by) = "kind"];
                }
                """
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "warning: Envelope gets no envelope helpers with Messages=SwiftProtobuf: set `kind` and `body` yourself"
            ),
            "\(result.stderr)")
        #expect(files["e.swiftframe.swift"]?.contains("decodedBody") == false)
    }

    @Test func anUnknownChoiceIsAnOptionError() throws {
        let (result, _) = try Self.generate(["x.proto": "syntax = \"proto3\";\n"], parameter: "Messages=Protobuf")
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("option Messages=Protobuf: expected one of SwiftFrame, SwiftProtobuf"),
            "\(result.stderr)")
    }
}
