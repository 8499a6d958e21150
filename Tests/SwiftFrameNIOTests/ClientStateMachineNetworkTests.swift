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
        let sleeping = machine.sleep(7)
        #expect(sleeping)
        guard case .wake(7) = machine.networkChanged() else { Issue.record("sleeping: wake"); return }
        guard case .none = machine.networkChanged() else { Issue.record("woken: once"); return }
        let next = machine.backoffEnded()
        #expect(next?.attempt == 0, "the next attempt is a first one")
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("the first delay again: \(machine.state)"); return
        }
        // Before the wait began: it does not begin.
        guard case .none = machine.networkChanged() else { Issue.record("pending: nothing to wake"); return }
        let slept = machine.sleep(8)
        #expect(!slept)
        let after = machine.backoffEnded()
        #expect(after?.attempt == 0)
    }

    @Test func aNetworkChangeWhileConnectingOrLoggingInResetsTheCountOnly() {
        var machine = Self.ready()
        _ = machine.ended(.closedByPeer)
        _ = machine.backoffEnded()
        _ = machine.ended(.connectFailed(.refused))
        _ = machine.backoffEnded()
        guard case .connecting(attempt: 2) = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.networkChanged() else { Issue.record("connecting: nothing to do"); return }
        guard case .connecting(attempt: 0) = machine.state else { Issue.record("\(machine.state)"); return }
        _ = machine.connected("d")
        _ = machine.ended(.loginFailed(LoginRejected()))
        _ = machine.backoffEnded()
        _ = machine.connected("e")
        guard case .loggingIn("e", attempt: 1) = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.networkChanged() else { Issue.record("logging in: the login goes on"); return }
        guard case .loggingIn("e", attempt: 0) = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.loginFailed(LoginRejected())) else {
            Issue.record("\(machine.state)"); return
        }
    }

    @Test func aNetworkChangeBeforeRunOrAfterTheStopDoesNothing() {
        var machine = Machine(backoff: Self.noJitter)
        guard case .none = machine.networkChanged() else { Issue.record("idle"); return }
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
        machine = Self.ready()
        _ = machine.cancel()
        guard case .none = machine.networkChanged() else { Issue.record("stopped"); return }
        guard case .stopped = machine.state else { Issue.record("\(machine.state)"); return }
    }

    @Test func suspendAndResumeHandBackTheReadyConnectionOnce() {
        var machine = Machine(backoff: Self.noJitter)
        let notSuspended = machine.resume()
        #expect(notSuspended == nil, "not suspended")
        let first = machine.suspend()
        #expect(first)
        let second = machine.suspend()
        #expect(!second, "suspended already")
        #expect(machine.suspended)
        // Suspended before run(): it stays so across the connection's making.
        _ = machine.start()
        _ = machine.connected("c")
        _ = machine.loggedIn()
        #expect(machine.suspended)
        let resumed = machine.resume()
        #expect(resumed == "c")
        #expect(!machine.suspended)
        let again = machine.resume()
        #expect(again == nil, "resumed already")
        // Suspended while no connection is ready: nothing to check on resuming.
        _ = machine.suspend()
        _ = machine.ended(.closedByPeer)
        let nothingReady = machine.resume()
        #expect(nothingReady == nil)
        #expect(!machine.suspended)
    }
}
