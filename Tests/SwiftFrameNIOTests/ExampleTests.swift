// The examples of the README and the DocC articles (Examples/Examples.swift, generated from
// them by scripts/examples.py) run as printed against the Python peers, and return.

import NIOConcurrencyHelpers
import Testing

@Suite(.serialized, .timeLimit(.minutes(2))) struct ExampleTests {
    @Test(arguments: runnableExamples.map(\.name))
    func runsToCompletion(_ name: String) async throws {
        let example = try #require(runnableExamples.first { $0.name == name })
        let arguments = try await Self.peerArguments(Array(example.peer.dropFirst()))
        let peer = try await Peer.start(example.peer[0], arguments)
        defer { peer.stop() }
        let start = ContinuousClock.now
        let output = ExampleOutput()
        try await ExampleOutput.$current.withValue(output) { try await example.run(peer.port) }
        #expect(ContinuousClock.now - start < .seconds(20), "it returned, but slowly")
        let printed = output.text
        for expected in example.prints {
            #expect(printed.contains(expected), "the example printed \(printed), without \(expected)")
        }
    }

    /// The marker's arguments for peer.py, with `--tls` standing for the certificate and key of
    /// game.example.com that the README's TLS example trusts and pins.
    static func peerArguments(_ arguments: [String]) async throws -> [String] {
        guard let index = arguments.firstIndex(of: "--tls") else { return arguments }
        #if TLS
        let certificate = try await TestCertificates.load().example
        var expanded = arguments
        expanded.replaceSubrange(
            index...index, with: ["--tls-cert", certificate.certificate, "--tls-key", certificate.key])
        return expanded
        #else
        throw PeerError(description: "an example with a --tls peer needs the TLS trait")
        #endif
    }
}

/// A file an example names (`.file("ca.pem")`), in the test's certificate folder.
func exampleFile(_ name: String) -> String {
    #if TLS
    (try? TestCertificates.shared().path(name)) ?? name
    #else
    name
    #endif
}

/// What the example a test runs prints (`print` in Examples.swift records it here).
final class ExampleOutput: Sendable {
    @TaskLocal static var current: ExampleOutput?

    private let recorded = NIOLockedValueBox("")

    func record(_ text: String) { recorded.withLockedValue { $0 += text } }

    var text: String { recorded.withLockedValue { $0 } }
}
