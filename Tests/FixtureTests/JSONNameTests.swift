// JSON read from the generated tables (jsonnames.proto): `json_name`, oneofs, proto3 `optional`,
// repeated fields and maps, in both code modes, and checked against Python's json_format.

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("JSON names and field labels from the generated tables")
struct JSONNameTests {
    /// Every kind of field of the fixture set; one map entry, so that the printed order is known.
    static let full = Contact(
        displayName: "Ann", level: 0, motto: "", tags: ["a", "b"], scores: ["x": 1], reach: .email("a@b.c"), userId: 5,
        odd: "o", sameName: "s", extra: .flag(false))
    static let fullJSON =
        #"{"name":"Ann","level":0,"motto_text":"","tags":["a","b"],"points":{"x":1},"mail":"a@b.c","#
        + #""userId":"5","a b\"c\\é":"o","sameName":"s","flag":false}"#

    @Test("The table states each label, and a json_name only where it is not protoc's own")
    func tableRows() throws {
        let rows = Dictionary(uniqueKeysWithValues: Contact.textFormatFields.map { ($0.number, $0) })
        #expect(rows.count == 13)
        #expect(rows[1]?.jsonName == "name" && rows[1]?.label == .implicit)
        #expect(rows[2]?.jsonName == nil && rows[2]?.label == .optional)
        #expect(rows[4]?.label == .repeated && rows[5]?.label == .repeated)
        #expect([6, 7, 8].map { rows[$0]?.label } == [.oneof(0), .oneof(0), .oneof(0)])
        #expect([12, 13].map { rows[$0]?.label } == [.oneof(1), .oneof(1)])
        #expect(rows[10]?.jsonName == "a b\"c\\é")
        // json_name = "sameName" is what protoc derives from same_name anyway.
        #expect(rows[11]?.jsonName == nil)
    }

    @Test("A json_name names the field in print and read; the proto name reads too")
    func customNames() throws {
        #expect(try Self.full.jsonString() == Self.fullJSON)
        #expect(try Contact(jsonString: Self.fullJSON) == Self.full)
        let byProtoNames = """
            {"display_name": "Ann", "level": 0, "motto": "", "tags": ["a", "b"], "scores": {"x": 1}, "email": "a@b.c",
             "user_id": 5, "odd": "o", "same_name": "s", "flag": false}
            """
        #expect(try Contact(jsonString: byProtoNames) == Self.full)
        let printed = try Self.full.jsonString(options: JSONOptions(useProtoFieldNames: true))
        #expect(
            printed.hasPrefix(#"{"display_name":"Ann","level":0,"motto":"","tags":["a","b"],"scores":{"x":1},"email":"#)
        )
        // The name protoc would have derived is not a name of a field that has a json_name.
        for json in [#"{"displayName": "Ann"}"#, #"{"mottoText": "m"}"#] {
            do {
                _ = try Contact(jsonString: json)
                Issue.record("\(json) was read")
            } catch {
                #expect(error.kind == .unknownField, "\(json): \(error)")
            }
        }
    }

