import Testing
import TestSupport

/// Every generated message's field table reads each stored property as the type the compiler
/// declared it with (the offsets are the compiler's own: `MemoryLayout.offset(of:)`).
@Suite struct StoredLayoutTests {
    #if COMPACT
    static let module = "SwiftFrameFixturesCompact"
    #else
    static let module = "SwiftFrameFixtures"
    #endif

    @Test func everyFixtureMessagesTableDescribesItsStruct() throws {
        let (checked, problems) = try StoredLayout.check(folder: generatedFixturesFolder, module: Self.module)
        #expect(checked.count > 60)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func everyDescriptorMessagesTableDescribesItsStruct() throws {
        let (checked, problems) = try StoredLayout.check(
            folder: "Sources/SwiftFrameDescriptors/Generated", module: "SwiftFrameDescriptors")
        #expect(checked.contains("Google_Protobuf_FieldDescriptorProto") && checked.count > 25)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
