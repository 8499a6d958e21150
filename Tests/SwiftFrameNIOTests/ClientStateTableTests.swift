// The client's state-by-event table: what `reconnectNow()`, `networkChanged()`, `suspend()`,
// `resume()` and the cancellation of `run()` do in each state of `ClientStateMachine`. One
// Swift table holds every cell: the effect as the article Connecting says it, the state the
// machine moves to and the actions it returns. One test drives the machine through each cell
// without sockets; another checks that the article's table says the same, cell for cell.

import Foundation
@testable import SwiftFrameNIO
import TestSupport
import Testing

@Suite struct ClientStateTableTests {
    enum Place: String, CaseIterable {
        case idle, connecting, loggingIn = "logging in", ready, closing, backingOff = "backing off", stopped
    }

    enum Call: String, CaseIterable {
        case reconnectNow = "`reconnectNow()`", networkChanged = "`networkChanged()`", suspend = "`suspend()`",
            resume = "`resume()`", cancel = "`run()` cancelled"
    }

    struct Cell: Sendable {
        /// As the article says it.
        let effect: String
        /// The machine's state afterwards (`describe`).
        let next: String
        /// What it returned (`describe`).
        let actions: String
    }

    /// Each place is reached with waiter 10 waiting (none while ready), connection "c", the race
    /// as job 5 and the backoff wait as job 7, two failed attempts behind it where it counts
    /// them; for `resume()`, suspended on the way.
    static let table: [Place: [Call: Cell]] = [
        .idle: [
            .reconnectNow: Cell(effect: "nothing", next: "idle, waiters 1", actions: "none"),
            .networkChanged: Cell(effect: "nothing", next: "idle, waiters 1", actions: "none"),
            .suspend: Cell(effect: "suspended", next: "idle, waiters 1, suspended", actions: "none"),
            .resume: Cell(effect: "not suspended", next: "idle, waiters 1", actions: "none"),
            .cancel: Cell(effect: "nothing (no `run()` to cancel)", next: "idle, waiters 1", actions: "none"),
        ],
        .connecting: [
            .reconnectNow: Cell(
                effect: "nothing: the race goes on", next: "connecting 2, race 5, waiters 1", actions: "none"),
            .networkChanged: Cell(
                effect: "the attempts count from 0 again; the race goes on",
                next: "connecting 0, race 5, waiters 1", actions: "none"),
            .suspend: Cell(
                effect: "suspended; the race goes on", next: "connecting 2, race 5, waiters 1, suspended",
                actions: "none"),
            .resume: Cell(
                effect: "not suspended; the race goes on", next: "connecting 2, race 5, waiters 1", actions: "none"),
            .cancel: Cell(
                effect: "cancel the race; fail the waiters with `.stopped`; stopped",
                next: "stopped", actions: "cancel 5; fail 10"),
        ],
        .loggingIn: [
            .reconnectNow: Cell(
                effect: "call the login off (close its connection, cancel the race); race again at once",
                next: "connecting 2, race cancelled, waiters 1", actions: "close c; cancel 5"),
            .networkChanged: Cell(
                effect: "the attempts count from 0 again; the login goes on",
                next: "logging in 0, race 5, logins c, waiters 1", actions: "none"),
            .suspend: Cell(
                effect: "suspended; the login goes on", next: "logging in 2, race 5, logins c, waiters 1, suspended",
                actions: "none"),
            .resume: Cell(
                effect: "not suspended; the login goes on", next: "logging in 2, race 5, logins c, waiters 1",
                actions: "none"),
            .cancel: Cell(
                effect: "close its connection, cancel the race; fail the waiters with `.stopped`; stopped",
                next: "stopped", actions: "close c; cancel 5; fail 10"),
        ],
        .ready: [
            .reconnectNow: Cell(
                effect: "close the connection; closing, then race again at once",
                next: "closing, at once", actions: "close c"),
            .networkChanged: Cell(
                effect: "check the connection with a heartbeat now (without one, drop it)", next: "ready c",
                actions: "check c"),
            .suspend: Cell(
                effect: "suspended: no heartbeat; the connection stays open and takes requests",
                next: "ready c, suspended", actions: "none"),
            .resume: Cell(
                effect: "not suspended: the heartbeat goes on, at once after a long silence",
                next: "ready c", actions: "resume c"),
            .cancel: Cell(effect: "close the connection; stopped", next: "stopped", actions: "close c"),
        ],
        .closing: [
            .reconnectNow: Cell(
                effect: "race again at once when it has closed", next: "closing, at once, waiters 1",
                actions: "none"),
            .networkChanged: Cell(
                effect: "nothing (the next race is a first attempt anyway)", next: "closing, waiters 1",
                actions: "none"),
            .suspend: Cell(effect: "suspended", next: "closing, waiters 1, suspended", actions: "none"),
            .resume: Cell(effect: "not suspended", next: "closing, waiters 1", actions: "none"),
            .cancel: Cell(effect: "fail the waiters with `.stopped`; stopped", next: "stopped", actions: "fail 10"),
        ],
        .backingOff: [
            .reconnectNow: Cell(
                effect: "end the wait: race again now", next: "backing off 3, wait cancelled, waiters 1",
                actions: "cancel 7"),
            .networkChanged: Cell(
                effect: "end the wait; the attempts count from 0 again",
                next: "backing off 0, wait cancelled, waiters 1", actions: "cancel 7"),
            .suspend: Cell(
                effect: "suspended; the wait goes on", next: "backing off 3, wait 7, waiters 1, suspended",
                actions: "none"),
            .resume: Cell(
                effect: "not suspended; end the wait: race again now",
                next: "backing off 3, wait cancelled, waiters 1", actions: "cancel 7"),
            .cancel: Cell(
                effect: "end the wait; fail the waiters with `.stopped`; stopped", next: "stopped",
                actions: "cancel 7; fail 10"),
        ],
        .stopped: [
            .reconnectNow: Cell(effect: "nothing", next: "stopped", actions: "none"),
            .networkChanged: Cell(effect: "nothing", next: "stopped", actions: "none"),
            .suspend: Cell(effect: "suspended", next: "stopped, suspended", actions: "none"),
            .resume: Cell(effect: "not suspended", next: "stopped", actions: "none"),
            .cancel: Cell(effect: "nothing", next: "stopped", actions: "none"),
        ],
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        let place: Place
        let call: Call
        var testDescription: String { "\(call.rawValue) when \(place.rawValue)" }
    }

