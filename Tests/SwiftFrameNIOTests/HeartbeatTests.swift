// The heartbeat against a NAT box (Tests/Peers/nat.py in front of the Python game peer) that
// silently forgets connections idle longer than 1.5 s: fixed intervals below and above that,
// the adaptive interval learning it, and what `networkChanged()`, `suspend()` and `resume()`
// do to a connection the network has dropped without a word. Each test prints what it
// measured beside what the configuration implies.

import Foundation
import NIOConcurrencyHelpers
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import TestSupport
import Testing

extension Repository {
    static let natScript = root.appendingPathComponent("Tests/Peers/nat.py").path
}

extension Peer {
    /// nat.py forwarding to `peer`, forgetting connections idle longer than `idle` seconds
    /// (0: never).
    static func nat(to peer: Peer, idle: Double) throws -> Peer {
        try Peer(
            script: Repository.natScript, ["--to", "\(peer.port)", "--idle", "\(idle)", "--watch-stdin"], role: "nat")
    }

    /// nat.py: forgets every connection now, as moving to another network does.
    func forgetAll() {
        kill(process.processIdentifier, SIGUSR1)
    }
}

/// A client's states, each with the time it came, recorded by a task of its own, and waited
/// for with a deadline.
final class NATStateLog: Sendable {
    private let entries = NIOLockedValueBox<[(time: ContinuousClock.Instant, state: ConnectionState)]>([])
    private let reader: Task<Void, Never>

    init(_ states: Subscription<ConnectionState>) {
        let entries = entries
        reader = Task {
            for await state in states { entries.withLockedValue { $0.append((.now, state)) } }
        }
    }

    deinit { reader.cancel() }

    var states: [ConnectionState] { entries.withLockedValue { $0.map(\.state) } }

    /// The states that came after `start` and match.
    func matching(after start: ContinuousClock.Instant, _ match: (ConnectionState) -> Bool) -> [ContinuousClock.Instant]
    {
        entries.withLockedValue { $0.filter { $0.time > start && match($0.state) }.map(\.time) }
    }

