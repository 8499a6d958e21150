// Messages read from protoc's descriptor sets at run time, printed and read in text format
// through the runtime's printer and reader: against `protoc --decode` and `--encode` of the
// same bytes and text, and against the generated types' own text format.

import Foundation
import SwiftFrame
import SwiftFrameConformanceMessages
import SwiftFrameDescriptors
import SwiftFrameFixtures
import SwiftFrameReflection
import TestSupport
import Testing

/// The .proto files of one protoc run, the generated types of every message they declare,
/// and the schemas read from their descriptor set.
struct Fixture: Sendable {
    let schema: ProtoSchema
    let types: [any Message.Type]
    let descriptorSet: [UInt8]
    let schemas: DescriptorSchemas

    init(_ schema: ProtoSchema, _ types: [any Message.Type]) throws {
        self.schema = schema
        self.types = types
        descriptorSet = try schema.descriptorSet()
        schemas = try DescriptorSchemas(serializedDescriptorSet: descriptorSet)
    }

    /// The full names of the messages the run's own files declare (not their imports), map
    /// entries left out.
    func declaredMessageNames() throws -> [String] {
        let set = try Google_Protobuf_FileDescriptorSet(serializedBytes: descriptorSet)
        func names(_ message: Google_Protobuf_DescriptorProto, scope: String) -> [String] {
            guard message.options?.mapEntry != true else { return [] }
            let name = scope + (message.name ?? "")
            return [name] + message.nestedType.flatMap { names($0, scope: name + ".") }
        }
        return set.file.filter { schema.files.contains($0.name ?? "") }.flatMap { file in
            file.messageType.flatMap { names($0, scope: (file.package ?? "").isEmpty ? "" : file.package! + ".") }
        }
    }
}

enum Fixtures {
    static let conventions = Repository.root.appendingPathComponent("Fixtures/conventions").path
    static let conformance = ProtoSchema(
        includes: [Repository.conformanceProtos, Protoc.include],
        files: ["conformance.proto", "test_messages_proto2.proto", "test_messages_proto3.proto"])

