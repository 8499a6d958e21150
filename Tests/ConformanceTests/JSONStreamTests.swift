// The streaming JSON reader's own mechanisms, read through the public API: a length that
// needs more than one byte (the body moved), packed numbers, names and values with escapes,
// numbers on and off the exact fast path, base64 straight into the encoding, values read into
// a tree (well-known types) in the middle of a stream, and where it leaves the input to the
// tree reader (errors with their paths, skipped unknown fields).

@_spi(Benchmarks) import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing

@Suite("JSON streaming reader")
struct JSONStreamTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3

    @Test("Nested bodies and packed lists longer than 127 bytes")
    func longBodies() throws {
        let long = String(repeating: "x", count: 300)
        let ints = (0..<200).map { Int32($0 * 1000) }
        let text =
            #"{"optionalNestedMessage":{"a":7,"corecursive":{"optionalString":""# + long + #"","repeatedInt32":["#
            + ints.map(String.init).joined(separator: ",") + #"]}},"optionalInt32":1}"#
        let message = try Proto3(jsonString: text)
        #expect(message.optionalNestedMessage?.a == 7)
        #expect(message.optionalNestedMessage?.corecursive?.optionalString == long)
        #expect(message.optionalNestedMessage?.corecursive?.repeatedInt32 == ints)
        #expect(message.optionalInt32 == 1)
        #expect(try Proto3(jsonString: try message.jsonString()) == message)
    }

    @Test("Names and strings with escapes")
    func escapes() throws {
        let message = try Proto3(
            jsonString: #"{"optional\u0049nt32":5,"optionalString":"a\"b\\c\n\u00e9\ud83d\ude00","#
                + #""mapStringString":{"k\u0031":"v"}}"#)
        #expect(message.optionalInt32 == 5)
        #expect(message.optionalString == "a\"b\\c\né😀")
        #expect(message.mapStringString == ["k1": "v"])
    }

    @Test("Doubles read as Double(String) reads them, on and off the exact fast path")
    func doubles() throws {
        for text in [
            "0.1", "1e22", "1e23", "-0.0", "0.000001", "123456789.123456789", "9007199254740993",
            "123456789012345678901234567890", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308",
            "1E-5", "0e400", "3.14159265358979323846264338327950288",
        ] {
            let message = try Proto3(
                jsonString: #"{"optionalDouble":"# + text + #","repeatedDouble":[""# + text + #""]}"#)
            let expected = try #require(Double(text))
            #expect(message.optionalDouble.bitPattern == expected.bitPattern, "\(text)")
            #expect(message.repeatedDouble.map(\.bitPattern) == [expected.bitPattern], "\(text)")
        }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalDouble":1e400}"#) }
    }

    @Test("Integers from numbers and strings, with exponents and fractions of zeros")
    func integers() throws {
        let message = try Proto3(
            jsonString: #"{"optionalInt32":1e2,"optionalInt64":"-9223372036854775808","#
                + #""optionalUint64":"18446744073709551615","optionalSint32":"-2.000","repeatedInt64":["1",2,"3e0"]}"#)
        #expect(message.optionalInt32 == 100)
        #expect(message.optionalInt64 == .min)
        #expect(message.optionalUint64 == .max)
        #expect(message.optionalSint32 == -2)
        #expect(message.repeatedInt64 == [1, 2, 3])
        for bad in [
            #"{"optionalInt32":2147483648}"#, #"{"optionalInt32":"01"}"#, #"{"optionalInt32":1.5}"#,
            #"{"optionalUint32":-1}"#, #"{"optionalInt64":" 1"}"#,
        ] {
            #expect(throws: JSONError.self, "\(bad)") { try Proto3(jsonString: bad) }
        }
    }

    @Test("Bytes in either alphabet, padded or not; a bad symbol is an error with its path")
    func bytes() throws {
        #expect(try Proto3(jsonString: #"{"optionalBytes":"-_8="}"#).optionalBytes == [0xFB, 0xFF])
        #expect(try Proto3(jsonString: #"{"optionalBytes":"+/8"}"#).optionalBytes == [0xFB, 0xFF])
        #expect(try Proto3(jsonString: #"{"optionalBytes":""}"#).optionalBytes == [])
        do {
            _ = try Proto3(jsonString: #"{"optionalInt32":1,"optionalBytes":"a*=="}"#)
            Issue.record("a bad symbol read")
        } catch {
            #expect(error.kind == .badValue)
            #expect(error.path == "$.optionalBytes")
        }
    }

    @Test("Well-known types in the middle of a stream, and errors inside nested messages")
    func wellKnownTypesAndErrors() throws {
        let message = try Proto3(
            jsonString: #"{"optionalInt32":1,"optionalTimestamp":"1970-01-01T00:00:01Z","#
                + #""optionalValue":[1,"a",null],"optionalNestedMessage":{"a":2},"optionalInt32Wrapper":null}"#)
        #expect(message.optionalInt32 == 1)
        #expect(message.optionalTimestamp?.seconds == 1)
        #expect(message.optionalNestedMessage?.a == 2)
        #expect(message.optionalInt32Wrapper == nil)
        do {
            _ = try Proto3(jsonString: #"{"optionalNestedMessage":{"corecursive":{"optionalBool":1}}}"#)
            Issue.record("a number read as a bool")
        } catch {
            #expect(error.kind == .badValue)
            #expect(error.path == "$.optionalNestedMessage.corecursive.optionalBool")
        }
    }

    @Test("A map entry whose enum value is a name the enum lacks is dropped when unknown fields are ignored")
    func unknownEnumNameInAMap() throws {
        let json = Array(#"{"mapStringNestedEnum":{"a":"BAR","b":"NO_SUCH_NAME","c":"BAZ"},"optionalInt32":1}"#.utf8)
        let lenient = JSONOptions(ignoreUnknownFields: true)
        // By the streaming reader, and by the tree reader that takes over where it stops.
        for message in [
            try Proto3(jsonUTF8Bytes: json, options: lenient),
            try Proto3(jsonUTF8BytesByTreeReader: json, options: lenient),
        ] {
            #expect(message.mapStringNestedEnum == ["a": .bar, "c": .baz])
            #expect(message.optionalInt32 == 1)
        }
        #expect(throws: JSONError.self) { try Proto3(jsonUTF8Bytes: json) }
        #expect(throws: JSONError.self) { try Proto3(jsonUTF8BytesByTreeReader: json) }
    }

    @Test("Unknown fields skipped whatever they hold, each only once; known fields only once")
    func unknownAndDuplicates() throws {
        let lenient = JSONOptions(ignoreUnknownFields: true)
        let message = try Proto3(jsonString: #"{"x":{"a":[1,{"b":null}]},"optionalInt32":3,"y":"z"}"#, options: lenient)
        #expect(message.optionalInt32 == 3)
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"x":1,"x":2}"#, options: lenient) }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"optionalInt32":1,"optional_int32":2}"#) }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"mapStringString":{"a":"1","a":"2"}}"#) }
        #expect(throws: JSONError.self) { try Proto3(jsonString: #"{"oneofUint32":1,"oneofString":"a"}"#) }
        #expect(try Proto3(jsonString: #"{"oneofUint32":null,"oneofString":"a"}"#).oneofField == .oneofString("a"))
    }
}
