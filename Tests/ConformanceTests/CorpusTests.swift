// Runs the corpus through the generated types in this process, and through the testee binary in
// both code modes (every case in one process, as the conformance runner sends them).

import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

/// What one case got: the bytes written back, or the decoder's error.
enum Outcome: Equatable, CustomStringConvertible {
    case output([UInt8])
    case parseError(name: String?, text: String)
    case other(String)

    var description: String {
        switch self {
        case let .output(bytes): return "output \(hex(bytes))"
        case let .parseError(name, text): return "parse_error \(name ?? "?"): \(text)"
        case let .other(text): return text
        }
    }
}

/// Checks an outcome against the case's expectation.
func check(_ outcome: Outcome, _ wireCase: WireCase, via: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let context = "\(via) \(wireCase.testDescription)\n  input:    \(hex(wireCase.input))"
    switch (wireCase.expectation, outcome) {
    case let (.output(expected), .output(actual)):
        #expect(
            actual == expected, "\(context)\n  expected: \(hex(expected))\n  got:      \(hex(actual))",
            sourceLocation: sourceLocation)
    case let (.equivalent(expected), .output(actual)):
        let want = RawField.parse(expected), got = RawField.parse(actual)
        #expect(
            want != nil && want == got,
            "\(context)\n  expected fields: \(want?.description ?? "-")\n  got:             \(hex(actual))",
            sourceLocation: sourceLocation)
    case let (.parseError(expectedName), .parseError(name, text)):
        #expect(!text.isEmpty, "\(context): parse_error without text", sourceLocation: sourceLocation)
        if let expectedName, let name {
            #expect(
                name == expectedName, "\(context)\n  expected \(expectedName), got \(name): \(text)",
                sourceLocation: sourceLocation)
        }
    default:
        Issue.record(
            "\(context)\n  expected: \(wireCase.expectation)\n  got:      \(outcome)", sourceLocation: sourceLocation)
    }
}

@Suite("Wire corpus")
struct CorpusTests {
    /// The generated TestAllTypesProto2/3 decode and re-encode each input as C++ does.
    @Test("Generated types", arguments: Corpus.all)
    func generatedTypes(_ wireCase: WireCase) {
        let outcome: Outcome
        do {
            outcome = .output(try wireCase.syntax.roundTrip(wireCase.input))
        } catch {
            outcome = .parseError(name: caseName(error), text: error.description)
        }
        check(outcome, wireCase, via: "generated type:")
    }

    /// Every case through one testee process of each mode.
    static let speedOutcomes = outcomes(of: .speed)
    static let codeSizeOutcomes = outcomes(of: .codeSize)

    static func outcomes(of testee: Testee) -> Result<[Outcome], ProcessFailure> {
        let requests = Corpus.all.map { Testee.request($0.input, type: $0.syntax.messageType) }
        do {
            let responses = try testee.exchange(requests)
            return .success(
                responses.map { response in
                    switch response.result {
                    case let .protobufPayload(bytes)?: return .output(bytes)
                    case let .parseError(text)?: return .parseError(name: nil, text: text)
                    default: return .other(String(describing: response.result))
                    }
                })
        } catch {
            return .failure(ProcessFailure(command: "swiftframe-conformance", status: -1, stderr: "\(error)"))
        }
    }

    static let indexByName: [String: Int] = Dictionary(
        Corpus.all.enumerated().map { ($1.testDescription, $0) }, uniquingKeysWith: { first, _ in first })

    @Test("Testee process", arguments: Testee.bothModes, Corpus.all)
    func testee(_ testee: Testee, _ wireCase: WireCase) throws {
        let outcomes = try (testee.isCodeSize ? Self.codeSizeOutcomes : Self.speedOutcomes).get()
        let index = try #require(Self.indexByName[wireCase.testDescription])
        check(outcomes[index], wireCase, via: "testee \(testee.testDescription):")
    }

    /// The corpus covers what it claims (and no two cases share a name).
    @Test func corpusShape() {
        let names = Corpus.all.map(\.testDescription)
        #expect(
            Set(names).count == names.count,
            "duplicate names: \(Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        for syntax in Syntax.allCases {
            let cases = Corpus.all.filter { $0.syntax == syntax }
            let errors = cases.filter { if case .parseError = $0.expectation { return true } else { return false } }
            #expect(cases.count > 300 && errors.count > 100, "\(syntax): \(cases.count) cases, \(errors.count) invalid")
        }
    }
}
