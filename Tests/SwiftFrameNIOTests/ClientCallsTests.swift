// The app's calls in the states where they changed, over loopback: `reconnectNow()` during a
// login calls it off and logs in again at once, and `resume()` during a backoff wait ends it.
// The whole table is ClientStateTableTests', without sockets.

import NIOConcurrencyHelpers
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

@Suite(.timeLimit(.minutes(1))) struct ClientCallsTests {
    /// The backoff is 10 s, so a client that waited it out would not be connected in time.
    static func slowBackoff() -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.reconnect = Backoff(initialDelay: .seconds(10), jitter: 0)
        return configuration
    }

    struct Logins: Sendable {
        var started = 0
        var cancelled = 0
    }

    /// The first login hangs (until its task is cancelled); `reconnectNow()` while it hangs
    /// cancels it, closes its connection and logs in again on a new one at once.
    @Test func reconnectNowDuringALoginCallsItOffAndLogsInAgainAtOnce() async throws {
        let logins = NIOLockedValueBox(Logins())
        try await withServer(GameCommands.self, handler: gameHandler) { server, port in
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: port, configuration: Self.slowBackoff(),
                onConnect: { _ in
                    let first = logins.withLockedValue { logins in
                        logins.started += 1
                        return logins.started == 1
                    }
                    guard first else { return }
                    do {
                        try await Task.sleep(for: .seconds(30))
                    } catch {
                        logins.withLockedValue { $0.cancelled += 1 }
                        throw error
                    }
                })
            try await client.running { client in
                let hanging = await eventually { logins.withLockedValue { $0.started } == 1 }
                try #require(hanging)
                let asked = ContinuousClock.now
                client.reconnectNow()
                let reply = try await client.request(TestReq(param1: "after"), timeout: .seconds(5))
                #expect(reply.result1 == "echo:after")
                #expect(ContinuousClock.now - asked < .seconds(5), "not after the 10 s backoff")
                let seen = logins.withLockedValue { $0 }
                #expect(seen.started == 2 && seen.cancelled == 1, "\(seen)")
                let oneLeft = await eventually { server.connectionIDs.count == 1 }
                #expect(oneLeft, "the first login's connection was closed: \(server.connectionIDs)")
            }
        }
    }

    /// Suspended, the client still reconnects after a failed login, but waits the backoff's
    /// 10 s; `resume()` ends that wait and it connects at once.
    @Test func resumeDuringABackoffWaitConnectsAtOnce() async throws {
        struct Refused: Error {}
        let logins = NIOLockedValueBox(0)
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            let client = FrameClient<GameCommands>(
                host: "127.0.0.1", port: port, configuration: Self.slowBackoff(),
                onConnect: { _ in
                    let count = logins.withLockedValue { count in
                        count += 1
                        return count
                    }
                    if count == 1 { throw Refused() }
                })
            client.suspend()
            let states = client.states
            try await client.running { client in
                var backingOff = false
                for await state in states {
                    if case .reconnecting(attempt: 1, delay: .seconds(10)) = state {
                        backingOff = true
                        break
                    }
                }
                try #require(backingOff)
                let resumed = ContinuousClock.now
                client.resume()
                let reply = try await client.request(TestReq(param1: "back"), timeout: .seconds(5))
                #expect(reply.result1 == "echo:back")
                #expect(ContinuousClock.now - resumed < .seconds(5), "not after the 10 s backoff")
                #expect(logins.withLockedValue { $0 } == 2)
            }
        }
    }
}