    /// When the first state after `start` that matches came, waiting for it at most `timeout`.
    func first(
        after start: ContinuousClock.Instant, within timeout: Duration, _ what: String,
        _ match: (ConnectionState) -> Bool
    ) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let time = matching(after: start, match).first { return time }
            guard ContinuousClock.now < deadline else {
                throw PeerError(description: "no \(what) within \(timeout); states: \(states)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

fileprivate extension ConnectionState {
    var isHeartbeatDrop: Bool {
        if case .disconnected(.heartbeatTimeout) = self { true } else { false }
    }

    var isAnyDrop: Bool {
        if case .disconnected = self { true } else { false }
    }
}

@Suite(.serialized, .timeLimit(.minutes(1))) struct HeartbeatTests {
    /// The NAT box's idle timeout, in seconds.
    static let natIdle = 1.5

    static func configuration(_ heartbeat: Heartbeat) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.heartbeat = heartbeat
        configuration.reconnect = Backoff(initialDelay: .milliseconds(50), jitter: 0)
        configuration.requestTimeout = .seconds(3)
        return configuration
    }

    /// A request answered: the connection carries bytes both ways.
    static func echo(_ client: FrameClient<GameCommands>, _ text: String) async throws {
        let reply = try await client.request(TestReq(param1: text, param2: 1))
        #expect(reply.result1 == "echo:\(text)")
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    @Test func aFixedIntervalShorterThanTheNATsKeepsTheConnection() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: Self.natIdle) }
        let configuration = Self.configuration(
            Heartbeat(interval: .milliseconds(500), timeout: .milliseconds(500), retries: 0))
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: nat.port, configuration: configuration)
        let log = NATStateLog(client.states)
        try await client.running { client in
            try await Self.echo(client, "first")
            let start = ContinuousClock.now
            // Idle but for the heartbeat for 4 s, over twice the NAT's timeout.
            try await Task.sleep(for: .seconds(4))
            #expect(log.matching(after: start) { $0.isAnyDrop }.isEmpty, "\(log.states)")
            #expect(client.heartbeatInterval == .milliseconds(500))
            // Still forwarded: without the heartbeat the NAT would have forgotten it.
            try await Self.echo(client, "after")
            print("fixed 0.5 s under a NAT forgetting after \(Self.natIdle) s: no drop in 4 s")
        }
    }

    @Test func aFixedIntervalLongerThanTheNATsIsDetectedDeadAndReplaced() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: Self.natIdle) }
        let heartbeat = Heartbeat(interval: .seconds(2), timeout: .milliseconds(500), retries: 1)
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: nat.port, configuration: Self.configuration(heartbeat))
        let log = NATStateLog(client.states)
        let start = ContinuousClock.now
        try await client.running { client in
            let connected = try await log.first(after: start, within: .seconds(5), "connection") { $0.isConnected }
            // The last traffic, at a time the test knows: the idle time counts from the
            // request's write, which comes after `lastTraffic`. (The log notes a state when its
            // reader gets it, which on a busy machine can be well after the connection came up.)
            let lastTraffic = ContinuousClock.now
            try await Self.echo(client, "last")
            // No traffic from here: the heartbeat at 2 s goes into a forgotten connection, and
            // so does its one retry.
            let dropped = try await log.first(after: connected, within: .seconds(8), "drop") {
                if case .disconnected(.heartbeatTimeout(attempts: 2)) = $0 { true } else { false }
            }
            let replaced = try await log.first(after: dropped, within: .seconds(3), "new connection") { $0.isConnected }
            try await Self.echo(client, "replaced")
            let detect = dropped - lastTraffic
            let implied = heartbeat.interval + heartbeat.timeout * (heartbeat.retries + 1)
            #expect(detect >= implied - .milliseconds(10) && detect < implied + .milliseconds(1500), "\(detect)")
            #expect(replaced - dropped < .seconds(1))
            print(
                "fixed 2 s under a NAT forgetting after \(Self.natIdle) s: silent drop detected after \(Self.seconds(detect)) (configuration: interval + 2 × timeout = \(Self.seconds(implied))), replaced \(Self.seconds(replaced - dropped)) later"
            )
        }
    }

    @Test func theAdaptiveHeartbeatLearnsAnIntervalBelowTheNATsAndKeepsIt() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: Self.natIdle) }
        // 0.2 s, 0.7 s and 1.2 s are answered; 1.7 s is past the NAT's 1.5 s: the first drop
        // (after the fourth idle period) settles a step below the longest answered, at 0.7 s.
        let heartbeat = Heartbeat.adaptive(
            minimum: .milliseconds(200), maximum: .seconds(3), step: .milliseconds(500),
            timeout: .milliseconds(500), retries: 0)
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: nat.port, configuration: Self.configuration(heartbeat))
        let log = NATStateLog(client.states)
        let start = ContinuousClock.now
        try await client.running { client in
            #expect(client.heartbeatInterval == .milliseconds(200))
            // The interval as it moves, polled every 10 ms.
            var steps: [(time: ContinuousClock.Instant, interval: Duration)] = [(start, .milliseconds(200))]
            let deadline = start + .seconds(10)
            while log.matching(after: start, { $0.isHeartbeatDrop }).isEmpty, ContinuousClock.now < deadline {
                if let interval = client.heartbeatInterval, interval != steps.last?.interval {
                    steps.append((.now, interval))
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            let dropped = try await log.first(after: start, within: .seconds(1), "drop") { $0.isHeartbeatDrop }
            if let interval = client.heartbeatInterval, interval != steps.last?.interval {
                steps.append((dropped, interval))
            }
            #expect(
                steps.map(\.interval) == [200, 700, 1200, 1700, 700].map { .milliseconds($0) },
                "\(steps.map(\.interval))")
            _ = try await log.first(after: dropped, within: .seconds(3), "new connection") { $0.isConnected }

            // Kept on the new connection: several idle periods of 0.7 s without a drop, and the
            // connection still forwarded.
            let settled = ContinuousClock.now
            try await Task.sleep(for: .seconds(4))
            #expect(log.matching(after: dropped) { $0.isAnyDrop }.isEmpty, "\(log.states)")
            #expect(client.heartbeatInterval == .milliseconds(700))
            try await Self.echo(client, "kept")

            // A new network: learned again from the start.
            client.networkChanged()
            #expect(client.heartbeatInterval == .milliseconds(200))

            let learned = steps[steps.count - 2].time  // 1.7 s set: the 1.2 s heartbeat was answered
            let detect = dropped - learned
            let implied = Duration.milliseconds(1700) + heartbeat.timeout
            // Both times are when the test saw them (a poll every 10 ms, the log's reader), each
            // late by however long a busy machine takes to run it: room for that below, and
            // still far from the 1.7 s a drop without the timeout would take.
            #expect(detect >= implied - .milliseconds(300) && detect < implied + .milliseconds(1500), "\(detect)")
            let path = steps.map { "\(Self.seconds($0.interval)) at \(Self.seconds($0.time - start))" }.joined(
                separator: ", ")
            print(
                "adaptive 0.2 s + 0.5 s steps under a NAT forgetting after \(Self.natIdle) s: \(path); settled at 0.7 s after 4 idle periods (\(Self.seconds(dropped - start))); the 1.7 s probe's silent drop detected after \(Self.seconds(detect)) (configuration: 1.7 s + timeout = \(Self.seconds(implied))); 0.7 s kept for \(Self.seconds(ContinuousClock.now - settled)) on the next connection"
            )
        }
    }

    @Test func networkChangedKeepsALiveConnectionAndReplacesADeadOneWithinTheCheckTimeout() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: 0) }
        // A heartbeat too rare to matter here: only the check finds the drop.
        let heartbeat = Heartbeat(interval: .seconds(30), timeout: .seconds(5), checkTimeout: .seconds(1))
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: nat.port, configuration: Self.configuration(heartbeat))
        let log = NATStateLog(client.states)
        try await client.running { client in
            try await Self.echo(client, "first")
            // The network changed but the connection lives: the check is answered.
            let alive = ContinuousClock.now
            client.networkChanged()
            try await Task.sleep(for: .milliseconds(1500))
            #expect(log.matching(after: alive) { $0.isAnyDrop }.isEmpty, "\(log.states)")
            try await Self.echo(client, "still")

            // The NAT forgets the connection, as a move to another network does.
            nat.forgetAll()
            try await Task.sleep(for: .milliseconds(200))
            let changed = ContinuousClock.now
            client.networkChanged()
            let dropped = try await log.first(after: changed, within: .seconds(4), "drop") {
                if case .disconnected(.heartbeatTimeout(attempts: 1)) = $0 { true } else { false }
            }
            let replaced = try await log.first(after: dropped, within: .seconds(3), "new connection") { $0.isConnected }
            try await Self.echo(client, "replaced")
            #expect(
                dropped - changed >= .milliseconds(900) && dropped - changed < .milliseconds(2500),
                "\(dropped - changed)")
            print(
                "networkChanged(): a dead connection dropped after \(Self.seconds(dropped - changed)) (checkTimeout 1 s), replaced after \(Self.seconds(replaced - changed)) (checkTimeout + 50 ms backoff + connect)"
            )
        }
    }

    @Test func networkChangedEndsTheBackoffWaitAndStartsTheDelaysAgain() async throws {
        let port = try freePort(held: false)
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        // 0.1 s, 1 s, 10 s, ... between attempts to a port nobody listens on yet.
        configuration.reconnect = Backoff(
            initialDelay: .milliseconds(100), multiplier: 10, maxDelay: .seconds(30), jitter: 0)
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, configuration: configuration)
        let log = NATStateLog(client.states)
        let start = ContinuousClock.now
        try await client.running { client in
            let longWait = try await log.first(after: start, within: .seconds(5), "the third wait") {
                if case .reconnecting(attempt: 3, delay: .seconds(10)) = $0 { true } else { false }
            }
            try await Task.sleep(for: .milliseconds(100))
            let changed = ContinuousClock.now
            client.networkChanged()
            // The 10 s wait ended at once; the attempt failed again and waits the first delay.
            let again = try await log.first(after: changed, within: .seconds(2), "a first delay") {
                if case .reconnecting(attempt: 1, delay: .milliseconds(100)) = $0 { true } else { false }
            }
            #expect(again - changed < .seconds(1), "\(again - changed)")
            #expect(changed - longWait < .seconds(1))

            // The server comes up during a long wait; a network change connects at once.
            _ = try await log.first(after: again, within: .seconds(5), "the third wait again") {
                if case .reconnecting(attempt: 3, delay: .seconds(10)) = $0 { true } else { false }
            }
            let game = try await Peer.start("game", port: port)
            let second = ContinuousClock.now
            client.networkChanged()
            let connected = try await log.first(after: second, within: .seconds(3), "connection") { $0.isConnected }
            try await Self.echo(client, "up")
            #expect(connected - second < .seconds(1), "\(connected - second)")
            print(
                "networkChanged() during a 10 s backoff wait: next attempt after \(Self.seconds(again - changed)) (attempt 1, 100 ms delay again); connected \(Self.seconds(connected - second)) after the server came up"
            )
            game.stop()
        }
    }

    @Test func suspendedNoHeartbeatGoesOutAndResumeChecksAtOnce() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: Self.natIdle) }
        // Heartbeats every 0.5 s keep the NAT's entry; an unanswered one would take 2 s to
        // count, the check on resuming 0.3 s.
        let heartbeat = Heartbeat(
            interval: .milliseconds(500), timeout: .seconds(2), retries: 0,
            checkTimeout: .milliseconds(300))
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: nat.port, configuration: Self.configuration(heartbeat))
        let log = NATStateLog(client.states)
        try await client.running { client in
            try await Self.echo(client, "first")
            let suspended = ContinuousClock.now
            client.suspend()
            // 2.5 s in the background: with no heartbeat, the NAT forgets the connection, and
            // nothing notices meanwhile.
            try await Task.sleep(for: .milliseconds(2500))
            #expect(log.matching(after: suspended) { $0.isAnyDrop }.isEmpty, "\(log.states)")
            let resumed = ContinuousClock.now
            client.resume()
            let dropped = try await log.first(after: resumed, within: .seconds(4), "drop") { $0.isHeartbeatDrop }
            let replaced = try await log.first(after: dropped, within: .seconds(3), "new connection") { $0.isConnected }
            try await Self.echo(client, "back")
            // The check's 0.3 s, not the next heartbeat's (up to 0.5 s, then 2 s for its answer).
            #expect(dropped - resumed < .milliseconds(1200), "\(dropped - resumed)")
            print(
                "resume() after 2.5 s suspended (interval 0.5 s, NAT forgets after \(Self.natIdle) s): dead connection dropped after \(Self.seconds(dropped - resumed)) (checkTimeout 0.3 s; the heartbeat's own timeout is 2 s), replaced after \(Self.seconds(replaced - resumed))"
            )
        }
    }

    @Test func resumeAfterAShortSilenceLeavesItToTheHeartbeat() async throws {
        let game = try await Peer.start("game")
        let nat = try await offThePool { try Peer.nat(to: game, idle: 0) }
        let heartbeat = Heartbeat(
            interval: .seconds(1), timeout: .seconds(1), retries: 0, checkTimeout: .milliseconds(200))
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: nat.port, configuration: Self.configuration(heartbeat))
        let log = NATStateLog(client.states)
        try await client.running { client in
            try await Self.echo(client, "first")
            let traffic = ContinuousClock.now
            nat.forgetAll()  // dead, but nothing tells yet
            client.suspend()
            try await Task.sleep(for: .milliseconds(300))
            let resumed = ContinuousClock.now
            client.resume()  // silent for 0.3 s, less than the interval: no check
            let dropped = try await log.first(after: resumed, within: .seconds(5), "drop") { $0.isHeartbeatDrop }
            // The heartbeat's 1 s of idleness and 1 s for its answer, not the check's 0.2 s.
            #expect(dropped - resumed > .seconds(1), "\(dropped - resumed)")
            #expect(dropped - traffic < .seconds(3) + .milliseconds(1500), "\(dropped - traffic)")
            print(
                "resume() after 0.3 s suspended (interval 1 s): no check; the dead connection dropped by the heartbeat \(Self.seconds(dropped - traffic)) after the last traffic (interval + timeout = 2 s)"
            )
        }
    }
}

