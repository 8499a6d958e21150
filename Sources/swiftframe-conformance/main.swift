// The protobuf conformance testee: length-prefixed
// ConformanceRequests on stdin, ConformanceResponses on stdout, until stdin ends.
//
// `swiftframe-conformance` answers with the test messages generated in the default mode;
// `swiftframe-conformance --code-size` with the same .proto files generated with
// optimize_for = CODE_SIZE. protobuf's runner passes what follows the testee's path on its
// command line to the testee.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftFrame
import SwiftFrameConformanceMessages
import SwiftFrameConformanceMessagesCompact
import SwiftFrameWellKnownTypes

// Both message modules declare the same names; the request and response come from the default
// one, whichever mode answers.
typealias Conformance_ConformanceRequest = SwiftFrameConformanceMessages.Conformance_ConformanceRequest
typealias Conformance_ConformanceResponse = SwiftFrameConformanceMessages.Conformance_ConformanceResponse

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

/// The messages that answer: the test messages of one code mode (proto2, proto3 and their
/// edition 2023 copies, TestAllTypesEdition2023 and TestAllTypesEditionUnstable), by full name, and the registry their text
/// and JSON read an Any's and an extension's types from.
struct TestMessages {
    let byName: [String: any Message.Type]
    let registry: MessageTypeRegistry

    init(_ types: [any Message.Type], registering extensions: (inout MessageTypeRegistry) -> Void) {
        byName = Dictionary(uniqueKeysWithValues: types.map { ($0.protoMessageName, $0) })
        var registry = MessageTypeRegistry(types + wellKnownTypes)
        extensions(&registry)
        self.registry = registry
    }

    static let speed: TestMessages = {
        typealias Proto2 = SwiftFrameConformanceMessages.ProtobufTestMessages_Proto2_TestMessagesProto2Extensions
        typealias EditionsProto2 =
            SwiftFrameConformanceMessages.ProtobufTestMessages_Editions_Proto2_TestMessagesProto2EditionsExtensions
        typealias Edition2023 = SwiftFrameConformanceMessages
            .ProtobufTestMessages_Editions_TestMessagesEdition2023Extensions
        return TestMessages(
            [
                SwiftFrameConformanceMessages.ProtobufTestMessages_Proto3_TestAllTypesProto3.self,
                SwiftFrameConformanceMessages.ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
                SwiftFrameConformanceMessages.ProtobufTestMessages_Editions_Proto3_TestAllTypesProto3.self,
                SwiftFrameConformanceMessages.ProtobufTestMessages_Editions_Proto2_TestAllTypesProto2.self,
                SwiftFrameConformanceMessages.ProtobufTestMessages_Editions_TestAllTypesEdition2023.self,
                SwiftFrameConformanceMessages.ProtobufTestMessages_EditionUnstable_TestAllTypesEditionUnstable.self,
            ]
        ) { registry in
            registry.register(Proto2.extensionInt32)
            registry.register(Proto2.groupfield)
            registry.register(EditionsProto2.extensionInt32)
            registry.register(EditionsProto2.groupfield)
            registry.register(Edition2023.extensionInt32)
            registry.register(Edition2023.extensionString)
            registry.register(Edition2023.extensionBytes)
            registry.register(Edition2023.groupliketype)
            registry.register(Edition2023.delimitedExt)
        }
    }()

    static let codeSize: TestMessages = {
        typealias Proto2 = SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Proto2_TestMessagesProto2Extensions
        typealias EditionsProto2 =
            SwiftFrameConformanceMessagesCompact
            .ProtobufTestMessages_Editions_Proto2_TestMessagesProto2EditionsExtensions
        typealias Edition2023 =
            SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Editions_TestMessagesEdition2023Extensions
        return TestMessages(
            [
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Proto3_TestAllTypesProto3.self,
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Editions_Proto3_TestAllTypesProto3.self,
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Editions_Proto2_TestAllTypesProto2.self,
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Editions_TestAllTypesEdition2023.self,
                SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_EditionUnstable_TestAllTypesEditionUnstable
                    .self,
            ]
        ) { registry in
            registry.register(Proto2.extensionInt32)
            registry.register(Proto2.groupfield)
            registry.register(EditionsProto2.extensionInt32)
            registry.register(EditionsProto2.groupfield)
            registry.register(Edition2023.extensionInt32)
            registry.register(Edition2023.extensionString)
            registry.register(Edition2023.extensionBytes)
            registry.register(Edition2023.groupliketype)
            registry.register(Edition2023.delimitedExt)
        }
    }()
}

/// The well-known types an Any may hold in the requests' text and JSON.
let wellKnownTypes: [any Message.Type] = [
    Google_Protobuf_Any.self, Google_Protobuf_Duration.self, Google_Protobuf_Empty.self, Google_Protobuf_FieldMask.self,
    Google_Protobuf_Struct.self, Google_Protobuf_Value.self, Google_Protobuf_ListValue.self,
    Google_Protobuf_Timestamp.self,
    Google_Protobuf_DoubleValue.self, Google_Protobuf_FloatValue.self, Google_Protobuf_Int64Value.self,
    Google_Protobuf_UInt64Value.self, Google_Protobuf_Int32Value.self, Google_Protobuf_UInt32Value.self,
    Google_Protobuf_BoolValue.self, Google_Protobuf_StringValue.self, Google_Protobuf_BytesValue.self,
]

/// Reads the request's payload as `M` and writes it in the requested format, or says why not.
func roundTrip<M: Message>(
    _ type: M.Type, _ request: Conformance_ConformanceRequest, registry: MessageTypeRegistry
) -> Conformance_ConformanceResponse.Result {
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
        return .textPayload(
            message.textFormatString(includeUnknownFields: request.printUnknownFields, registry: registry))
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

func answer(_ request: Conformance_ConformanceRequest, with messages: TestMessages)
    -> Conformance_ConformanceResponse.Result
{
    if request.messageType == "conformance.FailureSet" {
        return .protobufPayload([])
    }
    guard let type = messages.byName[request.messageType] else {
        return .skipped("unknown message type \(request.messageType)")
    }
    return roundTrip(type, request, registry: messages.registry)
}

let messages = CommandLine.arguments.dropFirst().contains("--code-size") ? TestMessages.codeSize : .speed

while let header = readExactly(4) {
    guard let body = readExactly(littleEndian32(header)) else { break }
    var response = Conformance_ConformanceResponse()
    do {
        response.result = answer(try Conformance_ConformanceRequest(serializedBytes: body), with: messages)
    } catch {
        response.result = .runtimeError("cannot decode the ConformanceRequest: \(error)")
    }
    let bytes = (try? response.serializedBytes()) ?? []
    let count = UInt32(bytes.count)
    writeAll([UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + bytes)
}
