import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

@Suite struct StructTests {
    typealias Value = Google_Protobuf_Value

    @Test func nestedLiteral() {
        let object: Google_Protobuf_Struct = [
            "a": 1, "b": "x", "c": [true, nil, 2.5], "d": ["e": [:], "f": []], "g": -0.5,
        ]
        #expect(object.fields["a"] == Value(kind: .numberValue(1)))
        #expect(object.fields["b"] == Value(kind: .stringValue("x")))
        #expect(
            object.fields["c"]
                == Value(
                    kind: .listValue(
                        Google_Protobuf_ListValue(values: [
                            Value(kind: .boolValue(true)), Value(kind: .nullValue(.nullValue)),
                            Value(kind: .numberValue(2.5)),
                        ]))))
        #expect(
            object.fields["d"]
                == Value(
                    kind: .structValue(
                        Google_Protobuf_Struct(fields: [
                            "e": Value(kind: .structValue(Google_Protobuf_Struct())),
                            "f": Value(kind: .listValue(Google_Protobuf_ListValue())),
                        ]))))
        #expect(object.fields["g"] == Value(kind: .numberValue(-0.5)))
        #expect(object.fields.count == 5)
        let empty: Google_Protobuf_Struct = [:]
        #expect(empty == Google_Protobuf_Struct())
    }

    @Test func valueLiterals() {
        let null: Value = nil
        let number: Value = 42
        let big: Value = 9_007_199_254_740_993  // a Double, as in JSON
        let fraction: Value = -1e-3
        let flag: Value = false
        let text: Value = "t"
        let interpolated: Value = "n=\(number.kind.map { "\($0)" } ?? "")"
        #expect(null == .null && null.kind == .nullValue(.nullValue))
        #expect(number.kind == .numberValue(42))
        #expect(big.kind == .numberValue(9_007_199_254_740_992))
        #expect(fraction.kind == .numberValue(-0.001))
        #expect(flag.kind == .boolValue(false))
        #expect(text.kind == .stringValue("t"))
        #expect(interpolated.kind == .stringValue("n=numberValue(42.0)"))
        // `null` is set: it is not the unset Value().
        #expect(Value.null != Value() && Value().kind == nil)
    }

    @Test func nilForAnOptionalValueIsStillNone() {
        let optional: Value? = nil
        #expect(optional == .none)
        let wrapped: Value? = .null
        #expect(wrapped?.kind == .nullValue(.nullValue))
        let list: [Value?] = [nil, .some(nil)]
        #expect(list[0] == nil && list[1] == .null)
    }

    @Test func listValueLiteral() {
        let list: Google_Protobuf_ListValue = [1, "two", nil, [3], ["four": 4]]
        #expect(list.values.count == 5)
        #expect(list.values[2] == .null)
        #expect(list.values[3].kind == .listValue([3]))
        #expect(list.values[4].kind == .structValue(["four": 4]))
        let empty: Google_Protobuf_ListValue = []
        #expect(empty == Google_Protobuf_ListValue())
    }

    @Test func subscriptReadsAndWritesFields() {
        var object: Google_Protobuf_Struct = ["a": 1]
        #expect(object["a"] == 1 && object["missing"] == nil)
        object["b"] = "x"
        object["c"] = .null  // a JSON null, stored
        #expect(object.fields.count == 3 && object["c"] == .null)
        object["a"] = nil  // removes the field
        #expect(object.fields.keys.sorted() == ["b", "c"])
    }

    @Test func survivesTheWire() throws {
        let object: Google_Protobuf_Struct = ["list": [1, nil, ["x": true]], "s": "y", "n": -0.0]
        let back = try Google_Protobuf_Struct(serializedBytes: try object.serializedBytes())
        #expect(back == object)
    }
}
