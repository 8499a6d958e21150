// Shared helpers for the conformance tests: a wire encoder written here (independent of the
// runtime under test), protoc with the conformance protos, and the built testee run as a
// process speaking the length-prefixed protocol of shared/CONFORMANCE.md.

import Foundation
import SwiftFrame
import SwiftFrameConformanceMessages
import Testing

typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

// MARK: Locations

/// The repository root: this file is `<root>/Tests/ConformanceTests/Support.swift`.
let repoRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support.swift
    .deletingLastPathComponent()  // ConformanceTests
    .deletingLastPathComponent()  // Tests

/// `shared/protos/conformance` beside the repository, as `scripts/generate.sh` finds it.
let conformanceProtos: String = ProcessInfo.processInfo.environment["CONFORMANCE_PROTOS"]
    ?? repoRoot.deletingLastPathComponent().appendingPathComponent("shared/protos/conformance").path

// MARK: Hand-rolled wire encoding

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

/// int32, int64 and enum values: negative numbers sign-extend to ten bytes.
func varint(signed value: Int64) -> [UInt8] { varint(UInt64(bitPattern: value)) }

/// A varint padded with redundant continuation bytes to `length` bytes (non-canonical).
func paddedVarint(_ value: UInt64, length: Int) -> [UInt8] {
    var bytes = varint(value)
    precondition(bytes.count <= length && length <= 10)
    bytes[bytes.count - 1] |= 0x80
    while bytes.count < length - 1 { bytes.append(0x80) }
    bytes.append(0)
    return bytes
}

func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

enum WT: UInt32 { case varint = 0, fixed64 = 1, delimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5 }

func tag(_ field: UInt32, _ wireType: WT) -> [UInt8] { varint(UInt64(field) << 3 | UInt64(wireType.rawValue)) }

/// A tag with any wire type number, 6 and 7 included.
func rawTag(_ field: UInt32, _ wireType: UInt32) -> [UInt8] { varint(UInt64(field) << 3 | UInt64(wireType)) }

func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

/// A length-delimited field: tag, length, payload.
func delimited(_ field: UInt32, _ payload: [UInt8]) -> [UInt8] {
    tag(field, .delimited) + varint(UInt64(payload.count)) + payload
}

func delimited(_ field: UInt32, _ text: String) -> [UInt8] { delimited(field, Array(text.utf8)) }

/// A group: start tag, body, end tag.
func group(_ field: UInt32, _ body: [UInt8]) -> [UInt8] { tag(field, .startGroup) + body + tag(field, .endGroup) }

func hex(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "(empty)" }
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
}

/// The case name of a `WireError` (`truncated`, `lengthPastEnd`, ...).
func caseName(_ error: WireError) -> String {
    Mirror(reflecting: error).children.first?.label ?? String(describing: error)
}

// MARK: Processes

struct ProcessFailure: Swift.Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let stderr: String
    var description: String { "\(command) failed (status \(status)):\n\(stderr)" }
}

struct ProcessResult {
    var status: Int32
    var reason: Process.TerminationReason
    var stdout: [UInt8]
    var stderr: String
}

/// Runs a program to completion. Input and output go through temporary files, so no pipe
/// can fill up and block either side.
func runProcess(_ executable: String, _ arguments: [String], input: [UInt8]) throws -> ProcessResult {
    let files = FileManager.default
    let directory = files.temporaryDirectory
        .appendingPathComponent("swiftframe-conformance-\(UUID().uuidString)", isDirectory: true)
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
    return ProcessResult(
        status: process.terminationStatus,
        reason: process.terminationReason,
        stdout: [UInt8](try Data(contentsOf: outURL)),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    )
}

enum Protoc {
    static let executable: String = ProcessInfo.processInfo.environment["PROTOC"] ?? "/usr/bin/protoc"
    static let include: String = ProcessInfo.processInfo.environment["PROTOBUF_INCLUDE"] ?? "/usr/include"

    static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let result = try runProcess(executable, arguments, input: input)
        guard result.reason == .exit, result.status == 0 else {
            throw ProcessFailure(command: "protoc " + arguments.joined(separator: " "), status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    /// The conformance proto that declares `type`.
    static func file(of type: String) -> String {
        type.hasPrefix("protobuf_test_messages.proto2.") ? "test_messages_proto2.proto" : "test_messages_proto3.proto"
    }

    /// `protoc --encode=<type>` over the conformance protos: text format in, wire bytes out.
    static func encode(_ text: String, as type: String) throws -> [UInt8] {
        try run(["-I", conformanceProtos, "-I", include, file(of: type), "--encode=\(type)"], input: Array(text.utf8))
    }

    /// `protoc --decode_raw`: the fields of any wire bytes, as text, with no schema.
    static func decodeRaw(_ bytes: [UInt8]) throws -> String {
        String(decoding: try run(["--decode_raw"], input: bytes), as: UTF8.self)
    }
}

// MARK: The testee

enum Testee {
    /// The testee SwiftPM built for this test run (the test target depends on it).
    static var executable: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var directory = beside
        // The test binary may sit inside a bundle directory below the products directory.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("swiftframe-conformance").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return beside.appendingPathComponent("swiftframe-conformance").path
    }

    /// A 4-byte little-endian length, then the bytes.
    static func frame(_ body: [UInt8]) -> [UInt8] { le32(UInt32(body.count)) + body }

    /// Splits stdout into its frames; nil when it is not exactly a sequence of whole frames.
    static func frames(_ stdout: [UInt8]) -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var index = 0
        while index < stdout.count {
            guard stdout.count - index >= 4 else { return nil }
            let length = Int(stdout[index]) | Int(stdout[index + 1]) << 8 | Int(stdout[index + 2]) << 16
                | Int(stdout[index + 3]) << 24
            index += 4
            guard stdout.count - index >= length else { return nil }
            frames.append(Array(stdout[index..<index + length]))
            index += length
        }
        return frames
    }

