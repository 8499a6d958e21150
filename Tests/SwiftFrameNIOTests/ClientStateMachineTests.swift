// The client's state machine on its own, without sockets: every transition and the actions
// it returns. Connections are strings, waiters and sleepers numbers.

@testable import SwiftFrameNIO
import Testing

typealias Machine = ClientStateMachine<String, Int, Int>

struct LoginRejected: Error {}

@Suite struct ClientStateMachineTests {
    static let noJitter = Backoff(initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(5), jitter: 0)

    /// A machine run as far as a ready connection `c`.
    static func ready(_ backoff: Backoff = noJitter) -> Machine {
        var machine = Machine(backoff: backoff)
        let result1 = machine.start()
        #expect(result1)
        let result2 = machine.connected(index: 0, "c")
        #expect(result2 == .logIn)
        let result3 = machine.loggedIn(index: 0)
        #expect(result3?.connection == "c")
        return machine
    }

    @Test func startsOnceAtATimeAndAgainAfterStopping() {
        var machine = Machine(backoff: Self.noJitter)
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
        let result4 = machine.start()
        #expect(result4)
        guard case .connecting(attempt: 0, _, _) = machine.state else { Issue.record("\(machine.state)"); return }
        let result5 = machine.start()
        #expect(!result5, "a second run() while connecting")
        _ = machine.cancel()
        let result6 = machine.start()
        #expect(result6, "run() again after it returned")
    }

    @Test func waitersWaitUntilALoginSucceedsAndGetItsConnection() {
        var machine = Machine(backoff: Self.noJitter)
        guard case .wait = machine.waitForConnection(id: 1, 10) else { Issue.record("idle: must wait"); return }
        let result7 = machine.start()
        #expect(result7)
        guard case .wait = machine.waitForConnection(id: 2, 20) else { Issue.record("connecting: must wait"); return }
        let result8 = machine.connected(index: 0, "c")
        #expect(result8 == .logIn)
        guard case .wait = machine.waitForConnection(id: 3, 30) else { Issue.record("logging in: must wait"); return }
        #expect(machine.connection == nil, "not handed out before the login")
        let ready = machine.loggedIn(index: 0)
        #expect(ready?.connection == "c")
        #expect(ready.map { Set($0.waiters) } == [10, 20, 30])
        #expect(machine.waiterCount == 0)
        guard case .use("c") = machine.waitForConnection(id: 4, 40) else { Issue.record("ready: must use"); return }
    }

    /// The reason the last attempt failed is kept for `noConnection`, until a connection is
    /// ready again or `run()` starts again.
    @Test func theLastFailureIsKeptUntilAConnectionIsReady() {
        var machine = Machine(backoff: Self.noJitter)
        _ = machine.start()
        #expect(machine.lastFailure == nil, "the first attempt is under way")
        _ = machine.ended(.connectFailed(.tls(.notTLS)))
        guard case .connectFailed(.tls(.notTLS))? = machine.lastFailure else {
            Issue.record("\(String(describing: machine.lastFailure))"); return
        }
        _ = machine.backoffEnded()
        _ = machine.ended(.connectFailed(.refused))
        guard case .connectFailed(.refused)? = machine.lastFailure else {
            Issue.record("\(String(describing: machine.lastFailure))"); return
        }
        _ = machine.backoffEnded()
        _ = machine.connected(index: 0, "c")
        _ = machine.loggedIn(index: 0)
        #expect(machine.lastFailure == nil, "ready")
        _ = machine.ended(.closedByPeer)
        guard case .closedByPeer? = machine.lastFailure else {
            Issue.record("\(String(describing: machine.lastFailure))"); return
        }
        _ = machine.cancel()
        _ = machine.start()
        #expect(machine.lastFailure == nil, "a new run")
    }

