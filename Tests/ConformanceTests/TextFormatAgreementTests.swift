// Text format as protobuf's C++ runtime reads and prints it, where the differential text run
// (FuzzTesting/Differential/differential_text.py) found swiftframe reading or printing
// otherwise: one test for each fix.

import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing

@Suite("Text format: agreement with protobuf's C++ parser and printer")
struct TextFormatAgreementTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
    typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

    static let registry = MessageTypeRegistry([Proto3.self, Google_Protobuf_Empty.self])

    func refused<M: Message>(_ type: M.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: TextFormatError.self, "\(text)", sourceLocation: sourceLocation) {
            try M(textFormat: text, registry: Self.registry)
        }
    }

    @Test("A singular field given twice is refused, unless the first was a proto3 default")
    func singularTwice() throws {
        refused(Proto3.self, "optional_int32: 1 optional_int32: 2")
        refused(Proto3.self, "optional_int32: 1 optional_int32: 0")
        refused(Proto3.self, "optional_nested_message {} optional_nested_message {}")
        refused(Proto2.self, "optional_int32: 0 optional_int32: 1")  // proto2 fields have presence
        refused(Proto3.self, "map_int32_int32 { key: 0 key: 2 }")  // so have a map entry's
        refused(Proto3.self, "optional_double: -0 optional_double: 1")  // -0.0 is not the default
        // protobuf's parser asks HasField, which a proto3 field at its default does not have.
        #expect(try Proto3(textFormat: "optional_int32: 0 optional_int32: 5").optionalInt32 == 5)
        #expect(try Proto3(textFormat: #"optional_string: "" optional_string: "a""#).optionalString == "a")
        #expect(try Proto3(textFormat: "repeated_int32: 1 repeated_int32: 2").repeatedInt32 == [1, 2])
    }

    @Test("Two members of a oneof are refused")
    func oneofTwice() throws {
        refused(Proto3.self, #"oneof_uint32: 0 oneof_string: """#)
        refused(Proto3.self, "oneof_uint32: 1 oneof_uint32: 2")
        #expect(try Proto3(textFormat: "oneof_uint32: 1").oneofField == .oneofUint32(1))
    }

    @Test("A list is for repeated fields only")
    func listForSingular() throws {
        refused(Proto3.self, "optional_int32: [1]")
        refused(Proto3.self, "optional_nested_message: [{}]")
        #expect(try Proto3(textFormat: "repeated_int32: [1, 2]").repeatedInt32 == [1, 2])
    }

    @Test(
        "An escape protobuf does not have is refused",
        arguments: [
            #"\q"#, #"\X41"#, #"\8"#, #"\e"#, #"\x"#, #"\xg"#, #"\u12"#, #"\u12g4"#, #"\U1234"#, #"\U0001F60"#,
        ])
    func badEscapes(_ escape: String) {
        refused(Proto3.self, "optional_bytes: \"\(escape)\"")
    }

    @Test("The escapes protobuf has")
    func goodEscapes() throws {
        let message = try Proto3(textFormat: #"optional_bytes: "\?\'\"\\\a\b\f\v\x4\x414\101\0\u00e9\U0001F600""#)
        #expect(
            message.optionalBytes == Array("?'\"\\".utf8) + [0x07, 0x08, 0x0C, 0x0B, 0x04, 0x41, 0x34, 0x41, 0x00]
                + Array("é😀".utf8))
    }

    @Test("A minus sign may stand apart from its number")
    func separateMinus() throws {
        #expect(try Proto3(textFormat: "optional_int32: - 1").optionalInt32 == -1)
        #expect(try Proto3(textFormat: "optional_int32: -  # a comment\n 5").optionalInt32 == -5)
        #expect(try Proto3(textFormat: "optional_double: - inf").optionalDouble == -.infinity)
        #expect(try Proto3(textFormat: "optional_nested_enum: - 1").optionalNestedEnum == .neg)
        refused(Proto3.self, "optional_int32: -")
        refused(Proto3.self, "optional_int32: - }")
    }

    @Test("A float may start with its point")
    func leadingPoint() throws {
        #expect(try Proto3(textFormat: "optional_double: .5").optionalDouble == 0.5)
        #expect(try Proto3(textFormat: "optional_float: -.25f").optionalFloat == -0.25)
        refused(Proto3.self, "optional_double: .")
    }

    @Test(
        "A float is decimal: no hexadecimal, no leading zero, no suffix on a word",
        arguments: ["0x10", "010", "08", "00", "00.5", "-0x1", "inff", "nanf", "infinityf"])
    func floatForms(_ text: String) {
        refused(Proto3.self, "optional_double: \(text)")
        refused(Proto3.self, "optional_float: \(text)")
    }

    @Test("Decimal floats in their forms")
    func decimalFloats() throws {
        for (text, value) in [
            ("0", 0.0), ("0.5", 0.5), ("0e5", 0), ("1f", 1), ("1.f", 1), ("1.5e+2F", 150), ("-0", -0.0),
        ] {
            #expect(try Proto3(textFormat: "optional_double: \(text)").optionalDouble == value, "\(text)")
        }
    }

    @Test("A float's f suffix ends its number when a digit follows")
    func suffixEndsNumber() throws {
        // `1.5f51: BAR` is 1.5f, then field 51 (repeated_nested_enum), as protobuf tokenizes it.
        let message = try Proto3(textFormat: "optional_float: 1.5f51: BAR")
        #expect(message.optionalFloat == 1.5)
        #expect(message.repeatedNestedEnum == [.bar])
        #expect(try Proto3(textFormat: "repeated_float: [1f, 2F]").repeatedFloat == [1, 2])
        refused(Proto3.self, "optional_float: 1.5foptional_int32: 1")  // a letter right after it
        #expect(try Proto3(textFormat: "optional_int32: 0x1f5f1").optionalInt32 == 0x1F5F1)  // hex digits
    }

    @Test("A bool may be 0 or 1 in any integer form")
    func boolForms() throws {
        for (text, value) in [
            ("01", true), ("0x1", true), ("0x0", false), ("00", false), ("t", true), ("False", false),
        ] {
            #expect(try Proto3(textFormat: "optional_bool: \(text)").optionalBool == value, "\(text)")
        }
        for text in ["2", "-0", "-1", "0x2", "TRUE", "1.0"] {
            refused(Proto3.self, "optional_bool: \(text)")
        }
    }

    @Test("A closed enum takes only the numbers it declares")
    func closedEnumNumbers() throws {
        refused(Proto2.self, "optional_nested_enum: 7")
        refused(Proto2.self, "repeated_nested_enum: [0, 7]")
        refused(Proto2.self, #"map_string_nested_enum { key: "a" value: 7 }"#)
        #expect(try Proto2(textFormat: "optional_nested_enum: 1").optionalNestedEnum == .bar)
        #expect(try Proto2(textFormat: "optional_nested_enum: -1").optionalNestedEnum == .neg)
        // An open enum takes any int32.
        #expect(try Proto3(textFormat: "optional_nested_enum: 7").optionalNestedEnum.rawValue == 7)
    }

    @Test("Vertical tab and form feed are white space; a NUL ends a comment and is refused")
    func whiteSpace() throws {
        #expect(try Proto3(textFormat: "\u{0B}optional_int32:\u{0C}1").optionalInt32 == 1)
        refused(Proto3.self, "# a\u{0}b\noptional_int32: 1")
        refused(Proto3.self, "optional_int32: 1 \u{0}")
    }

    @Test("A field number is decimal, and 08 no number")
    func fieldNumbers() throws {
        #expect(try Proto3(textFormat: "010: 1").optionalSfixed64 == 1)  // field 10, not 8
        refused(Proto3.self, "08: 1")
        refused(Proto3.self, "0x8: 1")
    }

    @Test("A raw NUL or newline in a string is refused")
    func rawNULInString() throws {
        refused(Proto3.self, "optional_string: \"a\u{0}b\"")
        refused(Proto3.self, "optional_bytes: 'a\u{0}'")
        refused(Proto3.self, "optional_string: \"a\nb\"")
        #expect(try Proto3(textFormat: #"optional_bytes: "a\000b""#).optionalBytes == [0x61, 0x00, 0x62])
    }

    @Test("An Any's fields are given once: expanded or by name")
    func anyOnce() throws {
        let url = "[type.googleapis.com/google.protobuf.Empty]"
        refused(Proto3.self, "optional_any { \(url) {} \(url) {} }")
        refused(Proto3.self, #"optional_any { type_url: "x" \#(url) {} }"#)
        refused(Proto3.self, #"optional_any { \#(url) {} type_url: "x" }"#)
        // An empty value is the default, which protobuf's parser does not count as given.
        let message = try Proto3(textFormat: #"optional_any { \#(url) {} value: "" }"#, registry: Self.registry)
        #expect(message.optionalAny?.typeUrl == "type.googleapis.com/google.protobuf.Empty")
    }

    // Printing.

    @Test("A singular scalar field given length-delimited prints as the unknown field it is")
    func singularNotPacked() throws {
        // Field 1 (optional_int32) holding the bytes 08 01: no packed run for a singular field.
        let message = try Proto3(serializedBytes: [0x0A, 0x02, 0x08, 0x01])
        #expect(message.optionalInt32 == 0)
        #expect(message.textFormatString() == "1 {\n  1: 1\n}\n")
    }

    @Test("A closed-enum map entry's last value decides whether it is an unknown field")
    func closedEnumEntryLastValue() throws {
        // map_string_nested_enum (73) entries: key "", then values BAR (1) and 7, or 7 and BAR.
        let unknown = try Proto2(serializedBytes: [0xCA, 0x04, 0x06, 0x0A, 0x00, 0x10, 0x01, 0x10, 0x07])
        #expect(unknown.mapStringNestedEnum.isEmpty)
        #expect(unknown.textFormatString() == "73 {\n  1: \"\"\n  2: 1\n  2: 7\n}\n")
        let known = try Proto2(serializedBytes: [0xCA, 0x04, 0x06, 0x0A, 0x00, 0x10, 0x07, 0x10, 0x01])
        #expect(known.textFormatString() == "map_string_nested_enum {\n  key: \"\"\n  value: BAR\n}\n")
    }

    @Test("An unknown closed-enum map entry after the map's entries prints apart from them")
    func closedEnumEntryAfterMap() throws {
        // The known entry "" -> BAR, then the unknown entry "a" -> 7 (kept in the unknown fields).
        let message = try Proto2(serializedBytes: [
            0xCA, 0x04, 0x04, 0x0A, 0x00, 0x10, 0x01,
            0xCA, 0x04, 0x05, 0x0A, 0x01, 0x61, 0x10, 0x07,
        ])
        #expect(
            message.textFormatString()
                == "map_string_nested_enum {\n  key: \"\"\n  value: BAR\n}\n73 {\n  1: \"a\"\n  2: 7\n}\n")
    }
}
