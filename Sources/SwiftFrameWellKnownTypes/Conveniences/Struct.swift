// Literal conformances for google.protobuf.Struct, Value and ListValue, so JSON-like data
// reads as it would in JSON:
//
//     let s: Google_Protobuf_Struct = ["name": "neo", "level": 3, "tags": ["a", nil], "ok": true]

import SwiftFrame

extension Google_Protobuf_Struct: ExpressibleByDictionaryLiteral {
    /// A struct of these fields. Like a Dictionary literal, traps on a repeated key.
    public init(dictionaryLiteral elements: (String, Google_Protobuf_Value)...) {
        self.init(fields: Dictionary(uniqueKeysWithValues: elements))
    }

    /// The value of field `key`, or nil when there is none; `fields[key]`. Assigning nil
    /// removes the field (`Google_Protobuf_Value.null` stores a JSON null).
    public subscript(key: String) -> Google_Protobuf_Value? {
        get { fields[key] }
        set { fields[key] = newValue }
    }
}

extension Google_Protobuf_ListValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Google_Protobuf_Value...) {
        self.init(values: elements)
    }
}

extension Google_Protobuf_Value {
    /// A JSON null: `kind` is `.nullValue(.nullValue)`. The literal `nil` gives the same
    /// where a `Google_Protobuf_Value` (not an optional one) is expected.
    public static let null = Self(kind: .nullValue(.nullValue))
}

extension Google_Protobuf_Value: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) {
        self.init(kind: .nullValue(.nullValue))
    }
}

extension Google_Protobuf_Value: ExpressibleByIntegerLiteral {
    /// A number value (a Double, as in JSON; exact up to 2^53).
    public init(integerLiteral value: Int64) {
        self.init(kind: .numberValue(Double(value)))
    }
}

extension Google_Protobuf_Value: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) {
        self.init(kind: .numberValue(value))
    }
}

extension Google_Protobuf_Value: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self.init(kind: .boolValue(value))
    }
}

extension Google_Protobuf_Value: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(kind: .stringValue(value))
    }
}

extension Google_Protobuf_Value: ExpressibleByArrayLiteral {
    /// A list value.
    public init(arrayLiteral elements: Google_Protobuf_Value...) {
        self.init(kind: .listValue(Google_Protobuf_ListValue(values: elements)))
    }
}

extension Google_Protobuf_Value: ExpressibleByDictionaryLiteral {
    /// A struct value. Like a Dictionary literal, traps on a repeated key.
    public init(dictionaryLiteral elements: (String, Google_Protobuf_Value)...) {
        self.init(kind: .structValue(Google_Protobuf_Struct(fields: Dictionary(uniqueKeysWithValues: elements))))
    }
}
