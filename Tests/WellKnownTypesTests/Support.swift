// Running protoc against google/protobuf/*.proto, and the round-trip check.

import Foundation
import SwiftFrame
import Testing

/// protoc exited non-zero (or was killed); the test fails with its stderr.
struct ProtocFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stderr: String

    var description: String {
        "protoc \(arguments.joined(separator: " ")) failed (status \(status)):\n\(stderr)"
    }
}

enum Protoc {
    static let executable = ProcessInfo.processInfo.environment["PROTOC"] ?? "/usr/bin/protoc"
    /// Where `google/protobuf/*.proto` are installed (Debian's libprotobuf-dev).
    static let include = ProcessInfo.processInfo.environment["PROTOC_INCLUDE"] ?? "/usr/include"

    /// Runs protoc with `input` on stdin and returns its stdout. Input and output go through
    /// temporary files, so no pipe can fill up and block either side.
    static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let files = FileManager.default
        let directory = files.temporaryDirectory
            .appendingPathComponent("swiftframe-wkt-\(UUID().uuidString)", isDirectory: true)
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: directory) }
        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try Data(input).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let stdin = try FileHandle(forReadingFrom: inURL)
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer {
            try? stdin.close()
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()

        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let errors = try Data(contentsOf: errURL)
            throw ProtocFailure(arguments: arguments, status: process.terminationStatus,
                                stderr: String(decoding: errors, as: UTF8.self))
        }
        return [UInt8](try Data(contentsOf: outURL))
    }

    /// `protoc --encode=<type> -I <include> <files>`: text format in, wire bytes out.
    /// `files` are names under google/protobuf, e.g. "timestamp"; list every file whose types
    /// the text names (an expanded Any names the packed type).
    static func encode(_ text: String, as type: String, files: [String]) throws -> [UInt8] {
        try run(["--encode=\(type)", "-I", include] + files.map { "google/protobuf/\($0).proto" },
                input: Array(text.utf8))
    }
}

/// Checks a message against protoc: our bytes equal `protoc --encode`'s for the same
/// message as text, `serializedSize()` agrees, and decoding protoc's bytes gives the value
/// back (compared with `same`) with no unknown fields, and re-encodes to the same bytes.
func expectMatchesProtoc<M: Message>(
    _ value: M, _ text: String, files: [String],
    same: (M, M) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let type = M.protoMessageName
    let theirs = try Protoc.encode(text, as: type, files: files)
    let ours = try value.serializedBytes()
    #expect(ours == theirs, "\(type): ours \(hex(ours)), protoc \(hex(theirs))", sourceLocation: sourceLocation)
    #expect(value.serializedSize() == ours.count, "\(type): serializedSize()", sourceLocation: sourceLocation)

    let decoded = try M(serializedBytes: theirs)
    #expect(same(decoded, value), "\(type): decoding protoc's bytes gave \(decoded)", sourceLocation: sourceLocation)
    #expect(decoded.unknownFields.isEmpty, "\(type): unexpected unknown fields", sourceLocation: sourceLocation)
    #expect(try decoded.serializedBytes() == theirs, "\(type): decode then encode changed the bytes",
            sourceLocation: sourceLocation)
}

/// One round trip for a parameterized test: any message type, its text form, and the
/// google/protobuf files protoc should load.
struct RoundTripCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let run: @Sendable () throws -> Void

    init<M: Message>(
        _ name: String, _ value: M, _ text: String, files: [String],
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        testDescription = "\(M.protoMessageName): \(name)"
        run = { try expectMatchesProtoc(value, text, files: files, same: same, sourceLocation: sourceLocation) }
    }

    /// The default message: zero bytes from us and from protoc.
    static func empty<M: Message>(_: M.Type, file: String, sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        Self("default", M(), "", files: [file], sourceLocation: sourceLocation)
    }
}

func hex(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "(empty)" }
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
}

/// Bytes as a text-format string body, every byte escaped in octal.
func octalEscaped(_ bytes: [UInt8]) -> String {
    bytes.map { byte in "\\" + String(byte >> 6) + String(byte >> 3 & 7) + String(byte & 7) }.joined()
}
