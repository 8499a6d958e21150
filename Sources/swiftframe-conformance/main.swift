// The protobuf conformance testee: length-prefixed
// ConformanceRequests on stdin, ConformanceResponses on stdout, until stdin ends.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftFrame
import SwiftFrameWellKnownTypes
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
let types: [any Message.Type] = [
    ProtobufTestMessages_Proto3_TestAllTypesProto3.self, ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
    Google_Protobuf_Any.self, Google_Protobuf_Duration.self, Google_Protobuf_Empty.self, Google_Protobuf_FieldMask.self,
    Google_Protobuf_Struct.self, Google_Protobuf_Value.self, Google_Protobuf_ListValue.self,
    Google_Protobuf_Timestamp.self,
    Google_Protobuf_DoubleValue.self, Google_Protobuf_FloatValue.self, Google_Protobuf_Int64Value.self,
    Google_Protobuf_UInt64Value.self, Google_Protobuf_Int32Value.self, Google_Protobuf_UInt32Value.self,
    Google_Protobuf_BoolValue.self, Google_Protobuf_StringValue.self, Google_Protobuf_BytesValue.self,
]

/// Those types, and the extensions JSON reads and prints.
let registry = {
    var registry = MessageTypeRegistry(types)
    registry.register(ProtobufTestMessages_Proto2_TestMessagesProto2Extensions.extensionInt32)
    return registry
}()

/// Reads the request's payload as `M` and writes it in the requested format, or says why not.
func roundTrip<M: Message>(_ type: M.Type, _ request: Conformance_ConformanceRequest)
    -> Conformance_ConformanceResponse.Result
{
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
    case .jsonPayload(let json)?:
        let options = JSONOptions(
            ignoreUnknownFields: request.testCategory == .jsonIgnoreUnknownParsingTest,
            registry: registry)
        do {
            message = try M(jsonString: json, options: options)
        } catch {
            return .parseError("\(error)")
        }
    case .jspbPayload?, nil:
        return .skipped("JSPB input is not supported (as protobuf's own testees)")
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
    case .json:
        do {
            return .jsonPayload(try message.jsonString(options: JSONOptions(registry: registry)))
        } catch {
            return .serializeError("\(error)")
        }
    default:
        return .skipped("only protobuf, JSON and text-format output are supported")
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