    /// Every message of Fixtures/protos, Fixtures/conventions and Protos/conformance.
    static let all: [Fixture] = {
        let groups: [(ProtoSchema, [any Message.Type])] = [
            (.fixture("base.proto"), [UserInfo.self]),
            (.fixture("collections.proto"), [Maps.self, Choices.self]),
            (.fixture("common.proto"), [Common.self, CommonRespon.self]),
            (.fixture("erlang.proto"), [Cs20001.self, Sc20001.self]),
            (.fixture("error.proto"), [ErrorMsg.self]),
            (
                .fixture("everything.proto"),
                [
                    Everything.self, Everything.Level1.self, Everything.Level1.Level2.self,
                    Everything.Level1.Level2.Level3.self, EverythingSubset.self, TreeNode.self,
                    Ping.self, Pong.self,
                ]
            ),
            (.fixture("game.proto"), [TestReq.self, TestRsp.self, ErrorRsp.self, EmptyReq.self, NoticeNtf.self]),
            (
                .fixture("legacy.proto"),
                [
                    Legacy_Account.self, Legacy_Account.Profile.self, Legacy_Account.Visit.self,
                    Legacy_Defaults.self, Legacy_Holder.self,
                ]
            ),
            (.fixture("naming.proto"), [ErrorMessage.self, NamingEdgeCases.self, NamingEdgeCases.Protocol_.self]),
            (
                .fixture("user.proto"),
                [
                    UserMsg.self, SigninRequest.self, LoginRequest.self, LogoutRequest.self,
                    SiginResponse.self, LoginResponse.self, UserInfoRequest.self, UserInfoResponse.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/et", Protoc.include], files: ["OuterMessage_C_10001.proto"]),
                [ET_C2MTestRequest.self, ET_M2CTestResponse.self, ET_C2GPing.self, ET_G2CPing.self, ET_M2CNotice.self]
            ),
            (
                ProtoSchema(includes: [conventions + "/game", Protoc.include], files: ["game_plain.proto"]),
                [
                    PlainGame_TestReq.self, PlainGame_TestRsp.self, PlainGame_ErrorRsp.self, PlainGame_EmptyReq.self,
                    PlainGame_NoticeNtf.self,
                ]
            ),
            (
                ProtoSchema(
                    includes: [conventions + "/im", Protoc.include],
                    files: ["im_base.proto", "im_common.proto", "im_error.proto", "im_user.proto"]),
                [
                    Im_UserInfo.self, Im_Common.self, Im_CommonRespon.self, Im_ErrorMsg.self, Im_UserMsg.self,
                    Im_SigninRequest.self, Im_LoginRequest.self, Im_LogoutRequest.self, Im_SiginResponse.self,
                    Im_LoginResponse.self, Im_UserInfoRequest.self, Im_UserInfoResponse.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/mid", Protoc.include], files: ["mid.proto"]),
                [
                    Midgame_MsgId.self, Midgame_LoginReq.self, Midgame_LoginRsp.self, Midgame_HeartBeat.self,
                    Midgame_EnterRoomReq.self, Midgame_EnterRoomRsp.self, Midgame_RoomBroadcastNtf.self,
                    Midgame_ErrorNtf.self,
                ]
            ),
            (
                ProtoSchema(includes: [conventions + "/msgid", Protoc.include], files: ["msgid.proto"]),
                [Msgid_LoginRequest.self, Msgid_LoginResponse.self, Msgid_ChatPush.self, Msgid_Ping.self]
            ),
            (
                conformance,
                [
                    Conformance_TestStatus.self, Conformance_FailureSet.self, Conformance_ConformanceRequest.self,
                    Conformance_ConformanceResponse.self,
                    Conformance_JspbEncodingConfig.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.NestedMessage.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.Data.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.MessageSetCorrect.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.MessageSetCorrectExtension1.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.MessageSetCorrectExtension2.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.MultiWordGroupField.self,
                    ProtobufTestMessages_Proto2_TestAllTypesProto2.ExtensionWithOneof.self,
                    ProtobufTestMessages_Proto2_ForeignMessageProto2.self,
                    ProtobufTestMessages_Proto2_GroupField.self,
                    ProtobufTestMessages_Proto2_UnknownToTestAllTypes.self,
                    ProtobufTestMessages_Proto2_UnknownToTestAllTypes.OptionalGroup.self,
                    ProtobufTestMessages_Proto2_NullHypothesisProto2.self,
                    ProtobufTestMessages_Proto2_EnumOnlyProto2.self,
                    ProtobufTestMessages_Proto2_OneStringProto2.self,
                    ProtobufTestMessages_Proto2_ProtoWithKeywords.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.NestedMessage.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.Data.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.MessageSetCorrect.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.MessageSetCorrectExtension1.self,
                    ProtobufTestMessages_Proto2_TestAllRequiredTypesProto2.MessageSetCorrectExtension2.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.A1.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.A2.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.A3.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.A4.self,
                    ProtobufTestMessages_Proto2_TestLargeOneof.A5.self,
                    ProtobufTestMessages_Proto3_TestAllTypesProto3.self,
                    ProtobufTestMessages_Proto3_TestAllTypesProto3.NestedMessage.self,
                    ProtobufTestMessages_Proto3_ForeignMessage.self,
                    ProtobufTestMessages_Proto3_NullHypothesisProto3.self,
                    ProtobufTestMessages_Proto3_EnumOnlyProto3.self,
                ]
            ),
        ]
        // A fixture that fails to load fails every test that uses it, with protoc's error.
        return groups.map { try! Fixture($0.0, $0.1) }
    }()

    static func fixture(of type: any Message.Type) -> Fixture {
        all.first { fixture in fixture.types.contains { $0 == type } }!
    }
}

@Suite("Messages read from descriptor sets")
struct DescriptorSchemaTests {
    @Test("The lists are every message of the fixture and conformance protos")
    func listsAreComplete() throws {
        for fixture in Fixtures.all {
            #expect(
                Set(fixture.types.map { $0.protoMessageName }) == Set(try fixture.declaredMessageNames()),
                "\(fixture.schema.files)")
        }
    }

    /// Every message with every field set (the values the fixture tests fill any message
    /// with, nested two levels), encoded by its generated type, printed through the schema
    /// read from protoc's descriptor set: as the generated type prints it, and as protoc
    /// --decode prints the bytes; the text read back through the schema gives protoc
    /// --encode's bytes.
    @Test(
        "Every fixture message prints and reads as protoc and the generated type",
        arguments: Fixtures.all.flatMap { fixture in fixture.types.map { MessageCase($0) } })
    func everyMessage(_ message: MessageCase) throws {
        try message.check()
    }

    /// Values at their edges and lists of many elements, given as text and made by the
    /// generated types.
    @Test(
        "Edge values print and read as protoc and the generated type",
        arguments: [
            (
                Everything.self as any Message.Type,
                """
                f_double: -0 f_float: -inf f_int64: -9223372036854775808 f_uint64: 18446744073709551615
                f_int32: -1 f_fixed64: 18446744073709551615 f_fixed32: 4294967295 f_bool: true
                f_string: "h\\303\\251llo \\360\\237\\230\\200" f_bytes: "\\000\\377\\200\\177" f_sint32: -2147483648
                r_double: [1.5, -0, nan, inf] r_float: [0.25, -inf] r_int64: [-9223372036854775808, -1, 0]
                r_int32: [-2147483648, -1, 0, 1] r_bool: [true, false, true] r_string: ["", "a", "\\346\\227\\245"]
                r_sint64: [-1, 0, 9223372036854775807] r_fixed32: [4294967295, 0, 7]
                nested { name: "outer" child { value: -7 child { tags: ["a", "b"] } } }
                nested_list { name: "first" } nested_list { } nested_list { child { value: 2 } }
                signs: [SIGN_ZERO, SIGN_NEGATIVE, SIGN_MIN] o_int32: 0 o_string: ""
                """
            ),
            (
                TreeNode.self,
                """
                label: "root" left { label: "l" left { label: "ll" } } right { label: "r" }
                children { label: "c1" } children { children { label: "deep" } }
                """
            ),
            (
                Maps.self,
                """
                int32_int32 { key: -1 value: 2 } int32_int32 { key: 5 value: 0 }
                uint64_uint64 { key: 18446744073709551615 value: 1 } bool_bool { key: true value: false }
                string_message { key: "a" value { name: "n" child { value: 3 } } }
                string_self { key: "s" value { bool_bool { key: true value: true } string_enum { key: "e" value: SIGN_MIN } } }
                """
            ),
            (
                Legacy_Account.self,
                """
                id: 1 name: "x" level: 0 mood: MOOD_ANGRY history: [MOOD_CALM, MOOD_HAPPY]
                packed_history: [MOOD_ANGRY, MOOD_CALM] scores: [1, 2] packed_scores: [-1, 1]
                Profile { bio: "b" tags: ["t", "u"] } Visit { day: 5 } Visit { day: 6 }
                referrer { id: 2 name: "r" } moods { key: "k" value: MOOD_HAPPY } phone: 9
                """
            ),
        ] as [(any Message.Type, String)])
    func edgeValues(type: any Message.Type, text: String) throws {
        try MessageCase(type, text: text).check()
    }

    @Test("A name the set does not declare is an error naming it")
    func unknownName() throws {
        let schemas = Fixtures.fixture(of: Everything.self).schemas
        #expect(throws: ReflectionError.unknownMessage("im.Nope")) { try schemas.message(named: "im.Nope") }
        #expect(try schemas.message(named: ".Everything").fullName == "Everything")
        #expect(try schemas.message(named: "Everything.Level1.Level2").fullName == "Everything.Level1.Level2")
        #expect(!schemas.messageNames.contains { $0.hasSuffix("Entry") })
    }

    @Test("A set written without its imports names the type it lacks")
    func missingImport() throws {
        let set = try Google_Protobuf_FileDescriptorSet(
            serializedBytes: Fixtures.fixture(of: UserInfoResponse.self).descriptorSet)
        let withoutImports = Google_Protobuf_FileDescriptorSet(file: set.file.filter { $0.name == "user.proto" })
        #expect(throws: ReflectionError.self) { try DescriptorSchemas(withoutImports) }
        do {
            _ = try DescriptorSchemas(withoutImports)
        } catch {
            guard case .unresolvedType(let type, _) = error else { Issue.record("\(error)"); return }
            #expect(type == ".User_info")  // declared in base.proto, which user.proto imports
        }
        #expect(throws: ReflectionError.self) { try DescriptorSchemas(serializedDescriptorSet: [0x0A, 0x05, 0x01]) }
    }

    /// Bytes that do not parse print what parses, with a note where they stop, and never
    /// crash; the checked form throws.
    @Test("Malformed bytes print with a note and do not crash")
    func malformedBytes() throws {
        for fixture in Fixtures.all {
            for type in fixture.types {
                let schema = try fixture.schemas.message(named: type.protoMessageName)
                let bytes = try filledBytes(type)
                for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) {
                    _ = schema.textFormatString(of: Array(bytes[..<cut]))
                    _ = schema.textFormatString(of: Array(bytes[..<cut]) + [0xFF], multiline: false)
                }
            }
        }
        let everything = try Fixtures.fixture(of: Everything.self).schemas.message(named: "Everything")
        let truncated: [UInt8] = [0x08, 0x96, 0x01, 0x12, 0x05, 0x61]  // f_... then a string cut short
        let text = everything.textFormatString(of: truncated)
        #expect(text.contains("<unreadable: "))
        #expect(throws: WireError.self) { try everything.checkedTextFormatString(of: truncated) }
    }