    static let cases = Place.allCases.flatMap { place in Call.allCases.map { Case(place: place, call: $0) } }

    @Test(arguments: cases) func eachCallInEachState(_ cell: Case) throws {
        let expected = try #require(Self.table[cell.place]?[cell.call], "no cell for \(cell.testDescription)")
        var machine = Self.machine(in: cell.place, suspended: cell.call == .resume)
        let actions: String
        switch cell.call {
        case .reconnectNow: actions = Self.describe(machine.reconnectNow())
        case .networkChanged: actions = Self.describe(machine.networkChanged())
        case .suspend: actions = Self.describe(machine.suspend())
        case .resume: actions = Self.describe(machine.resume())
        case .cancel: actions = Self.describe(machine.cancel())
        }
        #expect(actions == expected.actions)
        #expect(Self.describe(machine) == expected.next)
    }

    /// The same calls when the app did not suspend (for `resume()`) or did already (for
    /// `suspend()`): nothing, in every state.
    @Test(arguments: Place.allCases) func resumeWhenNotSuspendedAndSuspendTwiceDoNothing(_ place: Place) {
        var machine = Self.machine(in: place, suspended: false)
        var before = Self.describe(machine)
        #expect(Self.describe(machine.resume()) == "none")
        #expect(Self.describe(machine) == before)
        machine = Self.machine(in: place, suspended: true)
        before = Self.describe(machine)
        #expect(Self.describe(machine.suspend()) == "none")
        #expect(Self.describe(machine) == before)
    }

