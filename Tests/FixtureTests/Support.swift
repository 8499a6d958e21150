// Shared helpers for the fixture round-trip tests: running protoc, the round-trip check,
// a few hand-rolled wire encoders (independent of the runtime) and NaN-aware equality.

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import Testing

// MARK: Locations

/// The repository root: this file is `<root>/Tests/FixtureTests/Support.swift`.
let repoRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support.swift
    .deletingLastPathComponent()  // FixtureTests
    .deletingLastPathComponent()  // Tests

/// `<root>/Fixtures/protos`, the `-I` path for every protoc run.
let protoDirectory: String = repoRoot.appendingPathComponent("Fixtures/protos").path
/// `<root>/Protos`, where `swiftframe/options.proto` lives.
let optionsDirectory: String = repoRoot.appendingPathComponent("Protos").path

// MARK: protoc

/// protoc exited non-zero (or was killed); the test fails with its stderr.
struct ProtocFailure: Swift.Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stderr: String

    var description: String {
        "protoc \(arguments.joined(separator: " ")) failed (status \(status)):\n\(stderr)"
    }
}

enum Protoc {
    static let executable: String = ProcessInfo.processInfo.environment["PROTOC"] ?? "/usr/bin/protoc"

    /// Runs protoc with `input` on stdin and returns its stdout. Input and output go
    /// through temporary files, so no pipe can fill up and block either side.
    static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let files = FileManager.default
        let directory = files.temporaryDirectory
            .appendingPathComponent("swiftframe-fixture-\(UUID().uuidString)", isDirectory: true)
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: directory) }

        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try Data(input).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let stdinHandle = try FileHandle(forReadingFrom: inURL)
        let stdoutHandle = try FileHandle(forWritingTo: outURL)
        let stderrHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? stdinHandle.close()
            try? stdoutHandle.close()
            try? stderrHandle.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = stdinHandle
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        try process.run()
        process.waitUntilExit()

        let output = try Data(contentsOf: outURL)
        let errors = try Data(contentsOf: errURL)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw ProtocFailure(
                arguments: arguments,
                status: process.terminationStatus,
                stderr: String(decoding: errors, as: UTF8.self)
            )
        }
        return [UInt8](output)
    }

    /// `protoc --encode=<type>`: text format in, wire bytes out.
    static func encode(_ text: String, as type: String, file: String) throws -> [UInt8] {
        try run(["-I", protoDirectory, "-I", optionsDirectory, file, "--encode=\(type)"], input: Array(text.utf8))
    }

    /// `protoc --decode=<type>`: wire bytes in, text format out.
    static func decode(_ bytes: [UInt8], as type: String, file: String) throws -> String {
        let text = try run(["-I", protoDirectory, "-I", optionsDirectory, file, "--decode=\(type)"], input: bytes)
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes several inputs, running protoc once per distinct input.
    static func decode(all inputs: [[UInt8]], as type: String, file: String) throws -> [String] {
        var texts: [[UInt8]: String] = [:]
        return try inputs.map { input in
            if let text = texts[input] { return text }
            let text = try decode(input, as: type, file: file)
            texts[input] = text
            return text
        }
    }
}

// MARK: The round-trip check

