// The client's race of endpoints, against the Python game peer in four guises: an endpoint
// that refuses, one that accepts connections and never answers the login, one whose SYN is
// never answered (its accept queue is full), and a good one.

import NIOConcurrencyHelpers
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct EndpointTests {
    /// The login of these tests: one request, answered by the good peer only.
    static let login: @Sendable (Connection<GameCommands>) async throws -> Void = { connection in
        _ = try await connection.request(TestReq(param1: "login", param2: 1))
    }

    @Test func theGoodEndpointWinsWithinTheStaggerDelaysAndGoesFirstNextTime() async throws {
        let silent = try await Peer.start("game", ["--silent"])
        let unanswered = try await Peer.start("game", ["--no-accept"])
        let good = try await Peer.start("game")
        let endpoints = [try freePort(), silent.port, unanswered.port, good.port].map {
            Endpoint(host: "127.0.0.1", port: $0)
        }
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.reconnect = Backoff(initialDelay: .milliseconds(10), jitter: 0)
        // Ten seconds to connect and to log in: the race must not wait for either to run out.
        // A stagger of a second (the default is 250 ms) keeps the times apart under sanitizers.
        configuration.connectTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(10)
        configuration.connectStagger = .seconds(1)
        let client = FrameClient<GameCommands>(
            endpoints: endpoints, configuration: configuration, onConnect: Self.login)
        let clock = ContinuousClock()
        let start = clock.now
        try await client.running { client in
            let states = client.states
            let first = try await client.connection(within: .seconds(5))
            let took = clock.now - start
            #expect(first.endpoint == endpoints[3])
            // Refused at once, so the silent one starts at 0 s, the unanswered one at 1 s and the
            // good one at 2 s.
            #expect(took >= .milliseconds(1950) && took < .seconds(4), "connected after \(took)")
            let reply = try await client.request(TestReq(param1: "hi", param2: 2))
            #expect(reply.result1 == "echo:hi")

            // Dropped: the good endpoint is tried first, so no stagger delay passes.
            let dropped = clock.now
            first.reconnect()
            var sawDisconnect = false
            for await state in states {
                if case .disconnected = state { sawDisconnect = true }
                if sawDisconnect, case .connected = state { break }
            }
            let again = clock.now - dropped
            let second = try await client.connection(within: .seconds(5))
            #expect(second.endpoint == endpoints[3])
            #expect(again < .seconds(1), "reconnected after \(again)")
            print("race: connected in \(took), reconnected in \(again)")
        }
    }

    @Test func aWrongPasswordAtOneEndpointStopsTheRace() async throws {
        let good = try await Peer.start("game")
        let silent = try await Peer.start("game", ["--silent"])
        struct Rejected: Error {}
        let logins = NIOLockedValueBox(0)
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.connectStagger = .milliseconds(50)
        let client = FrameClient<GameCommands>(
            endpoints: [silent.port, good.port].map { Endpoint(host: "127.0.0.1", port: $0) },
            configuration: configuration
        ) { connection in
            logins.withLockedValue { $0 += 1 }
            _ = try await connection.request(TestReq(param1: "login", param2: 1))
            throw FinalFailure(Rejected())
        }
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: Rejected.self) { try await client.run() }
        // The silent endpoint's login was cancelled, not waited for (its timeout is 15 s). About
        // 0.3 s alone; 2.2 s was seen with the whole NIO suite running beside it on 2 cores.
        #expect(clock.now - start < .seconds(5))
        #expect(logins.withLockedValue { $0 } == 2)
    }

    @Test func everyEndpointFailingIsOneFailedAttempt() async throws {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.reconnect = Backoff(initialDelay: .milliseconds(10), jitter: 0, maxAttempts: 0)
        let endpoints = [try freePort(), try freePort()].map { Endpoint(host: "127.0.0.1", port: $0) }
        let client = FrameClient<GameCommands>(endpoints: endpoints, configuration: configuration)
        do {
            try await client.run()
            Issue.record("run() returned")
        } catch let FrameClientError.gaveUp(attempts, last) {
            #expect(attempts == 1)
            guard case .connectFailed(.refused) = last else {
                Issue.record("expected a refusal, got \(last)")
                return
            }
        }
    }
}
