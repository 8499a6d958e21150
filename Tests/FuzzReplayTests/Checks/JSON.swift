// The JSON invariants (FuzzJSON): whatever reads as TestAllTypesProto3 prints, the print reads
// back to the same message, and printing that gives the same text.

@testable import SwiftFrame
import SwiftFrameConformanceMessages
import SwiftFrameWellKnownTypes

private typealias Proto3 = SwiftFrameConformanceMessages.ProtobufTestMessages_Proto3_TestAllTypesProto3

/// The types an Any may name: the conformance message and every well-known type.
private let registry = MessageTypeRegistry([
    Proto3.self, SwiftFrameConformanceMessages.ProtobufTestMessages_Proto2_TestAllTypesProto2.self,
    Google_Protobuf_Any.self, Google_Protobuf_Duration.self, Google_Protobuf_Empty.self, Google_Protobuf_FieldMask.self,
    Google_Protobuf_Struct.self, Google_Protobuf_Value.self, Google_Protobuf_ListValue.self,
    Google_Protobuf_Timestamp.self,
    Google_Protobuf_DoubleValue.self, Google_Protobuf_FloatValue.self, Google_Protobuf_Int64Value.self,
    Google_Protobuf_UInt64Value.self, Google_Protobuf_Int32Value.self, Google_Protobuf_UInt32Value.self,
    Google_Protobuf_BoolValue.self, Google_Protobuf_StringValue.self, Google_Protobuf_BytesValue.self,
])

/// The input as JSON for TestAllTypesProto3 (read again skipping unknown names when it is
/// refused for a name or a value: an unknown enum name is skipped then). A refusal must be a
/// JSONError (the typed throw sees to that) and must come back, not overflow the stack: the
/// input may nest as deep as it likes. What reads must print; the print must read back to a
/// message with the same binary encoding (but for a NullValue field read from a number other
/// than 0); printing that must give the same text. Its print with every option (default
/// values, proto names) must read back to it too. What the streaming reader reads, the tree
/// reader must read as the same message, with either option.
public func checkJSON(_ data: UnsafeRawBufferPointer) {
    let bytes = [UInt8](data)
    var options = JSONOptions(registry: registry)
    checkStreaming(bytes, options)
    options.ignoreUnknownFields = true
    checkStreaming(bytes, options)
    options.ignoreUnknownFields = false
    let first: Proto3
    do {
        first = try Proto3(jsonUTF8Bytes: bytes, options: options)
    } catch  where error.kind == .unknownField || error.kind == .badValue {
        options.ignoreUnknownFields = true
        guard let lenient = try? Proto3(jsonUTF8Bytes: bytes, options: options) else { return }
        first = lenient
        options.ignoreUnknownFields = false
    } catch {
        return  // refused with a typed error: a correct answer for bad input
    }
    let second = readBack(first, options, input: bytes)
    if binary(second, "the print read") != binary(first, "the message read") {
        // A NullValue field holding a number other than 0 (read from `2`, as protobuf's C++ and
        // Python runtimes read it) prints as null, its only JSON form, and reads back as 0; the
        // message read from the print must then be stable.
        let printed = (try? first.jsonUTF8Bytes(options: options)) ?? []
        precondition(
            contains(printed, #"NullValue":null"#),
            "the print reads as another message\nprint: \(text(printed))\ninput: \(text(bytes))")
        let third = readBack(second, options, input: bytes)
        precondition(
            binary(third, "the second print read") == binary(second, "the print read"),
            "the second print reads as another message\ninput: \(text(bytes))")
    }
}

/// Prints `message`, reads the print, checks that printing that gives the same text, and that
/// the print with every option reads as the same message; returns the message read.
private func readBack(_ message: Proto3, _ options: JSONOptions, input bytes: [UInt8]) -> Proto3 {
    let printed: [UInt8]
    do {
        printed = try message.jsonUTF8Bytes(options: options)
    } catch {
        fatalError("a message read from JSON does not print: \(error)\ninput: \(text(bytes))")
    }
    let second: Proto3
    do {
        second = try Proto3(jsonUTF8Bytes: printed, options: options)
    } catch {
        fatalError("the print does not read: \(error)\nprint: \(text(printed))\ninput: \(text(bytes))")
    }
    checkPrintedFromEncoding(message, printed, options)
    let again = (try? second.jsonUTF8Bytes(options: options)) ?? []
    precondition(
        again == printed || contains(printed, #"NullValue":null"#),
        "printing twice gives \(text(printed)) then \(text(again))")
    var every = options
    every.emitDefaultValues = true
    every.useProtoFieldNames = true
    do {
        let full = try message.jsonUTF8Bytes(options: every)
        let third = try Proto3(jsonUTF8Bytes: full, options: options)
        precondition(
            binary(third, "the print with every option read") == binary(second, "the print read"),
            "the print with every option reads as another message\nprint: \(text(full))")
    } catch {
        fatalError("the print with every option does not print or read: \(error)\ninput: \(text(bytes))")
    }
    return second
}

/// A message prints its maps of scalars from their dictionaries (`JSONMapText`); inside an
/// Any, printed from its encoding, every map comes from its wire entries. Both must give the
/// same members in the same order.
private func checkPrintedFromEncoding(_ message: Proto3, _ printed: [UInt8], _ options: JSONOptions) {
    let url = "type.googleapis.com/" + Proto3.protoMessageName
    var any = Google_Protobuf_Any()
    any.typeUrl = url
    any.value = binary(message, "the message")
    let wrapped = (try? any.jsonUTF8Bytes(options: options)) ?? []
    let head = Array(#"{"@type":"\#(url)""#.utf8)
    let expected = printed.count > 2 ? head + [UInt8(ascii: ",")] + printed.dropFirst() : head + [UInt8(ascii: "}")]
    precondition(wrapped == expected, "printed from the encoding: \(text(wrapped))\nprinted: \(text(printed))")
}

private func binary(_ message: Proto3, _ what: String) -> [UInt8] {
    do {
        return try message.serializedBytes(partial: true)
    } catch {
        fatalError("\(what) does not encode: \(error)")
    }
}

private func contains(_ bytes: [UInt8], _ part: String) -> Bool {
    let part = Array(part.utf8)
    return bytes.count >= part.count
        && (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
}

private func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.prefix(2000), as: UTF8.self)
}

/// The streaming reader accepts only what the tree reader accepts, as the same message.
private func checkStreaming(_ bytes: [UInt8], _ options: JSONOptions) {
    guard let streamed = JSONStreamReader.encoding(of: Proto3.self, bytes, options: options) else { return }
    guard let tree = try? JSONReader.encoding(of: Proto3.self, bytes, options: options) else {
        fatalError("the streaming reader reads what the tree reader refuses\ninput: \(text(bytes))")
    }
    let fromStream = try? Proto3(serializedBytes: streamed, partial: true)
    let fromTree = try? Proto3(serializedBytes: tree, partial: true)
    precondition(
        fromStream.map { binary($0, "the streamed message") } == fromTree.map { binary($0, "the tree's message") },
        "the streaming and tree readers read different messages\ninput: \(text(bytes))")
}
