import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

@Suite struct WrapperTests {
    @Test func integerLiterals() {
        let int32: Google_Protobuf_Int32Value = -2_147_483_648
        let int64: Google_Protobuf_Int64Value = -9_223_372_036_854_775_808
        let uint32: Google_Protobuf_UInt32Value = 4_294_967_295
        let uint64: Google_Protobuf_UInt64Value = 18_446_744_073_709_551_615
        #expect(int32.value == .min && int64.value == .min && uint32.value == .max && uint64.value == .max)
        let zero: Google_Protobuf_Int32Value = 0
        #expect(zero == Google_Protobuf_Int32Value())
    }

    @Test func floatingPointLiterals() {
        let double: Google_Protobuf_DoubleValue = 1.5
        let doubleFromInteger: Google_Protobuf_DoubleValue = -3
        let float: Google_Protobuf_FloatValue = 0.1
        let floatFromInteger: Google_Protobuf_FloatValue = 16_777_217  // rounds as Float(16_777_217) does
        let negativeZero: Google_Protobuf_DoubleValue = -0.0
        #expect(double.value == 1.5 && doubleFromInteger.value == -3)
        #expect(float.value == Float(0.1) && floatFromInteger.value == 16_777_216)
        #expect(negativeZero.value.sign == .minus)
    }

    @Test func boolStringAndBytesLiterals() {
        let yes: Google_Protobuf_BoolValue = true
        let no: Google_Protobuf_BoolValue = false
        let name: Google_Protobuf_StringValue = "héllo"
        let count = 3
        let interpolated: Google_Protobuf_StringValue = "\(count) items"
        let bytes: Google_Protobuf_BytesValue = [0, 255, 7]
        let none: Google_Protobuf_BytesValue = []
        #expect(yes.value && !no.value && no == Google_Protobuf_BoolValue())
        #expect(name.value == "héllo" && interpolated.value == "3 items")
        #expect(bytes.value == [0, 255, 7] && none == Google_Protobuf_BytesValue())
    }

    @Test func literalsInOptionalFields() {
        // Wrapper-typed fields are optional in generated messages; a literal fills them in.
        var maybe: Google_Protobuf_Int32Value? = 5
        #expect(maybe?.value == 5)
        maybe = nil
        #expect(maybe == nil)
        let label: Google_Protobuf_StringValue? = "x"
        #expect(label == Google_Protobuf_StringValue(value: "x"))
        #expect(Optional<Google_Protobuf_StringValue>.none == nil)
    }
}
