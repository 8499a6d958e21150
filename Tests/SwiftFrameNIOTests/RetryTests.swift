// Idempotent requests sent again after a drop, against the Python game peer closing its first
// connections on their first request (`--drop-first N`); the client's budget of requests sent
// again; and the endpoint `states` reports.

import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct RetryTests {
    static func configuration(_ retries: RetryLimits = RetryLimits()) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
        configuration.retries = retries
        return configuration
    }

    /// The first connection closes on the request: marked idempotent, it goes out again on the
    /// second connection and is answered there; `states` names the endpoint of both.
    @Test func anIdempotentRequestIsSentAgainOnTheNextConnection() async throws {
        let peer = try await Peer.start("game", ["--drop-first", "1"])
        let endpoint = Endpoint(host: "127.0.0.1", port: peer.port)
        let client = FrameClient<GameCommands>(endpoints: [endpoint], configuration: Self.configuration())
        let clock = ContinuousClock()
        let states = try await client.running { client in
            let states = client.states
            _ = try await client.connection(within: .seconds(5))
            let start = clock.now
            let delivered = try await client.request(
                TestReq(param1: "again", param2: 3), options: RequestOptions(timeout: .seconds(5), idempotent: true))
            let took = clock.now - start
            #expect(delivered.reply.result1 == "echo:again")
            #expect(delivered.reply.result2 == 6)
            #expect(delivered.retries == 1)
            #expect(delivered.link == .long(endpoint))
            // The reconnect waits 50 ms; well within the 5 s deadline (sanitizers on a busy
            // machine have taken 3.4 s).
            #expect(took >= .milliseconds(45) && took < .milliseconds(4500), "\(took)")
            print("retry: an idempotent request answered on the second connection after \(took) (backoff 50 ms)")
            return states
        }
        var connected: [Endpoint] = []
        for await state in states {
            if case let .connected(at) = state { connected.append(at) }
        }
        #expect(connected == [endpoint, endpoint])
    }

    /// Not marked idempotent, the request fails with `connectionLost` at once, on both forms.
    @Test func aRequestNotMarkedIdempotentFailsWithConnectionLost() async throws {
        let peer = try await Peer.start("game", ["--drop-first", "2"])
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: peer.port, configuration: Self.configuration())
        let clock = ContinuousClock()
        try await client.running { client in
            var start = clock.now
            do {
                _ = try await client.request(TestReq(param1: "once"), timeout: .seconds(5))
                Issue.record("answered")
            } catch FrameClientError.connectionLost(.closedByPeer) {}
            let plainFailed = clock.now - start
            start = clock.now
            do {
                _ = try await client.request(
                    TestReq(param1: "once more"), options: RequestOptions(timeout: .seconds(5)))
                Issue.record("answered")
            } catch FrameClientError.connectionLost(.closedByPeer) {}
            let optionsFailed = clock.now - start
            // Failed, not waited for until the 5 s deadline.
            #expect(plainFailed < .seconds(4) && optionsFailed < .seconds(4), "\(plainFailed) \(optionsFailed)")
            // The third connection answers.
            let reply = try await client.request(TestReq(param1: "third"), timeout: .seconds(5))
            #expect(reply.result1 == "echo:third")
            print("retry: requests not marked idempotent failed after \(plainFailed) and \(optionsFailed)")
        }
    }

    /// The first three connections close on their request. With room for one retry a minute,
    /// an idempotent request is sent twice and then fails, though it may be sent again five
    /// times: the next request is the one the third connection drops. With ten a minute the
    /// same request is answered on the fourth connection.
    @Test func theRetryBudgetStopsRetriesOnceSpent() async throws {
        let options = RequestOptions(timeout: .seconds(5), idempotent: true)
        let clock = ContinuousClock()
        let starved = try await Peer.start("game", ["--drop-first", "3"])
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: starved.port,
            configuration: Self.configuration(RetryLimits(perRequest: 5, perMinute: 1)))
        try await client.running { client in
            let start = clock.now
            do {
                _ = try await client.request(TestReq(param1: "spent"), options: options)
                Issue.record("answered")
            } catch FrameClientError.connectionLost {}
            let failedAfter = clock.now - start
            // Sent on the second connection, dropped there: the third drops the next one.
            do {
                _ = try await client.request(TestReq(param1: "third"), timeout: .seconds(5))
                Issue.record("answered")
            } catch FrameClientError.connectionLost {}
            let fourth = try await client.request(TestReq(param1: "fourth"), timeout: .seconds(5))
            #expect(fourth.result1 == "echo:fourth")
            print("retry budget of 1 a minute: the request failed after \(failedAfter), one retry")
        }

        let funded = try await Peer.start("game", ["--drop-first", "3"])
        let rich = FrameClient<GameCommands>(
            host: "127.0.0.1", port: funded.port,
            configuration: Self.configuration(RetryLimits(perRequest: 5, perMinute: 10)))
        try await rich.running { client in
            let start = clock.now
            let delivered = try await client.request(TestReq(param1: "funded"), options: options)
            #expect(delivered.reply.result1 == "echo:funded")
            #expect(delivered.retries == 3)
            print("retry budget of 10 a minute: answered after \(clock.now - start), \(delivered.retries) retries")
        }

        // At most `perRequest` times, budget or not.
        let limited = try await Peer.start("game", ["--drop-first", "3"])
        let capped = FrameClient<GameCommands>(
            host: "127.0.0.1", port: limited.port,
            configuration: Self.configuration(RetryLimits(perRequest: 2, perMinute: 10)))
        try await capped.running { client in
            do {
                _ = try await client.request(TestReq(param1: "capped"), options: options)
                Issue.record("answered")
            } catch FrameClientError.connectionLost {}
        }
    }
}
