// proto3's canonical JSON mapping on the conformance messages, in both code modes: the forms
// of every field kind and well-known type, the options, and errors naming path and offset.

import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing

@Suite("JSON")
struct JSONTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3
    typealias Proto2 = ProtobufTestMessages_Proto2_TestAllTypesProto2

    static let registry = MessageTypeRegistry([Proto3.self, Google_Protobuf_Timestamp.self, Google_Protobuf_Value.self])

    @Test("Every name of an aliased value reads, the two spelled alike in Swift too; the first prints")
    func aliases() throws {
        // MOO and moo are both `.moo` in Swift, so only MOO has a constant; moo still reads.
        for name in ["ALIAS_BAZ", "MOO", "moo", "bAz"] {
            let message = try Proto3(jsonString: #"{"optionalAliasedEnum":""# + name + #""}"#)
            #expect(message.optionalAliasedEnum == .aliasBaz, "\(name)")
            #expect(try message.jsonString() == #"{"optionalAliasedEnum":"ALIAS_BAZ"}"#)
            #expect(try Proto3(textFormat: "optional_aliased_enum: " + name).optionalAliasedEnum == .aliasBaz)
        }
    }

    @Test("Scalars print in their JSON forms and read back")
    func scalars() throws {
        var message = Proto3()
        message.optionalInt32 = -5
        message.optionalInt64 = -9_000_000_000
        message.optionalUint64 = 18_000_000_000_000_000_000
        message.optionalFloat = 1.5
        message.optionalDouble = .infinity
        message.optionalBool = true
        message.optionalString = "a\"\\\n\u{1}é"
        message.optionalBytes = [0xFB, 0xFF, 0x00]
        message.optionalNestedEnum = .baz
        message.repeatedInt32 = [1, -1]
        message.repeatedDouble = [.nan]
        let json = try message.jsonString()
        #expect(
            json == #"{"optionalInt32":-5,"optionalInt64":"-9000000000","optionalUint64":"18000000000000000000","#
                + #""optionalFloat":1.5,"optionalDouble":"Infinity","optionalBool":true,"optionalString":"a\"\\\n\u0001é","#
                + #""optionalBytes":"+/8A","optionalNestedEnum":"BAZ","repeatedInt32":[1,-1],"repeatedDouble":["NaN"]}"#
        )
        #expect(try Proto3(jsonString: json).jsonString() == json)
    }

    @Test("Numbers read as numbers or strings, exponents included, and enums by number")
    func lenientInput() throws {
        let message = try Proto3(
            jsonString: """
                {"optional_int32": "12", "optionalInt64": 1e5, "optionalUint32": 100.000, "optionalSint64": "-9223372036854775808",
                 "optionalNestedEnum": 2, "optionalBytes": "-_8", "optionalFloat": "-Infinity", "optionalString": "\\ud83d\\ude00"}
                """)
        #expect(message.optionalInt32 == 12)
        #expect(message.optionalInt64 == 100_000)
        #expect(message.optionalUint32 == 100)
        #expect(message.optionalSint64 == .min)
        #expect(message.optionalNestedEnum == .baz)
        #expect(message.optionalBytes == [0xFB, 0xFF])
        #expect(message.optionalFloat == -.infinity)
        #expect(message.optionalString == "😀")
    }

    @Test("Maps, nested messages, null and the options")
    func structure() throws {
        let message = try Proto3(
            jsonString: """
                {"mapInt32Int32": {"-1": 2}, "mapBoolBool": {"true": false}, "mapStringNestedMessage": {"k": {"a": 7}},
                 "optionalNestedMessage": {"a": 3, "corecursive": {"optionalInt32": 4}}, "optionalInt32": null}
                """)
        #expect(message.mapInt32Int32 == [-1: 2])
        #expect(message.mapBoolBool == [true: false])
        #expect(message.mapStringNestedMessage["k"]?.a == 7)
        #expect(message.optionalNestedMessage?.corecursive?.optionalInt32 == 4)
        let json = try message.jsonString()
        #expect(json.contains(#""mapInt32Int32":{"-1":2}"#))
        #expect(try Proto3(jsonString: json) == message)

        var small = Proto3()
        small.optionalInt32 = 1
        #expect(try small.jsonString(options: JSONOptions(useProtoFieldNames: true)) == #"{"optional_int32":1}"#)
        let defaults = try small.jsonString(options: JSONOptions(emitDefaultValues: true))
        #expect(
            defaults.contains(#""optionalInt64":"0""#) && defaults.contains(#""repeatedInt32":[]"#)
                && defaults.contains(#""mapInt32Int32":{}"#))
        // Fields with presence stay out: proto3 optional-less messages, oneof members.
        #expect(!defaults.contains("optionalNestedMessage") && !defaults.contains("oneofUint32"))
        #expect(try Proto3(jsonString: defaults) == small)

        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"noSuchField": 1}"#) }
        #expect(
            try Proto3(
                jsonString: #"{"noSuchField": {"x": [1]}, "optionalNestedEnum": "NOPE"}"#,
                options: JSONOptions(ignoreUnknownFields: true)) == Proto3())
    }

    @Test("Well-known types in their own forms")
    func wellKnownTypes() throws {
        let json = """
            {"optionalTimestamp": "1970-01-01T00:00:01.500Z", "optionalDuration": "-1.000000001s",
             "optionalFieldMask": "fooBar,baz", "optionalBoolWrapper": false, "optionalInt64Wrapper": "5",
             "optionalStruct": {"a": [1, "x", null, {"b": true}]}, "optionalValue": null,
             "optionalAny": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": "2000-02-29T23:59:59+01:00"}}
            """
        let message = try Proto3(jsonString: json, options: JSONOptions(registry: Self.registry))
        #expect(message.optionalTimestamp?.seconds == 1 && message.optionalTimestamp?.nanos == 500_000_000)
        #expect(message.optionalDuration?.seconds == -1 && message.optionalDuration?.nanos == -1)
        #expect(message.optionalFieldMask?.paths == ["foo_bar", "baz"])
        #expect(message.optionalBoolWrapper?.value == false)
        #expect(message.optionalInt64Wrapper?.value == 5)
        let printed = try message.jsonString(options: JSONOptions(registry: Self.registry))
        #expect(printed.contains(#""optionalTimestamp":"1970-01-01T00:00:01.500Z""#))
        #expect(printed.contains(#""optionalDuration":"-1.000000001s""#))
        #expect(printed.contains(#""optionalFieldMask":"fooBar,baz""#))
        #expect(printed.contains(#""optionalStruct":{"a":[1,"x",null,{"b":true}]}"#))
        #expect(printed.contains(#""optionalValue":null"#))
        #expect(
            printed.contains(
                #""optionalAny":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"2000-02-29T22:59:59Z"}"#
            ))
        #expect(try Proto3(jsonString: printed, options: JSONOptions(registry: Self.registry)) == message)
        // Out of range: not printable, not readable.
        var late = Proto3()
        late.optionalTimestamp = Google_Protobuf_Timestamp(seconds: 253_402_300_800, nanos: 0)
        #expect(throws: JSONError.self) { try late.jsonString() }
        var long = Proto3()
        long.optionalDuration = Google_Protobuf_Duration(seconds: .min, nanos: 0)
        #expect(throws: JSONError.self) { try long.jsonString() }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalTimestamp": "10000-01-01T00:00:00Z"}"#) }
        // An Any whose type is not registered.
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalAny": {"@type": "x/y.Z"}}"#) }
    }

    @Test("Proto2: groups by their lower-case name, closed enums")
    func proto2() throws {
        let message = try Proto2(jsonString: #"{"data": {"groupInt32": 5}, "optionalNestedEnum": "BAR"}"#)
        #expect(message.data?.groupInt32 == 5)
        #expect(try message.jsonString() == #"{"optionalNestedEnum":"BAR","data":{"groupInt32":5}}"#)
    }

    @Test("A registered extension prints and reads as \"[full.name]\"")
    func extensions() throws {
        var registry = MessageTypeRegistry()
        registry.register(ProtobufTestMessages_Proto2_TestMessagesProto2Extensions.extensionInt32)
        let options = JSONOptions(registry: registry)
        let json = #"{"[protobuf_test_messages.proto2.extension_int32]":7}"#
        let message = try Proto2(jsonString: json, options: options)
        #expect(message[extension: ProtobufTestMessages_Proto2_TestMessagesProto2Extensions.extensionInt32] == 7)
        #expect(try message.jsonString(options: options) == json)
        // Unregistered, it is an unknown field: an error to read, left out in print.
        #expect(throws: JSONError.self) { try Proto2(jsonString: json) }
        #expect(try message.jsonString() == "{}")
    }

    @Test(
        "Errors name the path and the byte offset",
        arguments: [
            (#"{"optionalInt32": 2147483648}"#, JSONError.Kind.badValue, "$.optionalInt32", 18),
            (#"{"optionalUint32": -1}"#, .badValue, "$.optionalUint32", 19),
            (#"{"optionalInt32": 1.5}"#, .badValue, "$.optionalInt32", 18),
            (#"{"optionalDouble": 1e400}"#, .badValue, "$.optionalDouble", 19),
            (#"{"optionalFloat": 3.5e38}"#, .badValue, "$.optionalFloat", 18),
            (#"{"optionalInt32": 01}"#, .syntax, "$", 18),
            (#"{"optionalString": "\x"}"#, .syntax, "$", 20),
            (#"{"optionalString": "\ud800"}"#, .syntax, "$", 20),
            (#"{"optionalString": "abc"#, .syntax, "$", 19),
            (#"{"optionalInt32": 1,}"#, .syntax, "$", 20),
            (#"{"optionalInt32": 1"#, .syntax, "$", 19),
            (#"{"repeatedInt32": [1, "x"]}"#, .badValue, "$.repeatedInt32[1]", 22),
            (#"{"repeatedInt32": [1, null]}"#, .badValue, "$.repeatedInt32[1]", 22),
            (#"{"optionalNestedMessage": {"a": true}}"#, .badValue, "$.optionalNestedMessage.a", 32),
            (#"{"mapInt32Int32": {"x": 1}}"#, .badValue, "$.mapInt32Int32[\"x\"]", 19),
            (#"{"optionalBytes": "a"}"#, .badValue, "$.optionalBytes", 18),
            (#"{"optionalInt32": 1, "optional_int32": 2}"#, .duplicateField, "$.optional_int32", 21),
            (#"{"oneofUint32": 1, "oneofString": "x"}"#, .duplicateField, "$.oneofString", 19),
            (#"{"nope": 1}"#, .unknownField, "$.nope", 1),
            (#"{"optionalInt32": 1e-9223372036854775808}"#, .badValue, "$.optionalInt32", 18),
            (#"{"optionalInt64": "1e9999"}"#, .badValue, "$.optionalInt64", 18),
            ("", .syntax, "$", 0),
            ("{} x", .syntax, "$", 3),
        ])
    func errors(_ json: String, _ kind: JSONError.Kind, _ path: String, _ offset: Int) {
        do {
            _ = try Proto3(jsonString: json)
            Issue.record("\(json) was read")
        } catch {
            #expect(error.kind == kind, "\(json): \(error)")
            #expect(error.path == path, "\(json): \(error)")
            #expect(error.offset == offset, "\(json): \(error)")
        }
    }

    @Test("Printing: an error names the path; strings escaped; a repeated map key keeps its last value")
    func printing() throws {
        // Printed without paths first, then again to name where it failed.
        var message = Proto3()
        var late = Google_Protobuf_Timestamp()
        late.seconds = 253_402_300_800  // year 10000
        message.repeatedTimestamp = [Google_Protobuf_Timestamp(), late]
        do {
            _ = try message.jsonString()
            Issue.record("printed")
        } catch {
            #expect(error.kind == .unrepresentable && error.path == "$.repeatedTimestamp[1]", "\(error)")
        }

        var text = Proto3()
        text.optionalString = "a\"b\\c\n\u{01}é"
        text.mapInt64Int64 = [-3: 4]
        #expect(try text.jsonString() == #"{"optionalString":"a\"b\\c\n\u0001é","mapInt64Int64":{"-3":"4"}}"#)

        // Inside an Any's value the bytes are not this runtime's encoding: a key given twice
        // (k, j, k) keeps its place and its last value, and a string that is not UTF-8 prints
        // repaired.
        let entry = { (key: String, value: String) -> [UInt8] in
            let body =
                [0x0A, UInt8(key.utf8.count)] + Array(key.utf8) + [0x12, UInt8(value.utf8.count)] + Array(value.utf8)
            return [0xAA, 0x04, UInt8(body.count)] + body  // map_string_string = 69
        }
        var any = Google_Protobuf_Any()
        any.typeUrl = "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3"
        any.value = [0x72, 0x01, 0xFF] + entry("k", "a") + entry("j", "x") + entry("k", "b")  // optional_string = 14
        var holder = Proto3()
        holder.optionalAny = any
        #expect(
            try holder.jsonString(options: JSONOptions(registry: Self.registry)) == """
                {"optionalAny":{"@type":"type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3",\
                "optionalString":"\u{FFFD}","mapStringString":{"k":"b","j":"x"}}}
                """)
    }

    @Test("Every map kind prints in key order (numbers as numbers, strings by their bytes), as inside an Any")
    func mapsInKeyOrder() throws {
        // Every map kind, keys in no order and needing escapes, beside fields before and after
        // the maps, and a nested message with a map of its own. An Any prints its value from
        // the bytes as they are, where the message's own printing gets them from its encoder.
        var message = Proto3()
        message.optionalInt32 = -7
        message.repeatedString = ["x", "y"]
        message.mapInt32Int32 = [3: -1, -5: 2, 0: 0, .max: .min]
        message.mapInt64Int64 = [.min: .max, 9: -9]
        message.mapUint32Uint32 = [.max: 1, 7: 0]
        message.mapUint64Uint64 = [.max: .max, 1: 2]
        message.mapSint32Sint32 = [-1: -2, 4: 8]
        message.mapSint64Sint64 = [.min: -1, 3: 3]
        message.mapFixed32Fixed32 = [1: 2, 0: .max]
        message.mapFixed64Fixed64 = [.max: 0, 5: 6]
        message.mapSfixed32Sfixed32 = [-3: 3, 2: -2]
        message.mapSfixed64Sfixed64 = [-4: 4, 1: -1]
        message.mapInt32Float = [1: 0.5, -2: -.infinity]
        message.mapInt32Double = [2: .nan, 1: 0.1 + 0.2, 0: -0.0]
        message.mapBoolBool = [true: false, false: true]
        message.mapStringString = ["b": "2", "a\"q\n": "é😀", "": "", "ab": "\u{01}", "aa": "x"]
        message.mapStringBytes = ["z": [0xFB, 0xFF], "y": []]
        var inner = Proto3.NestedMessage()
        inner.a = 5
        var deep = Proto3()
        deep.mapStringString = ["d": "e", "c": "f"]
        inner.corecursive = deep
        message.mapStringNestedMessage = ["n": inner, "m": Proto3.NestedMessage()]
        message.mapStringForeignMessage = ["f": ProtobufTestMessages_Proto3_ForeignMessage(c: 3)]
        message.mapStringNestedEnum = ["e": .neg, "d": .unrecognized(77), "c": .foo]
        message.mapStringForeignEnum = ["x": .foreignBar]
        message.oneofField = .oneofString("last")

        var any = Google_Protobuf_Any()
        any.typeUrl = "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3"
        any.value = try message.serializedBytes()
        for options in [JSONOptions(), JSONOptions(emitDefaultValues: true), JSONOptions(useProtoFieldNames: true)] {
            var withRegistry = options
            withRegistry.registry = Self.registry
            let direct = try message.jsonString(options: withRegistry)
            let fromEncoding = try any.jsonString(options: withRegistry)
            let prefix = #"{"@type":"type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3","#
            #expect(fromEncoding.hasPrefix(prefix))
            #expect("{" + fromEncoding.dropFirst(prefix.count) == direct, "\(direct)")
            #expect(
                try Proto3(jsonString: direct, options: withRegistry).serializedBytes() == message.serializedBytes())
        }
        let json = try message.jsonString()
        #expect(json.contains(#""mapStringString":{"":"","a\"q\n":"é😀","aa":"x","ab":"\u0001","b":"2"}"#))
        #expect(json.contains(#""mapInt32Int32":{"-5":2,"0":0,"3":-1,"2147483647":-2147483648}"#))
        #expect(json.contains(#""mapSint64Sint64":{"-9223372036854775808":"-1","3":"3"}"#))
        #expect(json.contains(#""mapUint64Uint64":{"1":"2","18446744073709551615":"18446744073709551615"}"#))
        #expect(json.contains(#""mapBoolBool":{"false":true,"true":false}"#))
    }

    @Test(
        "An encoding out of field order prints as the same message in order",
        arguments: [
            // optional_string "z", repeated_int32 5, optional_int32 7, repeated_int32 6, optional_int32 9:
            // printing as the bytes come stops at the third field and starts again from the values sorted.
            (
                [0x72, 0x01, 0x7A, 0xF8, 0x01, 0x05, 0x08, 0x07, 0xF8, 0x01, 0x06, 0x08, 0x09] as [UInt8],
                #""optionalInt32":9,"optionalString":"z","repeatedInt32":[5,6]"#
            ),
            // In order, but optional_int32 twice: the last wins.
            ([0x08, 0x01, 0x08, 0x02, 0xF8, 0x01, 0x05], #""optionalInt32":2,"repeatedInt32":[5]"#),
            // In order: printed as the bytes come, a packed run and a lone value of one field together.
            (
                [0x08, 0x01, 0xFA, 0x01, 0x02, 0x05, 0x06, 0xF8, 0x01, 0x07],
                #""optionalInt32":1,"repeatedInt32":[5,6,7]"#
            ),
        ])
    func outOfOrder(value: [UInt8], members: String) throws {
        // An Any's value is printed from its bytes as they are: the one way to give the printer
        // an encoding this runtime would not write.
        var any = Google_Protobuf_Any()
        any.typeUrl = "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3"
        any.value = value
        var holder = Proto3()
        holder.optionalAny = any
        #expect(
            try holder.jsonString(options: JSONOptions(registry: Self.registry)) == """
                {"optionalAny":{"@type":"type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3",\
                \(members)}}
                """)
    }

    @Test("A message generated with TextFormat=Numbers has no JSON form: a typed error both ways")
    func numbersMode() throws {
        var message = Unnamed()
        try message.merge(serializedBytes: [0x08, 0x01])
        func expectNoJSONForm(_ attempt: () throws(JSONError) -> Void) {
            do {
                try attempt()
                Issue.record("no error")
            } catch {
                #expect(error.kind == .unrepresentable && error.path == "$")
                #expect(error.message.contains("TextFormat=Numbers"), "\(error)")
            }
        }
        expectNoJSONForm { () throws(JSONError) in _ = try message.jsonString() }
        expectNoJSONForm { () throws(JSONError) in _ = try Unnamed(jsonString: "{}") }
        #expect(message.textFormatString() == "1: 1\n")  // the text format prints by number
    }

    @Test("Found by the differential JSON run: float range, duplicate keys, enum numbers in strings")
    func differentialFindings() throws {
        // The largest float prints (shortest) as 3.4028235e+38, a little above its exact value:
        // it must read back. Past the point where it rounds to infinity, it is out of range.
        var message = Proto3()
        message.optionalFloat = .greatestFiniteMagnitude
        message.repeatedFloat = [-.greatestFiniteMagnitude]
        let json = try message.jsonString()
        #expect(json == #"{"optionalFloat":3.4028235e+38,"repeatedFloat":[-3.4028235e+38]}"#)
        #expect(try Proto3(jsonString: json) == message)
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalFloat": 3.402824e+38}"#) }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalFloat": -3.5e38}"#) }
        // A key twice in a map or a Struct is an error, as it is for a field (protobuf's C++ and
        // Python runtimes refuse it too); so are two "@type"s in an Any.
        for json in [
            #"{"mapInt32Float": {"4": 1, "4": 2}}"#, #"{"mapStringString": {"k": "a", "k": "a"}}"#,
            #"{"mapBoolBool": {"true": true, "true": false}}"#, #"{"optionalStruct": {"a": 1, "a": 1}}"#,
            #"{"optionalValue": {"a": {"b": null, "b": null}}}"#,
        ] {
            do {
                _ = try Proto3(jsonString: json)
                Issue.record("read \(json)")
            } catch {
                #expect(error.kind == .duplicateField, "\(error)")
            }
        }
        // An enum's number in a string reads as the number (as protobuf's C++ and Python read it).
        let enums = try Proto3(
            jsonString:
                #"{"optionalNestedEnum": "2", "repeatedForeignEnum": ["0", "-7"], "mapStringNestedEnum": {"k": "1"}}"#)
        #expect(enums.optionalNestedEnum == .baz)
        #expect(enums.repeatedForeignEnum == [.foreignFoo, .unrecognized(-7)])
        #expect(enums.mapStringNestedEnum == ["k": .bar])
        for json in [
            #"{"optionalNestedEnum": "+1"}"#, #"{"optionalNestedEnum": "1.0"}"#, #"{"optionalNestedEnum": " 1"}"#,
            #"{"optionalNestedEnum": "2147483648"}"#, #"{"optionalNestedEnum": "-"}"#,
        ] {
            #expect(throws: JSONError.self, "\(json)") { try Proto3(jsonString: json) }
        }
    }

    @Test("Deep nesting is an error at the bound, not a crash")
    func deepNesting() throws {
        let depth = 100_000
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalValue": "# + arrays + "}") }
        let objects = String(repeating: #"{"recursiveMessage":"#, count: depth) + String(repeating: "}", count: depth)
        do {
            _ = try Proto3(jsonString: objects)
            Issue.record("read")
        } catch {
            #expect(error.kind == .tooDeep)
        }
        let fine = String(repeating: #"{"recursiveMessage":"#, count: 50) + "{}" + String(repeating: "}", count: 50)
        _ = try Proto3(jsonString: fine)
    }

    @Test("Truncated input never reads")
    func truncated() throws {
        var message = Proto3()
        message.optionalString = "x"
        message.repeatedInt64 = [1, 2]
        message.mapStringString = ["k": "v"]
        message.optionalNestedMessage = .init()
        let json = Array(try message.jsonString().utf8)
        for count in 0..<json.count {
            #expect(throws: JSONError.self, "\(count) bytes") { try Proto3(jsonUTF8Bytes: Array(json[..<count])) }
        }
        #expect(try Proto3(jsonUTF8Bytes: json) == message)
        #expect(throws: JSONError.self) { try Proto3(jsonUTF8Bytes: [0x7B, 0xFF, 0x7D]) }  // not UTF-8
    }
}

/// What `TextFormat=Numbers` generates, written by hand: a message without field names.
private struct Unnamed: SwiftFrame.Message {
    static let protoMessageName = "test.Unnamed"
    static var fieldNamesLeftOut: Bool { true }
    var unknownFields = UnknownFields()

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            try reader.skipField(tag: tag, into: &unknownFields)
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int { unknownFields.count }

    func encodeMessage(to writer: inout ProtoWriter) { writer.writeUnknownFields(unknownFields) }
}