    /// After each cell, the machine goes on as the effect says: a call that makes it race again
    /// at once gives no delay when the attempt ends, and a wait ended before it began does not
    /// begin.
    @Test func aRaceCalledOffRacesAgainAtOnce() {
        var machine = Self.machine(in: .loggingIn, suspended: false)
        _ = machine.reconnectNow()
        // The login's end finds it called off; a connection still coming is closed.
        #expect(machine.loggedIn(index: 0) == nil)
        #expect(machine.connected(index: 1, "d") == .close)
        let kept = machine.raceStarted(6)
        #expect(!kept, "a race handed over after it was called off is cancelled")
        guard case .backOff(attempt: 3, delay: .zero) = machine.ended(.closedByClient) else {
            Issue.record("\(Self.describe(machine))"); return
        }
        let waits = machine.backoffStarted(8)
        #expect(!waits)
        #expect(machine.backoffEnded() == 3)
        #expect(Self.describe(machine) == "connecting 3, race starting, waiters 1")
    }

    @Test func aClosingConnectionAskedToReconnectRacesAgainWithoutAWait() {
        var machine = Self.machine(in: .closing, suspended: false)
        guard
            case .backOff(attempt: 1, delay: ClientStateMachineTests.noJitter.initialDelay) = machine.ended(
                .closedByPeer)
        else {
            Issue.record("\(Self.describe(machine))"); return
        }
        machine = Self.machine(in: .closing, suspended: false)
        _ = machine.reconnectNow()
        guard case .backOff(attempt: 1, delay: .zero) = machine.ended(.closedByPeer) else {
            Issue.record("\(Self.describe(machine))"); return
        }
    }

    /// A login that fails while another endpoint's goes on leaves the machine logging in; the
    /// last one's failure takes it back to connecting, and the first to succeed wins.
    @Test func loginsOfARaceEndOneByOne() {
        var machine = Self.machine(in: .loggingIn, suspended: false)
        #expect(machine.connected(index: 1, "d") == .logIn)
        machine.loginFailed(index: 0)
        #expect(Self.describe(machine) == "logging in 2, race 5, logins d, waiters 1")
        machine.loginFailed(index: 1)
        #expect(Self.describe(machine) == "connecting 2, race 5, waiters 1")
        #expect(machine.connected(index: 0, "e") == .logIn)
        #expect(machine.connected(index: 1, "f") == .logIn)
        let won = machine.loggedIn(index: 1)
        #expect(won?.connection == "f" && won?.waiters == [10])
        #expect(machine.loggedIn(index: 0) == nil, "another endpoint won first")
        #expect(Self.describe(machine) == "ready f")
        #expect(machine.lastGood == 1, "raced first next time")
        // Kept across the drop and the next run.
        _ = machine.ended(.closedByPeer)
        _ = machine.cancel()
        _ = machine.start()
        #expect(machine.lastGood == 1)
    }

    // MARK: The article

    /// The table of the article Connecting ("The client, state by state") says what `table`
    /// says: the same rows and columns, and each cell's effect word for word.
    @Test func theArticlesTableIsThisTable() throws {
        let article = try String(
            contentsOf: Repository.root.appendingPathComponent(
                "Sources/SwiftFrameNIO/SwiftFrameNIO.docc/Connecting.md"),
            encoding: .utf8)
        let rows = Self.markdownTable(after: "### The client, state by state", in: article)
        try #require(rows.count == Place.allCases.count + 1, "\(rows)")
        #expect(rows[0] == ["state"] + Call.allCases.map(\.rawValue))
        for (place, row) in zip(Place.allCases, rows.dropFirst()) {
            #expect(row.first == "**\(place.rawValue)**")
            for (call, text) in zip(Call.allCases, row.dropFirst()) {
                #expect(text == Self.table[place]?[call]?.effect, "\(call.rawValue) when \(place.rawValue)")
            }
            #expect(row.count == Call.allCases.count + 1, "\(row)")
        }
    }

