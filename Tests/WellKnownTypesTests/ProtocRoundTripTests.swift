// Every message of google/protobuf's well-known-type files against protoc: our bytes equal
// `protoc --encode`'s for the same message as text, and protoc's bytes decode back.

import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

/// An Any holding `message` (these messages cannot fail to encode).
private func packed(_ message: some Message) -> Google_Protobuf_Any {
    do { return try Google_Protobuf_Any(packing: message) } catch { fatalError("\(error)") }
}

/// Compares floating-point wrappers by bit pattern, so NaN and -0 count.
private func sameBits(_ lhs: Google_Protobuf_DoubleValue, _ rhs: Google_Protobuf_DoubleValue) -> Bool {
    lhs.value.bitPattern == rhs.value.bitPattern && lhs.unknownFields == rhs.unknownFields
}

private func sameBits(_ lhs: Google_Protobuf_FloatValue, _ rhs: Google_Protobuf_FloatValue) -> Bool {
    lhs.value.bitPattern == rhs.value.bitPattern && lhs.unknownFields == rhs.unknownFields
}

private func sameBits(_ lhs: Google_Protobuf_Value, _ rhs: Google_Protobuf_Value) -> Bool {
    guard case let .numberValue(left)? = lhs.kind, case let .numberValue(right)? = rhs.kind else { return false }
    return left.bitPattern == right.bitPattern
}

@Suite struct ProtocRoundTripTests {
    static let defaultCases: [RoundTripCase] = [
        .empty(Google_Protobuf_Any.self, file: "any"),
        .empty(Google_Protobuf_Api.self, file: "api"),
        .empty(Google_Protobuf_Method.self, file: "api"),
        .empty(Google_Protobuf_Mixin.self, file: "api"),
        .empty(Google_Protobuf_Duration.self, file: "duration"),
        .empty(Google_Protobuf_Empty.self, file: "empty"),
        .empty(Google_Protobuf_FieldMask.self, file: "field_mask"),
        .empty(Google_Protobuf_SourceContext.self, file: "source_context"),
        .empty(Google_Protobuf_Struct.self, file: "struct"),
        .empty(Google_Protobuf_Value.self, file: "struct"),
        .empty(Google_Protobuf_ListValue.self, file: "struct"),
        .empty(Google_Protobuf_Timestamp.self, file: "timestamp"),
        .empty(Google_Protobuf_Type.self, file: "type"),
        .empty(Google_Protobuf_Field.self, file: "type"),
        .empty(Google_Protobuf_Enum.self, file: "type"),
        .empty(Google_Protobuf_EnumValue.self, file: "type"),
        .empty(Google_Protobuf_Option.self, file: "type"),
        .empty(Google_Protobuf_DoubleValue.self, file: "wrappers"),
        .empty(Google_Protobuf_FloatValue.self, file: "wrappers"),
        .empty(Google_Protobuf_Int64Value.self, file: "wrappers"),
        .empty(Google_Protobuf_UInt64Value.self, file: "wrappers"),
        .empty(Google_Protobuf_Int32Value.self, file: "wrappers"),
        .empty(Google_Protobuf_UInt32Value.self, file: "wrappers"),
        .empty(Google_Protobuf_BoolValue.self, file: "wrappers"),
        .empty(Google_Protobuf_StringValue.self, file: "wrappers"),
        .empty(Google_Protobuf_BytesValue.self, file: "wrappers"),
    ]

