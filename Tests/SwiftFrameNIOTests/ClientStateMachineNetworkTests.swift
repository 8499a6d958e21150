// The client's state machine when the network changes and when the app goes to the background
// and back: which connection is checked, how the backoff starts again, and the suspended flag.

@testable import SwiftFrameNIO
import Testing

extension ClientStateMachineTests {
    @Test func aNetworkChangeChecksTheReadyConnection() {
        var machine = Self.ready()
        guard case .check("c") = machine.networkChanged() else { Issue.record("ready: check"); return }
        #expect(machine.connection == "c", "still handed out while it is checked")
        // The check failed: the connection ends, and the backoff starts from its first delay.
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.heartbeatTimeout(attempts: 1)) else {
            Issue.record("\(machine.state)"); return
        }
    }

    @Test func aNetworkChangeEndsTheBackoffWaitAndStartsTheDelaysAgain() {
        var machine = Self.ready()
        _ = machine.ended(.closedByPeer)
        _ = machine.backoffEnded()
        guard case .backOff(attempt: 2, delay: .seconds(2)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("\(machine.state)"); return
        }
        _ = machine.backoffEnded()
        guard case .backOff(attempt: 3, delay: .seconds(4)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("\(machine.state)"); return
        }
        let sleeping = machine.backoffStarted(7)
        #expect(sleeping)
        guard case .cancel(7) = machine.networkChanged() else { Issue.record("sleeping: wake"); return }
        guard case .nothing = machine.networkChanged() else { Issue.record("woken: once"); return }
        let next = machine.backoffEnded()
        #expect(next == 0, "the next attempt is a first one")
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("the first delay again: \(machine.state)"); return
        }
        // Before the wait began: it does not begin.
        guard case .nothing = machine.networkChanged() else { Issue.record("pending: nothing to wake"); return }
        let slept = machine.backoffStarted(8)
        #expect(!slept)
        let after = machine.backoffEnded()
        #expect(after == 0)
    }

    @Test func aNetworkChangeWhileConnectingOrLoggingInResetsTheCountOnly() {
        var machine = Self.ready()
        _ = machine.ended(.closedByPeer)
        _ = machine.backoffEnded()
        _ = machine.ended(.connectFailed(.refused))
        _ = machine.backoffEnded()
        guard case .connecting(attempt: 2, _, _) = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .nothing = machine.networkChanged() else { Issue.record("connecting: nothing to do"); return }
        guard case .connecting(attempt: 0, _, _) = machine.state else { Issue.record("\(machine.state)"); return }
        _ = machine.connected(index: 0, "d")
        _ = machine.ended(.loginFailed(LoginRejected()))
        _ = machine.backoffEnded()
        _ = machine.connected(index: 0, "e")
        guard case let .loggingIn(attempt: 1, _, logins, _) = machine.state, logins == [0: "e"] else {
            Issue.record("\(machine.state)"); return
        }
        guard case .nothing = machine.networkChanged() else { Issue.record("logging in: the login goes on"); return }
        guard case let .loggingIn(attempt: 0, _, logins, _) = machine.state, logins == [0: "e"] else {
            Issue.record("\(machine.state)"); return
        }
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.loginFailed(LoginRejected())) else {
            Issue.record("\(machine.state)"); return
        }
    }

    @Test func aNetworkChangeBeforeRunOrAfterTheStopDoesNothing() {
        var machine = Machine(backoff: Self.noJitter)
        guard case .nothing = machine.networkChanged() else { Issue.record("idle"); return }
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
        machine = Self.ready()
        _ = machine.cancel()
        guard case .nothing = machine.networkChanged() else { Issue.record("stopped"); return }
        guard case .stopped = machine.state else { Issue.record("\(machine.state)"); return }
    }

    @Test func suspendAndResumeHandBackTheReadyConnectionOnce() {
        var machine = Machine(backoff: Self.noJitter)
        #expect(machine.resume() == .nothing, "not suspended")
        #expect(machine.suspend() == .nothing)
        #expect(machine.suspend() == .nothing, "suspended already")
        #expect(machine.suspended)
        // Suspended before run(): it stays so across the connection's making.
        _ = machine.start()
        _ = machine.connected(index: 0, "c")
        _ = machine.loggedIn(index: 0)
        #expect(machine.suspended)
        #expect(machine.resume() == .resumeHeartbeat("c"))
        #expect(!machine.suspended)
        #expect(machine.resume() == .nothing, "resumed already")
        // Suspended while no connection is ready: nothing to check on resuming.
        _ = machine.suspend()
        _ = machine.ended(.closedByPeer)
        #expect(machine.suspended, "kept across the drop")
        #expect(machine.resume() == .nothing, "the wait had not begun: it does not begin")
        #expect(!machine.suspended)
        let waits = machine.backoffStarted(7)
        #expect(!waits)
    }
}
