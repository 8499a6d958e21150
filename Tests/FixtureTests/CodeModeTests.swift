// The fixtures generated with optimize_for = CODE_SIZE (SwiftFrameFixturesCompact) against the
// default ones: every message, on every input the fixture suites build and on those inputs cut
// short and corrupted, decodes, encodes, prints and fails alike (see TestSupport's CodeModes).

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

@Suite("Both code modes of the fixtures behave alike")
struct FixtureCodeModeTests {
    static let modules = (
        speed: (folder: "Fixtures/generated", module: "SwiftFrameFixtures"),
        codeSize: (folder: "Fixtures/generated-compact", module: "SwiftFrameFixturesCompact")
    )

    static let found = Result { try CodeModes.pairs(speed: modules.speed, codeSize: modules.codeSize) }

    /// The values the fixture suites check against protoc, encoded, by full message name.
    static let seeds: [String: [[UInt8]]] = {
        let cases =
            EverythingTests.scalarCases + EverythingTests.structureCases + EverythingTests.nestedTypeCases
            + EverythingTests.recursiveCases + MessageRoundTripTests.imCases + MessageRoundTripTests.userCases
            + MessageRoundTripTests.gameCases + MessageRoundTripTests.namingCases
            + MessageRoundTripTests.zeroValueCases
        var seeds = Dictionary(grouping: cases, by: \.messageName).mapValues { $0.map(\.bytes) }
        func add<M: Message>(_ value: M) {
            seeds[M.protoMessageName, default: []].append((try? value.serializedBytes(partial: true)) ?? [])
        }
        add(Samples.full)
        add(Samples.other)
        add(Samples.tree)
        add(Proto2AccountTests.full)
        add(Proto2ExtensionTests.extended())
        seeds[Legacy_Account.protoMessageName, default: []].append(Proto2ExtensionTests.badNickname)
        for packing in PackingTests.cases {
            seeds[Everything.protoMessageName, default: []] += [
                packing.packed, packing.unpacked, packing.packed + packing.unpacked,
            ]
        }
        return seeds
    }()

    @Test func everyMessageHasItsTwin() throws {
        let (pairs, problems) = try Self.found.get()
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(pairs.count > 50, "\(pairs.count) messages")
        #expect(pairs.allSatisfy { !($0.speed is any CompactMessage.Type) && $0.codeSize is any CompactMessage.Type })
    }

    /// The comparison sees a difference where there is one: Everything's inputs read as Maps in
    /// CODE_SIZE mode.
    @Test func aPairOfTwoMessagesDiffers() throws {
        let pairs = try Self.found.get().pairs
        let everything = try #require(pairs.first { $0.name == "Everything" })
        let maps = try #require(pairs.first { $0.name == "Maps" })
        let mismatched = CodeModes.Pair(name: "Everything/Maps", speed: everything.speed, codeSize: maps.codeSize)
        let bytes = try Samples.full.serializedBytes()
        #expect(CodeModes.difference(mismatched, bytes) != nil)
        #expect(CodeModes.difference(everything, bytes) == nil)
    }

    @Test(arguments: try found.get().pairs)
    func behavesAlike(_ pair: CodeModes.Pair) {
        let seeds =
            Self.seeds[pair.speed.protoMessageName, default: []] + [
                SampleBytes.fields(pair.speed.textFormatFields, depth: 0)
            ]
        var differences = 0
        for input in CodeModes.inputs(seeds) {
            guard let difference = CodeModes.difference(pair, input) else { continue }
            differences += 1
            if differences <= 3 { Issue.record("\(difference)") }
        }
    }
}