/// Checks one message against protoc, given the Swift value and the same message as text:
/// (a) our bytes equal `protoc --encode`'s, (b) decoding protoc's bytes gives the value
/// back (with no unknown fields, and re-encoding to the same bytes), (c) `protoc --decode`
/// prints the same text for our bytes as for its own.
func expectRoundTrip<M: Message>(
    _ value: M,
    text: String,
    file: String,
    expectEmpty: Bool = false,
    same: (M, M) -> Bool = { $0 == $1 },
    compareDescriptions: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let type = M.protoMessageName
    let protocBytes = try Protoc.encode(text, as: type, file: file)
    let ours = try value.serializedBytes()

    // (a)
    #expect(
        ours == protocBytes,
        "\(type): serializedBytes() differs from protoc --encode\n  ours:   \(hex(ours))\n  protoc: \(hex(protocBytes))",
        sourceLocation: sourceLocation
    )
    #expect(value.serializedSize() == ours.count, "\(type): serializedSize()", sourceLocation: sourceLocation)
    if expectEmpty {
        #expect(protocBytes.isEmpty, "\(type): protoc wrote \(hex(protocBytes)) for a default message", sourceLocation: sourceLocation)
        #expect(ours.isEmpty, "\(type): we wrote \(hex(ours)) for a default message", sourceLocation: sourceLocation)
    }

    // (b)
    let decoded = try M(serializedBytes: protocBytes)
    #expect(
        same(decoded, value),
        "\(type): decoding protoc's bytes \(hex(protocBytes))\n  gave:     \(decoded)\n  expected: \(value)",
        sourceLocation: sourceLocation
    )
    // Generated enums compare by number (`RawRepresentable`'s `==`), so `==` alone would
    // accept `.unrecognized(1)` for a declared value 1; the descriptions name the cases.
    // (Dictionaries print in an order of their own, so values holding maps skip this.)
    #expect(
        !compareDescriptions || String(describing: decoded) == String(describing: value),
        "\(type): decoded value differs in its enum cases (or floats)\n  gave:     \(decoded)\n  expected: \(value)",
        sourceLocation: sourceLocation
    )
    #expect(decoded.unknownFields.isEmpty, "\(type): unexpected unknown fields \(hex(decoded.unknownFields.bytes))", sourceLocation: sourceLocation)
    let reencoded = try decoded.serializedBytes()
    #expect(
        reencoded == protocBytes,
        "\(type): decode then encode changed protoc's bytes\n  before: \(hex(protocBytes))\n  after:  \(hex(reencoded))",
        sourceLocation: sourceLocation
    )

    // (c)
    let texts = try Protoc.decode(all: [ours, protocBytes], as: type, file: file)
    #expect(
        texts[0] == texts[1],
        "\(type): protoc --decode of our bytes:\n\(texts[0])\nof protoc's bytes:\n\(texts[1])",
        sourceLocation: sourceLocation
    )
}

/// One round-trip case for a parameterized test: any message type, its text form, and the
/// proto file protoc should load.
struct RoundTripCase: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable () throws -> Void

    var testDescription: String { name }

    init<M: Message>(
        _ name: String,
        _ value: M,
        file: String,
        text: String,
        expectEmpty: Bool = false,
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.name = "\(M.protoMessageName): \(name)"
        self.run = {
            try expectRoundTrip(
                value, text: text, file: file, expectEmpty: expectEmpty, same: same,
                sourceLocation: sourceLocation
            )
        }
    }

    /// The default message: encodes to zero bytes, and protoc agrees.
    static func empty<M: Message>(
        _: M.Type, file: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> RoundTripCase {
        RoundTripCase("empty", M(), file: file, text: "", expectEmpty: true, sourceLocation: sourceLocation)
    }
}

// MARK: Hand-rolled wire encoding (independent of the runtime under test)

func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
    }
    bytes.append(UInt8(value))
    return bytes
}

/// An int32/int64/enum varint: negative values sign-extend to 10 bytes.
func varint(signed value: Int64) -> [UInt8] {
    varint(UInt64(bitPattern: value))
}

func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
}

func tag(_ field: UInt32, _ wireType: UInt32) -> [UInt8] {
    varint(UInt64(field << 3 | wireType))
}

func littleEndian32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}

func littleEndian64(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}

/// A length-delimited field: tag, length, payload.
func lengthDelimited(_ field: UInt32, _ payload: [UInt8]) -> [UInt8] {
    tag(field, 2) + varint(UInt64(payload.count)) + payload
}

func hex(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "(empty)" }
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
}

// MARK: NaN-aware equality

extension Everything {
    /// `==` compares floating-point fields with IEEE rules (NaN != NaN, -0 == 0). This
    /// compares them by bit pattern and everything else with `==`.
    static func bitwiseEqual(_ lhs: Everything, _ rhs: Everything) -> Bool {
        lhs.fDouble.bitPattern == rhs.fDouble.bitPattern
            && lhs.fFloat.bitPattern == rhs.fFloat.bitPattern
            && lhs.rDouble.map(\.bitPattern) == rhs.rDouble.map(\.bitPattern)
            && lhs.rFloat.map(\.bitPattern) == rhs.rFloat.map(\.bitPattern)
            && lhs.oDouble.map(\.bitPattern) == rhs.oDouble.map(\.bitPattern)
            && lhs.withoutFloatingPoint == rhs.withoutFloatingPoint
    }

    /// A copy with the floating-point fields cleared (presence of `oDouble` kept).
    var withoutFloatingPoint: Everything {
        var copy = self
        copy.fDouble = 0
        copy.fFloat = 0
        copy.rDouble = rDouble.map { _ in 0 }
        copy.rFloat = rFloat.map { _ in 0 }
        copy.oDouble = oDouble.map { _ in 0 }
        return copy
    }
}