    /// The cells of the first markdown table after the line `heading`, the separator row left out.
    static func markdownTable(after heading: String, in text: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: heading) else { return [] }
        let table = lines[(start + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return table.compactMap { line -> [String]? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return cells.allSatisfy({ $0.allSatisfy { $0 == "-" || $0 == ":" } }) ? nil : cells
        }
    }

    // MARK: The places and their descriptions

    /// A machine in `place` (see `table`).
    static func machine(in place: Place, suspended: Bool) -> Machine {
        var machine = Machine(backoff: ClientStateMachineTests.noJitter)
        if suspended { _ = machine.suspend() }
        _ = machine.waitForConnection(id: 1, 10)
        if place == .idle { return machine }
        _ = machine.start()
        _ = machine.raceStarted(5)
        for _ in 0..<2 {
            _ = machine.ended(.connectFailed(.refused))
            _ = machine.backoffEnded()
            _ = machine.raceStarted(5)
        }
        switch place {
        case .idle, .connecting:
            return machine
        case .backingOff:
            _ = machine.ended(.connectFailed(.refused))
            _ = machine.backoffStarted(7)
            return machine
        case .loggingIn, .ready, .closing, .stopped:
            break
        }
        _ = machine.connected(index: 0, "c")
        if place == .loggingIn { return machine }
        _ = machine.loggedIn(index: 0)
        switch place {
        case .closing:
            machine.retire { $0 == "c" }
            _ = machine.waitForConnection(id: 1, 10)
        case .stopped:
            _ = machine.cancel()
            _ = machine.ended(.closedByClient)
        case .idle, .connecting, .loggingIn, .ready, .backingOff:
            break
        }
        return machine
    }

    static func describe(_ machine: Machine) -> String {
        var parts: [String]
        switch machine.state {
        case .idle: parts = ["idle"]
        case let .connecting(attempt, race, _): parts = ["connecting \(attempt)", "race \(describe(race))"]
        case let .loggingIn(attempt, race, logins, _):
            parts = [
                "logging in \(attempt)", "race \(describe(race))",
                "logins \(logins.values.sorted().joined(separator: " "))",
            ]
        case let .ready(connection, _): parts = ["ready \(connection)"]
        case let .closing(atOnce, _): parts = atOnce ? ["closing", "at once"] : ["closing"]
        case let .backingOff(attempt, wait, _): parts = ["backing off \(attempt)", "wait \(describe(wait))"]
        case let .stopped(error, _): parts = [error.map { "stopped: \($0)" } ?? "stopped"]
        }
        if machine.waiterCount > 0 { parts.append("waiters \(machine.waiterCount)") }
        if machine.suspended { parts.append("suspended") }
        return parts.joined(separator: ", ")
    }

    static func describe(_ run: Machine.Run) -> String {
        switch run {
        case .starting: "starting"
        case let .running(job): "\(job)"
        case .cancelled: "cancelled"
        }
    }

    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case let .close(connections, job):
            (connections.map { "close \($0)" } + (job.map { ["cancel \($0)"] } ?? [])).joined(separator: "; ")
        case let .cancel(job): "cancel \(job)"
        case let .check(connection): "check \(connection)"
        case let .resumeHeartbeat(connection): "resume \(connection)"
        case .nothing: "none"
        }
    }

    static func describe(_ action: Machine.CancelAction) -> String {
        let parts =
            action.close.map { "close \($0)" } + (action.cancel.map { ["cancel \($0)"] } ?? [])
            + action.waiters.sorted().map { "fail \($0)" }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }
}
