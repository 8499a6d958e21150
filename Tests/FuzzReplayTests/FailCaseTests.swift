// Every input in FuzzTesting/FailCases (one folder per fuzz target) once made a target crash
// or break its invariant. Each is replayed through the same check the target runs (the
// checks are the files in Checks/, which FuzzTesting/Sources/FuzzChecks links to); a regression
// traps.

import Foundation
import TestSupport
import Testing

@Suite struct FailCaseTests {
    static let checks: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
        "FuzzMessage": checkMessage,
        "FuzzFrames": checkFrames,
        "FuzzLayoutText": checkLayoutText,
        "FuzzPlugin": checkPlugin,
        "FuzzDecoderHandler": checkDecoderHandler,
        "FuzzClientInbound": checkClientInbound,
        "FuzzCapture": checkCapture,
        "FuzzJSON": checkJSON,
        "FuzzTextFormat": checkTextFormat,
    ]

    static let root = Repository.root.appendingPathComponent("FuzzTesting/FailCases").path

    static var cases: [String] {
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return targets.sorted().flatMap { target in
            ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + target)) ?? [])
                .filter { !$0.hasPrefix(".") }.sorted().map { target + "/" + $0 }
        }
    }

    @Test func everyTargetHasACheck() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.root).filter { !$0.hasPrefix(".") }
        #expect(Set(targets) == Set(Self.checks.keys))
        #expect(!Self.cases.isEmpty)
    }

    @Test(arguments: cases) func replay(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + name)))
        let check = try #require(Self.checks[String(name.prefix { $0 != "/" })])
        bytes.withUnsafeBytes { check($0) }
    }
}
