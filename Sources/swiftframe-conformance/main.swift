// The protobuf conformance testee: length-prefixed
// ConformanceRequests on stdin, ConformanceResponses on stdout, until stdin ends.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftFrame
#if COMPACT
import SwiftFrameConformanceMessagesCompact
#else
import SwiftFrameConformanceMessages
#endif

/// Reads exactly `count` bytes from stdin; nil at end of input.
func readExactly(_ count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        let got = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + filled, count - filled) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { return nil }
        filled += got
    }
    return bytes
}

func writeAll(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let count = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { exit(1) }
            offset += count
        }
    }
}

func littleEndian32(_ bytes: [UInt8]) -> Int {
    Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
}

/// Decodes the payload as `type` and encodes it again, or says why not.
func roundTrip<M: Message>(_ type: M.Type, _ payload: [UInt8]) -> Conformance_ConformanceResponse.Result {
    let message: M
    do {
        message = try M(serializedBytes: payload)
    } catch {
        return .parseError("\(error)")
    }
    do {
        return .protobufPayload(try message.serializedBytes())
    } catch {
        return .serializeError("\(error)")
    }
}

func answer(_ request: Conformance_ConformanceRequest) -> Conformance_ConformanceResponse.Result {
    if request.messageType == "conformance.FailureSet" {
        return .protobufPayload([])
    }
    guard case let .protobufPayload(payload)? = request.payload else {
        return .skipped("only protobuf input is supported")
    }
    guard request.requestedOutputFormat == .protobuf else {
        return .skipped("only protobuf output is supported")
    }
    switch request.messageType {
    case "protobuf_test_messages.proto3.TestAllTypesProto3":
        return roundTrip(ProtobufTestMessages_Proto3_TestAllTypesProto3.self, payload)
    case "protobuf_test_messages.proto2.TestAllTypesProto2":
        return roundTrip(ProtobufTestMessages_Proto2_TestAllTypesProto2.self, payload)
    default:
        return .skipped("unknown message type \(request.messageType)")
    }
}

while let header = readExactly(4) {
    guard let body = readExactly(littleEndian32(header)) else { break }
    var response = Conformance_ConformanceResponse()
    do {
        response.result = answer(try Conformance_ConformanceRequest(serializedBytes: body))
    } catch {
        response.result = .runtimeError("cannot decode the ConformanceRequest: \(error)")
    }
    let bytes = (try? response.serializedBytes()) ?? []
    let count = UInt32(bytes.count)
    writeAll([UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + bytes)
}
