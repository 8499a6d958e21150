import Foundation
import TestSupport
import Testing

/// Command tables and envelopes are checked when code is generated.
@Suite struct CommandTableTests {
    static let header = "syntax = \"proto3\";\nimport \"swiftframe/options.proto\";\n"

    /// Runs the plugin on one file named p.proto.
    static func generate(_ body: String, parameter: String? = nil) throws -> (ProcessResult, String?) {
        let (result, files) = try Support.generate(["p.proto": header + body], parameter: parameter)
        return (result, files["p.swiftframe.swift"])
    }

    @Test func duplicateExplicitIDsNameBothMessages() throws {
        let (result, output) = try Self.generate(
            """
            option (swiftframe.layout) = "u16-u16";
            message Login { option (swiftframe.request_id) = 5; }
            message Logout { option (swiftframe.request_id) = 5; }
            """)
        #expect(result.status != 0)
        #expect(result.stderr.contains("error: command 5: requests Login and Logout both claim it"), "\(result.stderr)")
        #expect(output == nil)
    }

    @Test func duplicateIDsAcrossConventionsAreCaught() throws {
        let (result, _) = try Self.generate(
            """
            option (swiftframe.layout) = "erlang";
            option (swiftframe.request_prefix) = "Cs_";
            message Cs_20001 {}
            message Move { option (swiftframe.request_id) = 20001; }
            """)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("command 20001: requests Move and Cs_20001 both claim it")
                || result.stderr.contains("command 20001: requests Cs_20001 and Move both claim it"), "\(result.stderr)"
        )
    }

    @Test func enumValueMatchingNoMessageIsReportedNotDropped() throws {
        let (result, output) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcp";
            enum Cmd {
              option (swiftframe.command_table) = true;
              CMD_NONE = 0;
              CMD_PING = 1;
              CMD_LOGOUT = 2;
            }
            message Ping_Req {}
            message Ping_Rsp {}
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("warning: command table Cmd: CMD_LOGOUT (2) matches no message"),
            "\(result.stderr)")
        let source = try #require(output)
        #expect(source.contains("case logout = 2 // CMD_LOGOUT"))
        #expect(source.contains("case logout(payload: [Swift.UInt8])"))
        #expect(source.contains("case 1: return .pingRsp(try PingRsp(framePayload: frame.payload))"))
        #expect(source.contains("extension PingReq: SwiftFrame.RequestMessage"))
        // CMD_NONE = 0 is the proto3 placeholder, not a command.
        #expect(!source.contains("= 0 // CMD_NONE"))
        #expect(!result.stderr.contains("CMD_NONE"))
    }

    @Test func errorReplyAndHeartbeatAreDeclaredOnce() throws {
        let (result, output) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcp";
            enum Cmd {
              option (swiftframe.command_table) = true;
              CMD_NONE = 0;
              CMD_FAIL = 9 [(swiftframe.error_reply) = true];
              CMD_PING = 7 [(swiftframe.heartbeat) = true];
            }
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(output?.contains("static let errorCommand: Swift.UInt32? = 9") == true)
        #expect(output?.contains("static let heartbeatCommand: Swift.UInt32? = 7") == true)

        let (twice, _) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcp";
            enum Cmd {
              option (swiftframe.command_table) = true;
              CMD_NONE = 0;
              CMD_A = 1 [(swiftframe.heartbeat) = true];
              CMD_B = 2 [(swiftframe.heartbeat) = true];
            }
            """)
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("(swiftframe.heartbeat) is on both CMD_A and CMD_B"), "\(twice.stderr)")
    }

    @Test func ambiguousNamesAreAnError() throws {
        let (result, _) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcp";
            enum Cmd { option (swiftframe.command_table) = true; CMD_ZERO = 0; CMD_PING = 1; }
            message Ping_Rsp {}
            message PingResponse {}
            """)
        #expect(result.status != 0)
        #expect(result.stderr.contains("CMD_PING: PingResponse and Ping_Rsp both match"), "\(result.stderr)")
    }

    @Test func aTableNeedsALayout() throws {
        let (result, _) = try Self.generate("message A { option (swiftframe.request_id) = 1; }\n")
        #expect(result.status != 0)
        #expect(result.stderr.contains("p.proto: error: command table needs a frame layout"), "\(result.stderr)")
    }

    @Test func aBadLayoutNamesTheOptionAndThePresets() throws {
        let (result, _) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcpp";
            message A { option (swiftframe.request_id) = 1; }
            """)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(
                "p.proto: error: option (swiftframe.layout): \"game-tcpp\" is neither a preset (game-tcp,"),
            "\(result.stderr)")
    }

    @Test func idsMustFitTheLayoutsField() throws {
        let (result, _) = try Self.generate(
            """
            option (swiftframe.layout) = "erlang";
            message Big { option (swiftframe.request_id) = 70000; }
            """)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("command Big = 70000 does not fit the layout's 2-byte field"), "\(result.stderr)")
    }

    @Test func theLayoutParameterOverridesTheFileOption() throws {
        let body = """
            option (swiftframe.layout) = "game-tcp";
            message A { option (swiftframe.request_id) = 1; }
            """
        let (result, output) = try Self.generate(body, parameter: "Layout=u16-u16-le")
        #expect(result.status == 0, "\(result.stderr)")
        let (plain, plainOutput) = try Self.generate(body)
        #expect(plain.status == 0)
        #expect(output != plainOutput)
        #expect(output?.contains("enum PCommands: SwiftFrame.CommandTable") == true)
        #expect(output?.contains("le") == true)
    }

    @Test func envelopeOptionsAreChecked() throws {
        let (notBytes, _) = try Self.generate(
            """
            enum Kind { KIND_A = 0 [(swiftframe.holds) = "A"]; }
            message A {}
            message Box { Kind kind = 1; string body = 2 [(swiftframe.selected_by) = "kind"]; }
            """)
        #expect(notBytes.status != 0)
        #expect(
            notBytes.stderr.contains(
                "error: message Box: field body: (swiftframe.selected_by) needs a singular bytes field"),
            "\(notBytes.stderr)")
        let (notEnum, _) = try Self.generate(
            """
            message Box { int32 kind = 1; bytes body = 2 [(swiftframe.selected_by) = "kind"]; }
            """)
        #expect(
            notEnum.stderr.contains("selected_by names \"kind\", which is not an enum field of Box"),
            "\(notEnum.stderr)")
        let (missing, _) = try Self.generate(
            """
            enum Kind { KIND_A = 0 [(swiftframe.holds) = "Nope"]; }
            message Box { Kind kind = 1; bytes body = 2 [(swiftframe.selected_by) = "kind"]; }
            """)
        #expect(
            missing.stderr.contains("error: message Box: field body: Kind.KIND_A: no message Nope in this protoc run"),
            "\(missing.stderr)")
    }

    @Test func conflictingResponsesAreAnError() throws {
        let (result, _) = try Self.generate(
            """
            option (swiftframe.layout) = "game-tcp";
            enum Kind {
              KIND_A = 0 [(swiftframe.holds) = "Req", (swiftframe.response) = "RspOne"];
              KIND_B = 1 [(swiftframe.holds) = "Req", (swiftframe.response) = "RspTwo"];
            }
            message Req {}
            message RspOne {}
            message RspTwo {}
            message Box { Kind kind = 1; bytes body = 2 [(swiftframe.selected_by) = "kind"]; }
            """)
        #expect(result.status != 0)
        #expect(result.stderr.contains("Req already answers with RspOne, not RspTwo"), "\(result.stderr)")
    }
}