    /// Runs the testee once with `input` on stdin (the protocol passes its own path as the
    /// first argument).
    static func run(_ input: [UInt8]) throws -> ProcessResult {
        try runProcess(executable, [executable], input: input)
    }

    /// Sends every request in one process and returns the responses, checking the protocol
    /// on the way: status 0 at end of input, nothing on stdout but one frame per request.
    static func exchange(_ requests: [Conformance_ConformanceRequest],
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [Conformance_ConformanceResponse] {
        var input: [UInt8] = []
        for request in requests { input += frame(try request.serializedBytes()) }
        let result = try run(input)
        #expect(result.reason == .exit && result.status == 0, "testee status \(result.status): \(result.stderr)",
                sourceLocation: sourceLocation)
        let frames = try #require(Self.frames(result.stdout), "stdout is not a sequence of frames: \(hex(Array(result.stdout.prefix(64))))",
                                  sourceLocation: sourceLocation)
        try #require(frames.count == requests.count, "\(requests.count) requests, \(frames.count) responses",
                     sourceLocation: sourceLocation)
        return try frames.map { try Conformance_ConformanceResponse(serializedBytes: $0) }
    }

    /// A binary request for `type` (a message name).
    static func request(_ payload: [UInt8], type: String) -> Conformance_ConformanceRequest {
        var request = Conformance_ConformanceRequest()
        request.payload = .protobufPayload(payload)
        request.requestedOutputFormat = .protobuf
        request.messageType = type
        request.testCategory = .binaryTest
        return request
    }
}

// MARK: The two messages under test

enum Syntax: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case proto2, proto3

    var messageType: String {
        switch self {
        case .proto2: return Proto2.protoMessageName
        case .proto3: return Proto3.protoMessageName
        }
    }

    var testDescription: String { rawValue }

    /// Decodes `bytes` with the generated type and encodes the result again.
    func roundTrip(_ bytes: [UInt8]) throws(WireError) -> [UInt8] {
        switch self {
        case .proto2: return try Proto2(serializedBytes: bytes).serializedBytes()
        case .proto3: return try Proto3(serializedBytes: bytes).serializedBytes()
        }
    }
}

// MARK: Fields with canonical tags and varints

/// One field of wire bytes with its value in canonical form, parsed here without the
/// runtime: two encodings that differ only in padded tags or varints give equal fields.
indirect enum RawField: Equatable, CustomStringConvertible {
    case varint(UInt64, UInt64)
    case fixed64(UInt64, [UInt8])
    case delimited(UInt64, [UInt8])
    case group(UInt64, [RawField])
    case fixed32(UInt64, [UInt8])

    var description: String {
        switch self {
        case let .varint(number, value): return "\(number): \(value)"
        case let .fixed64(number, bytes), let .fixed32(number, bytes): return "\(number): fixed \(hex(bytes))"
        case let .delimited(number, bytes): return "\(number): [\(hex(bytes))]"
        case let .group(number, fields): return "\(number) { \(fields.map(\.description).joined(separator: " ")) }"
        }
    }

    /// The fields of `bytes`, or nil when they are not well-formed.
    static func parse(_ bytes: [UInt8]) -> [RawField]? {
        var index = 0
        return parseFields(bytes, &index, endGroup: nil)
    }

    private static func readVarint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            result |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return result }
        }
        return nil
    }

    private static func parseFields(_ bytes: [UInt8], _ index: inout Int, endGroup: UInt64?) -> [RawField]? {
        var fields: [RawField] = []
        while index < bytes.count {
            guard let key = readVarint(bytes, &index) else { return nil }
            let number = key >> 3
            guard number > 0 else { return nil }
            switch key & 7 {
            case 0:
                guard let value = readVarint(bytes, &index) else { return nil }
                fields.append(.varint(number, value))
            case 1, 5:
                let width = key & 7 == 1 ? 8 : 4
                guard bytes.count - index >= width else { return nil }
                let value = Array(bytes[index..<index + width])
                index += width
                fields.append(key & 7 == 1 ? .fixed64(number, value) : .fixed32(number, value))
            case 2:
                guard let length = readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
                fields.append(.delimited(number, Array(bytes[index..<index + Int(length)])))
                index += Int(length)
            case 3:
                guard let inner = parseFields(bytes, &index, endGroup: number) else { return nil }
                fields.append(.group(number, inner))
            case 4:
                return number == endGroup ? fields : nil
            default:
                return nil
            }
        }
        return endGroup == nil ? fields : nil
    }
}
