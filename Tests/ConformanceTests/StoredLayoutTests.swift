import Testing
import TestSupport

/// The conformance messages' and the well-known types' field tables read each stored property
/// as the type the compiler declared it with (see `StoredLayout`).
@Suite struct StoredLayoutTests {
    #if COMPACT
    static let messages = ("Sources/SwiftFrameConformanceMessagesCompact", "SwiftFrameConformanceMessagesCompact")
    #else
    static let messages = ("Sources/SwiftFrameConformanceMessages", "SwiftFrameConformanceMessages")
    #endif

    @Test func everyConformanceMessagesTableDescribesItsStruct() throws {
        let (checked, problems) = try StoredLayout.check(folder: Self.messages.0, module: Self.messages.1)
        #expect(checked.contains("ProtobufTestMessages_Proto3_TestAllTypesProto3") && checked.count > 15)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func everyWellKnownTypesTableDescribesItsStruct() throws {
        let (checked, problems) = try StoredLayout.check(
            folder: "Sources/SwiftFrameWellKnownTypes/Generated", module: "SwiftFrameWellKnownTypes")
        #expect(checked.contains("Google_Protobuf_Timestamp") && checked.count > 10)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
