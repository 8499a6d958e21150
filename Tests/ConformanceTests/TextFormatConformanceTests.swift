// What protobuf's text-format conformance suite asks of the reader and printer beyond the
// fixtures' round trips: \u escapes that are no Unicode scalar, an Any in its expanded form
// with any URL prefix, extensions by name, groups by their field names, reserved names
// skipped, unknown fields left out on request, and nesting bounded.

import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

@Suite("Text format as the conformance suite reads it")
struct TextFormatConformanceTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
    typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

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
        // Only an Any has the expanded form: elsewhere '[' starts an extension's name, which has no '/'.
        #expect(throws: TextFormatError.self) {
            try Proto3(
                textFormat: "[type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3] {}",
                registry: registry)
        }
    }

    @Test("An Any's type URL may have any prefix; spaces and comments inside it are dropped")
    func anyURL() throws {
        let type = "protobuf_test_messages.proto3.TestAllTypesProto3"
        let registry = MessageTypeRegistry([Proto3.self])
        for (written, read) in [
            ("type.googleapis.com/\(type)", "type.googleapis.com/\(type)"),
            ("non.default.domain/\(type)", "non.default.domain/\(type)"),
            ("non.default.domain/sub-path_0/~!$&()*+,;=/\(type)", "non.default.domain/sub-path_0/~!$&()*+,;=/\(type)"),
            ("non.default.domain/%2F/\(type)", "non.default.domain/%2F/\(type)"),
            (
                " ty pe.go\nogleap\tis.com/\n proto buf_test_messages.proto3.Test\tAllTypesProto3 ",
                "type.googleapis.com/\(type)"
            ),
            ("type.google # a comment\napis.com/\(type)", "type.googleapis.com/\(type)"),
        ] {
            let message = try Proto3(
                textFormat: "optional_any { [\(written)] { optional_int32: 1 } }", registry: registry)
            #expect(message.optionalAny?.typeUrl == read, "\(written)")
        }
        for url in [
            "non.default.domain/%ZZ/\(type)", "non.default.domain/%2/\(type)", "/\(type)", "//\(type)",
            "a/\(type).", "a/\(type)..x", "a/1\(type)", "a/\(type) \"x\"", "a/unknown.Type",
        ] {
            #expect(throws: TextFormatError.self, "\(url)") {
                try Proto3(textFormat: "optional_any { [\(url)] { optional_int32: 1 } }", registry: registry)
            }
        }
    }

    @Test("An extension the registry holds reads by its full name, and prints by it when printed with the registry")
    func extensionsByName() throws {
        typealias Extensions = ProtobufTestMessages_Proto2_TestMessagesProto2Extensions
        var registry = MessageTypeRegistry()
        registry.register(Extensions.extensionInt32)
        registry.register(Extensions.groupfield)
        // Spaces and comments may stand inside the brackets, as protobuf's parser reads them
        // (protoc 3.21 reads only the first form).
        let expected = try Protoc.encode(
            "[protobuf_test_messages.proto2.extension_int32]: 7", as: Proto2.protoMessageName)
        for text in [
            "[protobuf_test_messages.proto2.extension_int32]: 7",
            "[ protobuf _test_messages.pro\tto2.extension_int32 ]: 7",
            "[protobuf_test_messages.pro # a comment\nto2.extension_int32]: 7",
        ] {
            let message = try Proto2(textFormat: text, registry: registry)
            #expect(message[extension: Extensions.extensionInt32] == 7, "\(text)")
            #expect(try message.serializedBytes() == expected)
        }
        let message = try Proto2(
            textFormat: "optional_int32: 1 [protobuf_test_messages.proto2.extension_int32]: 7", registry: registry)
        #expect(
            message.textFormatString(registry: registry)
                == "optional_int32: 1\n[protobuf_test_messages.proto2.extension_int32]: 7\n")
        #expect(message.textFormatString() == "optional_int32: 1\n120: 7\n")  // without it, by number
        // Refused: an extension the registry does not hold, one given twice, a name with a '/',
        // and a group extension by its type's name.
        for text in [
            "[protobuf_test_messages.proto2.extension_string]: \"x\"",
            "[protobuf_test_messages.proto2.extension_int32]: 1 [protobuf_test_messages.proto2.extension_int32]: 2",
            "[a/protobuf_test_messages.proto2.extension_int32]: 1",
            "[protobuf_test_messages.proto2.GroupField] { group_int32: 1 }",
        ] {
            #expect(throws: TextFormatError.self, "\(text)") { try Proto2(textFormat: text, registry: registry) }
        }
        #expect(throws: TextFormatError.self) {
            try Proto2(textFormat: "[protobuf_test_messages.proto2.extension_int32]: 7")
        }
    }

    @Test("A group extension reads, prints and encodes as protoc does")
    func groupExtension() throws {
        typealias Extensions = ProtobufTestMessages_Proto2_TestMessagesProto2Extensions
        var registry = MessageTypeRegistry()
        registry.register(Extensions.groupfield)
        let text = "[protobuf_test_messages.proto2.groupfield] { group_int32: 1 group_uint32: 2 }"
        let expected = try Protoc.encode(text, as: Proto2.protoMessageName)
        let read = try Proto2(textFormat: text, registry: registry)
        #expect(try read.serializedBytes() == expected)
        var set = Proto2()
        set[extension: Extensions.groupfield] = ProtobufTestMessages_Proto2_GroupField(groupInt32: 1, groupUint32: 2)
        #expect(try set.serializedBytes() == expected)
        let decoded = try Proto2(serializedBytes: expected)
        #expect(decoded[extension: Extensions.groupfield]?.groupUint32 == 2)
        #expect(
            decoded.textFormatString(registry: registry)
                == "[protobuf_test_messages.proto2.groupfield] {\n  group_int32: 1\n  group_uint32: 2\n}\n")
        set[extension: Extensions.groupfield] = nil
        #expect(try set.serializedBytes().isEmpty)
    }

    @Test("A group reads by its field name (its type name lower-cased) as by its type name")
    func groupByFieldName() throws {
        let byType = try Proto2(textFormat: "Data { group_int32: 1 } MultiWordGroupField { group_int32: 2 }")
        let byField = try Proto2(textFormat: "data { group_int32: 1 } multiwordgroupfield { group_int32: 2 }")
        #expect(byType == byField)
        #expect(byType.data?.groupInt32 == 1 && byType.multiwordgroupfield?.groupInt32 == 2)
        // Any other casing is no name of it.
        #expect(throws: TextFormatError.self) { try Proto2(textFormat: "DATA { group_int32: 1 }") }
    }

    @Test(
        "A field of a reserved name is skipped, whatever its value",
        arguments: [
            "true", "-123", "0.123", "ENUM_VALUE", #""hello" "world""#, "{ a: 123 }", "< a: 123 >", "[-123, 456]",
            "[0.123, 1e-10]", #"["hello", "world"]"#, "{ a { b: [1, { c: 2 }] } }",
        ])
    func reservedNames(_ value: String) throws {
        for text in ["reserved_field: \(value) optional_int32: 1", "optional_int32: 1; reserved_field: \(value);"] {
            #expect(try Proto3(textFormat: text) == Proto3(optionalInt32: 1), "\(text)")
            #expect(try Proto2(textFormat: text) == Proto2(optionalInt32: 1), "\(text)")
        }
    }

    @Test("A reserved name's value must still be a value", arguments: ["", "}", "{ a: 1", "[1, 2", "{ a: 1 ]", "[1]]"])
    func reservedNameWithoutValue(_ value: String) {
        #expect(throws: TextFormatError.self, "\(value)") { try Proto3(textFormat: "reserved_field: \(value)") }
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