    /// proto3 fields without presence are not written at their default, as protoc writes them;
    /// packed fields are one run wherever their elements are in the text.
    @Test("Text reads into the bytes protoc --encode writes")
    func readsAsProtoc() throws {
        let fixture = Fixtures.fixture(of: Everything.self)
        let everything = try fixture.schemas.message(named: "Everything")
        for text in [
            "f_int32: 0 f_string: \"\" f_double: 0 o_int32: 0",
            "r_int32: 1 f_bool: true r_int32: [2, 3] f_double: -0",
            "nested_list { name: \"a\" } f_int32: 5 nested { child { value: 0 } }",
        ] {
            #expect(
                try everything.serializedBytes(textFormat: text) == fixture.schema.encode(text, as: "Everything"),
                "\(text)")
        }
        #expect(throws: TextFormatError.self) { try everything.serializedBytes(textFormat: "f_nothing: 1") }
    }

    /// A closed enum's undeclared number and extensions print as the generated type prints them.
    @Test("Closed enums and extensions print as the generated type prints them")
    func closedEnumsAndExtensions() throws {
        let bytes =
            tag(1, .varint) + [5] + delimited(2, "n") + tag(4, .varint) + [1] + tag(5, .varint) + [2]
            + delimited(6, [3]) + delimited(15, delimited(1, "k") + tag(2, .varint) + [1])
        var account = try Legacy_Account(serializedBytes: bytes)
        account[extension: Legacy_LegacyExtensions.nickname] = "nick"
        let encoded = try account.serializedBytes()
        let schema = try Fixtures.fixture(of: Legacy_Account.self).schemas.message(named: "legacy.Account")
        #expect(schema.textFormatString(of: encoded) == account.textFormatString())
        #expect(schema.textFormatString(of: encoded, multiline: false) == "\(account)")
    }
}

