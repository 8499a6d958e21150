// The heartbeat's interval on its own, without sockets: fixed, and learned in adaptive mode
// from answered and missed idle heartbeats.

@testable import SwiftFrameNIO
import Testing

@Suite struct HeartbeatPacerTests {
    /// 10 s, up by 10 s, at most 50 s.
    static let adaptive = Heartbeat.adaptive(minimum: .seconds(10), maximum: .seconds(50), step: .seconds(10))

    @Test func fixedNeverMoves() {
        var pacer = HeartbeatPacer(Heartbeat(interval: .seconds(90)))
        #expect(!pacer.isAdaptive)
        pacer.answered(pacer.probe)
        #expect(pacer.interval == .seconds(90))
        pacer.missed(pacer.probe)
        #expect(pacer.interval == .seconds(90))
        pacer.reset()
        #expect(pacer.interval == .seconds(90))
    }

    @Test func adaptiveGoesUpAStepPerAnswerToTheMaximum() {
        var pacer = HeartbeatPacer(Self.adaptive)
        #expect(pacer.interval == .seconds(10))
        var seen: [Duration] = []
        for _ in 0..<6 {
            pacer.answered(pacer.probe)
            seen.append(pacer.interval)
        }
        #expect(seen == [20, 30, 40, 50, 50, 50].map { .seconds($0) })
        #expect(pacer.proven == .seconds(50))
        #expect(pacer.probing)
    }

    @Test func aMissGoesBackToTheLastAnsweredIntervalAndKeepsIt() {
        var pacer = HeartbeatPacer(Self.adaptive)
        pacer.answered(pacer.probe)  // 10 s answered: 20 s
        pacer.answered(pacer.probe)  // 20 s answered: 30 s
        pacer.missed(pacer.probe)    // 30 s dropped: back to 20 s
        #expect(pacer.interval == .seconds(20))
        #expect(!pacer.probing)
        for _ in 0..<5 { pacer.answered(pacer.probe) }
        #expect(pacer.interval == .seconds(20), "no more probing upwards")
        // The kept interval fails too (a stricter network): a step down, kept.
        pacer.missed(pacer.probe)
        #expect(pacer.interval == .seconds(10))
        pacer.missed(pacer.probe)
        #expect(pacer.interval == .seconds(10), "never below the minimum")
        pacer.answered(pacer.probe)
        #expect(pacer.interval == .seconds(10))
    }

    @Test func aMissWithNothingAnsweredGoesAStepDown() {
        var heartbeat = Self.adaptive
        heartbeat.interval = .seconds(40)  // started from an interval learned before
        var pacer = HeartbeatPacer(heartbeat)
        #expect(pacer.interval == .seconds(40))
        pacer.missed(pacer.probe)
        #expect(pacer.interval == .seconds(30))
        pacer.answered(pacer.probe)
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
        pacer.answered(pacer.probe)
        pacer.answered(pacer.probe)
        pacer.missed(pacer.probe)
        let old = pacer.probe  // 20 s, kept
        pacer.reset()
        #expect(pacer.interval == .seconds(10) && pacer.probing && pacer.proven == nil)
        pacer.missed(old)
        pacer.answered(old)
        #expect(pacer.interval == .seconds(10), "a report from before the reset")
        // A report about an interval since replaced.
        let first = pacer.probe
        pacer.answered(first)
        pacer.answered(first)
        #expect(pacer.interval == .seconds(20))
        pacer.missed(first)
        #expect(pacer.interval == .seconds(20) && pacer.probing)
    }
}
