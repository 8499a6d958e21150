// Numbers as the JSON printer writes them: a double with few digits after its point takes a
// quick way, every other double the standard library's shortest form, and the two must print
// the same text; packed runs print in one loop per field.

import SwiftFrame
import SwiftFrameWellKnownTypes
import SwiftFrameConformanceMessages
import Testing
import TestSupport

@Suite("JSON numbers")
struct JSONNumberTests {
    typealias Proto3 = ProtobufTestMessages_Proto3_TestAllTypesProto3

    /// A double as JSON prints it by the standard library's shortest form: `description`
    /// without a trailing `.0`.
    static func shortest(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Doubles around every place where the quick way starts, stops or could go wrong.
    static var edges: [Double] {
        var values: [Double] = [
            0.0001, 0.0001.nextDown, 0.0001.nextUp, 0.001, 0.1, 0.2, 0.3, 0.1 + 0.2, 1.1, 2.675,
            1, 9, 10, 99.99, 100, 1e15, 1e15 + 1, 1e16, 123_456.75, 4_503_599_627_370_497.5,
            1_125_899_906_842_624, 1_125_899_906_842_623, 1_125_899_906_842_625,
            1_125_899_906_842_623.5, 562_949_953_421_311.75, 9_007_199_254_740_991,
            .pi, .ulpOfOne, .leastNormalMagnitude, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        ]
        for exponent in -20...20 { values.append(pow10(exponent)) }
        for bits in 0...60 { values.append(Double(UInt64(1) << bits)) }
        values += values.map { -$0 }
        return values
    }

    static func pow10(_ exponent: Int) -> Double {
        Double("1e\(exponent)")!
    }

    /// Short decimals (m / 10^k) and doubles of random bits, from a fixed seed.
    static func randomValues(count: Int) -> [Double] {
        var generator = SeededGenerator(seed: 0x5EED_0D0B_1E00)
        var values: [Double] = []
        for index in 0..<count {
            switch index % 3 {
            case 0:
                let digits = generator.next() % 1_000_000_000_000
                let fraction = Int(generator.next() % 16)
                values.append(Double("\(digits)e-\(fraction)")!)
            case 1:
                let digits = generator.next() % 100_000
                let fraction = Int(generator.next() % 6)
                values.append(-Double("\(digits)e-\(fraction)")!)
            default:
                let value = Double(bitPattern: generator.next())
                if value.isFinite { values.append(value) }
            }
        }
        return values
    }

    @Test("A double prints as the standard library's shortest form, however it is taken")
    func doublesPrintShortest() throws {
        let values = Self.edges + Self.randomValues(count: 30_000)
        var message = Proto3()
        message.repeatedDouble = values
        let expected = #"{"repeatedDouble":["# + values.map(Self.shortest).joined(separator: ",") + "]}"
        let printed = try message.jsonString()
        if printed != expected {
            // Name the first value that differs rather than two long lines.
            for value in values {
                var single = Proto3()
                single.repeatedDouble = [value]
                #expect(
                    try single.jsonString() == #"{"repeatedDouble":["# + Self.shortest(value) + "]}",
                    "\(value.bitPattern)")
            }
        }
        #expect(printed == expected)
        #expect(try Proto3(jsonString: printed).repeatedDouble.map(\.bitPattern) == values.map(\.bitPattern))
        for value in Self.edges {
            var single = Proto3()
            single.optionalDouble = value
            #expect(try single.jsonString() == #"{"optionalDouble":"# + Self.shortest(value) + "}")
        }
    }

    @Test("Zero, negative zero, NaN and the infinities keep their forms")
    func specialDoubles() throws {
        var message = Proto3()
        message.repeatedDouble = [0, -0.0, .nan, .infinity, -.infinity, 0.5]
        #expect(try message.jsonString() == #"{"repeatedDouble":[0,-0,"NaN","Infinity","-Infinity",0.5]}"#)
    }

    @Test("Packed runs of every kind print value by value, and runs split on the wire join up")
    func packedRuns() throws {
        var message = Proto3()
        message.repeatedInt32 = [0, -1, 2_147_483_647, -2_147_483_648, 7]
        message.repeatedInt64 = [-1, 9_000_000_000]
        message.repeatedUint32 = [4_294_967_295]
        message.repeatedSint32 = [-3]
        message.repeatedFixed32 = [12]
        message.repeatedSfixed64 = [-9]
        message.repeatedFloat = [1.5, -0.25]
        message.repeatedDouble = [2.5]
        message.repeatedBool = [true, false]
        message.repeatedNestedEnum = [.foo, .baz]
        let expected =
            #"{"repeatedInt32":[0,-1,2147483647,-2147483648,7],"repeatedInt64":["-1","9000000000"],"#
            + #""repeatedUint32":[4294967295],"repeatedSint32":[-3],"repeatedFixed32":[12],"repeatedSfixed64":["-9"],"#
            + #""repeatedFloat":[1.5,-0.25],"repeatedDouble":[2.5],"repeatedBool":[true,false],"#
            + #""repeatedNestedEnum":["FOO","BAZ"]}"#
        #expect(try message.jsonString() == expected)

        // Inside an Any the printer reads the bytes as they were given: repeated_int32 (field
        // 31) as two packed runs with a plain value and an empty run between them, and
        // repeated_double (field 42) after them, is one array each.
        let split: [UInt8] = [
            0xFA, 0x01, 0x02, 0x01, 0x02, 0xF8, 0x01, 0x03, 0xFA, 0x01, 0x00, 0xFA, 0x01, 0x01, 0x04,
            0xD2, 0x02, 0x08, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,
        ]
        var any = Google_Protobuf_Any()
        any.typeUrl = "type.googleapis.com/" + Proto3.protoMessageName
        any.value = split
        let options = JSONOptions(registry: MessageTypeRegistry([Proto3.self]))
        #expect(
            try any.jsonString(options: options)
                == #"{"@type":"type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3","#
                + #""repeatedInt32":[1,2,3,4],"repeatedDouble":[1.5]}"#)
    }
}
