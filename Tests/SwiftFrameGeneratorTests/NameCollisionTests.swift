import Foundation
import TestSupport
import Testing

/// Every valid .proto generates Swift that compiles: names that collide in Swift are told
/// apart by the documented rule (the first in byte order of proto names keeps the natural
/// name, later ones get `_2`, `_3`, ...; generated helpers yield to declared names).
@Suite struct NameCollisionTests {
    @Test func stressProtosGenerateAndCompile() throws {
        let files = [
            "stress/names2.proto": StressProtos.file(syntax: "proto2", package: "stress.two"),
            "stress/names3.proto": StressProtos.file(syntax: "proto3", package: "stress.three"),
            "stress/extensions.proto": StressProtos.extensions(package: "stress.ext"),
        ]
        let (result, generated) = try Support.generate(files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(generated.count == 3)
        #expect(try Support.typecheck(generated) == [])
    }

    /// Names that collide, and what each becomes.
    @Test func collidingNamesAreNumberedInProtoNameOrder() throws {
        let proto = """
            syntax = "proto2";
            message M {
              message Protocol {}
              message protocol {}
              message _ {}
              message __ {}
              message extension {}
              message Extension {}
              optional int32 foo_bar = 1;
              optional int32 fooBar = 2;
              optional int32 URL = 3;
              optional int32 url = 4;
              enum E { A_B = 0; AB = 1; a_b = 2; }
              oneof choice_kind { int32 c = 5; }
              message ChoiceKind {}
            }
            message foo_bar {}
            message FooBar {}
            """
        let (result, generated) = try Support.generate(["p.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["p.swiftframe.swift"])
        for declaration in [
            "struct Protocol_: ", "struct Protocol_2: ", "struct __: ", "struct __2: ",
            "struct Extension: ", "struct Extension_2: ",
            "var fooBar: Swift.Int32?", "var fooBar_2: Swift.Int32?", "var url: Swift.Int32?",
            "var url_2: Swift.Int32?",
            "case aB = 0 // A_B", "case ab = 1 // AB", "case aB_2 = 2 // a_b",
            "struct FooBar: ", "struct FooBar_2: ",
            // A oneof's enum yields to a nested type the .proto declares.
            "struct ChoiceKind: ", "enum ChoiceKind_2: ", "var choiceKind: M.ChoiceKind_2? = nil",
        ] {
            #expect(swift.contains(declaration), "missing \(declaration)")
        }
        // FooBar < foo_bar in byte order: the message spelled FooBar keeps the natural name.
        #expect(swift.contains("static var protoMessageName: Swift.String { \"FooBar\" }\n"))
        #expect(try Support.typecheck(generated) == [])
    }

    /// Adding a declaration that collides with nothing renames nothing.
    @Test func namesAreStableWhenUnrelatedDeclarationsAreAdded() throws {
        let before = "message M { optional int32 foo_bar = 1; optional int32 fooBar = 2; }"
        let after = """
            message A {}
            message M { optional int32 a = 3; optional int32 foo_bar = 1; optional int32 fooBar = 2; optional int32 z = 4; }
            """
        for source in [before, after] {
            let (result, generated) = try Support.generate(["p.proto": source])
            #expect(result.status == 0, "\(result.stderr)")
            let swift = try #require(generated["p.swiftframe.swift"])
            #expect(swift.contains("case 8: self.fooBar_2 = try reader.readVarint"), "\(swift)")
            #expect(swift.contains("case 16: self.fooBar = try reader.readVarint"))
        }
    }

    // The three files that used to generate Swift that did not compile.

    @Test func anIDFromAnEnumAndOneFromAMessageOptionShareANaturalName() throws {
        let proto = """
            syntax = "proto3";
            import "swiftframe/options.proto";
            option (swiftframe.layout) = "game-tcp";
            enum Cmd { option (swiftframe.command_table) = true; CMD_NONE = 0; CMD_LOGIN = 1; CMD_PING = 3; }
            message Login { option (swiftframe.request_id) = 2; string name = 1; }
            """
        let (result, generated) = try Support.generate(["repro.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["repro.swiftframe.swift"])
        #expect(swift.contains("case login = 1 // CMD_LOGIN"))
        #expect(swift.contains("case login_2 = 2 // Login"))
        #expect(try Support.typecheck(generated) == [])
    }

    @Test func anEnvelopeInAMessageWithANestedBody() throws {
        let proto = """
            syntax = "proto3";
            import "swiftframe/options.proto";
            enum Kind { KIND_TEXT = 0 [(swiftframe.holds) = "Text"]; }
            message Text { string text = 1; }
            message Packet {
              message Body { int32 x = 1; }
              Kind kind = 1;
              bytes body = 2 [(swiftframe.selected_by) = "kind"];
              Body parsed = 3;
            }
            """
        let (result, generated) = try Support.generate(["repro.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["repro.swiftframe.swift"])
        #expect(swift.contains("struct Body: SwiftFrame.Message"))
        #expect(swift.contains("enum Body_2: Swift.Sendable, Swift.Hashable"))
        #expect(swift.contains("func decodedBody_2() throws(SwiftFrame.WireError) -> Body_2"))
        #expect(try Support.typecheck(generated) == [])
    }

    @Test func anEnvelopeBesideAFieldNamedLikeItsAccessor() throws {
        let proto = """
            syntax = "proto3";
            import "swiftframe/options.proto";
            enum Kind { KIND_TEXT = 0 [(swiftframe.holds) = "Text"]; KIND_OTHER = 1 [(swiftframe.holds) = "Text"]; }
            message Text { string text = 1; }
            message Packet {
              Kind kind = 1;
              bytes body = 2 [(swiftframe.selected_by) = "kind"];
              string decoded_body = 3;
            }
            """
        let (result, generated) = try Support.generate(["repro.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["repro.swiftframe.swift"])
        #expect(swift.contains("var decodedBody: Swift.String"))
        #expect(swift.contains("func decodedBody_2() throws(SwiftFrame.WireError) -> Body"))
        // A selector value named `other` keeps its name; the catch-all case yields.
        #expect(swift.contains("case other(Text)"))
        #expect(swift.contains("case other_2(kind: Kind, bytes: [Swift.UInt8])"))
        #expect(try Support.typecheck(generated) == [])
    }
}

/// A custom option is a typed extension of descriptor.proto's options, which
/// `SwiftFrameDescriptors` ships: the file compiles with no descriptor.proto of the user's.
@Suite struct CustomOptionTests {
    @Test func customOptionsAreTypedExtensionsOfTheShippedDescriptors() throws {
        let proto = """
            syntax = "proto2";
            package game;
            import "google/protobuf/descriptor.proto";
            enum MessageID { MSG_NONE = 0; MSG_LOGIN_REQUEST = 1001; }
            extend google.protobuf.MessageOptions { optional MessageID MsgID = 50002; }
            extend google.protobuf.FieldOptions { optional string note = 50003; }
            message LoginReq { option (MsgID) = MSG_LOGIN_REQUEST; optional string name = 1 [(note) = "x"]; }
            """
        let (result, generated) = try Support.generate(["game.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated["game.swiftframe.swift"])
        #expect(swift.contains("import SwiftFrameDescriptors"))
        #expect(
            swift.contains(
                "static let msgID = SwiftFrame.Extension<Google_Protobuf_MessageOptions, SwiftFrame.ProtoClosedEnum<Game_MessageID>>(fieldNumber: 50002"
            ))
        #expect(
            swift.contains(
                "static let note = SwiftFrame.Extension<Google_Protobuf_FieldOptions, SwiftFrame.ProtoString>(fieldNumber: 50003"
            ))
        #expect(try Support.typecheck(generated) == [])
    }
}
