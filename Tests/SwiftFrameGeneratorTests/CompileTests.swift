import Foundation
import TestSupport
import Testing

/// Generated code must compile with no warnings under Swift 6 strict concurrency, also with
/// MainActor as the default isolation. Checked on the proto3 files libprotobuf-dev installs
/// and on a stress file, with swiftc against the SwiftFrame module of this build.
@Suite struct CompileTests {
    static let stress = """
        syntax = "proto3";
        package stress.deep_pkg;
        import "google/protobuf/timestamp.proto";
        import "google/protobuf/any.proto";
        // A file full of awkward shapes.
        message Outer {
          message Middle {
            message Inner { Outer back = 1; repeated Inner siblings = 2; Middle up = 3; }
            Inner inner = 1;
            enum Mode { MODE_DEFAULT = 0; MODE_SELF = 1; MODE_INIT = 2; }
            Mode mode = 2;
          }
          Middle middle = 1;
          google.protobuf.Timestamp at = 2;
          repeated google.protobuf.Any details = 3;
          optional Middle.Mode mode = 4;
          repeated Middle.Mode modes = 5 [packed = false];
          bytes default = 6;
          string init = 7;
          int64 Int = 8;
          double protocol = 9;
          repeated sint64 self = 10;
          message Type {}
          Type kind = 11;
          map<string, Outer> children = 12;
          oneof pick { Middle.Inner inner = 13; Outer again = 14; string text = 15; }
        }
        message Empty {}
        enum Single { SINGLE_ONLY = 0; }
        """

    /// Standard-library names and keywords as message, enum, case and field names, in a
    /// file without a package so nothing prefixes them.
    static let names = """
        syntax = "proto2";
        message String { optional string value = 1; }
        message Error { optional String message = 1; optional Type type = 2; }
        message Type { optional int32 self = 1; optional int32 Type = 2; optional int32 Protocol = 3; }
        message Protocol { optional int32 init = 1; optional int32 hash = 2; optional int32 default = 3; }
        message Int { optional Int next = 1; repeated String strings = 2; map<string, Error> errors = 3; }
        message Optional { optional bool some = 1; optional bool none = 2; }
        message Array { repeated Array items = 1; oneof choice { String text = 2; Bool flag = 3; } }
        message Bool { optional bool value = 1 [default = true]; }
        message Dictionary { optional Result result = 1 [default = FAILURE]; }
        enum Result { SUCCESS = 0; FAILURE = 1; SELF = 2; INIT = 3; TYPE = 4; DEFAULT = 5; }
        message Never {}
        message Sendable {}
        message Hashable {}
        message Message { optional Message self_ = 1; }
        message Enum {}
        """

