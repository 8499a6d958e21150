// Where swiftframe's text format differs from protobuf's C++ runtime (libprotobuf 3.21) on
// purpose: the intended differences of the differential text run
// (FuzzTesting/Differential/differential_text.py, INTENDED_REFUSALS, INTENDED_ACCEPTS and the
// print classes), one test each, named as there. Two more classes of that run are the binary
// run's ("map<bool, bool> entry holding a bool wider than 32 bits", "unknown fields in another
// order"), which decoding decides and MessageTests covers.

import SwiftFrame
import SwiftFrameConformanceMessages
import Testing

@Suite("Text format: intended differences from protobuf's C++ runtime")
struct TextFormatDifferencesTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
    typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

    func refusal<M: Message>(
        _ type: M.Type, _ text: String, containing words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let message = try M(textFormat: text)
            Issue.record("read \(message)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.message.contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }

    // Refusals: C++ 3.21 accepts these.

    @Test("a string field with invalid UTF-8")
    func invalidUTF8() throws {
        // C++ 3.21 logs the error and keeps the bytes; its binary parser refuses them in a
        // proto3 string, and so does swiftframe everywhere. A bytes field takes them.
        refusal(Proto3.self, #"optional_string: "\xff""#, containing: "not valid UTF-8")
        refusal(Proto2.self, #"optional_string: "a\300\200""#, containing: "not valid UTF-8")
        #expect(try Proto3(textFormat: #"optional_bytes: "\xff""#).optionalBytes == [0xFF])
    }

    @Test("a \\u or \\U escape that is no Unicode scalar")
    func nonScalarEscapes() {
        // C++ 3.21 reads a surrogate pair as its code point, a lone surrogate as three bytes
        // that are no UTF-8, and keeps \U past 10FFFF as written; the conformance suite's
        // StringLiteral...Surrogate... and ...EscapeTooLarge tests want them refused.
        refusal(Proto3.self, #"optional_string: "\ud83d\ude00""#, containing: "no Unicode scalar")
        refusal(Proto3.self, #"optional_bytes: "\ud83d""#, containing: "no Unicode scalar")
        refusal(Proto3.self, #"optional_bytes: "\U00110000""#, containing: "no Unicode scalar")
    }

    @Test("messages nested deeper than 100 levels")
    func deepNesting() throws {
        // C++ 3.21's text parser has no depth limit; swiftframe's is the binary parsers' 100.
        func nested(_ levels: Int) -> String {
            String(repeating: "recursive_message {", count: levels) + String(repeating: "}", count: levels)
        }
        _ = try Proto3(textFormat: nested(100))
        refusal(Proto3.self, nested(101), containing: "nested deeper than 100 levels")
    }

    @Test("a map entry's key or value given twice in an Any")
    func entryFieldTwiceInAny() {
        // C++ reads an Any's expanded message as a DynamicMessage, whose proto3 map entries
        // have no presence: there it takes a key given again after its default. Elsewhere it
        // refuses it, as swiftframe does everywhere.
        let registry = MessageTypeRegistry([Proto3.self])
        let inner = "map_int64_int64 { key: 0 value: 1 key: 0 }"
        for text in [
            inner,
            "optional_any { [type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3] { \(inner) } }",
        ] {
            do {
                let message = try Proto3(textFormat: text, registry: registry)
                Issue.record("read \(message)")
            } catch {
                #expect(error.message.contains("'key' is a singular field given twice"), "\(error)")
            }
        }
    }

    // An acceptance: C++ refuses it.

    @Test("an Any's type URL with a prefix of its own, or spaces inside its names")
    func anyURLOfItsOwn() throws {
        // protobuf 35's parser (and its conformance suite) reads any prefix, and drops spaces and
        // comments inside the brackets; C++ 3.21 looks types up under type.googleapis.com/ and
        // type.googleprod.com/ only, and reads the URL as tokens.
        let registry = MessageTypeRegistry([Proto3.self])
        for url in ["example.com/x/", "a/b/c/", "type.google apis.com/"] {
            let message = try Proto3(
                textFormat: "optional_any { [\(url)protobuf_test_messages.proto3.TestAllTypesProto3] {} }",
                registry: registry)
            #expect(message.optionalAny?.typeUrl.hasSuffix("/protobuf_test_messages.proto3.TestAllTypesProto3") == true)
        }
    }

    @Test("a group by its field name")
    func groupByItsFieldName() throws {
        // protobuf 35's parser reads a group by its field name (its type name lower-cased), as
        // its conformance suite asks; C++ 3.21 reads it by its type name only.
        #expect(try Proto2(textFormat: "data { group_int32: 1 }") == Proto2(textFormat: "Data { group_int32: 1 }"))
    }

    @Test("a field number the message does not declare")
    func undeclaredNumber() throws {
        // Read as protoc --decode_raw prints it (C++ reads numbers of declared fields only).
        #expect(try Proto3(textFormat: "999: 5").serializedBytes() == [0xB8, 0x3E, 0x05])
        #expect(try Proto3(textFormat: #"999: "x""#).serializedBytes() == [0xBA, 0x3E, 0x01, 0x78])
    }

    @Test("a field by a reserved number")
    func reservedNumber() throws {
        // TestAllTypesProto2 reserves 1000 to 9999; C++ skips such a field, whatever its value.
        // swiftframe's tables do not list reserved numbers: the field is an unknown one to it.
        #expect(try Proto2(textFormat: "1111: 5").serializedBytes() == [0xB8, 0x45, 0x05])
        #expect(throws: TextFormatError.self) { try Proto2(textFormat: "1111: 1.5") }
    }

    // Prints of the same bytes.

    @Test("an unknown field holding an over-long tag prints as bytes")
    func overlongTagInUnknownBytes() throws {
        // Field 999 holds 0A 01 61 and then a tag of 9 bytes (field 1, length-delimited) with
        // "b". C++'s printer reads such bytes as an unknown message, its tags up to 10 bytes
        // long; swiftframe reads tags of 5 bytes at most, as protobuf's message parser does,
        // so the bytes are no message to it and print as a string.
        let inner: [UInt8] = [0x0A, 0x01, 0x61, 0x8A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01, 0x62]
        let message = try Proto3(serializedBytes: [0xBA, 0x3E, UInt8(inner.count)] + inner)
        #expect(message.textFormatString() == #"999: "\n\001a\212\200\200\200\200\200\200\200\000\001b""# + "\n")
        // A tag of 5 bytes whose value needs more than 32 bits (C++ 3.21 drops the bits past
        // the 32nd; the current conformance suite wants it refused): no message either.
        let wide: [UInt8] = [0x88, 0x80, 0x80, 0x80, 0x10, 0x01]
        let holder = try Proto3(serializedBytes: [0xBA, 0x3E, UInt8(wide.count)] + wide)
        #expect(holder.textFormatString() == #"999: "\210\200\200\200\020\001""# + "\n")
    }

    @Test("an extension prints by number")
    func extensionByNumber() throws {
        // C++ prints every extension its pool knows by name; swiftframe those its registry
        // holds (the testee's holds extension_int32), and the others (a MessageSet's) by number.
        let message = try Proto2(serializedBytes: [0xC0, 0x07, 0x05])
        #expect(message.textFormatString() == "120: 5\n")
        var registry = MessageTypeRegistry()
        registry.register(ProtobufTestMessages_Proto2_TestMessagesProto2Extensions.extensionInt32)
        #expect(message.textFormatString(registry: registry) == "[protobuf_test_messages.proto2.extension_int32]: 5\n")
    }

    @Test("a map entry with an undeclared enum value prints as read")
    func undeclaredEnumEntry() throws {
        // A map_string_nested_enum entry (73) whose value, 7, NestedEnum does not declare is an
        // unknown field. swiftframe keeps its bytes as read (value before key here, an unknown
        // field 3 inside); C++ writes the entry again, key then value, and drops field 3.
        let message = try Proto2(serializedBytes: [0xCA, 0x04, 0x07, 0x10, 0x07, 0x0A, 0x01, 0x61, 0x18, 0x05])
        #expect(message.textFormatString() == "73 {\n  2: 7\n  1: \"a\"\n  3: 5\n}\n")
        #expect(message.mapStringNestedEnum.isEmpty)
    }
}
