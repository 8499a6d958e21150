// protoc as the reference the tests compare against.

import Foundation

public enum Protoc {
    public static let executable: String = ProcessInfo.processInfo.environment["PROTOC"] ?? Repository.onPath("protoc")
    /// Where `google/protobuf/*.proto` are installed (Debian's libprotobuf-dev).
    public static let include: String = ProcessInfo.processInfo.environment["PROTOBUF_INCLUDE"] ?? "/usr/include"

    /// Runs protoc with `input` on stdin and returns its stdout; throws with its stderr when
    /// it fails.
    public static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let result = try runProcess(executable, arguments, input: input)
        guard result.succeeded else {
            throw ProcessFailure(
                command: "protoc " + arguments.joined(separator: " "), status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    /// `protoc --encode=<type>`: text format in, wire bytes out.
    public static func encode(_ text: String, as type: String, includes: [String], files: [String]) throws -> [UInt8] {
        try run(includes.map { "-I" + $0 } + files + ["--encode=\(type)"], input: Array(text.utf8))
    }

    /// `protoc --decode=<type>`: wire bytes in, text format out.
    public static func decode(_ bytes: [UInt8], as type: String, includes: [String], files: [String]) throws -> String {
        String(
            decoding: try run(includes.map { "-I" + $0 } + files + ["--decode=\(type)"], input: bytes), as: UTF8.self)
    }

    /// `protoc --decode_raw`: the fields of any wire bytes, as text, with no schema.
    public static func decodeRaw(_ bytes: [UInt8]) throws -> String {
        String(decoding: try run(["--decode_raw"], input: bytes), as: UTF8.self)
    }
}

/// The .proto files protoc loads to encode and decode a message: include paths and files.
public struct ProtoSchema: Sendable {
    public var includes: [String]
    public var files: [String]

    public init(includes: [String], files: [String]) {
        self.includes = includes
        self.files = files
    }

    /// A file of the fixtures (`Fixtures/protos`, with swiftframe's options and the
    /// well-known types on the include path).
    public static func fixture(_ file: String) -> ProtoSchema {
        ProtoSchema(includes: [Repository.fixtureProtos, Repository.optionsProtos, Protoc.include], files: [file])
    }

    /// google/protobuf files by stem (`"timestamp"`).
    public static func wellKnown(_ stems: [String]) -> ProtoSchema {
        ProtoSchema(includes: [Protoc.include], files: stems.map { "google/protobuf/\($0).proto" })
    }

    public func encode(_ text: String, as type: String) throws -> [UInt8] {
        try Protoc.encode(text, as: type, includes: includes, files: files)
    }

    public func decode(_ bytes: [UInt8], as type: String) throws -> String {
        try Protoc.decode(bytes, as: type, includes: includes, files: files)
    }

    /// `protoc --descriptor_set_out --include_imports` of the files: a `FileDescriptorSet`.
    public func descriptorSet() throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftframe-descriptors-\(UUID().uuidString).pb")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try Protoc.run(
            includes.map { "-I" + $0 } + files
                + ["--descriptor_set_out=\(output.path)", "--include_imports"])
        return Array(try Data(contentsOf: output))
    }

    /// Decodes several inputs, running protoc once per distinct input.
    public func decode(all inputs: [[UInt8]], as type: String) throws -> [String] {
        var texts: [[UInt8]: String] = [:]
        return try inputs.map { input in
            if let text = texts[input] { return text }
            let text = try decode(input, as: type)
            texts[input] = text
            return text
        }
    }
}
