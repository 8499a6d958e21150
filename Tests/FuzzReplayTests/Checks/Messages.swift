// What every fuzz target checks, as plain functions: the libFuzzer entry points call them,
// and so does the test that replays FuzzTesting/FailCases in `make test`. A broken invariant
// traps with a message naming it; a typed decoding error is a correct answer.

import SwiftFrame
import SwiftFrameConformanceMessages
import SwiftFrameConformanceMessagesCompact
import SwiftFrameDescriptors

// The conformance messages as generated for each mode (the two modules declare the same names).
private typealias Proto3 = SwiftFrameConformanceMessages.ProtobufTestMessages_Proto3_TestAllTypesProto3
private typealias Proto2 = SwiftFrameConformanceMessages.ProtobufTestMessages_Proto2_TestAllTypesProto2
private typealias CompactProto3 = SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Proto3_TestAllTypesProto3
private typealias CompactProto2 = SwiftFrameConformanceMessagesCompact.ProtobufTestMessages_Proto2_TestAllTypesProto2

/// Message decode → encode → decode. The first byte chooses the message: the proto3 and
/// proto2 conformance messages (every field kind, maps, oneofs, groups, extensions), a
/// descriptor set, a conformance request. Whatever decodes must encode, the encoding must
/// decode, and encoding that again must give the same bytes. The conformance messages are
/// also generated with optimize_for = CODE_SIZE: both modes must give the same answer.
public func checkMessage(_ data: UnsafeRawBufferPointer) {
    guard let selector = data.first else { return }
    let body = UnsafeRawBufferPointer(rebasing: data.dropFirst())
    switch selector % 4 {
    case 0:
        roundTrip(Proto3.self, body)
        sameInBothModes(Proto3.self, CompactProto3.self, body)
    case 1:
        roundTrip(Proto2.self, body)
        sameInBothModes(Proto2.self, CompactProto2.self, body)
    case 2: roundTrip(Google_Protobuf_FileDescriptorSet.self, body)
    default: roundTrip(SwiftFrameConformanceMessages.Conformance_ConformanceRequest.self, body)
    }
}

/// The message generated for SPEED and for CODE_SIZE reads and writes alike: the same error,
/// or the same bytes.
private func sameInBothModes<Speed: Message, Compact: Message>(
    _: Speed.Type, _: Compact.Type, _ bytes: UnsafeRawBufferPointer
) {
    func outcome<M: Message>(_: M.Type) -> Result<[UInt8], WireError> {
        Result { () throws(WireError) in try M(buffer: bytes, partial: true).serializedBytes(partial: true) }
    }
    let speed = outcome(Speed.self), compact = outcome(Compact.self)
    precondition(speed == compact, "\(Speed.protoMessageName): SPEED gives \(speed), CODE_SIZE \(compact)")
}

private func roundTrip<M: Message>(_: M.Type, _ bytes: UnsafeRawBufferPointer) {
    let first: M
    do {
        first = try M(buffer: bytes, partial: true)
    } catch {
        return  // refused with a typed error: a correct answer for bad input
    }
    let encoded: [UInt8]
    do {
        encoded = try first.serializedBytes(partial: true)
    } catch {
        fatalError("\(M.protoMessageName): a decoded message did not encode: \(error)")
    }
    precondition(
        encoded.count == first.serializedSize(), "\(M.protoMessageName): serializedSize() disagrees with the encoding")
    let second: M
    do {
        second = try M(serializedBytes: encoded, partial: true)
    } catch {
        fatalError("\(M.protoMessageName): our own encoding did not decode: \(error)")
    }
    let again = try? second.serializedBytes(partial: true)
    precondition(again == encoded, "\(M.protoMessageName): decode → encode is not stable")
}