    @Test func aWaiterTakenBackIsNotResumed() {
        var machine = Machine(backoff: Self.noJitter)
        _ = machine.start()
        _ = machine.waitForConnection(id: 1, 10)
        let updated = machine.updateWaiter(id: 1) { $0 = 11 }
        #expect(updated)
        let result9 = machine.removeWaiter(id: 1)
        #expect(result9 == 11)
        let result10 = machine.removeWaiter(id: 1)
        #expect(result10 == nil)
        let gone = machine.updateWaiter(id: 1) { $0 = 12 }
        #expect(!gone)
        _ = machine.connected(index: 0, "c")
        let result11 = machine.loggedIn(index: 0)
        #expect(result11?.waiters == [])
    }

    @Test func dropsBackOffWithGrowingDelaysAndASuccessResetsTheCount() {
        var machine = Self.ready()
        guard case .backOff(attempt: 1, delay: .seconds(1)) = machine.ended(.closedByPeer) else {
            Issue.record("\(machine.state)"); return
        }
        let result12 = machine.backoffStarted(7)
        #expect(result12)
        let result13 = machine.backoffEnded()
        #expect(result13 == 1)
        guard case .backOff(attempt: 2, delay: .seconds(2)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("\(machine.state)"); return
        }
        _ = machine.backoffEnded()
        _ = machine.connected(index: 0, "d")
        // A failed login counts as a failed attempt.
        guard case .backOff(attempt: 3, delay: .seconds(4)) = machine.ended(.loginFailed(LoginRejected())) else {
            Issue.record("\(machine.state)"); return
        }
        _ = machine.backoffEnded()
        guard case .backOff(attempt: 4, delay: .seconds(5)) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("capped"); return
        }
        _ = machine.backoffEnded()
        _ = machine.connected(index: 0, "e")
        _ = machine.loggedIn(index: 0)
        guard case .backOff(attempt: 1, _) = machine.ended(.heartbeatTimeout(attempts: 4)) else {
            Issue.record("reset"); return
        }
    }

    @Test func outOfAttemptsStopsWithGaveUpAndFailsTheWaiters() {
        var backoff = Self.noJitter
        backoff.maxAttempts = 1
        var machine = Machine(backoff: backoff)
        _ = machine.start()
        guard case .backOff(attempt: 1, _) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("first retry"); return
        }
        _ = machine.backoffEnded()
        _ = machine.waitForConnection(id: 1, 10)
        guard case let .stop(error, waiters, failure) = machine.ended(.connectFailed(.refused)) else {
            Issue.record("must stop"); return
        }
        #expect(waiters == [10])
        guard case .gaveUp(attempts: 2, last: .connectFailed(.refused))? = error as? FrameClientError,
            case .gaveUp? = failure as? FrameClientError
        else { Issue.record("\(String(describing: error))"); return }
        // Later waiters fail with the same error at once.
        guard case let .fail(later) = machine.waitForConnection(id: 2, 20), case .gaveUp? = later as? FrameClientError
        else {
            Issue.record("a waiter after the stop"); return
        }
    }

    @Test func aFinalFailureStopsAtOnceWithItsError() {
        var machine = Machine(backoff: Self.noJitter)
        _ = machine.start()
        _ = machine.connected(index: 0, "c")
        _ = machine.waitForConnection(id: 1, 10)
        guard
            case let .stop(error, waiters, failure) = machine.ended(
                .loginFailed(LoginRejected()), final: LoginRejected())
        else {
            Issue.record("must stop"); return
        }
        #expect(error is LoginRejected && failure is LoginRejected)
        #expect(waiters == [10])
        guard case .stopped(error: let stored, _) = machine.state, stored is LoginRejected else {
            Issue.record("\(machine.state)"); return
        }
    }

    @Test func reconnectNowClosesTheConnectionOrEndsTheWait() {
        var machine = Self.ready()
        guard case .close(["c"], cancel: nil) = machine.reconnectNow() else { Issue.record("ready: close"); return }
        // The connection it closed ends: the next attempt starts without the backoff delay.
        guard case .backOff(attempt: 1, delay: .zero) = machine.ended(.closedByClient) else {
            Issue.record("no delay"); return
        }
        // Asked for before the wait began: the wait does not begin.
        guard case .nothing = machine.reconnectNow() else { Issue.record("pending: nothing to wake"); return }
        let result14 = machine.backoffStarted(7)
        #expect(!result14)
        _ = machine.backoffEnded()
        _ = machine.connected(index: 0, "d")
        _ = machine.loggedIn(index: 0)
        // A drop the app did not ask for waits the delay.
        guard case .backOff(attempt: 1, delay: Self.noJitter.initialDelay) = machine.ended(.closedByPeer) else {
            Issue.record("the backoff delay")
            return
        }
        let result15 = machine.backoffStarted(7)
        #expect(result15)
        guard case .cancel(7) = machine.reconnectNow() else { Issue.record("sleeping: wake"); return }
        guard case .nothing = machine.reconnectNow() else { Issue.record("woken: once"); return }
        let result16 = machine.backoffEnded()
        #expect(result16 == 1)
        guard case .nothing = machine.reconnectNow() else { Issue.record("connecting: nothing"); return }
        _ = machine.connected(index: 0, "e")
        guard case .close(["e"], cancel: nil) = machine.reconnectNow() else {
            Issue.record("logging in: close"); return
        }
    }

    @Test func cancellingStopsFromEveryState() {
        // Ready: close the connection, fail nobody (no waiters while ready).
        var machine = Self.ready()
        var action = machine.cancel()
        #expect(action.close == ["c"] && action.cancel == nil && action.waiters.isEmpty)
        guard case .stop(error: nil, waiters: [], _) = machine.ended(.closedByClient) else {
            Issue.record("after cancel"); return
        }
        // Backing off: wake the sleeper, fail the waiters with .stopped.
        machine = Self.ready()
        _ = machine.ended(.closedByPeer)
        _ = machine.backoffStarted(7)
        _ = machine.waitForConnection(id: 1, 10)
        action = machine.cancel()
        #expect(action.close.isEmpty && action.cancel == 7 && action.waiters == [10])
        let result17 = machine.backoffEnded()
        #expect(result17 == nil, "no attempt after a cancel")
        // Connecting: a connection that comes up afterwards is closed.
        machine = Machine(backoff: Self.noJitter)
        _ = machine.start()
        action = machine.cancel()
        #expect(action.close.isEmpty)
        let result18 = machine.connected(index: 0, "late")
        #expect(result18 == .close)
        // Logging in: close it, and the login's end does not publish it.
        machine = Machine(backoff: Self.noJitter)
        _ = machine.start()
        _ = machine.connected(index: 0, "c")
        let result19 = machine.cancel()
        #expect(result19.close == ["c"])
        let result20 = machine.loggedIn(index: 0)
        #expect(result20 == nil)
        // A waiter after the stop fails with .stopped; cancelling twice does nothing.
        guard case let .fail(error) = machine.waitForConnection(id: 5, 50), case .stopped? = error as? FrameClientError
        else {
            Issue.record("after cancel"); return
        }
        let result21 = machine.cancel()
        #expect(result21.close.isEmpty)
    }

    @Test func aConnectionFoundClosedIsRetiredUntilRunSeesItEnd() {
        var machine = Self.ready()
        machine.retire { $0 == "other" }
        #expect(machine.connection == "c", "another connection's retirement changes nothing")
        machine.retire { $0 == "c" }
        #expect(machine.connection == nil)
        guard case .wait = machine.waitForConnection(id: 1, 10) else { Issue.record("closing: must wait"); return }
        guard case .backOff(attempt: 1, _) = machine.ended(.closedByPeer) else {
            Issue.record("\(machine.state)"); return
        }
    }

    @Test func jitterStaysWithinItsBounds() {
        var machine = Self.ready(Backoff(initialDelay: .seconds(10), jitter: 0.2))
        guard case let .backOff(_, delay) = machine.ended(.closedByPeer) else {
            Issue.record("\(machine.state)"); return
        }
        #expect(delay >= .seconds(8) && delay <= .seconds(12), "\(delay)")
    }
}
