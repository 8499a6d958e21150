// The testee's side of protobuf's conformance protocol, run as a process:
// length-prefixed requests on stdin, length-prefixed responses on stdout, until EOF.

import Foundation
import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Conformance protocol")
struct ProtocolTests {
    static func failureSetRequest() -> Conformance_ConformanceRequest {
        var request = Conformance_ConformanceRequest()
        request.messageType = "conformance.FailureSet"
        request.requestedOutputFormat = .protobuf
        return request
    }

    /// The runner's first request: an empty `protobuf_payload` (an empty FailureSet) back.
    @Test("The FailureSet request gets an empty protobuf_payload")
    func failureSet() throws {
        let result = try Testee.speed.run(Testee.frame(try Self.failureSetRequest().serializedBytes()))
        #expect(result.status == 0)
        // Exactly one frame holding field 3 (protobuf_payload) with zero bytes: 1a 00.
        #expect(result.stdout == [2, 0, 0, 0, 0x1A, 0x00], "stdout: \(hex(result.stdout))")
    }

    /// One process answers a mixed sequence in order: each request gets exactly one framed
    /// response, decided by payload kind and requested output format.
    @Test("Several requests in one process, each answered in order", arguments: Testee.bothModes)
    func mixedSequence(_ testee: Testee) throws {
        let valid3: [UInt8] = tag(1, .varint) + varint(150) + delimited(14, "hi")
        let valid2: [UInt8] = tag(1, .varint) + varint(0) + group(201, tag(202, .varint) + varint(5))

        var jsonIn = Conformance_ConformanceRequest()
        jsonIn.payload = .jsonPayload("{\"optionalInt32\": 1}")
        jsonIn.requestedOutputFormat = .protobuf
        jsonIn.messageType = Syntax.proto3.messageType
        jsonIn.testCategory = .jsonTest

        var jsonOut = Testee.request(valid3, type: Syntax.proto3.messageType)
        jsonOut.requestedOutputFormat = .json

        var textOut = Testee.request(valid2, type: Syntax.proto2.messageType)
        textOut.requestedOutputFormat = .textFormat
        textOut.testCategory = .textFormatTest

        var textIn = Conformance_ConformanceRequest()
        textIn.payload = .textPayload("optional_int32: 1")
        textIn.requestedOutputFormat = .protobuf
        textIn.messageType = Syntax.proto2.messageType

        var jspbIn = Conformance_ConformanceRequest()
        jspbIn.payload = .jspbPayload("[1]")
        jspbIn.requestedOutputFormat = .protobuf
        jspbIn.messageType = Syntax.proto3.messageType

        var jspbOut = Testee.request(valid3, type: Syntax.proto3.messageType)
        jspbOut.requestedOutputFormat = .jspb

        var unspecifiedOut = Testee.request(valid3, type: Syntax.proto3.messageType)
        unspecifiedOut.requestedOutputFormat = .unspecified

        // A binary test that says it is a JSON test is still answered from its payload.
        var binaryButJSONCategory = Testee.request(valid3, type: Syntax.proto3.messageType)
        binaryButJSONCategory.testCategory = .jsonTest

        let requests: [(String, Conformance_ConformanceRequest)] = [
            ("failure set", Self.failureSetRequest()),
            ("proto3", Testee.request(valid3, type: Syntax.proto3.messageType)),
            ("proto2", Testee.request(valid2, type: Syntax.proto2.messageType)),
            ("json in", jsonIn),
            ("json out", jsonOut),
            ("text out", textOut),
            ("text in", textIn),
            ("jspb in", jspbIn),
            ("jspb out", jspbOut),
            ("unspecified out", unspecifiedOut),
            ("garbage proto3", Testee.request([0x0A, 0x05, 0x01], type: Syntax.proto3.messageType)),
            ("garbage proto2", Testee.request([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], type: Syntax.proto2.messageType)),
            ("unknown type", Testee.request(valid3, type: "protobuf_test_messages.editions.NoSuchMessage")),
            ("json category", binaryButJSONCategory),
            ("empty proto3", Testee.request([], type: Syntax.proto3.messageType)),
        ]
        let responses = try testee.exchange(requests.map(\.1))
        let results = Dictionary(uniqueKeysWithValues: zip(requests.map(\.0), responses.map(\.result)))

        #expect(results["failure set"] == .protobufPayload([]))
        #expect(results["proto3"] == .protobufPayload(valid3))
        #expect(results["proto2"] == .protobufPayload(valid2))
        // Text format both ways: proto2's group prints by its type name.
        #expect(results["text out"] == .textPayload("optional_int32: 0\nData {\n  group_int32: 5\n}\n"))
        #expect(results["text in"] == .protobufPayload([8, 1]))
        #expect(results["json in"] == .protobufPayload([8, 1]))
        #expect(results["json out"] == .jsonPayload(#"{"optionalInt32":150,"optionalString":"hi"}"#))
        for name in ["jspb in", "jspb out", "unspecified out", "unknown type"] {
            guard case let .skipped(reason)? = results[name] else {
                Issue.record("\(name): expected skipped, got \(String(describing: results[name]))")
                continue
            }
            #expect(!reason.isEmpty, "\(name): skipped without a reason")
        }
        for name in ["garbage proto3", "garbage proto2"] {
            guard case let .parseError(message)? = results[name] else {
                Issue.record("\(name): expected parse_error, got \(String(describing: results[name]))")
                continue
            }
            #expect(!message.isEmpty, "\(name): parse_error without the error's text")
        }
        #expect(results["json category"] == .protobufPayload(valid3))
        #expect(results["empty proto3"] == .protobufPayload([]))
    }

