import Foundation
import SwiftFrame
import SwiftFrameDescriptors
import TestSupport
import Testing

@testable import SwiftFrameGenerator

/// The plugin's own descriptor decoder, on requests captured from a real protoc run.
@Suite struct DescriptorDecoderTests {
    static func userRequest() throws -> CodeGeneratorRequest {
        let data = try Support.capturedRequest(
            includes: [Support.fixtureProtos], files: ["user.proto"],
            parameter: "Visibility=internal")
        return try CodeGeneratorRequest(serializedBytes: [UInt8](data))
    }

    @Test func requestEnvelope() throws {
        let request = try Self.userRequest()
        #expect(request.fileToGenerate == ["user.proto"])
        #expect(request.parameter == "Visibility=internal")
        #expect(
            request.protoFile.map(\.name) == [
                "base.proto", "google/protobuf/descriptor.proto", "swiftframe/options.proto", "user.proto",
            ])
        #expect(request.compilerVersion?.major == 3)
        #expect(request.compilerVersion?.minor == 21)
    }

    @Test func messagesFieldsAndEnums() throws {
        let user = try #require(try Self.userRequest().protoFile.last)
        #expect(user.syntax == "proto3")
        #expect(user.dependency == ["base.proto", "swiftframe/options.proto"])
        #expect(
            user.messageType.map(\.name) == [
                "User_msg", "signin_request", "login_request", "logout_request", "sigin_response",
                "login_response", "User_info_request", "User_info_response",
            ])
        let login = user.messageType[2]
        #expect(login.field.map(\.name) == ["nick_name", "pwd", "ip", "port", "device_name", "device_id", "version"])
        #expect(login.field.map(\.number) == [1, 2, 3, 4, 5, 6, 7])
        #expect(login.field.map(\.type) == [.string, .string, .string, .int32, .string, .string, .string])
        #expect(login.field.allSatisfy { $0.label == .optional && $0.proto3Optional == nil && $0.oneofIndex == nil })
        let infoField = try #require(user.messageType.last?.field.first)
        #expect(infoField.type == .message)
        #expect(infoField.typeName == ".User_info")
        #expect(infoField.jsonName == "userInfo")
        let command = try #require(user.enumType.first)
        #expect(command.name == "User_cmd")
        #expect(
            command.value.map(\.name) == [
                "User_cmd_sign_in", "User_cmd_login", "User_cmd_logout", "User_cmd_user_info",
            ])
        #expect(command.value.map(\.number) == [0, 2, 3, 4])
    }

    @Test func sourceComments() throws {
        let user = try #require(try Self.userRequest().protoFile.last)
        let locations = user.sourceCodeInfo?.location ?? []
        let byPath = Dictionary(locations.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        // message 2 (login_request), and its field 1 (pwd).
        #expect(byPath[[4, 2]]?.leadingComments == " Logs a device in.\n")
        #expect(byPath[[4, 2, 2, 1]]?.trailingComments == " the password, as the users' server expects it\n")
    }

    /// The request's files agree with what `protoc --descriptor_set_out` writes for the same input.
    @Test func agreesWithDescriptorSet() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let setFile = directory.appendingPathComponent("set.pb").path
        let result = try runProcess(
            Protoc.executable,
            [
                "-I" + Support.fixtureProtos, "--include_imports", "--descriptor_set_out=" + setFile,
                "everything.proto",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let set = try Google_Protobuf_FileDescriptorSet(
            serializedBytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: setFile))))
        let request = try CodeGeneratorRequest(
            serializedBytes: [UInt8](
                try Support.capturedRequest(includes: [Support.fixtureProtos], files: ["everything.proto"])))
        #expect(set.file.map(\.name) == request.protoFile.map(\.name))
        func shape(_ files: [Google_Protobuf_FileDescriptorProto]) -> [String] {
            func walk(_ message: Google_Protobuf_DescriptorProto, _ prefix: String) -> [String] {
                let name = message.protoName
                return message.field.map {
                    "\(prefix)\(name).\($0.protoName)=\($0.fieldNumber):\(String(describing: $0.type)):\(String(describing: $0.label)):\($0.typeFullName)"
                }
                    + message.nestedType.flatMap { walk($0, prefix + name + ".") }
            }
            return files.flatMap { file in file.messageType.flatMap { walk($0, file.packageName) } }
        }
        #expect(shape(set.file) == shape(request.protoFile))
        #expect(shape(set.file).count > 60)
    }

    @Test func optionsAreDescriptorsOptionMessages() throws {
        let sources = try Support.protoDirectory([
            "custom.proto": """
            syntax = "proto3";
            import "google/protobuf/descriptor.proto";
            extend google.protobuf.MessageOptions { int32 command_id = 50001; }
            message Ping {
              option (command_id) = 42;
              repeated int32 ids = 1 [packed = false];
              repeated int32 packed_ids = 2;
            }
            enum Twin { option allow_alias = true; TWIN_A = 0; TWIN_B = 0; }
            """
        ])
        defer { try? FileManager.default.removeItem(at: sources) }
        let request = try CodeGeneratorRequest(
            serializedBytes: [UInt8](
                try Support.capturedRequest(includes: [sources.path, "/usr/include"], files: ["custom.proto"])))
        let file = try #require(request.protoFile.last)
        let ping = try #require(file.messageType.first)
        // A custom option the plugin did not generate stays in the option message's extension
        // fields, readable as an extension by number.
        let commandID = SwiftFrame.Extension<Google_Protobuf_MessageOptions, SwiftFrame.ProtoInt32>(
            fieldNumber: 50001, protoName: "command_id")
        #expect(ping.options?[extension: commandID] == 42)
        #expect(ping.field[0].options?.packed == false)
        #expect(ping.field[1].options?.packed == nil)
        #expect(file.enumType.first?.options?.allowAlias == true)
        #expect(file.extension_.first?.extendee == ".google.protobuf.MessageOptions")
    }

    @Test func malformedRequestsAreTypedErrors() {
        // A length-delimited field claiming 5 bytes with 1 left.
        #expect(throws: WireError.lengthPastEnd(offset: 1, length: 5, remaining: 1)) {
            try CodeGeneratorRequest(serializedBytes: [0x0A, 0x05, 0x61])
        }
        // A file descriptor nested in the request, cut inside its name.
        #expect(throws: WireError.self) {
            try CodeGeneratorRequest(serializedBytes: [0x7A, 0x04, 0x0A, 0x09, 0x61, 0x62])
        }
        #expect(throws: WireError.invalidWireType(offset: 0, wireType: 7)) {
            try CodeGeneratorRequest(serializedBytes: [0x0F])
        }
    }
}
