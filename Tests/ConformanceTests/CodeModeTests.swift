// The conformance messages generated with optimize_for = CODE_SIZE
// (SwiftFrameConformanceMessagesCompact) against the default ones: every message, on the wire
// corpus, on every field protoc encodes and on those inputs cut short and corrupted, decodes,
// encodes, prints and fails alike (see TestSupport's CodeModes).

import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

@Suite("Both code modes of the conformance messages behave alike")
struct ConformanceCodeModeTests {
    static let found = Result {
        try CodeModes.pairs(
            speed: (folder: "Sources/SwiftFrameConformanceMessages", module: "SwiftFrameConformanceMessages"),
            codeSize: (
                folder: "Sources/SwiftFrameConformanceMessagesCompact", module: "SwiftFrameConformanceMessagesCompact"
            ))
    }

    /// The corpus's inputs, and every field of each test message as protoc encodes it, by full
    /// message name.
    static let seeds: Result<[String: [[UInt8]]], any Error> = Result {
        var seeds = Dictionary(grouping: Corpus.all, by: \.syntax.messageType).mapValues { $0.map(\.input) }
        for syntax in Syntax.allCases {
            seeds[syntax.messageType, default: []].append(try Protoc.encode(everyFieldText, as: syntax.messageType))
        }
        return seeds
    }

    @Test func everyMessageHasItsTwin() throws {
        let (pairs, problems) = try Self.found.get()
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(pairs.contains { $0.name == "ProtobufTestMessages_Proto2_TestAllTypesProto2" } && pairs.count > 20)
        #expect(pairs.allSatisfy { !($0.speed is any CompactMessage.Type) && $0.codeSize is any CompactMessage.Type })
    }

    @Test(arguments: try found.get().pairs)
    func behavesAlike(_ pair: CodeModes.Pair) throws {
        let seeds =
            try Self.seeds.get()[pair.speed.protoMessageName, default: []]
            + [SampleBytes.fields(pair.speed.textFormatFields, depth: 0)]
        var differences = 0
        for input in CodeModes.inputs(seeds) {
            guard let difference = CodeModes.difference(pair, input) else { continue }
            differences += 1
            if differences <= 3 { Issue.record("\(difference)") }
        }
    }
}