    @Test func generatedCodeCompilesWithoutWarnings() throws {
        let sources = try Support.protoDirectory(["stress.proto": Self.stress, "names.proto": Self.names])
        let output = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: sources)
            try? FileManager.default.removeItem(at: output)
        }
        let wellKnown = [
            "any", "api", "duration", "empty", "field_mask", "source_context", "struct", "timestamp",
            "type", "wrappers",
        ]
        .map { "google/protobuf/\($0).proto" }
        let generate = try runProcess(
            Protoc.executable,
            [
                "-I" + sources.path, "-I/usr/include", "--plugin=protoc-gen-swiftframe=\(Support.plugin)",
                "--swiftframe_out=\(output.path)", "stress.proto", "names.proto",
                "google/protobuf/descriptor.proto", "google/protobuf/compiler/plugin.proto",
            ] + wellKnown)
        #expect(generate.status == 0, "\(generate.stderr)")
        let swiftFiles = (FileManager.default.enumerator(atPath: output.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }.map { output.appendingPathComponent($0).path }.sorted()
        #expect(swiftFiles.count == wellKnown.count + 4)

        #expect(try Support.typecheck(swiftFiles) == [])
    }

    /// An app that imports a module generated from a file without a package, whose types are
    /// named like the standard library's and Foundation's, still means the library's types by
    /// their plain names (`struct LoginFailed: Error {}`); the generated types take a suffix.
    @Test func aGeneratedModuleHidesNoLibraryName() throws {
        let enums = ["Result", "Date", "Task"]
        let messages = [
            "Optional", "String", "Int", "Array", "Dictionary", "Set", "Data", "URL", "Type", "Protocol", "Never",
            "Any", "Sequence", "Collection", "Bool", "Double", "Float", "Character", "Void", "UInt", "UInt8", "UInt16",
            "UInt32", "UInt64", "Int8", "Int16", "Int32", "Int64", "Equatable", "Hashable", "Codable", "Sendable",
            "Identifiable", "Substring", "Range", "ClosedRange", "Comparable", "Encoder", "Decoder", "Encodable",
            "Decodable", "Actor", "MainActor", "AnyObject", "AnyHashable", "Unicode", "Hasher", "Mirror", "Duration",
            "CaseIterable", "RawRepresentable", "CustomStringConvertible", "UUID", "Decimal", "Foundation",
        ]
        let proto = """
            syntax = "proto3";
            message Error { int32 code = 1; }
            message ErrorMessage { Error error = 1; Result result = 2; }
            message Outer { message Error {} Error error = 1; }
            \(enums.map { "enum \($0) { \($0.uppercased())_NONE = 0; \($0.uppercased())_FAILED = 1; }" }.joined(separator: "\n"))
            \(messages.map { "message \($0) {}" }.joined(separator: "\n"))
            """
        let (result, generated) = try Support.generate(["names.proto": proto])
        #expect(result.status == 0, "\(result.stderr)")
        let source = try #require(generated["names.swiftframe.swift"])
        for declaration in [
            "struct ErrorMessage: ", "struct ErrorMessage_2: ", "enum ResultEnum: ", "struct DataMessage: ",
            "struct Type_: ", "struct Any_: ", "struct Outer: ", "struct Error: ",
        ] {
            #expect(source.contains(declaration), "missing \(declaration)")
        }

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let generatedFile = directory.appendingPathComponent("names.swift")
        try source.write(to: generatedFile, atomically: true, encoding: .utf8)
        let module = try runProcess(
            Support.swiftc,
            [
                "-emit-module", "-module-name", "Names", "-parse-as-library", "-swift-version", "6",
                "-warnings-as-errors",
                "-I", Support.modules, "-emit-module-path", directory.appendingPathComponent("Names.swiftmodule").path,
                generatedFile.path,
            ])
        #expect(module.status == 0 && module.stderr.isEmpty, "\(module.stderr)")

        let app = directory.appendingPathComponent("app.swift")
        try Self.app.write(to: app, atomically: true, encoding: .utf8)
        let check = try runProcess(
            Support.swiftc,
            [
                "-typecheck", "-swift-version", "6", "-warnings-as-errors",
                "-I", Support.modules, "-I", directory.path, app.path,
            ])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
    }

    /// App code that names the library's types plainly; each line fails to compile when an
    /// imported type of that name hides the library's.
    static let app = """
        import Foundation
        import Names

        struct LoginFailed: Error {}
        struct Point: Equatable, Hashable, Comparable, Identifiable, Codable, Sendable, CustomStringConvertible {
            var id: Int
            var description: String { String(id) }
            static func < (lhs: Point, rhs: Point) -> Bool { lhs.id < rhs.id }
        }
        enum Choice: Int, CaseIterable { case one = 1 }
        struct Custom: Encodable, Decodable {
            init(from decoder: any Decoder) throws {}
            func encode(to encoder: any Encoder) throws {}
        }
        actor Counter {}
        func isolation(_ actor: any Actor) -> any Actor { actor }
        @MainActor func onMain() {}
        func fail() -> Never { fatalError() }
        func nothing() -> Void {}
        func sum(_ values: some Sequence<Int>) -> Int { values.reduce(0, +) }
        func count(_ values: some Collection<Int>) -> Int { values.count }
        func raw<T: RawRepresentable>(_ value: T) -> T.RawValue { value.rawValue }

        func library() -> Result<Int, LoginFailed> {
            let optional: Optional<Int> = .none
            let string: String = "text"
            let substring: Substring = string.dropFirst()
            let character: Character = "c"
            let scalar: Unicode.Scalar = "s"
            let flag: Bool = true
            let floats: (Double, Float) = (1.5, 2.5)
            let signed: (Int, Int8, Int16, Int32, Int64) = (1, 2, 3, 4, 5)
            let unsigned: (UInt, UInt8, UInt16, UInt32, UInt64) = (1, 2, 3, 4, 5)
            let array: Array<Int> = [1]
            let dictionary: Dictionary<String, Int> = [:]
            let set: Set<Int> = [1]
            let range: Range<Int> = 0..<1
            let closed: ClosedRange<Int> = 0...1
            let hashable: AnyHashable = 1
            let object: AnyObject = Counter()
            var hasher = Hasher()
            hasher.combine(1)
            let mirror = Mirror(reflecting: 1)
            let task: Task<Void, Never> = Task {}
            let duration: Duration = .seconds(1)
            let data: Data = Data([1, 2])
            let date: Date = Date(timeIntervalSince1970: 0)
            let url: URL? = URL(string: "https://example.com")
            let uuid: UUID = UUID()
            let decimal: Decimal = 1
            let foundation: Foundation.Data = data
            let error: any Error = LoginFailed()
            let value: Any = 1
            let type: Int.Type = Int.self
            _ = (optional, substring, character, scalar, flag, floats, signed, unsigned, dictionary, set, range, closed)
            _ = (hashable, object, hasher.finalize(), mirror.children.count, task, duration, date, url, uuid, decimal)
            _ = (foundation, error, value, type, sum(array), count(array), raw(Choice.one), Choice.allCases)
            // The generated types, by the names the naming rules give them.
            _ = (ErrorMessage(code: 3), ErrorMessage_2(error: ErrorMessage(code: 4), result: .failed), ResultEnum.none)
            _ = (DateEnum.failed, TaskEnum.none, DataMessage(), StringMessage(), Type_(), Protocol_(), Any_())
            _ = (Outer.Error(), Outer(error: Outer.Error()), FoundationMessage(), MainActorMessage())
            return .success(1)
        }
        """

    /// `TextFormat=Numbers` leaves every field and enum value name out of the code, which
    /// still compiles cleanly; the messages then print by number.
    @Test func numbersModeHoldsNoNames() throws {
        let (result, files) = try Support.generate(
            ["stress.proto": Self.stress, "names.proto": Self.names],
            parameter: "TextFormat=Numbers")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(files.count == 2)
        for (name, source) in files {
            #expect(!source.contains("textFormatFields") && !source.contains("protoNames"), "\(name)")
            #expect(source.contains("static var fieldNamesLeftOut: Swift.Bool { true }"), "\(name)")
            #expect(!source.contains("\"MODE_SELF\"") && !source.contains("\"children\""), "\(name)")
        }
        #expect(try Support.typecheck(files) == [])
    }

    /// `optimize_for = CODE_SIZE` gives messages a field table and no codec code of their own;
    /// `OptimizeFor=` overrides the file option either way. Every field kind, and extension
    /// ranges, compile in the compact form.
    @Test func optimizeForChoosesTheCodec() throws {
        let compactFile =
            "syntax = \"proto2\";\noption optimize_for = CODE_SIZE;\n"
            + "message A { optional int32 id = 1; }\nmessage B { extensions 100 to 199; optional string s = 1; }\n"
        func isCompact(_ source: String, _ message: String) -> Bool {
            source.contains("extension \(message): SwiftFrame.CompactMessage")
        }
        let (declared, declaredFiles) = try Support.generate(["c.proto": compactFile])
        #expect(declared.status == 0, "\(declared.stderr)")
        let source = try #require(declaredFiles["c.swiftframe.swift"])
        #expect(isCompact(source, "A") && source.contains("static let fieldTable"))
        #expect(isCompact(source, "B") && source.contains("extensionRanges: [100...199]"))
        #expect(!source.contains("func decodeMessage"))
        #expect(try Support.typecheck(declaredFiles) == [])

        let (overridden, overriddenFiles) = try Support.generate(
            ["c.proto": compactFile], parameter: "OptimizeFor=SPEED")
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overriddenFiles["c.swiftframe.swift"].map { !$0.contains("CompactMessage") } == true)

        let (stress, stressFiles) = try Support.generate(
            ["stress.proto": Self.stress, "names.proto": Self.names],
            parameter: "OptimizeFor=CODE_SIZE")
        #expect(stress.status == 0, "\(stress.stderr)")
        #expect(
            stressFiles.values.allSatisfy {
                $0.contains("SwiftFrame.CompactMessage") && !$0.contains("func computeSize")
            })
        #expect(try Support.typecheck(stressFiles) == [])
    }

    /// Code generated for another runtime fails at its version check, with the line that
    /// explains what to do above it.
    @Test func anotherRuntimeFailsAtTheVersionCheck() throws {
        let (result, files) = try Support.generate(["names.proto": Self.names])
        #expect(result.status == 0, "\(result.stderr)")
        let source = try #require(files["names.swiftframe.swift"])
        #expect(source.contains("SwiftFrame.GeneratedCodeVersion1\n"))
        let complaints = try Support.typecheck([
            "names.swift": source.replacingOccurrences(of: "GeneratedCodeVersion1", with: "GeneratedCodeVersion2")
        ])
        #expect(complaints.count == 2)
        #expect(complaints.allSatisfy { $0.contains("GeneratedCodeVersion2") && $0.contains("error:") })
    }
}