/// The adaptive heartbeat against NATs of 3 s and of 1.5 s at once, each learned and then kept
/// for a whole minute: no drop after the one that ended the learning.
@Suite(.timeLimit(.minutes(3))) struct HeartbeatMarginTests {
    @Test func afterLearningTheIntervalKeepsAMarginAndTheConnectionLivesAMinute() async throws {
        // (the NAT's idle limit, the first interval and the step), in seconds.
        let cases: [(nat: Double, step: Double)] = [(3, 1), (1.5, 0.5)]
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for (nat, step) in cases {
                group.addTask {
                    let game = try await Peer.start("game")
                    let natBox = try await offThePool { try Peer.nat(to: game, idle: nat) }
                    let heartbeat = Heartbeat.adaptive(
                        minimum: .seconds(step), maximum: .seconds(nat * 4), step: .seconds(step), retries: 0)
                    let client = FrameClient<GameCommands>(
                        host: "127.0.0.1", port: natBox.port, configuration: HeartbeatTests.configuration(heartbeat))
                    let log = NATStateLog(client.states)
                    let start = ContinuousClock.now
                    return try await client.running { client in
                        // Learning: up a step per answered heartbeat until one dies past the NAT's limit.
                        let dropped = try await log.first(after: start, within: .seconds(30), "the learning's drop") {
                            $0.isHeartbeatDrop
                        }
                        let settled = try await log.first(after: dropped, within: .seconds(3), "a new connection") {
                            $0.isConnected
                        }
                        let interval = try #require(client.heartbeatInterval)
                        #expect(interval <= .seconds(nat - step), "NAT \(nat) s: settled at \(interval), no margin")
                        try await Task.sleep(for: .seconds(60))
                        #expect(log.matching(after: settled) { $0.isAnyDrop }.isEmpty, "NAT \(nat) s: \(log.states)")
                        #expect(client.heartbeatInterval == interval, "kept")
                        try await HeartbeatTests.echo(client, "a minute later")
                        return
                            "NAT \(nat) s, steps of \(step) s: the drop after \(HeartbeatTests.seconds(dropped - start)), settled at \(interval), kept 60 s without a drop"
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for line in results { print(line) }
    }
}
