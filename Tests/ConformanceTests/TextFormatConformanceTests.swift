// What protobuf's text-format conformance suite asks of the reader and printer beyond the
// fixtures' round trips: \u escapes that are no Unicode scalar, an Any in its expanded form,
// unknown fields left out on request, and nesting bounded.

import SwiftFrame
import SwiftFrameConformanceMessages
import Testing

@Suite("Text format as the conformance suite reads it")
struct TextFormatConformanceTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3

    @Test(
        "A \\u or \\U escape that is no Unicode scalar is an error, in strings and bytes",
        arguments: [
            #"'\U00110000'"#, #"'\ud800'"#, #"'\udc00'"#, #"'\ud801\udc37'"#, #"'\U0000d800'"#,
            #"'\U0000d801\udc37'"#, #"'\ud801\U0000dc37'"#,
        ])
    func nonScalarEscapes(_ literal: String) {
        for field in ["optional_string", "optional_bytes"] {
            #expect(throws: TextFormatError.self, "\(field): \(literal)") {
                try Proto3(textFormat: "\(field): \(literal)")
            }
        }
    }

    @Test("Escapes of Unicode scalars read as UTF-8")
    func scalarEscapes() throws {
        let message = try Proto3(textFormat: #"optional_string: "\u00e9\U0001F600" optional_bytes: '\u00e9'"#)
        #expect(message.optionalString == "é😀")
        #expect(message.optionalBytes == [0xC3, 0xA9])
    }

    @Test("An Any in its expanded form reads when the registry holds its type")
    func expandedAny() throws {
        let text = """
            optional_any: {
              [type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3] {
                optional_int32: 12345
              }
            }
            """
        let registry = MessageTypeRegistry([Proto3.self])
        let message = try Proto3(textFormat: text, registry: registry)
        let any = try #require(message.optionalAny)
        #expect(any.typeUrl == "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3")
        var inner = Proto3()
        inner.optionalInt32 = 12345
        #expect(any.value == (try inner.serializedBytes()))
        // Without the type registered, or with no '/' in the URL, the text is refused.
        #expect(throws: TextFormatError.self) { try Proto3(textFormat: text) }
        #expect(throws: TextFormatError.self) {
            try Proto3(
                textFormat: "optional_any { [protobuf_test_messages.proto3.TestAllTypesProto3] {} }",
                registry: registry)
        }
        // Only an Any has the expanded form: elsewhere '[' starts an extension, which is not read.
        #expect(throws: TextFormatError.self) {
            try Proto3(
                textFormat: "[type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3] {}",
                registry: registry)
        }
    }

    @Test("Unknown fields print only when asked for")
    func unknownFieldsOnRequest() throws {
        // optional_int32 = 1, then field 9999 (a varint), unknown to the message.
        let message = try Proto3(serializedBytes: [0x08, 0x01, 0xF8, 0xF0, 0x04, 0x07])
        #expect(message.textFormatString(includeUnknownFields: true) == "optional_int32: 1\n9999: 7\n")
        #expect(message.textFormatString(includeUnknownFields: false) == "optional_int32: 1\n")
        #expect(message.textFormatString() == message.textFormatString(includeUnknownFields: true))
    }

    @Test("Nesting deeper than 100 messages is an error, not a crash")
    func deepNesting() throws {
        let depth = 100_000
        let deep = String(repeating: "recursive_message {", count: depth) + String(repeating: "}", count: depth)
        #expect(throws: TextFormatError.self) { try Proto3(textFormat: deep) }
        let unknown = String(repeating: "1 {", count: depth) + String(repeating: "}", count: depth)
        #expect(throws: TextFormatError.self) { try Proto3(textFormat: unknown) }
        let fine = String(repeating: "recursive_message {", count: 50) + String(repeating: "}", count: 50)
        _ = try Proto3(textFormat: fine)
    }
}
