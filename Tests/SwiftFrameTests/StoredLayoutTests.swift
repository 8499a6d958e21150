import Testing
import TestSupport

/// Every generated message's field table reads each stored property as the type the compiler
/// declared it with (the offsets are the compiler's own: `MemoryLayout.offset(of:)`), in both
/// code modes. The test process links every test target's modules, so each is looked up here
/// by name.
@Suite struct StoredLayoutTests {
    /// Each folder of checked-in generated code, its module, and a message it must hold.
    static let modules: [(folder: String, module: String, holds: String)] = [
        ("Fixtures/generated", "SwiftFrameFixtures", "UserInfo"),
        ("Fixtures/generated-compact", "SwiftFrameFixturesCompact", "UserInfo"),
        ("Sources/SwiftFrameDescriptors/Generated", "SwiftFrameDescriptors", "Google_Protobuf_FieldDescriptorProto"),
        ("Sources/SwiftFrameWellKnownTypes/Generated", "SwiftFrameWellKnownTypes", "Google_Protobuf_Timestamp"),
        (
            "Sources/SwiftFrameConformanceMessages", "SwiftFrameConformanceMessages",
            "ProtobufTestMessages_Proto3_TestAllTypesProto3"
        ),
        (
            "Sources/SwiftFrameConformanceMessagesCompact", "SwiftFrameConformanceMessagesCompact",
            "ProtobufTestMessages_Proto3_TestAllTypesProto3"
        ),
    ]

    @Test(arguments: modules.indices)
    func everyMessagesTableDescribesItsStruct(_ index: Int) throws {
        let (folder, module, holds) = Self.modules[index]
        let (checked, problems) = try StoredLayout.check(folder: folder, module: module)
        #expect(checked.contains(holds) && checked.count > 10, "\(module): \(checked.count) messages checked")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
