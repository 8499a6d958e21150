// The examples of the README and the DocC articles (Examples/Examples.swift, generated from
// them by scripts/examples.py) run as printed against the Python peers, and return.

import Testing

@Suite(.serialized, .timeLimit(.minutes(2))) struct ExampleTests {
    @Test(arguments: runnableExamples.map(\.name))
    func runsToCompletion(_ name: String) async throws {
        let example = try #require(runnableExamples.first { $0.name == name })
        let peer = try Peer(example.peer[0], Array(example.peer.dropFirst()))
        defer { peer.stop() }
        let start = ContinuousClock.now
        try await example.run(peer.port)
        #expect(ContinuousClock.now - start < .seconds(20), "it returned, but slowly")
    }
}
