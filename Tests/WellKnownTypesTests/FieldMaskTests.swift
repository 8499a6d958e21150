import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

@Suite struct FieldMaskTests {
    @Test func variadicPaths() {
        #expect(Google_Protobuf_FieldMask(paths: "name", "address.city").paths == ["name", "address.city"])
        #expect(Google_Protobuf_FieldMask(paths: "only").paths == ["only"])
        #expect(Google_Protobuf_FieldMask(paths: "b", "a", "b").paths == ["b", "a", "b"])  // kept as given
    }

    @Test func arraysStillUseTheMemberwiseInit() {
        let paths = ["x", "y.z"]
        #expect(Google_Protobuf_FieldMask(paths: paths).paths == paths)
        #expect(Google_Protobuf_FieldMask(paths: ["x"]).paths == ["x"])
        #expect(Google_Protobuf_FieldMask(paths: []) == Google_Protobuf_FieldMask())
    }
}
