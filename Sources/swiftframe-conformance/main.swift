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

/// The types an Any may hold in the requests' text and JSON.
let registry = MessageTypeRegistry([
    ProtobufTestMessages_Proto3_TestAllTypesProto3.self, ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
])

/// Reads the request's payload as `M` and writes it in the requested format, or says why not.
func roundTrip<M: Message>(_ type: M.Type, _ request: Conformance_ConformanceRequest) -> Conformance_ConformanceResponse.Result {
    let message: M
    switch request.payload {
    case .protobufPayload(let payload)?:
        do {
            message = try M(serializedBytes: payload)
        } catch {
            return .parseError("\(error)")
        }
    case .textPayload(let text)?:
        do {
            message = try M(textFormat: text, registry: registry)
        } catch {
            return .parseError("\(error)")
        }
    case .jsonPayload?:
        return .skipped("JSON input is not supported yet")
    case .jspbPayload?, nil:
        return .skipped("only protobuf and text-format input are supported")
    }
    switch request.requestedOutputFormat {
    case .protobuf:
        do {
            return .protobufPayload(try message.serializedBytes())
        } catch {
            return .serializeError("\(error)")
        }
    case .textFormat:
        return .textPayload(message.textFormatString(includeUnknownFields: request.printUnknownFields))
    default:
        return .skipped("only protobuf and text-format output are supported")
    }
}

func answer(_ request: Conformance_ConformanceRequest) -> Conformance_ConformanceResponse.Result {
    if request.messageType == "conformance.FailureSet" {
        return .protobufPayload([])
    }
    switch request.messageType {
    case "protobuf_test_messages.proto3.TestAllTypesProto3":
        return roundTrip(ProtobufTestMessages_Proto3_TestAllTypesProto3.self, request)
    case "protobuf_test_messages.proto2.TestAllTypesProto2":
        return roundTrip(ProtobufTestMessages_Proto2_TestAllTypesProto2.self, request)
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
