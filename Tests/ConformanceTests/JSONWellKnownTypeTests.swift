// The well-known types against protobuf's published JSON mapping table: for each, its canonical
// form, the variants a reader accepts, and the inputs it refuses. Doubtful cases were checked
// against protobuf's C++ runtime (JsonStringToMessage, libprotobuf 3.21) and Python's
// json_format (4.21); where those two disagree, the comment says which one this follows.

import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing

@Suite("JSON mapping of the well-known types")
struct JSONWellKnownTypeTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3

    static let options = JSONOptions(
        registry: MessageTypeRegistry([
            Proto3.self, Google_Protobuf_Any.self, Google_Protobuf_Duration.self, Google_Protobuf_Timestamp.self,
            Google_Protobuf_Empty.self, Google_Protobuf_Struct.self, Google_Protobuf_Value.self,
            Google_Protobuf_Int32Value.self,
        ]))

    /// `json` reads as `expected`, which prints as `canonical`, which reads as `expected` again.
    func reads<M: Message>(
        _ json: String, as expected: M, printing canonical: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        // Compared by their encodings, in which NaN equals itself.
        let message = try M(jsonString: json, options: Self.options)
        #expect(try message.serializedBytes() == expected.serializedBytes(), "\(json)", sourceLocation: sourceLocation)
        #expect(try message.jsonString(options: Self.options) == canonical, "\(json)", sourceLocation: sourceLocation)
        #expect(
            try M(jsonString: canonical, options: Self.options).serializedBytes() == expected.serializedBytes(),
            "\(canonical)", sourceLocation: sourceLocation)
    }

    /// `json` does not read as an M.
    func refuses<M: Message>(_ type: M.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: JSONError.self, "\(json)", sourceLocation: sourceLocation) {
            try M(jsonString: json, options: Self.options)
        }
    }

    /// `message` has no JSON form: printing throws `.unrepresentable`.
    func unprintable<M: Message>(_ message: M, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let json = try message.jsonString(options: Self.options)
            Issue.record("printed \(json)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == .unrepresentable, "\(error)", sourceLocation: sourceLocation)
        }
    }

    static func timestamp(_ seconds: Int64, _ nanos: Int32 = 0) -> Google_Protobuf_Timestamp {
        var timestamp = Google_Protobuf_Timestamp()
        timestamp.seconds = seconds
        timestamp.nanos = nanos
        return timestamp
    }

    static func duration(_ seconds: Int64, _ nanos: Int32 = 0) -> Google_Protobuf_Duration {
        var duration = Google_Protobuf_Duration()
        duration.seconds = seconds
        duration.nanos = nanos
        return duration
    }

    // MARK: Timestamp: an RFC 3339 string, "Z" or an offset on input, "Z" and 0, 3, 6 or 9
    // fractional digits on output, years 0001 to 9999.

    @Test(
        "Timestamp: the canonical form, 0/3/6/9 fractional digits, offsets, the range's ends",
        arguments: [
            ("1970-01-01T00:00:00Z", 0, 0, "1970-01-01T00:00:00Z"),
            ("1970-01-01T00:00:00.1Z", 0, 100_000_000, "1970-01-01T00:00:00.100Z"),
            ("1970-01-01T00:00:00.120Z", 0, 120_000_000, "1970-01-01T00:00:00.120Z"),
            ("1970-01-01T00:00:00.1234Z", 0, 123_400_000, "1970-01-01T00:00:00.123400Z"),
            ("1970-01-01T00:00:00.123456Z", 0, 123_456_000, "1970-01-01T00:00:00.123456Z"),
            ("1970-01-01T00:00:00.1234567Z", 0, 123_456_700, "1970-01-01T00:00:00.123456700Z"),
            ("1970-01-01T00:00:00.000000001Z", 0, 1, "1970-01-01T00:00:00.000000001Z"),
            ("1970-01-01T00:00:00.000Z", 0, 0, "1970-01-01T00:00:00Z"),
            ("1970-01-01T08:00:00+08:00", 0, 0, "1970-01-01T00:00:00Z"),
            ("1969-12-31T16:00:00-08:00", 0, 0, "1970-01-01T00:00:00Z"),
            ("1970-01-01T00:00:00.5-00:30", 1800, 500_000_000, "1970-01-01T00:30:00.500Z"),
            ("1969-12-31T23:59:59.999Z", -1, 999_000_000, "1969-12-31T23:59:59.999Z"),
            ("2000-02-29T00:00:00Z", 951_782_400, 0, "2000-02-29T00:00:00Z"),
            ("0001-01-01T00:00:00Z", -62_135_596_800, 0, "0001-01-01T00:00:00Z"),
            ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999, "9999-12-31T23:59:59.999999999Z"),
        ] as [(String, Int64, Int32, String)])
    func timestamp(_ json: String, _ seconds: Int64, _ nanos: Int32, _ canonical: String) throws {
        try reads("\"" + json + "\"", as: Self.timestamp(seconds, nanos), printing: "\"" + canonical + "\"")
        var message = Proto3()
        message.optionalTimestamp = Self.timestamp(seconds, nanos)
        try reads(
            #"{"optionalTimestamp":""# + json + "\"}", as: message,
            printing: #"{"optionalTimestamp":""# + canonical + "\"}")
    }

    @Test(
        "Timestamp: what is refused",
        arguments: [
            #""0000-01-01T00:00:00Z""#,  // year 0
            #""10000-01-01T00:00:00Z""#,  // five-digit year
            #""0001-01-01T00:00:00+01:00""#,  // before 0001 once the offset is applied
            #""9999-12-31T23:59:59-01:00""#,  // after 9999 once the offset is applied
            #""1970-01-01t00:00:00z""#,  // lower-case T and Z (C++ and Python refuse them too)
            #""1970-01-01 00:00:00Z""#,
            #""1970-01-01T00:00:00""#,  // no offset
            #""1970-01-01T00:00:00.1234567890Z""#,  // ten fractional digits
            #""1970-01-01T00:00:00.Z""#,  // a point without digits (C++ refuses, Python reads it)
            #""2001-02-30T00:00:00Z""#, #""1970-13-01T00:00:00Z""#, #""1970-01-01T24:00:00Z""#,
            #""1970-01-01T00:00:60Z""#,
            #""1970-01-01T00:00:00+24:00""#, #""1970-1-01T00:00:00Z""#, #""""#, "0", "{}", "null",
        ])
    func timestampRefused(_ json: String) {
        refuses(Google_Protobuf_Timestamp.self, json)
        if json != "null" { refuses(Proto3.self, #"{"optionalTimestamp":"# + json + "}") }
    }

    @Test("Timestamp: out of range or with bad nanos, it has no JSON form")
    func timestampUnprintable() {
        unprintable(Self.timestamp(253_402_300_800))
        unprintable(Self.timestamp(-62_135_596_801))
        unprintable(Self.timestamp(0, -1))
        unprintable(Self.timestamp(0, 1_000_000_000))
    }

    // MARK: Duration: seconds with an "s", 0, 3, 6 or 9 fractional digits, ±315,576,000,000 s.

    @Test(
        "Duration: the canonical form, fractions, negatives, the range's ends",
        arguments: [
            ("1.5s", 1, 500_000_000, "1.500s"),
            ("-1.5s", -1, -500_000_000, "-1.500s"),
            ("0s", 0, 0, "0s"),
            ("-0s", 0, 0, "0s"),
            ("-0.5s", 0, -500_000_000, "-0.500s"),
            ("1s", 1, 0, "1s"),
            ("1.000s", 1, 0, "1s"),
            ("0.010s", 0, 10_000_000, "0.010s"),
            ("0.1234s", 0, 123_400_000, "0.123400s"),
            ("1.000000001s", 1, 1, "1.000000001s"),
            ("-1.000001s", -1, -1000, "-1.000001s"),
            ("315576000000s", 315_576_000_000, 0, "315576000000s"),
            ("-315576000000.999999999s", -315_576_000_000, -999_999_999, "-315576000000.999999999s"),
        ] as [(String, Int64, Int32, String)])
    func duration(_ json: String, _ seconds: Int64, _ nanos: Int32, _ canonical: String) throws {
        try reads("\"" + json + "\"", as: Self.duration(seconds, nanos), printing: "\"" + canonical + "\"")
        var message = Proto3()
        message.repeatedDuration = [Self.duration(seconds, nanos)]
        try reads(
            #"{"repeatedDuration":[""# + json + "\"]}", as: message,
            printing: #"{"repeatedDuration":[""# + canonical + "\"]}")
    }

    @Test(
        "Duration: what is refused",
        arguments: [
            #""315576000001s""#, #""-315576000001s""#,  // out of range
            #""1""#, #""1.5""#, "1", "1.5",  // no "s", or not a string
            #""1.5S""#, #""1e3s""#, #""1.0000000001s""#, #""s""#, #""""#, #""1.5 s""#, #""0x10s""#, "{}",
        ])
    func durationRefused(_ json: String) {
        refuses(Google_Protobuf_Duration.self, json)
        refuses(Proto3.self, #"{"optionalDuration":"# + json + "}")
    }

    @Test("Duration: out of range or with seconds and nanos of opposite signs, it has no JSON form")
    func durationUnprintable() {
        unprintable(Self.duration(315_576_000_001))
        unprintable(Self.duration(1, -1))
        unprintable(Self.duration(-1, 1))
        unprintable(Self.duration(0, 1_000_000_000))
    }

    // MARK: FieldMask: one string, paths joined by ",", each in lowerCamelCase.

    @Test("FieldMask: camelCase paths joined by commas")
    func fieldMask() throws {
        var mask = Google_Protobuf_FieldMask()
        mask.paths = ["foo_bar", "baz.qux_quux", "a"]
        try reads(#""fooBar,baz.quxQuux,a""#, as: mask, printing: #""fooBar,baz.quxQuux,a""#)
        try reads(#""""#, as: Google_Protobuf_FieldMask(), printing: #""""#)
        var message = Proto3()
        message.optionalFieldMask = mask
        try reads(
            #"{"optionalFieldMask":"fooBar,baz.quxQuux,a"}"#, as: message,
            printing: #"{"optionalFieldMask":"fooBar,baz.quxQuux,a"}"#)
        // A path with an underscore is not camelCase (Python refuses it; protobuf's C++ 3.21 keeps it).
        refuses(Google_Protobuf_FieldMask.self, #""foo_bar""#)
        refuses(Google_Protobuf_FieldMask.self, #"["fooBar"]"#)
        refuses(Google_Protobuf_FieldMask.self, #"{"paths":["fooBar"]}"#)
        // Paths that would not read back as themselves have no JSON form.
        for path in ["fooBar", "foo__bar", "foo_3_bar", "foo_"] {
            var unreadable = Google_Protobuf_FieldMask()
            unreadable.paths = [path]
            unprintable(unreadable)
        }
    }

    // MARK: Struct, Value, ListValue, NullValue.

    @Test("Struct: a JSON object of any values; ListValue: an array; Value: any JSON value")
    func structs() throws {
        var inner = Google_Protobuf_Struct()
        inner.fields = ["n": Google_Protobuf_Value(kind: .nullValue(.nullValue))]
        var list = Google_Protobuf_ListValue()
        list.values = [
            Google_Protobuf_Value(kind: .boolValue(true)), Google_Protobuf_Value(kind: .nullValue(.nullValue)),
            Google_Protobuf_Value(kind: .stringValue("x")),
        ]
        var object = Google_Protobuf_Struct()
        object.fields = [
            "a": Google_Protobuf_Value(kind: .numberValue(1.5)), "b": Google_Protobuf_Value(kind: .listValue(list)),
            "c": Google_Protobuf_Value(kind: .structValue(inner)), "d": Google_Protobuf_Value(kind: .numberValue(-2)),
        ]
        try reads(
            #" { "d": -2e0, "c": {"n": null}, "b": [true, null, "x"], "a": 1.5 } "#, as: object,
            printing: #"{"a":1.5,"b":[true,null,"x"],"c":{"n":null},"d":-2}"#)
        try reads(#"{}"#, as: Google_Protobuf_Struct(), printing: "{}")
        try reads(#"[true, null, "x"]"#, as: list, printing: #"[true,null,"x"]"#)
        try reads("[]", as: Google_Protobuf_ListValue(), printing: "[]")
        try reads("null", as: Google_Protobuf_Value(kind: .nullValue(.nullValue)), printing: "null")
        try reads("3", as: Google_Protobuf_Value(kind: .numberValue(3)), printing: "3")
        try reads(#""NaN""#, as: Google_Protobuf_Value(kind: .stringValue("NaN")), printing: #""NaN""#)
        try reads("false", as: Google_Protobuf_Value(kind: .boolValue(false)), printing: "false")
        try reads(#"{"n":null}"#, as: Google_Protobuf_Value(kind: .structValue(inner)), printing: #"{"n":null}"#)
        try reads(#"[true,null,"x"]"#, as: Google_Protobuf_Value(kind: .listValue(list)), printing: #"[true,null,"x"]"#)

        refuses(Google_Protobuf_Struct.self, "[]")
        refuses(Google_Protobuf_Struct.self, "null")
        refuses(Google_Protobuf_Struct.self, #"{"a":1,"a":2}"#)  // a key twice (C++ and Python refuse it too)
        refuses(Google_Protobuf_ListValue.self, "{}")
        refuses(Google_Protobuf_Value.self, "1e400")  // no double holds it (C++ refuses it too)
        // A number Value holds no NaN or infinity in JSON, and a Value with no kind has no form.
        unprintable(Google_Protobuf_Value(kind: .numberValue(.nan)))
        unprintable(Google_Protobuf_Value(kind: .numberValue(.infinity)))
        unprintable(Google_Protobuf_Value())
    }

    @Test("Value fields: null is a value, not the field's absence; Struct fields: null is absence")
    func valueNull() throws {
        var message = Proto3()
        message.optionalValue = Google_Protobuf_Value(kind: .nullValue(.nullValue))
        try reads(#"{"optionalValue":null}"#, as: message, printing: #"{"optionalValue":null}"#)
        message = Proto3()
        message.repeatedValue = [
            Google_Protobuf_Value(kind: .nullValue(.nullValue)), Google_Protobuf_Value(kind: .numberValue(1)),
        ]
        try reads(#"{"repeatedValue":[null,1]}"#, as: message, printing: #"{"repeatedValue":[null,1]}"#)
        try reads(#"{"optionalStruct":null,"repeatedListValue":null}"#, as: Proto3(), printing: "{}")
        message = Proto3()
        message.repeatedListValue = [Google_Protobuf_ListValue()]
        try reads(#"{"repeatedListValue":[[]]}"#, as: message, printing: #"{"repeatedListValue":[[]]}"#)
    }

    @Test("NullValue: null or its name; a proto3 field at NULL_VALUE prints only as a oneof member")
    func nullValue() throws {
        for json in ["null", #""NULL_VALUE""#, "0"] {
            try reads(#"{"optionalNullValue":"# + json + "}", as: Proto3(), printing: "{}")
            var message = Proto3()
            message.oneofField = .oneofNullValue(.nullValue)
            try reads(#"{"oneofNullValue":"# + json + "}", as: message, printing: #"{"oneofNullValue":null}"#)
        }
        refuses(Proto3.self, #"{"optionalNullValue":"NULL"}"#)
        refuses(Proto3.self, #"{"optionalNullValue":{}}"#)
    }

    // MARK: The nine wrappers: the wrapped value bare, null for an absent field.

    @Test("Wrappers: the bare value, in fields and on their own, defaults included")
    func wrappers() throws {
        var message = Proto3()
        message.optionalBoolWrapper = Google_Protobuf_BoolValue(value: false)
        message.optionalInt32Wrapper = Google_Protobuf_Int32Value(value: -5)
        message.optionalInt64Wrapper = Google_Protobuf_Int64Value(value: .min)
        message.optionalUint32Wrapper = Google_Protobuf_UInt32Value(value: .max)
        message.optionalUint64Wrapper = Google_Protobuf_UInt64Value(value: .max)
        message.optionalFloatWrapper = Google_Protobuf_FloatValue(value: -.infinity)
        message.optionalDoubleWrapper = Google_Protobuf_DoubleValue(value: 0)
        message.optionalStringWrapper = Google_Protobuf_StringValue(value: "")
        message.optionalBytesWrapper = Google_Protobuf_BytesValue(value: [1, 2])
        try reads(
            #"{"optionalBoolWrapper": false, "optionalInt32Wrapper": "-5", "optionalInt64Wrapper": -9223372036854775808, "#
                + #""optionalUint32Wrapper": 4294967295, "optionalUint64Wrapper": "18446744073709551615", "#
                + #""optionalFloatWrapper": "-Infinity", "optionalDoubleWrapper": 0, "optionalStringWrapper": "", "#
                + #""optionalBytesWrapper": "AQI"}"#, as: message,
            printing:
                #"{"optionalBoolWrapper":false,"optionalInt32Wrapper":-5,"optionalInt64Wrapper":"-9223372036854775808","#
                + #""optionalUint32Wrapper":4294967295,"optionalUint64Wrapper":"18446744073709551615","#
                + #""optionalFloatWrapper":"-Infinity","optionalDoubleWrapper":0,"optionalStringWrapper":"","#
                + #""optionalBytesWrapper":"AQI="}"#)
        message = Proto3()
        message.repeatedInt64Wrapper = [Google_Protobuf_Int64Value(value: 5), Google_Protobuf_Int64Value(value: 6)]
        message.repeatedDoubleWrapper = [Google_Protobuf_DoubleValue(value: .infinity)]
        try reads(
            #"{"repeatedInt64Wrapper":[5,"6"],"repeatedDoubleWrapper":["Infinity"]}"#, as: message,
            printing: #"{"repeatedInt64Wrapper":["5","6"],"repeatedDoubleWrapper":["Infinity"]}"#)
        try reads(#"{"optionalInt32Wrapper":null,"optionalStringWrapper":null}"#, as: Proto3(), printing: "{}")

        try reads("5.0", as: Google_Protobuf_Int32Value(value: 5), printing: "5")
        try reads(#""7""#, as: Google_Protobuf_UInt64Value(value: 7), printing: #""7""#)
        try reads("true", as: Google_Protobuf_BoolValue(value: true), printing: "true")
        try reads(#""x""#, as: Google_Protobuf_StringValue(value: "x"), printing: #""x""#)
        try reads(#""-_8""#, as: Google_Protobuf_BytesValue(value: [0xFB, 0xFF]), printing: #""+/8=""#)
        try reads(#""NaN""#, as: Google_Protobuf_FloatValue(value: .nan), printing: #""NaN""#)
        try reads("1e308", as: Google_Protobuf_DoubleValue(value: 1e308), printing: "1e+308")
    }

    @Test(
        "Wrappers: what is refused",
        arguments: [
            // The object form is not JSON's (protobuf's C++ 3.21 reads it; Python refuses it).
            #"{"optionalInt32Wrapper":{"value":1}}"#,
            #"{"optionalStringWrapper":{"value":"x"}}"#,
            #"{"optionalInt32Wrapper":2147483648}"#, #"{"optionalUint32Wrapper":-1}"#, #"{"optionalUint64Wrapper":-1}"#,
            #"{"optionalBoolWrapper":"true"}"#, #"{"optionalBoolWrapper":0}"#, #"{"optionalStringWrapper":1}"#,
            #"{"optionalBytesWrapper":"*"}"#, #"{"optionalFloatWrapper":3.5e38}"#, #"{"optionalDoubleWrapper":"nan"}"#,
            #"{"repeatedInt32Wrapper":[null]}"#,
        ])
    func wrappersRefused(_ json: String) {
        refuses(Proto3.self, json)
    }

    // MARK: Empty and Any.

    @Test("Empty: {} only")
    func empty() throws {
        try reads("{}", as: Google_Protobuf_Empty(), printing: "{}")
        refuses(Google_Protobuf_Empty.self, #"{"a":1}"#)
        refuses(Google_Protobuf_Empty.self, "[]")
        refuses(Google_Protobuf_Empty.self, "null")
    }

    @Test("Any: \"@type\" and the message's fields, or \"value\" for a well-known type; @type anywhere")
    func any() throws {
        let url = "type.googleapis.com/"
        var inner = Proto3()
        inner.optionalInt32 = 5
        var any = Google_Protobuf_Any()
        any.typeUrl = url + Proto3.protoMessageName
        any.value = try inner.serializedBytes()
        let canonical =
            #"{"@type":"type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3","optionalInt32":5}"#
        try reads(canonical, as: any, printing: canonical)
        try reads(
            #"{"optional_int32": 5, "@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3"}"#,
            as: any, printing: canonical)

        any.typeUrl = url + "google.protobuf.Duration"
        any.value = try Self.duration(1, 500_000_000).serializedBytes()
        try reads(
            #"{"value": "1.5s", "@type": "type.googleapis.com/google.protobuf.Duration"}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1.500s"}"#)

        any.typeUrl = url + "google.protobuf.Empty"
        any.value = []
        try reads(
            #"{"@type":"type.googleapis.com/google.protobuf.Empty"}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Empty"}"#)

        var nested = Google_Protobuf_Any()
        nested.typeUrl = url + "google.protobuf.Int32Value"
        nested.value = try Google_Protobuf_Int32Value(value: 1).serializedBytes()
        any.typeUrl = url + "google.protobuf.Any"
        any.value = try nested.serializedBytes()
        let anyOfAny =
            #"{"@type":"type.googleapis.com/google.protobuf.Any","value":"#
            + #"{"@type":"type.googleapis.com/google.protobuf.Int32Value","value":1}}"#
        try reads(anyOfAny, as: any, printing: anyOfAny)

        any.typeUrl = url + "google.protobuf.Struct"
        var object = Google_Protobuf_Struct()
        object.fields = ["a": Google_Protobuf_Value(kind: .numberValue(1))]
        any.value = try object.serializedBytes()
        try reads(
            #"{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"a":1}}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"a":1}}"#)

        try reads("{}", as: Google_Protobuf_Any(), printing: "{}")

        refuses(Google_Protobuf_Any.self, #"{"value":"1s"}"#)  // no @type
        refuses(Google_Protobuf_Any.self, #"{"@type":"type.googleapis.com/no.Such"}"#)  // not registered
        refuses(Google_Protobuf_Any.self, #"{"@type":"no-slash"}"#)
        refuses(Google_Protobuf_Any.self, #"{"@type":1}"#)
        refuses(Google_Protobuf_Any.self, #"{"@type":"type.googleapis.com/google.protobuf.Empty","value":{}}"#)
        refuses(
            Google_Protobuf_Any.self, #"{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s","x":1}"#)
        // A well-known type without "value" is at its default, and at its default it prints
        // without "value", as protobuf's C++ runtime reads and prints it (Python refuses it, and
        // prints "value"); a Value at its default has no kind, so no other form.
        any.typeUrl = url + "google.protobuf.Duration"
        any.value = []
        try reads(
            #"{"@type":"type.googleapis.com/google.protobuf.Duration"}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Duration"}"#)
        try reads(
            #"{"@type":"type.googleapis.com/google.protobuf.Duration","value":"0s"}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Duration"}"#)
        any.typeUrl = url + "google.protobuf.Value"
        try reads(
            #"{"@type":"type.googleapis.com/google.protobuf.Value"}"#, as: any,
            printing: #"{"@type":"type.googleapis.com/google.protobuf.Value"}"#)
        refuses(
            Google_Protobuf_Any.self,
            #"{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s","value":"2s"}"#)
        refuses(
            Google_Protobuf_Any.self,
            #"{"@type":"type.googleapis.com/google.protobuf.Duration","@type":"x/y","value":"1s"}"#)

        var unregistered = Google_Protobuf_Any()
        unregistered.typeUrl = url + "no.Such"
        unprintable(unregistered)
    }
}
