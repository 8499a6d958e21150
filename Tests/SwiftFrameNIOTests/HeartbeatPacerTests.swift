// The heartbeat's interval on its own, without sockets: fixed, and learned in adaptive mode
// from answered and missed idle heartbeats, settling a margin below the longest answered one
// and probing again after a quiet spell.

@testable import SwiftFrameNIO
import Testing

@Suite struct HeartbeatPacerTests {
    /// 10 s, up by 10 s, at most 50 s; settles a step (10 s) below the longest answered.
    static let adaptive = Heartbeat.adaptive(minimum: .seconds(10), maximum: .seconds(50), step: .seconds(10))
    static let t0 = ContinuousClock.now

    /// The time `seconds` after the test's start.
    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }

    @Test func fixedNeverMoves() {
        var pacer = HeartbeatPacer(Heartbeat(interval: .seconds(90)))
        #expect(!pacer.isAdaptive)
        pacer.answered(pacer.probe, at: Self.at(0))
        #expect(pacer.interval == .seconds(90))
        pacer.missed(pacer.probe, at: Self.at(1))
        #expect(pacer.interval == .seconds(90))
        pacer.reset()
        #expect(pacer.interval == .seconds(90))
    }

    @Test func aHeartbeatsTimeoutIsAtMostItsInterval() {
        #expect(Heartbeat().timeout == .seconds(10))
        #expect(Heartbeat(interval: .milliseconds(500)).timeout == .milliseconds(500))
        #expect(Heartbeat(interval: .milliseconds(500), timeout: .seconds(2)).timeout == .seconds(2), "as given")
        #expect(Heartbeat.adaptive(minimum: .seconds(1)).timeout == .seconds(1))
        #expect(Heartbeat.adaptive().timeout == .seconds(10))
    }

    @Test func adaptiveGoesUpAStepPerAnswerToTheMaximum() {
        var pacer = HeartbeatPacer(Self.adaptive)
        #expect(pacer.interval == .seconds(10))
        var seen: [Duration] = []
        for second in 0..<6 {
            pacer.answered(pacer.probe, at: Self.at(second))
            seen.append(pacer.interval)
        }
        #expect(seen == [20, 30, 40, 50, 50, 50].map { .seconds($0) })
        #expect(pacer.proven == .seconds(50))
        #expect(pacer.probing)
    }

    @Test func aMissSettlesAMarginBelowTheLongestAnsweredIntervalAndKeepsIt() {
        var pacer = HeartbeatPacer(Self.adaptive)
        pacer.answered(pacer.probe, at: Self.at(0))  // 10 s answered: 20 s
        pacer.answered(pacer.probe, at: Self.at(1))  // 20 s answered: 30 s
        pacer.answered(pacer.probe, at: Self.at(2))  // 30 s answered, at the NAT's limit: 40 s
        pacer.missed(pacer.probe, at: Self.at(3))  // 40 s dropped: not 30 s, the edge, but 20 s
        #expect(pacer.interval == .seconds(20))
        #expect(!pacer.probing)
        for second in 4..<9 { pacer.answered(pacer.probe, at: Self.at(second)) }
        #expect(pacer.interval == .seconds(20), "no more probing upwards")
        // The kept interval fails too (a stricter network): a step down, kept.
        pacer.missed(pacer.probe, at: Self.at(10))
        #expect(pacer.interval == .seconds(10))
        pacer.missed(pacer.probe, at: Self.at(11))
        #expect(pacer.interval == .seconds(10), "never below the minimum")
        pacer.answered(pacer.probe, at: Self.at(12))
        #expect(pacer.interval == .seconds(10))
    }

    @Test func theMarginIsTheConfigurations() {
        var heartbeat = Self.adaptive
        heartbeat.margin = .seconds(5)
        var pacer = HeartbeatPacer(heartbeat)
        pacer.answered(pacer.probe, at: Self.at(0))
        pacer.answered(pacer.probe, at: Self.at(1))
        pacer.missed(pacer.probe, at: Self.at(2))  // 30 s dropped, 20 s answered: 15 s
        #expect(pacer.interval == .seconds(15))
        heartbeat.margin = .seconds(60)
        pacer = HeartbeatPacer(heartbeat)
        pacer.answered(pacer.probe, at: Self.at(0))
        pacer.missed(pacer.probe, at: Self.at(1))
        #expect(pacer.interval == .seconds(10), "never below the minimum")
    }

    @Test func aSettledIntervalProbesAgainAfterAQuietSpell() {
        var heartbeat = Self.adaptive
        heartbeat.probeAgainAfter = .seconds(100)
        var pacer = HeartbeatPacer(heartbeat)
        pacer.answered(pacer.probe, at: Self.at(0))  // 20 s
        pacer.answered(pacer.probe, at: Self.at(1))  // 30 s
        pacer.missed(pacer.probe, at: Self.at(10))  // settled at 10 s
        #expect(pacer.interval == .seconds(10))
        pacer.answered(pacer.probe, at: Self.at(109))
        #expect(pacer.interval == .seconds(10) && !pacer.probing, "99 s without a drop: still settled")
        pacer.answered(pacer.probe, at: Self.at(110))
        #expect(pacer.interval == .seconds(20) && pacer.probing, "100 s: probing again")
        pacer.answered(pacer.probe, at: Self.at(111))
        #expect(pacer.interval == .seconds(30))
        pacer.missed(pacer.probe, at: Self.at(112))  // 30 s died again: settled at 10 s again
        #expect(pacer.interval == .seconds(10) && !pacer.probing)
        pacer.answered(pacer.probe, at: Self.at(150))
        #expect(pacer.interval == .seconds(10), "the quiet spell counts from the last drop")
    }

    @Test func aMissWithNothingAnsweredGoesAStepDown() {
        var heartbeat = Self.adaptive
        heartbeat.interval = .seconds(40)  // started from an interval learned before
        var pacer = HeartbeatPacer(heartbeat)
        #expect(pacer.interval == .seconds(40))
        pacer.missed(pacer.probe, at: Self.at(0))
        #expect(pacer.interval == .seconds(30))
        pacer.answered(pacer.probe, at: Self.at(1))
        #expect(pacer.interval == .seconds(30))
    }

    @Test func theFirstIntervalIsKeptWithinTheBounds() {
        var heartbeat = Self.adaptive
        heartbeat.interval = .seconds(90)
        #expect(HeartbeatPacer(heartbeat).interval == .seconds(50))
        heartbeat.interval = .seconds(1)
        #expect(HeartbeatPacer(heartbeat).interval == .seconds(10))
    }

    @Test func aResetLearnsAgainAndLateReportsAreIgnored() {
        var pacer = HeartbeatPacer(Self.adaptive)
        pacer.answered(pacer.probe, at: Self.at(0))
        pacer.answered(pacer.probe, at: Self.at(1))
        pacer.missed(pacer.probe, at: Self.at(2))
        let old = pacer.probe  // 10 s, kept
        pacer.reset()
        #expect(pacer.interval == .seconds(10) && pacer.probing && pacer.proven == nil && pacer.settledAt == nil)
        pacer.missed(old, at: Self.at(3))
        #expect(pacer.interval == .seconds(10) && pacer.probing, "a report from before the reset")
        // A report about an interval since replaced.
        let first = pacer.probe
        pacer.answered(first, at: Self.at(4))
        pacer.answered(first, at: Self.at(5))
        #expect(pacer.interval == .seconds(20))
        pacer.missed(first, at: Self.at(6))
        #expect(pacer.interval == .seconds(20) && pacer.probing)
    }
}
