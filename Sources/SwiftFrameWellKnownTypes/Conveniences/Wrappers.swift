// Literal conformances for the wrapper messages of google/protobuf/wrappers.proto, so a
// field of wrapper type takes a plain literal: `request.pageSize = 50`.

import SwiftFrame

extension Google_Protobuf_DoubleValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public init(floatLiteral value: Double) {
        self.init(value: value)
    }

    public init(integerLiteral value: Int64) {
        self.init(value: Double(value))
    }
}

extension Google_Protobuf_FloatValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public init(floatLiteral value: Float) {
        self.init(value: value)
    }

    public init(integerLiteral value: Int64) {
        self.init(value: Float(value))
    }
}

extension Google_Protobuf_Int64Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self.init(value: value)
    }
}

extension Google_Protobuf_UInt64Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt64) {
        self.init(value: value)
    }
}

extension Google_Protobuf_Int32Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int32) {
        self.init(value: value)
    }
}

extension Google_Protobuf_UInt32Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt32) {
        self.init(value: value)
    }
}

extension Google_Protobuf_BoolValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self.init(value: value)
    }
}

extension Google_Protobuf_StringValue: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(value: value)
    }
}

extension Google_Protobuf_BytesValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: UInt8...) {
        self.init(value: elements)
    }
}
