// The text-format invariants (FuzzTextFormat): whatever reads as TestAllTypesProto3 prints,
// the print reads back to a message with the same binary encoding, and printing that gives
// the same text.

import SwiftFrame
import SwiftFrameConformanceMessages
import SwiftFrameWellKnownTypes

private typealias Proto3 = SwiftFrameConformanceMessages.ProtobufTestMessages_Proto3_TestAllTypesProto3

/// The types an Any may hold in its expanded form (`[type.googleapis.com/...] { ... }`).
private let registry = MessageTypeRegistry([
    Proto3.self, SwiftFrameConformanceMessages.ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
    Google_Protobuf_Duration.self, Google_Protobuf_Timestamp.self, Google_Protobuf_Struct.self,
    Google_Protobuf_Value.self,
])

/// The input as text format for TestAllTypesProto3. A refusal must be a TextFormatError (the
/// typed throw sees to that) and must come back, not overflow the stack, however deep the
/// input nests. What reads must print in both forms (one field per line, and on one line),
/// and each print must read. Where the message holds no unknown fields, each print must read
/// back to the same binary encoding, and printing that must give the same text. An unknown
/// field prints by number, as `protoc --decode_raw` prints it, and that form cannot say
/// whether `9 { ... }` was a group or a message, nor keep a varint's overlong encoding, so
/// its print is not a fixed point (protobuf's own text parser refuses field numbers).
public func checkTextFormat(_ data: UnsafeRawBufferPointer) {
    guard let text = String(validating: data, as: UTF8.self) else { return }
    let first: Proto3
    do {
        first = try Proto3(textFormat: text, partial: true, registry: registry)
    } catch {
        return  // refused with a typed error: a correct answer for bad input
    }
    let expected = binary(first, "the message read")
    let knownOnly = first.textFormatString(includeUnknownFields: false) == first.textFormatString()
    for (form, printed) in [("multi-line", first.textFormatString()), ("one-line", first.debugDescription)] {
        let second: Proto3
        do {
            second = try Proto3(textFormat: printed, partial: true, registry: registry)
        } catch {
            fatalError(
                "the \(form) print does not read: \(error)\nprint: \(printed.prefix(2000))\ninput: \(text.prefix(2000))"
            )
        }
        guard knownOnly else { continue }
        precondition(
            binary(second, "the print read") == expected,
            "the \(form) print reads as another message\nprint: \(printed.prefix(2000))\ninput: \(text.prefix(2000))")
        let again = form == "multi-line" ? second.textFormatString() : second.debugDescription
        precondition(again == printed, "printing twice gives \(printed.prefix(2000)) then \(again.prefix(2000))")
    }
}

private func binary(_ message: Proto3, _ what: String) -> [UInt8] {
    do {
        return try message.serializedBytes(partial: true)
    } catch {
        fatalError("\(what) does not encode: \(error)")
    }
}
