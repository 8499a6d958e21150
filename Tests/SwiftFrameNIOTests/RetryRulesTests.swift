// The rules behind retries and the short link, without sockets: the budget of requests sent
// again, the spread of the first reconnect after a drop, when the long link counts as down,
// and the waiters handed to the short link.

@testable import SwiftFrameNIO
import Testing

@Suite struct RetryRulesTests {
    @Test func theBudgetStartsFullRefillsOverAMinuteAndHoldsNoMore() {
        let start = ContinuousClock.now
        var budget = RetryBudget(perMinute: 3, now: start)
        let takes = [0, 0, 0, 0, 19, 20, 21].map { budget.take(now: start + .seconds($0)) }
        // Full at first, spent after three; a token takes 20 s to come back.
        #expect(takes == [true, true, true, false, false, true, false])
        // An hour idle refills three, not 180.
        let later = start + .seconds(3600)
        let refilled = (0..<4).map { _ in budget.take(now: later) }
        #expect(refilled == [true, true, true, false])
        var none = RetryBudget(perMinute: 0, now: start)
        let never = none.take(now: start + .seconds(600))
        #expect(!never)
    }

    @Test func aDropSpreadsTheFirstReconnectOverItsWindowAndAFailedConnectDoesNot() {
        let backoff = Backoff(initialDelay: .milliseconds(100), jitter: 0, firstReconnectWindow: .seconds(2))
        var delays: [Duration] = []
        for _ in 0..<40 {
            var machine = ClientStateMachineTests.ready(backoff)
            guard case let .backOff(attempt, delay) = machine.ended(.closedByPeer) else {
                Issue.record("\(machine.state)")
                return
            }
            #expect(attempt == 1)
            #expect(delay >= .milliseconds(100) && delay <= .milliseconds(2100), "\(delay)")
            delays.append(delay)
            // The next attempt failing: the backoff alone.
            _ = machine.backoffEnded()
            guard case let .backOff(2, next) = machine.ended(.connectFailed(.refused)) else {
                Issue.record("\(machine.state)")
                return
            }
            #expect(abs((next - .milliseconds(160)).seconds) < 1e-9, "\(next)")
        }
        #expect(Set(delays).count > 30, "random over the window: \(delays)")
        #expect(delays.contains { $0 < .milliseconds(1100) } && delays.contains { $0 > .milliseconds(1100) })

        // The first connect failing is not a drop.
        var machine = Machine(backoff: backoff)
        _ = machine.start()
        guard case .backOff(1, .milliseconds(100)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("\(machine.state)")
            return
        }
        // Without a window, today's delay.
        var plain = ClientStateMachineTests.ready(Backoff(initialDelay: .milliseconds(100), jitter: 0))
        guard case .backOff(1, .milliseconds(100)) = plain.ended(.closedByPeer) else {
            Issue.record("\(plain.state)")
            return
        }
    }

    @Test func theLongLinkIsDownBetweenAttemptsAndNotDuringTheFirst() {
        var machine = Machine(backoff: ClientStateMachineTests.noJitter)
        #expect(!machine.longLinkDown, "idle: requests wait for run()")
        _ = machine.start()
        #expect(!machine.longLinkDown, "the first attempt")
        _ = machine.ended(.connectFailed(.refused))
        #expect(machine.longLinkDown, "backing off")
        _ = machine.backoffEnded()
        #expect(machine.longLinkDown, "attempt 1 after a failure")
        _ = machine.connected(index: 0, "c")
        #expect(machine.longLinkDown, "logging in after a failure")
        _ = machine.loggedIn(index: 0)
        #expect(!machine.longLinkDown, "ready")
        machine.retire { $0 == "c" }
        #expect(machine.longLinkDown, "found closed")
        _ = machine.cancel()
        #expect(machine.longLinkDown, "stopped")
    }

    @Test func waitersThatFallBackAreTakenAndTheOthersKept() {
        var machine = Machine(backoff: ClientStateMachineTests.noJitter)
        _ = machine.start()
        for id in 1...4 { _ = machine.waitForConnection(id: id, id * 10) }
        let taken = machine.removeWaiters { $0 % 20 == 0 }
        #expect(Set(taken) == [20, 40])
        #expect(machine.waiterCount == 2)
        _ = machine.connected(index: 0, "c")
        let ready = machine.loggedIn(index: 0)
        #expect(ready.map { Set($0.waiters) } == [10, 30])
    }
}
