import Foundation
import SwiftFrame
import SwiftFrameDescriptors
import TestSupport
import Testing

/// Each command-id convention of the config file gives the ids the project's own tooling
/// gives: the tables protoc-gen-swiftframe writes for the fixtures in Fixtures/conventions are
/// compared with ids computed here the way the original tool computes them.
@Suite struct ConventionNumberingTests {
    static let conventions = Repository.root.appendingPathComponent("Fixtures/conventions").path

    /// The `case name = id // origin` lines of the generated `ID` enum, as origin → id.
    static func generatedIDs(_ swift: String) -> [String: UInt32] {
        var ids: [String: UInt32] = [:]
        var inIDs = false
        for line in swift.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("public enum ID: Swift.UInt32") {
                inIDs = true
            } else if inIDs && line == "}" {
                break
            } else if inIDs, line.hasPrefix("case "), let equals = line.firstIndex(of: "="),
                let comment = line.range(of: " // ")
            {
                let number = line[line.index(after: equals)..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
                ids[String(line[comment.upperBound...])] = UInt32(number)
            }
        }
        return ids
    }

    /// Generates one file of a convention fixture with its config file.
    static func generate(_ convention: String, file: String) throws -> [String: UInt32] {
        let directory = conventions + "/" + convention
        let config = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".txtpb") })
        let source = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
        let (result, generated) = try Support.generate([file: source], parameter: "Config=\(directory)/\(config)")
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try #require(generated[file.replacingOccurrences(of: ".proto", with: ".swiftframe.swift")])
        return generatedIDs(swift)
    }

    /// ET's Proto2CS (Share/Tool/Proto2CS), as far as ids go: the start is the third
    /// `_`-separated part of the file name (`OuterMessage_C_10001`), and every line that starts
    /// with `message` once trimmed takes `Opcode = ++startOpcode`, its name the word after.
    static func proto2CSIDs(fileName: String, source: String) -> [String: UInt32] {
        let parts = fileName.replacingOccurrences(of: ".proto", with: "").split(
            separator: "_", omittingEmptySubsequences: false)
        guard parts.count > 2, var startOpcode = UInt32(parts[2]) else { return [:] }
        var ids: [String: UInt32] = [:]
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.hasPrefix("message") else { continue }
            let words = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            startOpcode += 1
            ids[String(words[1])] = startOpcode
        }
        return ids
    }

    @Test func theCommentsConventionNumbersAsProto2CS() throws {
        let file = "OuterMessage_C_10001.proto"
        let source = try String(contentsOfFile: Self.conventions + "/et/" + file, encoding: .utf8)
        let expected = Self.proto2CSIDs(fileName: file, source: source)
        #expect(expected["C2M_TestRequest"] == 10002 && expected.count == 5)
        #expect(try Self.generate("et", file: file) == expected)

        // Another file in ET's style, and the start given in the config file.
        let server = """
            syntax = "proto3";
            package ET;
            //ResponseType M2M_Reply
            message M2M_Ask // IRequest
            {
            \tint32 RpcId = 1;
            }
            message M2M_Reply // IResponse
            {
            \tint32 RpcId = 1;
            \tint32 Error = 2;
            }

            message M2M_Tell // IMessage
            {
            }
            """
        let name = "InnerMessage_S_20000.proto"
        let fromName = try Self.writeConfig(
            #"table { file: "\#(name)" layout: "u16-u16-le" comments { start_from_file_name: true } }"#)
        let given = try Self.writeConfig(#"table { file: "\#(name)" layout: "u16-u16-le" comments { start: 20000 } }"#)
        for config in [fromName, given] {
            let (result, generated) = try Support.generate([name: server], parameter: "Config=\(config)")
            #expect(result.status == 0, "\(result.stderr)")
            let swift = try #require(generated["InnerMessage_S_20000.swiftframe.swift"])
            #expect(Self.generatedIDs(swift) == Self.proto2CSIDs(fileName: name, source: server))
            #expect(Self.generatedIDs(swift)["M2M_Ask"] == 20001)
        }
    }

    static func writeConfig(_ text: String) throws -> String {
        let path = try temporaryDirectory().appendingPathComponent("swiftframe.txtpb").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The descriptors protoc gives the server's own code generator and runtime.
    static func descriptors(_ convention: String, file: String) throws -> Google_Protobuf_FileDescriptorProto {
        let set = try Protoc.run(
            [
                "-I", conventions + "/" + convention, "-I", Protoc.include, file,
                "--descriptor_set_out=/dev/stdout",
            ], input: [])
        return try #require(try Google_Protobuf_FileDescriptorSet(serializedBytes: set).file.first)
    }

    /// The other conventions take their numbers as written, so the server's runtime gives the
    /// same ones: the value of the id enum (the game's `CommandEnum.CMD_TEST`), the custom
    /// option's value (`getOptions().getExtension(MsgID)`), the enum value a field's default
    /// names (`LoginReq.getDefaultInstance().getMid()`), and the digits of a name (`Cs_20001`).
    @Test func theOtherConventionsTakeTheirNumbersAsWritten() throws {
        let game = try Self.descriptors("game", file: "game_plain.proto")
        let commandEnum = try #require(game.enumType.first { $0.name == "CommandEnum" })
        var expected: [String: UInt32] = [:]
        for value in commandEnum.value where value.number != 0 {
            expected[value.name ?? ""] = UInt32(bitPattern: value.number ?? 0)
        }
        #expect(expected.count == 5)
        #expect(try Self.generate("game", file: "game_plain.proto") == expected)

        let msgid = try Self.descriptors("msgid", file: "msgid.proto")
        let option = SwiftFrame.Extension<Google_Protobuf_MessageOptions, SwiftFrame.ProtoUInt64>(
            fieldNumber: 50002, protoName: "MsgID")
        expected = [:]
        for message in msgid.messageType {
            if let id = message.options?[extension: option] { expected[message.name ?? ""] = UInt32(id) }
        }
        #expect(expected.count == 4)
        #expect(try Self.generate("msgid", file: "msgid.proto") == expected)

        let mid = try Self.descriptors("mid", file: "mid.proto")
        let midEnum = try #require(mid.messageType.first { $0.name == "MsgId" }?.enumType.first { $0.name == "MID" })
        expected = [:]
        for message in mid.messageType {
            guard let name = message.field.first(where: { $0.name == "mid" })?.defaultValue,
                let value = midEnum.value.first(where: { $0.name == name })
            else { continue }
            expected[message.name ?? ""] = UInt32(bitPattern: value.number ?? 0)
        }
        #expect(expected.count == 7)
        #expect(try Self.generate("mid", file: "mid.proto") == expected)

        // Ids in names: a request and its response share the id, which the request names.
        let erlang = try String(contentsOfFile: Support.fixtureProtos + "/erlang.proto", encoding: .utf8)
        let (result, generated) = try Support.generate(["erlang.proto": erlang])
        #expect(result.status == 0, "\(result.stderr)")
        let ids = Self.generatedIDs(try #require(generated["erlang.swiftframe.swift"]))
        #expect(!ids.isEmpty)
        for (origin, id) in ids {
            #expect(UInt32(origin.dropFirst("Cs_".count)) == id, "\(origin)")
        }
    }
}
