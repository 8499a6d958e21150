// Where swiftframe's JSON reading differs from protobuf's C++ runtime (libprotobuf 3.21) on
// purpose: the intended differences of the differential JSON run
// (FuzzTesting/Differential/differential_json.py, INTENDED_REFUSALS, INTENDED_ACCEPTS and
// INTENDED_MESSAGES), one test each, named as there. Each says what swiftframe does and why;
// Python's json_format (4.21) sides with swiftframe in most of them.

import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing

@Suite("JSON: intended differences from protobuf's C++ runtime")
struct JSONDifferencesTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3

    static let options = JSONOptions(
        registry: MessageTypeRegistry([
            Proto3.self, Google_Protobuf_ListValue.self,
            Google_Protobuf_Int64Value.self,
        ]))

    func refusal(
        _ json: String, _ kind: JSONError.Kind, containing words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let message = try Proto3(jsonString: json, options: Self.options)
            Issue.record("read \(message)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }

    // Refusals: C++ 3.21 accepts these; the mapping (and the conformance suite's recommended
    // tests, which swiftframe passes with --enforce_recommended) does not.

    @Test("a field or key given twice")
    func duplicateNames() {
        // C++ keeps the last; Python refuses; the conformance suite recommends refusing.
        refusal(#"{"optionalInt32": 1, "optionalInt32": 1}"#, .duplicateField, containing: "given twice")
        refusal(#"{"optionalInt32": 1, "optional_int32": 2}"#, .duplicateField, containing: "given twice")
        refusal(#"{"optionalNestedMessage": {"a": 1, "a": 2}}"#, .duplicateField, containing: "given twice")
    }

    @Test("a bool as a string")
    func boolAsString() {
        // C++ reads "true" as true, and the map key "True"; Python refuses both.
        refusal(#"{"optionalBool": "true"}"#, .badValue, containing: "true or false")
        refusal(#"{"mapBoolBool": {"True": false}}"#, .badValue, containing: "true or false")
    }

    @Test("a bare value for a repeated field")
    func bareRepeated() {
        refusal(#"{"repeatedInt32": 1}"#, .badValue, containing: "JSON array")
        refusal(#"{"repeatedNestedMessage": {"a": 1}}"#, .badValue, containing: "JSON array")
    }

    @Test("null in a list or as a map value")
    func nullElements() {
        // The conformance suite's recommended RepeatedFieldPrimitiveElementIsNull and MapFieldValueIsNull.
        refusal(#"{"repeatedInt32": [1, null]}"#, .badValue, containing: "cannot be null")
        refusal(#"{"mapStringString": {"k": null}}"#, .badValue, containing: "cannot be null")
    }

    @Test("a well-known type in another form than its JSON one")
    func otherForms() {
        // {"value": 1} is a wrapper's message form, {} a Timestamp's, ["a"] a FieldMask's
        // paths; C++ 3.21 reads them, Python refuses them. An Empty is an object: C++ 3.21 and
        // Python 4.21 read [] as one too.
        refusal(#"{"optionalInt32Wrapper": {"value": 1}}"#, .badValue, containing: "bare value")
        refusal(#"{"repeatedStringWrapper": [{"value": "x"}]}"#, .badValue, containing: "bare value")
        refusal(#"{"optionalTimestamp": {}}"#, .badValue, containing: "RFC 3339")
        refusal(#"{"optionalDuration": {}}"#, .badValue, containing: "Duration")
        refusal(#"{"repeatedFieldmask": [["a"]]}"#, .badValue, containing: "FieldMask")
        refusal(#"{"repeatedAny": [[]]}"#, .badValue, containing: "Any")
        refusal(#"{"repeatedInt64Wrapper": [[1]]}"#, .badValue, containing: "number")
        refusal(#"{"repeatedStringWrapper": [[]]}"#, .badValue, containing: "string")
        refusal(#"{"repeatedListValue": [{}]}"#, .badValue, containing: "ListValue")
        refusal(#"{"repeatedStruct": [[]]}"#, .badValue, containing: "Struct")
        refusal(#"{"optionalEmpty": []}"#, .badValue, containing: "Empty")
        refusal(#"{"repeatedEmpty": [{}, []]}"#, .badValue, containing: "Empty")
        let options = JSONOptions(
            registry: MessageTypeRegistry([Google_Protobuf_BoolValue.self, Google_Protobuf_FieldMask.self]))
        for json in [
            #"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.BoolValue", "value": {"value": false}}}"#,
            #"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.FieldMask", "value": {"paths": ["a"]}}}"#,
        ] {
            #expect(throws: JSONError.self, "\(json)") { try Proto3(jsonString: json, options: options) }
        }
    }

    @Test("base64 mixing the standard and URL-safe alphabets")
    func base64Mixed() throws {
        // Python reads it (its decoder maps both alphabets); C++ 3.21 takes one or the other.
        #expect(try Proto3(jsonString: #"{"optionalBytes": "-_+/"}"#).optionalBytes == [0xFB, 0xFF, 0xBF])
    }

    @Test("base64 with bits set past the data")
    func base64TrailingBits() throws {
        // "AAB=" is two zero bytes with a bit set after them; C++ 3.21 refuses it, Python
        // ignores the bit, as swiftframe does.
        #expect(try Proto3(jsonString: #"{"optionalBytes": "AAB="}"#).optionalBytes == [0, 0])
        #expect(try Proto3(jsonString: #"{"optionalBytes": "AB=="}"#).optionalBytes == [0])
    }

    @Test("an Any holding a ListValue", arguments: [#"["NaN",[-1.5,0]]"#, "[false]"])
    func anyListValue(list: String) throws {
        // C++ 3.21 refuses every ListValue inside an Any, `[]` too (a ListValue field, or a
        // Value holding a list inside an Any, it reads); Python reads it.
        let json = #"{"optionalAny":{"@type":"type.googleapis.com/google.protobuf.ListValue","value":"# + list + "}}"
        let message = try Proto3(jsonString: json, options: Self.options)
        #expect(try message.jsonString(options: Self.options) == json)
    }

    @Test("a FieldMask path with an underscore")
    func fieldMaskSnakeCase() {
        // JSON writes paths in lowerCamelCase; C++ keeps "foo_bar" as it is, Python refuses it.
        refusal(#"{"optionalFieldMask": "foo_bar"}"#, .badValue, containing: "lowerCamelCase")
    }

    @Test("an integer out of range that a double rounds into range")
    func integerThroughDouble() {
        // C++ converts through a double: -9223372036854775809 becomes -2^63. Python refuses.
        refusal(#"{"optionalSfixed64": -9223372036854775809}"#, .badValue, containing: "out of range")
    }

    @Test("numbers and durations in forms JSON does not have")
    func looseNumbers() {
        // C++ hands strings to strtod and strtoll: hexadecimal floats, spaces.
        refusal(#"{"optionalDoubleWrapper": "0x1p3"}"#, .badValue, containing: "not a number")
        refusal(#"{"optionalDouble": " 1"}"#, .badValue, containing: "not a number")
        refusal(#"{"optionalDuration": "59 s"}"#, .badValue, containing: "Duration")
        refusal(#"{"optionalDuration": "3600.s"}"#, .badValue, containing: "Duration")
        refusal(#"{"optionalDouble": "0.0\u00001"}"#, .badValue, containing: "not a number")
        refusal(#"{"optionalInt32": "+1"}"#, .badValue, containing: "not a number")
        refusal(#"{"optionalUint64": "017"}"#, .badValue, containing: "not a number")
    }

    @Test("text that is not JSON")
    func notJSON() {
        // RFC 8259: control characters escaped, only its escapes, digits after a point. C++ 3.21
        // reads all three.
        refusal("{\"optionalString\": \"a\tb\"}", .syntax, containing: "control character")
        refusal(#"{"optionalString": "a\qb"}"#, .syntax, containing: "bad escape")
        refusal(#"{"optionalDouble": -6.e2}"#, .syntax, containing: "no digits after")
        refusal(#"{"optionalDouble": 05}"#, .syntax, containing: "leading zero")
        refusal(#"{"optionalDouble": -.5}"#, .syntax, containing: "without digits")
        refusal(#"{"optionalInt32": 1,}"#, .syntax, containing: "quoted member name")
        refusal(#"{"repeatedValue": [1,]}"#, .syntax, containing: "where a value should be")
        refusal("{} \u{0}", .syntax, containing: "more after")
    }

    @Test("a Timestamp out of range once its offset is applied")
    func timestampRange() {
        // C++ 3.21 and Python read these, and then cannot print them; the mapping's range is
        // 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
        refusal(#"{"optionalTimestamp": "9999-12-31T23:59:59-00:01"}"#, .badValue, containing: "out of range")
        refusal(#"{"optionalTimestamp": "0001-01-01T00:00:00+08:00"}"#, .badValue, containing: "out of range")
    }

    @Test("a Timestamp in a form RFC 3339 does not have")
    func timestampForms() {
        // C++ 3.21 drops the digits past the ninth, and reads a month, a year or an offset's hour
        // without its leading zeros; RFC 3339 has four-digit years, two-digit fields, and the
        // mapping at most 9 fractional digits (Python refuses these too). It also reads null as
        // the "value" of an Any holding a Timestamp.
        refusal(#"{"optionalTimestamp": "1970-01-01T00:00:00.1234567890Z"}"#, .badValue, containing: "RFC 3339")
        refusal(#"{"optionalTimestamp": "9999-2-28T12:30:15.3+00:00"}"#, .badValue, containing: "RFC 3339")
        refusal(#"{"optionalTimestamp": "1-06-15T23:59:59Z"}"#, .badValue, containing: "RFC 3339")
        refusal(#"{"optionalTimestamp": "0001-01-01T00:00:00+0:00"}"#, .badValue, containing: "RFC 3339")
        let options = JSONOptions(registry: MessageTypeRegistry([Google_Protobuf_Timestamp.self]))
        #expect(throws: JSONError.self) {
            try Proto3(
                jsonString:
                    #"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": null}}"#,
                options: options)
        }
    }

    @Test("an empty name in a nested message")
    func emptyNameNested() {
        // C++ 3.21 skips the name "" in a nested message even when it does not skip unknown
        // names (at the top it refuses it); Python and swiftframe refuse it.
        refusal(#"{"repeatedForeignMessage": [{"c": 1, "": null}]}"#, .unknownField, containing: "no field ''")
    }

    // Acceptances: C++ 3.21 refuses these; the mapping allows them (Python reads them too, but
    // for integers in strings written with an exponent).

    @Test("an Any with @type after value, or a URL of another form")
    func anyOrderAndURLs() throws {
        // C++ 3.21 refuses "value" before "@type" for a well-known type, a URL without a host,
        // with an empty segment or non-ASCII, and one written with escapes; the mapping puts no
        // order on members, and an Any's type is what follows the URL's last "/".
        for json in [
            #"{"optionalAny": {"value": [1], "@type": "type.googleapis.com/google.protobuf.ListValue"}}"#,
            #"{"optionalAny": {"@type": "/google.protobuf.Int64Value", "value": "1"}}"#,
            #"{"optionalAny": {"@type": "type.googleapis.com//google.protobuf.ListValue", "value": []}}"#,
            #"{"optionalAny": {"@type": "type.googleapis.com/\u0067oogle.protobuf.ListValue", "value": []}}"#,
            #"{"optionalAny": {"@type": "t\u00e9pe.example/google.protobuf.Int64Value", "value": "1"}}"#,
            #"{"optionalAny": {"@type": "example.com/x/google.protobuf.ListValue", "value": []}}"#,
        ] {
            let message = try Proto3(jsonString: json, options: Self.options)
            #expect(message.optionalAny != nil, "\(json)")
            #expect(try Proto3(jsonString: message.jsonString(options: Self.options), options: Self.options) == message)
        }
    }

    @Test("an integer in a string, with an exponent or a fraction, or -0")
    func integerStrings() throws {
        // The mapping reads integers from numbers or strings alike; C++ and Python take a
        // number's exponent and fraction but not a string's. Python also reads "-0" as 0.
        #expect(try Proto3(jsonString: #"{"optionalInt32": "1e1"}"#).optionalInt32 == 10)
        #expect(try Proto3(jsonString: #"{"optionalInt64": "-5.0"}"#).optionalInt64 == -5)
        #expect(try Proto3(jsonString: #"{"mapInt32Int32": {"1e2": 1}}"#).mapInt32Int32 == [100: 1])
        #expect(try Proto3(jsonString: #"{"optionalUint32": "-0"}"#).optionalUint32 == 0)
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalInt32": "1.5"}"#) }
    }

    // Other messages: both read the input, to different values.

    @Test("an integer with an exponent or fraction, read exactly")
    func exactIntegers() throws {
        // C++ and Python read 3.978201228937259536E18 through a double (3978201228937259520);
        // swiftframe reads the decimal exactly, as it reads 3978201228937259536.
        let message = try Proto3(
            jsonString: #"{"optionalUint64": 3.978201228937259536E18, "optionalInt64": 9007199254740993.0}"#)
        #expect(message.optionalUint64 == 3_978_201_228_937_259_536)
        #expect(message.optionalInt64 == 9_007_199_254_740_993)
        // And a fraction a double would round away is still a fraction: not an integer.
        refusal(#"{"optionalSfixed64": 9007199254740993.5}"#, .badValue, containing: "not an integer")
        // And 9.223372036854775807E18 is 2^63 - 1, in range (C++ reads 2^63 through a double, out of range).
        #expect(try Proto3(jsonString: #"{"optionalSfixed64": 9.223372036854775807E18}"#).optionalSfixed64 == .max)
    }

    @Test("FieldMask paths as Python reads them")
    func fieldMaskPaths() throws {
        // Each capital starts a word, and empty paths stay, as Python reads them; C++ drops the
        // empty paths and turns a run of capitals into one word ("fooBAR" -> "foo_bar").
        let message = try Proto3(jsonString: #"{"optionalFieldMask": ",a.foo.bar,fooBAR,FooBar"}"#)
        #expect(message.optionalFieldMask?.paths == ["", "a.foo.bar", "foo_b_a_r", "_foo_bar"])
    }

    @Test("a NullValue number other than 0 prints as null")
    func nullValueNumbers() throws {
        // Not a difference of swiftframe's: all three read a NullValue's number, and print any as
        // null, which reads as 0; so a print of such a message reads as another one, in C++ too.
        let message = try Proto3(jsonString: #"{"oneofNullValue": 1}"#)
        #expect(message.oneofField == .oneofNullValue(.unrecognized(1)))
        let printed = try message.jsonString()
        #expect(printed == #"{"oneofNullValue":null}"#)
        #expect(try Proto3(jsonString: printed).oneofField == .oneofNullValue(.nullValue))
    }

    @Test("an empty name, skipped as unknown")
    func emptyName() throws {
        // C++ 3.21 refuses the member name "" even when it skips unknown names; Python skips it.
        let options = JSONOptions(ignoreUnknownFields: true)
        #expect(try Proto3(jsonString: #"{"": {"a": [1]}, "optionalInt32": 1}"#, options: options).optionalInt32 == 1)
        refusal(#"{"": 1}"#, .unknownField, containing: "no field")
        // Given twice, it is an error even so, as any name is (C++ and Python refuse it too).
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"": 1, "": 1}"#, options: options) }
    }

    @Test("-0 is a negative zero")
    func negativeZero() throws {
        // C++ and Python read the JSON number -0 (no point) as +0.0 for a double; swiftframe reads
        // IEEE's -0.0, and prints -0.0 as -0, as C++ does (Python prints -0.0).
        let message = try Proto3(jsonString: #"{"optionalDouble": -0, "optionalFloat": -0}"#)
        #expect(message.optionalDouble == 0 && message.optionalDouble.sign == .minus)
        #expect(message.optionalFloat == 0 && message.optionalFloat.sign == .minus)
        #expect(try message.jsonString() == #"{"optionalFloat":-0,"optionalDouble":-0}"#)
    }
}