/// The bytes of the message with every field set, as its generated type encodes them.
func filledBytes<M: Message>(_: M.Type) throws -> [UInt8] {
    try M(serializedBytes: SampleBytes.fields(M.textFormatFields, depth: 0), partial: true).serializedBytes(
        partial: true)
}

/// One message type's check: fill, encode with the generated type, print and read through
/// the schema read from the descriptor set.
struct MessageCase: Sendable, CustomTestStringConvertible {
    let type: any Message.Type
    let text: String?
    var testDescription: String { type.protoMessageName }

    init(_ type: any Message.Type, text: String? = nil) {
        self.type = type
        self.text = text
    }

    func check() throws {
        let type: any Message.Type = self.type
        try Self.checkMessage(type, text: text)
    }

    private static func checkMessage<M: Message>(_: M.Type, text: String?) throws {
        let fixture = Fixtures.fixture(of: M.self)
        let name = M.protoMessageName
        let schema = try fixture.schemas.message(named: name)
        let message =
            try text.map { try M(textFormat: $0, partial: true) }
            ?? M(serializedBytes: SampleBytes.fields(M.textFormatFields, depth: 0), partial: true)
        let bytes = try message.serializedBytes(partial: true)

        let printed = schema.textFormatString(of: bytes)
        #expect(
            printed == message.textFormatString(),
            "\(name): the schema printed\n\(printed)\nthe generated type\n\(message.textFormatString())")
        #expect(schema.textFormatString(of: bytes, multiline: false) == "\(message)", "\(name): on one line")
        #expect(try schema.checkedTextFormatString(of: bytes) == printed)
        let protocText = try fixture.schema.decode(bytes, as: name)
        #expect(printed == protocText, "\(name): the schema printed\n\(printed)\nprotoc --decode\n\(protocText)")

        let read = try schema.serializedBytes(textFormat: protocText)
        let protocBytes = try fixture.schema.encode(protocText, as: name)
        #expect(read == protocBytes, "\(name): read back\n  ours:   \(hex(read))\n  protoc: \(hex(protocBytes))")
    }
}
