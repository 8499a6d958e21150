import Foundation
import SwiftFrame
import SwiftFrameDescriptors
import TestSupport
import Testing

@testable import SwiftFrameGenerator

/// The built plugin, run by protoc (or directly) as users run it.
@Suite struct PluginTests {
    @Test func oneFilePerInputNamedAfterIt() throws {
        let (result, files) = try Support.generate([
            "user.proto": "syntax = \"proto3\";\nmessage login_request { string nick_name = 1; }\n",
            "sub/dir/thing.proto": "syntax = \"proto3\";\npackage game.net;\nmessage Thing { int32 id = 1; }\n",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(files.keys) == ["user.swiftframe.swift", "sub/dir/thing.swiftframe.swift"])
        #expect(files["user.swiftframe.swift"]?.contains("public struct LoginRequest: SwiftFrame.Message") == true)
        #expect(files["sub/dir/thing.swiftframe.swift"]?.contains("public struct Game_Net_Thing: SwiftFrame.Message") == true)
    }

    @Test(arguments: [
        ("FileNaming=FullPath", "a/b/thing.swiftframe.swift"),
        ("FileNaming=PathToUnderscores", "a_b_thing.swiftframe.swift"),
        ("FileNaming=DropPath", "thing.swiftframe.swift"),
    ])
    func fileNamingOption(parameter: String, output: String) throws {
        let (result, files) = try Support.generate(["a/b/thing.proto": "syntax = \"proto3\";\nmessage T {}\n"],
                                                   parameter: parameter)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(files.keys) == [output])
    }

    @Test func droppingPathsThatCollideIsAnError() throws {
        let (result, _) = try Support.generate([
            "a/x.proto": "syntax = \"proto3\";\npackage a;\nmessage T {}\n",
            "b/x.proto": "syntax = \"proto3\";\npackage b;\nmessage T {}\n",
        ], parameter: "FileNaming=DropPath")
        #expect(result.status != 0)
        #expect(result.stderr.contains("a/x.proto and b/x.proto would both be written to x.swiftframe.swift"), "\(result.stderr)")
    }

    @Test func visibilityOption() throws {
        let proto = ["a.proto": "syntax = \"proto3\";\nmessage A { int32 id = 1; }\nenum E { E_ZERO = 0; }\n"]
        let (internalResult, internalFiles) = try Support.generate(proto, parameter: "Visibility=internal")
        #expect(internalResult.status == 0, "\(internalResult.stderr)")
        let internalSource = try #require(internalFiles["a.swiftframe.swift"])
        #expect(!internalSource.contains("public "))
        #expect(internalSource.contains("\nstruct A: SwiftFrame.Message"))
        let (packageResult, packageFiles) = try Support.generate(proto, parameter: "Visibility=package")
        #expect(packageResult.status == 0, "\(packageResult.stderr)")
        #expect(packageFiles["a.swiftframe.swift"]?.contains("package struct A: SwiftFrame.Message") == true)
    }

    @Test(arguments: [
        ("Bogus=1", "unknown option 'Bogus' (known options: Visibility, FileNaming, Layout, LayoutFile, ModuleMap, Config)"),
        ("Visibility", "option 'Visibility' needs a value: write Visibility=VALUE"),
        ("Visibility=open", "option Visibility=open: expected one of public, internal, package"),
    ])
    func badParametersAreReported(parameter: String, message: String) throws {
        let (result, files) = try Support.generate(["a.proto": "syntax = \"proto3\";\nmessage A {}\n"],
                                                   parameter: parameter)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(files.isEmpty)
    }

    @Test func typesFromOtherModulesAreImported() throws {
        let mapFile = try temporaryDirectory().appendingPathComponent("modules.txt")
        try "# proto file = Swift module\ndep.proto = SharedModels\n".write(to: mapFile, atomically: true, encoding: .utf8)
        let (result, files) = try Support.generate([
            "dep.proto": "syntax = \"proto3\";\nmessage Dep {}\n",
            "p.proto": """
                syntax = "proto3";
                import "dep.proto";
                import "google/protobuf/timestamp.proto";
                message M { Dep dep = 1; google.protobuf.Timestamp at = 2; }
                """,
        ], parameter: "ModuleMap=\(mapFile.path)", only: ["p.proto"])
        #expect(result.status == 0, "\(result.stderr)")
        let source = try #require(files["p.swiftframe.swift"])
        #expect(source.contains("import SwiftFrame\nimport SharedModels\nimport SwiftFrameWellKnownTypes\n"))
        #expect(source.contains("private var _at: SwiftFrame.Boxed<Google_Protobuf_Timestamp>? = nil"))
    }

    @Test func malformedStdinFailsWithAMessage() throws {
        let result = try runProcess(Support.plugin, [], input: [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(result.status == 1)
        #expect(result.stderr.contains("stdin is not a valid CodeGeneratorRequest: length"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func responseCarriesFilesAndFeatures() throws {
        let request = try Support.capturedRequest(includes: [Support.fixtureProtos], files: ["user.proto", "game.proto"])
        let result = try runProcess(Support.plugin, [], input: request)
        #expect(result.status == 0, "\(result.stderr)")
        let response = try CodeGeneratorResponse(serializedBytes: [UInt8](result.stdout))
        #expect(response.error == nil)
        #expect(response.supportedFeatures == CodeGeneratorResponse.featureProto3Optional)
        #expect(response.file.map(\.name) == ["user.swiftframe.swift", "game.swiftframe.swift"])
        // The same bytes in give the same bytes out.
        let again = try runProcess(Support.plugin, [], input: request)
        #expect(again.stdout == result.stdout)
    }

    @Test func goldenForLoginRequestMatchesTheLibrary() throws {
        // The executable and the library agree: generating in-process gives the checked-in file.
        let request = try CodeGeneratorRequest(serializedBytes: [UInt8](
            try Support.capturedRequest(includes: [Support.fixtureProtos], files: ["user.proto"])))
        let response = Generator.generate(request)
        let golden = try String(contentsOf: Repository.root.appendingPathComponent("Fixtures/generated/user.swiftframe.swift"),
                                encoding: .utf8)
        #expect(response.file.first?.content == golden)
    }

    /// A request protoc would never send (a field declared twice, a oneof index out of range)
    /// is refused with the place named; the fuzzer found that it crashed the resolver.
    @Test func malformedRequestsAreRefused() {
        var field = Google_Protobuf_FieldDescriptorProto()
        field.name = "id"
        field.number = 1
        field.type = .int32
        var other = field
        other.number = 2
        other.oneofIndex = 3
        var message = Google_Protobuf_DescriptorProto()
        message.name = "Twice"
        message.field = [field, other]
        var file = Google_Protobuf_FileDescriptorProto()
        file.name = "twice.proto"
        file.syntax = "proto3"
        file.messageType = [message]
        var request = CodeGeneratorRequest()
        request.fileToGenerate = ["twice.proto"]
        request.protoFile = [file]
        let error = Generator.generate(request).error ?? ""
        #expect(error.contains("malformed request: twice.proto: message Twice: field or oneof id is declared twice"), "\(error)")
        #expect(error.contains("field id names oneof 3 of 0"), "\(error)")
    }
}