    @Test("Default messages are zero bytes", arguments: defaultCases)
    func defaults(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    static let timeCases: [RoundTripCase] = [
        RoundTripCase(
            "now-ish", Google_Protobuf_Timestamp(seconds: 1_700_000_000, nanos: 123_456_789),
            "seconds: 1700000000 nanos: 123456789", files: ["timestamp"]),
        RoundTripCase(
            "earliest valid", Google_Protobuf_Timestamp(seconds: -62_135_596_800),
            "seconds: -62135596800", files: ["timestamp"]),
        RoundTripCase(
            "latest valid", Google_Protobuf_Timestamp(seconds: 253_402_300_799, nanos: 999_999_999),
            "seconds: 253402300799 nanos: 999999999", files: ["timestamp"]),
        RoundTripCase(
            "before the epoch", Google_Protobuf_Timestamp(secondsSince1970: -1.5),
            "seconds: -2 nanos: 500000000", files: ["timestamp"]),
        RoundTripCase(
            "not normalized, written as is", Google_Protobuf_Timestamp(seconds: 0, nanos: -1),
            "nanos: -1", files: ["timestamp"]),
        RoundTripCase(
            "extremes", Google_Protobuf_Timestamp(seconds: .min, nanos: .max),
            "seconds: -9223372036854775808 nanos: 2147483647", files: ["timestamp"]),
        RoundTripCase(
            "negative", Google_Protobuf_Duration(totalSeconds: -1.5),
            "seconds: -1 nanos: -500000000", files: ["duration"]),
        RoundTripCase(
            "negative nanos only", Google_Protobuf_Duration(totalSeconds: -0.000_000_001),
            "nanos: -1", files: ["duration"]),
        RoundTripCase(
            "largest valid", Google_Protobuf_Duration(seconds: 315_576_000_000, nanos: 999_999_999),
            "seconds: 315576000000 nanos: 999999999", files: ["duration"]),
        RoundTripCase(
            "smallest valid", Google_Protobuf_Duration(seconds: -315_576_000_000, nanos: -999_999_999),
            "seconds: -315576000000 nanos: -999999999", files: ["duration"]),
        RoundTripCase(
            "sum", Google_Protobuf_Duration(totalSeconds: 1.25) - Google_Protobuf_Duration(seconds: 3),
            "seconds: -1 nanos: -750000000", files: ["duration"]),
        RoundTripCase(
            "difference of timestamps",
            Google_Protobuf_Timestamp(seconds: 10) - Google_Protobuf_Timestamp(seconds: 12, nanos: 1),
            "seconds: -2 nanos: -1", files: ["duration"]),
    ]

    @Test("Timestamp and Duration", arguments: timeCases)
    func time(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    static let wrapperCases: [RoundTripCase] = [
        RoundTripCase("1.5", 1.5 as Google_Protobuf_DoubleValue, "value: 1.5", files: ["wrappers"], same: sameBits),
        RoundTripCase("-0", -0.0 as Google_Protobuf_DoubleValue, "value: -0", files: ["wrappers"], same: sameBits),
        RoundTripCase(
            "nan", Google_Protobuf_DoubleValue(value: .nan), "value: nan", files: ["wrappers"], same: sameBits),
        RoundTripCase(
            "-inf", Google_Protobuf_DoubleValue(value: -.infinity), "value: -inf", files: ["wrappers"], same: sameBits),
        RoundTripCase(
            "max", Google_Protobuf_DoubleValue(value: .greatestFiniteMagnitude),
            "value: 1.7976931348623157e308", files: ["wrappers"], same: sameBits),
        RoundTripCase("0.1", 0.1 as Google_Protobuf_FloatValue, "value: 0.1", files: ["wrappers"], same: sameBits),
        RoundTripCase("-0", -0.0 as Google_Protobuf_FloatValue, "value: -0", files: ["wrappers"], same: sameBits),
        RoundTripCase(
            "inf", Google_Protobuf_FloatValue(value: .infinity), "value: inf", files: ["wrappers"], same: sameBits),
        RoundTripCase(
            "min", -9_223_372_036_854_775_808 as Google_Protobuf_Int64Value,
            "value: -9223372036854775808", files: ["wrappers"]),
        RoundTripCase(
            "max", 9_223_372_036_854_775_807 as Google_Protobuf_Int64Value,
            "value: 9223372036854775807", files: ["wrappers"]),
        RoundTripCase(
            "max", 18_446_744_073_709_551_615 as Google_Protobuf_UInt64Value,
            "value: 18446744073709551615", files: ["wrappers"]),
        RoundTripCase("min", -2_147_483_648 as Google_Protobuf_Int32Value, "value: -2147483648", files: ["wrappers"]),
        RoundTripCase("-1", -1 as Google_Protobuf_Int32Value, "value: -1", files: ["wrappers"]),
        RoundTripCase("max", 4_294_967_295 as Google_Protobuf_UInt32Value, "value: 4294967295", files: ["wrappers"]),
        RoundTripCase("true", true as Google_Protobuf_BoolValue, "value: true", files: ["wrappers"]),
        RoundTripCase("UTF-8", "héllo, 世界" as Google_Protobuf_StringValue, "value: \"héllo, 世界\"", files: ["wrappers"]),
        RoundTripCase(
            "bytes", [0, 255, 10] as Google_Protobuf_BytesValue, "value: \"\\000\\377\\n\"", files: ["wrappers"]),
    ]

    @Test("Wrappers", arguments: wrapperCases)
    func wrappers(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    static let structCases: [RoundTripCase] = [
        // Map entries are written sorted by key, so the text lists them in key order.
        RoundTripCase(
            "nested literal",
            ["a": 1, "b": "x", "c": [true, nil, -2.5], "d": ["e": [:], "f": []], "g": 0] as Google_Protobuf_Struct,
            """
            fields { key: "a" value { number_value: 1 } }
            fields { key: "b" value { string_value: "x" } }
            fields { key: "c" value { list_value {
                values { bool_value: true } values { null_value: NULL_VALUE } values { number_value: -2.5 } } } }
            fields { key: "d" value { struct_value {
                fields { key: "e" value { struct_value {} } }
                fields { key: "f" value { list_value {} } } } } }
            fields { key: "g" value { number_value: 0 } }
            """, files: ["struct"]),
        RoundTripCase(
            "unset value in a field", Google_Protobuf_Struct(fields: ["": Google_Protobuf_Value()]),
            "fields { key: \"\" value {} }", files: ["struct"]),
        RoundTripCase("null", nil as Google_Protobuf_Value, "null_value: NULL_VALUE", files: ["struct"]),
        RoundTripCase("zero", 0 as Google_Protobuf_Value, "number_value: 0", files: ["struct"]),
        RoundTripCase("-0", -0.0 as Google_Protobuf_Value, "number_value: -0", files: ["struct"], same: sameBits),
        RoundTripCase(
            "nan", Google_Protobuf_Value(kind: .numberValue(.nan)), "number_value: nan", files: ["struct"],
            same: sameBits),
        RoundTripCase("empty string", "" as Google_Protobuf_Value, "string_value: \"\"", files: ["struct"]),
        RoundTripCase("false", false as Google_Protobuf_Value, "bool_value: false", files: ["struct"]),
        RoundTripCase("empty struct", [:] as Google_Protobuf_Value, "struct_value {}", files: ["struct"]),
        RoundTripCase("empty list", [] as Google_Protobuf_Value, "list_value {}", files: ["struct"]),
        RoundTripCase(
            "mixed", [1, "a", nil, [[]]] as Google_Protobuf_ListValue,
            """
            values { number_value: 1 } values { string_value: "a" } values { null_value: NULL_VALUE }
            values { list_value { values { list_value {} } } }
            """, files: ["struct"]),
        RoundTripCase(
            "paths", Google_Protobuf_FieldMask(paths: "a.b", "", "c_d"),
            "paths: \"a.b\" paths: \"\" paths: \"c_d\"", files: ["field_mask"]),
        RoundTripCase(
            "file", Google_Protobuf_SourceContext(fileName: "google/protobuf/empty.proto"),
            "file_name: \"google/protobuf/empty.proto\"", files: ["source_context"]),
    ]

    @Test("Struct, Value, ListValue, FieldMask, SourceContext", arguments: structCases)
    func structs(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    static let anyCases: [RoundTripCase] = [
        RoundTripCase(
            "expanded Timestamp", packed(Google_Protobuf_Timestamp(seconds: -2, nanos: 500_000_000)),
            "[type.googleapis.com/google.protobuf.Timestamp] { seconds: -2 nanos: 500000000 }",
            files: ["any", "timestamp"]),
        RoundTripCase(
            "expanded Struct", packed(["k": [1, nil]] as Google_Protobuf_Struct),
            "[type.googleapis.com/google.protobuf.Struct] { fields { key: \"k\" value { list_value { values { number_value: 1 } values { null_value: NULL_VALUE } } } } }",
            files: ["any", "struct"]),
        RoundTripCase(
            "expanded Empty", packed(Google_Protobuf_Empty()),
            "[type.googleapis.com/google.protobuf.Empty] {}", files: ["any", "empty"]),
        RoundTripCase(
            "Any in Any", packed(packed(true as Google_Protobuf_BoolValue)),
            "[type.googleapis.com/google.protobuf.Any] { [type.googleapis.com/google.protobuf.BoolValue] { value: true } }",
            files: ["any", "wrappers"]),
        RoundTripCase(
            "raw fields", Google_Protobuf_Any(typeUrl: "no-slash", value: [0x08, 0x96, 0x01]),
            "type_url: \"no-slash\" value: \"\\010\\226\\001\"", files: ["any"]),
    ]

    @Test("Any", arguments: anyCases)
    func any(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }

    static let deprecated = Google_Protobuf_Option(name: "deprecated", value: packed(true as Google_Protobuf_BoolValue))
    static let deprecatedText =
        "{ name: \"deprecated\" value { [type.googleapis.com/google.protobuf.BoolValue] { value: true } } }"

    static let typeCases: [RoundTripCase] = [
        RoundTripCase(
            "every field",
            Google_Protobuf_Type(
                name: "pkg.Message",
                fields: [
                    Google_Protobuf_Field(
                        kind: .typeString, cardinality: .optional, number: 1, name: "name", jsonName: "name"),
                    Google_Protobuf_Field(
                        kind: .typeMessage, cardinality: .repeated, number: 536_870_911, name: "items",
                        typeUrl: "type.googleapis.com/pkg.Item", oneofIndex: 1, packed: true, options: [deprecated],
                        jsonName: "itemList", defaultValue: "x"),
                    Google_Protobuf_Field(kind: .typeSint64, cardinality: .required, number: 3, name: "n"),
                ],
                oneofs: ["choice", "other"],
                options: [Google_Protobuf_Option(name: "map_entry", value: packed(false as Google_Protobuf_BoolValue))],
                sourceContext: Google_Protobuf_SourceContext(fileName: "pkg/m.proto"),
                syntax: .proto3),
            """
            name: "pkg.Message"
            fields { kind: TYPE_STRING cardinality: CARDINALITY_OPTIONAL number: 1 name: "name" json_name: "name" }
            fields { kind: TYPE_MESSAGE cardinality: CARDINALITY_REPEATED number: 536870911 name: "items"
                     type_url: "type.googleapis.com/pkg.Item" oneof_index: 1 packed: true options \(deprecatedText)
                     json_name: "itemList" default_value: "x" }
            fields { kind: TYPE_SINT64 cardinality: CARDINALITY_REQUIRED number: 3 name: "n" }
            oneofs: "choice" oneofs: "other"
            options { name: "map_entry" value { [type.googleapis.com/google.protobuf.BoolValue] {} } }
            source_context { file_name: "pkg/m.proto" }
            syntax: SYNTAX_PROTO3
            """, files: ["type", "wrappers"]),
        RoundTripCase(
            "an enum number this file does not name", Google_Protobuf_Field(kind: .unrecognized(99), number: -1),
            "kind: 99 number: -1", files: ["type"]),
        RoundTripCase(
            "every field",
            Google_Protobuf_Enum(
                name: "pkg.Color",
                enumvalue: [
                    Google_Protobuf_EnumValue(name: "COLOR_UNSPECIFIED", number: 0),
                    Google_Protobuf_EnumValue(name: "COLOR_NEG", number: -1, options: [deprecated]),
                ],
                options: [
                    Google_Protobuf_Option(name: "allow_alias", value: packed(true as Google_Protobuf_BoolValue))
                ],
                sourceContext: Google_Protobuf_SourceContext(fileName: "pkg/c.proto"),
                syntax: .proto3),
            """
            name: "pkg.Color"
            enumvalue { name: "COLOR_UNSPECIFIED" }
            enumvalue { name: "COLOR_NEG" number: -1 options \(deprecatedText) }
            options { name: "allow_alias" value { [type.googleapis.com/google.protobuf.BoolValue] { value: true } } }
            source_context { file_name: "pkg/c.proto" }
            syntax: SYNTAX_PROTO3
            """, files: ["type", "wrappers"]),
        RoundTripCase(
            "with a Struct value",
            Google_Protobuf_Option(name: "x", value: packed(["a": "b"] as Google_Protobuf_Struct)),
            "name: \"x\" value { [type.googleapis.com/google.protobuf.Struct] { fields { key: \"a\" value { string_value: \"b\" } } } }",
            files: ["type", "struct"]),
        RoundTripCase(
            "every field",
            Google_Protobuf_Api(
                name: "pkg.Service",
                methods: [
                    Google_Protobuf_Method(
                        name: "Get", requestTypeUrl: "type.googleapis.com/pkg.GetRequest", requestStreaming: true,
                        responseTypeUrl: "type.googleapis.com/pkg.GetResponse", responseStreaming: true,
                        options: [deprecated], syntax: .proto3),
                    Google_Protobuf_Method(name: "Put"),
                ],
                options: [
                    Google_Protobuf_Option(name: "timeout", value: packed(Google_Protobuf_Duration(totalSeconds: 2.5)))
                ],
                version: "v1.2",
                sourceContext: Google_Protobuf_SourceContext(fileName: "pkg/s.proto"),
                mixins: [
                    Google_Protobuf_Mixin(name: "pkg.Base", root: "base/v1"), Google_Protobuf_Mixin(name: "pkg.Other"),
                ],
                syntax: .proto3),
            """
            name: "pkg.Service"
            methods { name: "Get" request_type_url: "type.googleapis.com/pkg.GetRequest" request_streaming: true
                      response_type_url: "type.googleapis.com/pkg.GetResponse" response_streaming: true
                      options \(deprecatedText) syntax: SYNTAX_PROTO3 }
            methods { name: "Put" }
            options { name: "timeout" value { [type.googleapis.com/google.protobuf.Duration] { seconds: 2 nanos: 500000000 } } }
            version: "v1.2"
            source_context { file_name: "pkg/s.proto" }
            mixins { name: "pkg.Base" root: "base/v1" } mixins { name: "pkg.Other" }
            syntax: SYNTAX_PROTO3
            """, files: ["api", "wrappers", "duration"]),
        RoundTripCase(
            "alone", Google_Protobuf_Mixin(name: "a.B", root: "r"), "name: \"a.B\" root: \"r\"", files: ["api"]),
    ]

    @Test("Type, Field, Enum, EnumValue, Option, Api, Method, Mixin", arguments: typeCases)
    func types(_ testCase: RoundTripCase) throws {
        try testCase.run()
    }
}
