#if SwiftProtobuf
import SwiftFrame
import SwiftProtobuf

/// A SwiftProtobuf message as the body of a command table's frames: give a protoc-gen-swift
/// type this conformance (`extension Game_LoginRequest: SwiftProtobufPayload {}`) and it is a
/// request, response, push or envelope body for `FrameClient`, `FrameServer`,
/// `HTTPFrameClient` and their interceptors, as swiftframe's own messages are.
///
/// SwiftProtobuf's own codec reads and writes it, so unknown fields, extensions it knows and
/// its `required` checks behave as they do anywhere else in the app. What it costs beside a
/// swiftframe message: a payload is decoded where it lies in the received buffer (a `RawSpan`
/// of it), as swiftframe's messages are; to send one, SwiftProtobuf writes it into an array
/// of its own (its API gives no other way), which is then copied behind the frame's header,
/// where a swiftframe message is written straight into the frame.
///
/// Errors are swiftframe's: a payload whose fields are cut short or malformed throws the
/// `WireError` swiftframe's own reader finds for it (with its offset), a missing `required`
/// field `.missingRequiredField` (with an empty field name: SwiftProtobuf does not say
/// which), anything else SwiftProtobuf refuses `.rejected` with its error.
public protocol SwiftProtobufPayload: FramePayload, SwiftProtobuf.Message {}

extension SwiftProtobufPayload {
    public init(framePayload bytes: UnsafeRawBufferPointer) throws(WireError) {
        do {
            #if compiler(>=6.2)
            try self.init(serializedBytes: bytes.bytes)
            #else
            try self.init(serializedBytes: [UInt8](bytes))
            #endif
        } catch {
            throw SwiftProtobufErrors.decoding(error, of: Self.protoMessageName, bytes: bytes)
        }
    }

    public func framePayloadBytes() throws(WireError) -> [UInt8] {
        do {
            return try serializedBytes()
        } catch {
            throw SwiftProtobufErrors.encoding(error, of: Self.protoMessageName)
        }
    }
}

/// SwiftProtobuf's errors as `WireError`s.
enum SwiftProtobufErrors {
    static func decoding(_ error: any Error, of message: String, bytes: UnsafeRawBufferPointer) -> WireError {
        if let found = firstStructuralError(in: bytes) { return found }
        switch error as? BinaryDecodingError {
        case .missingRequiredFields?: return .missingRequiredField(message: message, field: "")
        default: return .rejected(message: message, reason: "\(error)")
        }
    }

    static func encoding(_ error: any Error, of message: String) -> WireError {
        switch error as? BinaryEncodingError {
        case .missingRequiredFields?: .missingRequiredField(message: message, field: "")
        default: .rejected(message: message, reason: "\(error)")
        }
    }

    /// Where the payload's own fields break the wire format (a value cut short, a bad tag or
    /// wire type), as swiftframe's reader reports it; nil when they do not and the fault is
    /// inside a nested message or a string.
    static func firstStructuralError(in bytes: UnsafeRawBufferPointer) -> WireError? {
        var reader = ProtoReader(buffer: bytes)
        do throws(WireError) {
            while reader.hasRemaining {
                try reader.skipValue(tag: reader.readTag())
            }
            return nil
        } catch {
            return error
        }
    }
}
#endif
