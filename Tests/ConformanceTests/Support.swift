// Shared helpers for the conformance tests: protoc with the conformance protos, and the built
// testee run as a process speaking the conformance runner's length-prefixed protocol.

import Foundation
import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

/// The case name of a `WireError` (`truncated`, `lengthPastEnd`, ...).
func caseName(_ error: WireError) -> String {
    Mirror(reflecting: error).children.first?.label ?? String(describing: error)
}

// MARK: protoc

extension Protoc {
    /// The conformance proto that declares `type`.
    static func file(of type: String) -> String {
        type.hasPrefix("protobuf_test_messages.proto2.") ? "test_messages_proto2.proto" : "test_messages_proto3.proto"
    }

    /// `protoc --encode=<type>` over the conformance protos: text format in, wire bytes out.
    static func encode(_ text: String, as type: String) throws -> [UInt8] {
        try encode(text, as: type, includes: [conformanceProtos, include], files: [file(of: type)])
    }
}

/// protobuf's conformance protos.
let conformanceProtos = Repository.conformanceProtos

// MARK: The testee

/// The testee SwiftPM built for this test run (the test target depends on it), answering with the
/// messages of one code mode: the tests that run it run it in both.
struct Testee: Sendable, CustomTestStringConvertible {
    /// The arguments after the testee's own path (which the protocol passes first).
    let arguments: [String]
    let testDescription: String

    static let speed = Testee(arguments: [], testDescription: "SPEED")
    static let codeSize = Testee(arguments: ["--code-size"], testDescription: "CODE_SIZE")
    static let bothModes = [speed, codeSize]

    var isCodeSize: Bool { arguments.contains("--code-size") }

    static var executable: String { Repository.builtExecutable("swiftframe-conformance") }

    /// A 4-byte little-endian length, then the bytes.
    static func frame(_ body: [UInt8]) -> [UInt8] { le32(UInt32(body.count)) + body }

    /// Splits stdout into its frames; nil when it is not exactly a sequence of whole frames.
    static func frames(_ stdout: [UInt8]) -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var index = 0
        while index < stdout.count {
            guard stdout.count - index >= 4 else { return nil }
            let length =
                Int(stdout[index]) | Int(stdout[index + 1]) << 8 | Int(stdout[index + 2]) << 16
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
    func run(_ input: [UInt8]) throws -> ProcessResult {
        try runProcess(Self.executable, [Self.executable] + arguments, input: input)
    }

    /// Sends every request in one process and returns the responses, checking the protocol
    /// on the way: status 0 at end of input, nothing on stdout but one frame per request.
    func exchange(
        _ requests: [Conformance_ConformanceRequest],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Conformance_ConformanceResponse] {
        var input: [UInt8] = []
        for request in requests { input += Self.frame(try request.serializedBytes()) }
        let result = try run(input)
        #expect(
            result.reason == .exit && result.status == 0, "testee status \(result.status): \(result.stderr)",
            sourceLocation: sourceLocation)
        let frames = try #require(
            Self.frames(result.stdout), "stdout is not a sequence of frames: \(hex(Array(result.stdout.prefix(64))))",
            sourceLocation: sourceLocation)
        try #require(
            frames.count == requests.count, "\(requests.count) requests, \(frames.count) responses",
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