    /// The error text of a parse_error is the decoder's own.
    @Test("parse_error carries the error's text")
    func parseErrorText() throws {
        let responses = try Testee.speed.exchange([
            Testee.request(tag(1, .varint) + [0x80], type: Syntax.proto3.messageType),
            Testee.request(tag(1, 6), type: Syntax.proto2.messageType),
        ])
        #expect(
            responses.map(\.result) == [
                .parseError(WireError.truncated(offset: 1).description),
                .parseError(WireError.invalidWireType(offset: 0, wireType: 6).description),
            ])
    }

    @Test(
        "EOF on stdin ends the process with status 0",
        arguments: [
            ("no input", [UInt8]()),
            ("inside a length", [3, 0]),
            ("inside a body", [10, 0, 0, 0, 0x22, 0x03]),
        ])
    func endOfInput(_ name: String, _ tail: [UInt8]) throws {
        let complete = Testee.frame(try Testee.request([8, 1], type: Syntax.proto3.messageType).serializedBytes())
        for prefix in [[], complete] {
            let result = try Testee.speed.run(prefix + tail)
            #expect(result.reason == .exit && result.status == 0, "\(name): status \(result.status), \(result.stderr)")
            let frames = try #require(Testee.frames(result.stdout), "\(name): stdout \(hex(result.stdout))")
            #expect(frames.count == (prefix.isEmpty ? 0 : 1), "\(name): \(frames.count) responses")
        }
    }

    /// An undecodable ConformanceRequest is answered (not a crash, not silence), and the
    /// process goes on with the next request.
    @Test("A request that is not a ConformanceRequest is answered and the loop goes on")
    func badRequest() throws {
        let input =
            Testee.frame([0x0A, 0x7F])
            + Testee.frame(try Testee.request([8, 1], type: Syntax.proto3.messageType).serializedBytes())
        let result = try Testee.speed.run(input)
        #expect(result.status == 0)
        let frames = try #require(Testee.frames(result.stdout))
        try #require(frames.count == 2)
        let first = try Conformance_ConformanceResponse(serializedBytes: frames[0])
        if case .runtimeError? = first.result {
        } else {
            Issue.record("expected runtime_error, got \(String(describing: first.result))")
        }
        #expect(try Conformance_ConformanceResponse(serializedBytes: frames[1]).result == .protobufPayload([8, 1]))
    }

    /// Many requests and a large payload in one process: every byte of stdout belongs to a
    /// frame, and the payloads come back whole.
    @Test("Hundreds of requests and a 1 MiB payload in one process")
    func longLivedProcess() throws {
        var requests: [Conformance_ConformanceRequest] = [Self.failureSetRequest()]
        var expected: [[UInt8]] = [[]]
        for index in 0..<300 {
            let payload =
                tag(1, .varint) + varint(UInt64(index + 1)) + delimited(14, String(repeating: "x", count: index + 1))
            let syntax: Syntax = index.isMultiple(of: 2) ? .proto3 : .proto2
            requests.append(Testee.request(payload, type: syntax.messageType))
            expected.append(payload)
        }
        let big = delimited(15, [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        requests.append(Testee.request(big, type: Syntax.proto3.messageType))
        expected.append(big)
        let responses = try Testee.speed.exchange(requests)
        for (index, response) in responses.enumerated() where response.result != .protobufPayload(expected[index]) {
            Issue.record("request \(index): \(String(describing: response.result).prefix(200))")
            break
        }
    }

    /// Each response is written (and flushed) before the next request is read: the runner
    /// waits for every answer, so a buffered testee would hang it.
    @Test("Each response arrives before the next request is sent")
    func respondsBeforeEOF() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Testee.executable)
        process.arguments = [Testee.executable]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let exit = try process.start()
        defer { if process.isRunning { process.terminate() } }
        let input = stdin.fileHandleForWriting
        let output = stdout.fileHandleForReading.fileDescriptor

        let exchanges: [(Conformance_ConformanceRequest, Conformance_ConformanceResponse.Result)] = [
            (Self.failureSetRequest(), .protobufPayload([])),
            (Testee.request([8, 1], type: Syntax.proto3.messageType), .protobufPayload([8, 1])),
            (Testee.request([0x68, 0x00], type: Syntax.proto2.messageType), .protobufPayload([0x68, 0x00])),
        ]
        for (request, expected) in exchanges {
            try input.write(contentsOf: Testee.frame(try request.serializedBytes()))
            let header = try #require(readExactly(output, 4, timeoutSeconds: 20), "no response while stdin is open")
            let length = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
            let body = try #require(readExactly(output, length, timeoutSeconds: 20))
            #expect(try Conformance_ConformanceResponse(serializedBytes: body).result == expected)
        }
        try input.close()
        exit.wait()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(readExactly(output, 1, timeoutSeconds: 5) == nil, "bytes on stdout after the last response")
    }

    /// Reads exactly `count` bytes from `fd`, waiting at most `timeoutSeconds` for each chunk.
    private func readExactly(_ fd: Int32, _ count: Int, timeoutSeconds: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeoutSeconds * 1000) > 0 else { return nil }
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