    @Test(
        "Two members of one oneof are an error naming both; members of two oneofs are not",
        arguments: [
            (#"{"mail": "a@b.c", "phoneNumber": "7"}"#, "$.phoneNumber", 18, "'phoneNumber' and 'mail'"),
            (#"{"referrer": {}, "email": "a@b.c"}"#, "$.email", 17, "'email' and 'referrer'"),
            (#"{"flag": true, "name": "x", "note": "n"}"#, "$.note", 28, "'note' and 'flag'"),
        ])
    func oneofs(_ json: String, _ path: String, _ offset: Int, _ names: String) {
        do {
            _ = try Contact(jsonString: json)
            Issue.record("\(json) was read")
        } catch {
            #expect(error.kind == .duplicateField, "\(json): \(error)")
            #expect(error.path == path && error.offset == offset, "\(json): \(error)")
            #expect(error.message.contains(names), "\(json): \(error)")
        }
    }

    @Test("Members of different oneofs, and a oneof's member alone, read")
    func oneofMembersApart() throws {
        let message = try Contact(jsonString: #"{"phoneNumber": "7", "note": "n"}"#)
        #expect(message.reach == .phoneNumber(7) && message.extra == .note("n"))
        #expect(try message.jsonString() == #"{"phoneNumber":"7","note":"n"}"#)
    }

    @Test("proto3 optional prints when set to its default, and stays out unset even with emitDefaultValues")
    func presence() throws {
        let zero = Contact(level: 0, motto: "")
        #expect(try zero.jsonString() == #"{"level":0,"motto_text":""}"#)
        #expect(try Contact(jsonString: #"{"level": 0}"#).level == 0)
        #expect(try Contact(jsonString: #"{"level": null}"#).level == nil)
        let defaults = JSONOptions(emitDefaultValues: true)
        // Fields without presence print at their default; repeated fields and maps empty; oneof
        // members and the optional fields do not print.
        #expect(
            try Contact().jsonString(options: defaults)
                == #"{"name":"","tags":[],"points":{},"userId":"0","a b\"c\\é":"","sameName":""}"#)
        #expect(
            try zero.jsonString(options: defaults)
                == #"{"name":"","level":0,"motto_text":"","tags":[],"points":{},"userId":"0","a b\"c\\é":"","sameName":""}"#
        )
        #expect(try Contact(jsonString: zero.jsonString(options: defaults)) == zero)
    }

    @Test(
        "A repeated field reads from an array, a map from an object",
        arguments: [
            (#"{"tags": "a"}"#, "$.tags"), (#"{"points": [1]}"#, "$.points"), (#"{"tags": [null]}"#, "$.tags[0]"),
            (#"{"points": {"x": null}}"#, "$.points[\"x\"]"), (#"{"name": ["a"]}"#, "$.name"),
        ])
    func shapes(_ json: String, _ path: String) {
        do {
            _ = try Contact(jsonString: json)
            Issue.record("\(json) was read")
        } catch {
            #expect(error.kind == .badValue && error.path == path, "\(json): \(error)")
        }
    }

    /// Python's json_format (protobuf 4.21, as the conformance runner's version) reads what
    /// SwiftFrame prints into the same message, prints the same JSON (compared as values), and
    /// rejects the same two-member oneofs; SwiftFrame reads what Python prints.
    @Test("Python's json_format agrees")
    func python() throws {
        var referred = Contact(
            level: 3, tags: ["x"], reach: .referrer(Contact(displayName: "Bob", reach: .phoneNumber(7))))
        referred.extra = .note("n")
        let messages = [
            Self.full, Contact(), Contact(level: 0, motto: ""), referred,
            Contact(scores: ["a": 1, "b": -2, "": 0], reach: .phoneNumber(.max), userId: .min),
        ]
        let options: [(name: String, options: JSONOptions)] = [
            ("plain", JSONOptions()), ("defaults", JSONOptions(emitDefaultValues: true)),
            ("protoNames", JSONOptions(useProtoFieldNames: true)),
        ]
        var cases: [[String: Any]] = []
        for message in messages {
            var printed: [String: String] = [:]
            for (name, option) in options { printed[name] = try message.jsonString(options: option) }
            cases.append([
                "bytes": try message.serializedBytes().map { String(format: "%02x", $0) }.joined(), "printed": printed,
            ])
        }
        let rejected = [
            #"{"mail": "a", "phoneNumber": "7"}"#, #"{"referrer": {}, "email": "a"}"#, #"{"flag": true, "note": "n"}"#,
        ]
        for json in rejected {
            #expect(throws: JSONError.self, "\(json)") { try Contact(jsonString: json) }
        }
        let input = try JSONSerialization.data(withJSONObject: ["cases": cases, "rejected": rejected])
        let output = try Self.runPython(input: [UInt8](input))
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any])
        let results = try #require(answer["cases"] as? [[String: Any]])
        #expect(results.count == messages.count)
        for (message, result) in zip(messages, results) {
            for (name, _) in options {
                #expect(result["\(name)Alike"] as? Bool == true, "\(name): \(result)")
            }
            #expect(result["readAlike"] as? Bool == true, "\(result)")
            let pythonJSON = try #require(result["python"] as? String)
            #expect(try Contact(jsonString: pythonJSON) == message, "\(pythonJSON)")
        }
        #expect(answer["rejected"] as? [Bool] == rejected.map { _ in true }, "\(answer)")
    }

    /// Runs the comparison in python3 with the fixture's Python module, which protoc writes to
    /// a temporary directory.
    private static func runPython(input: [UInt8]) throws -> [UInt8] {
        let directory = try temporaryDirectory("swiftframe-json")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Protoc.run(["-I" + Repository.fixtureProtos, "--python_out=" + directory.path, "jsonnames.proto"])
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            import jsonnames_pb2
            from google.protobuf import json_format
            request = json.load(sys.stdin)
            def printed(message, **options):
                return json.loads(json_format.MessageToJson(message, **options))
            results = []
            for case in request["cases"]:
                message = jsonnames_pb2.Contact.FromString(bytes.fromhex(case["bytes"]))
                ours = case["printed"]
                results.append({
                    "plainAlike": json.loads(ours["plain"]) == printed(message),
                    "defaultsAlike": json.loads(ours["defaults"]) == printed(message, including_default_value_fields=True),
                    "protoNamesAlike": json.loads(ours["protoNames"]) == printed(message, preserving_proto_field_name=True),
                    "readAlike": json_format.Parse(ours["plain"], jsonnames_pb2.Contact()) == message
                        and json_format.Parse(ours["protoNames"], jsonnames_pb2.Contact()) == message,
                    "python": json_format.MessageToJson(message),
                })
            rejected = []
            for text in request["rejected"]:
                try:
                    json_format.Parse(text, jsonnames_pb2.Contact())
                    rejected.append(False)
                except json_format.ParseError:
                    rejected.append(True)
            json.dump({"cases": results, "rejected": rejected}, sys.stdout)
            """
        let result = try runProcess(Repository.onPath("python3"), ["-c", script, directory.path], input: input)
        guard result.succeeded else {
            throw ProcessFailure(command: "python3 (json_format)", status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }
}
