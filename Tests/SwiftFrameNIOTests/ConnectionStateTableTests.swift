// The client connection's state-by-event table: what each event does to `ConnectionStateMachine`
// (the state of a `ConnectionHandler`) in each state. One Swift table holds every cell, the
// state the machine moves to and the action it returns; one test drives the machine through
// each cell without sockets.

import NIOCore
@testable import SwiftFrameNIO
import Testing

@Suite struct ConnectionStateTableTests {
    typealias Machine = ConnectionStateMachine<Int>

    enum Place: String, CaseIterable {
        case idle, open, waiting = "timer armed", awaiting = "heartbeat out", closing, closed
    }

    /// The events, with the inputs each is given: the interval is 10 s, the connection idle since
    /// 100 s; "traffic" is a `now` of 105 s (idle 5 s), "idle" one of 115 s (idle 15 s).
    enum Event: String, CaseIterable {
        case activate = "activate"
        case schedule = "scheduleHeartbeat"
        case armed = "armed(2)"
        case dueIdle = "heartbeatDue, idle"
        case dueTraffic = "heartbeatDue, traffic"
        case dueSuspended = "heartbeatDue, suspended"
        case answered = "heartbeatAnswered"
        case missedRetry = "heartbeatMissed 1 of retries 2"
        case missedLast = "heartbeatMissed 3 of retries 2"
        case missedSuspended = "heartbeatMissed, suspended"
        case check = "check"
        case checkWithout = "check, no heartbeat"
        case resumeIdle = "resume, idle"
        case resumeTraffic = "resume, traffic"
        case close = "close(client)"
        case finish = "finish"
        case finishTruncated = "finish, truncated"
    }

    /// Each place is reached as `machine(in:)` says: the timer armed is timer 1, the heartbeat
    /// out was sent after the 10 s interval, and closing is for a heartbeat timeout.
    static let table: [Place: [Event: StateCell]] = [
        .idle: [
            .activate: cell("open", "none"),
            .schedule: cell("idle", "none"),
            .armed: cell("idle", "cancel it"),
            .dueIdle: cell("idle", "none"),
            .dueTraffic: cell("idle", "none"),
            .dueSuspended: cell("idle", "none"),
            .answered: cell("idle", "none"),
            .missedRetry: cell("idle", "none"),
            .missedLast: cell("idle", "none"),
            .missedSuspended: cell("idle", "none"),
            .check: cell("idle", "none"),
            .checkWithout: cell("idle", "none"),
            .resumeIdle: cell("idle", "none"),
            .resumeTraffic: cell("idle", "none"),
            .close: cell("closing: client", "close"),
            .finish: cell("closed: peer", "finish: peer"),
            .finishTruncated: cell("closed: bad frame", "finish: bad frame"),
        ],
        .open: [
            .activate: cell("open", "none"),
            .schedule: cell("open", "arm 110s"),
            .armed: cell("timer 2", "keep it"),
            .dueIdle: cell("open", "none"),
            .dueTraffic: cell("open", "none"),
            .dueSuspended: cell("open", "none"),
            .answered: cell("open", "reschedule"),
            .missedRetry: cell("open", "none"),
            .missedLast: cell("open", "none"),
            .missedSuspended: cell("open", "none"),
            .check: cell("open", "send a check"),
            .checkWithout: cell("closing: client", "close"),
            .resumeIdle: cell("open", "send a check"),
            .resumeTraffic: cell("open", "arm 110s"),
            .close: cell("closing: client", "close"),
            .finish: cell("closed: peer", "finish: peer"),
            .finishTruncated: cell("closed: bad frame", "finish: bad frame"),
        ],
        .waiting: [
            .activate: cell("timer 1", "none"),
            .schedule: cell("open", "arm 110s, cancel 1"),
            .armed: cell("timer 1", "cancel it"),
            .dueIdle: cell("heartbeat out after 10s", "send heartbeat 1"),
            .dueTraffic: cell("open", "arm 110s"),
            .dueSuspended: cell("open", "arm 115s"),
            .answered: cell("timer 1", "reschedule"),
            .missedRetry: cell("timer 1", "none"),
            .missedLast: cell("timer 1", "none"),
            .missedSuspended: cell("timer 1", "none"),
            .check: cell("timer 1", "send a check"),
            .checkWithout: cell("closing: client", "close, cancel 1"),
            .resumeIdle: cell("timer 1", "send a check"),
            .resumeTraffic: cell("open", "arm 110s, cancel 1"),
            .close: cell("closing: client", "close, cancel 1"),
            .finish: cell("closed: peer", "finish: peer, cancel 1"),
            .finishTruncated: cell("closed: bad frame", "finish: bad frame, cancel 1"),
        ],
        .awaiting: [
            .activate: cell("heartbeat out after 10s", "none"),
            .schedule: cell("heartbeat out after 10s", "none"),
            .armed: cell("heartbeat out after 10s", "cancel it"),
            .dueIdle: cell("heartbeat out after 10s", "none"),
            .dueTraffic: cell("heartbeat out after 10s", "none"),
            .dueSuspended: cell("heartbeat out after 10s", "none"),
            .answered: cell("open", "reschedule, answered 10s"),
            .missedRetry: cell("heartbeat out after 10s", "send heartbeat 2"),
            .missedLast: cell("closing: heartbeat timeout 3", "close, missed 10s"),
            .missedSuspended: cell("open", "reschedule"),
            .check: cell("heartbeat out after 10s", "send a check"),
            .checkWithout: cell("closing: client", "close"),
            .resumeIdle: cell("heartbeat out after 10s", "send a check"),
            .resumeTraffic: cell("heartbeat out after 10s", "none"),
            .close: cell("closing: client", "close"),
            .finish: cell("closed: peer", "finish: peer"),
            .finishTruncated: cell("closed: bad frame", "finish: bad frame"),
        ],
        .closing: [
            .activate: cell("closing: heartbeat timeout 1", "none"),
            .schedule: cell("closing: heartbeat timeout 1", "none"),
            .armed: cell("closing: heartbeat timeout 1", "cancel it"),
            .dueIdle: cell("closing: heartbeat timeout 1", "none"),
            .dueTraffic: cell("closing: heartbeat timeout 1", "none"),
            .dueSuspended: cell("closing: heartbeat timeout 1", "none"),
            .answered: cell("closing: heartbeat timeout 1", "none"),
            .missedRetry: cell("closing: heartbeat timeout 1", "none"),
            .missedLast: cell("closing: heartbeat timeout 1", "none"),
            .missedSuspended: cell("closing: heartbeat timeout 1", "none"),
            .check: cell("closing: heartbeat timeout 1", "none"),
            .checkWithout: cell("closing: heartbeat timeout 1", "none"),
            .resumeIdle: cell("closing: heartbeat timeout 1", "none"),
            .resumeTraffic: cell("closing: heartbeat timeout 1", "none"),
            .close: cell("closing: heartbeat timeout 1", "close"),
            .finish: cell("closed: heartbeat timeout 1", "finish: heartbeat timeout 1"),
            .finishTruncated: cell("closed: heartbeat timeout 1", "finish: heartbeat timeout 1"),
        ],
        .closed: [
            .activate: cell("closed: peer", "none"),
            .schedule: cell("closed: peer", "none"),
            .armed: cell("closed: peer", "cancel it"),
            .dueIdle: cell("closed: peer", "none"),
            .dueTraffic: cell("closed: peer", "none"),
            .dueSuspended: cell("closed: peer", "none"),
            .answered: cell("closed: peer", "none"),
            .missedRetry: cell("closed: peer", "none"),
            .missedLast: cell("closed: peer", "none"),
            .missedSuspended: cell("closed: peer", "none"),
            .check: cell("closed: peer", "none"),
            .checkWithout: cell("closed: peer", "none"),
            .resumeIdle: cell("closed: peer", "none"),
            .resumeTraffic: cell("closed: peer", "none"),
            .close: cell("closed: peer", "none"),
            .finish: cell("closed: peer", "none"),
            .finishTruncated: cell("closed: peer", "none"),
        ],
    ]

    static let cases = StateCase<Place, Event>.all

    static let probe = HeartbeatPacer.Probe(interval: .seconds(10), generation: 0)
    static let idleSince = seconds(100)
    static let traffic = seconds(105)
    static let idle = seconds(115)

    static func seconds(_ value: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(value) * 1_000_000_000) }

    @Test(arguments: cases) func eachEventInEachState(_ cell: StateCase<Place, Event>) throws {
        let expected = try #require(Self.table[cell.place]?[cell.event], "no cell for \(cell.testDescription)")
        var machine = Self.machine(in: cell.place)
        let action: String
        switch cell.event {
        case .activate:
            machine.activate()
            action = "none"
        case .schedule: action = Self.describe(machine.scheduleHeartbeat(probe: Self.probe, idleSince: Self.idleSince))
        case .armed: action = machine.armed(2) ? "keep it" : "cancel it"
        case .dueIdle:
            action = Self.describe(
                machine.heartbeatDue(probe: Self.probe, suspended: false, idleSince: Self.idleSince, now: Self.idle))
        case .dueTraffic:
            action = Self.describe(
                machine.heartbeatDue(probe: Self.probe, suspended: false, idleSince: Self.idleSince, now: Self.traffic))
        case .dueSuspended:
            action = Self.describe(
                machine.heartbeatDue(probe: Self.probe, suspended: true, idleSince: Self.idleSince, now: Self.traffic))
        case .answered: action = Self.describe(machine.heartbeatAnswered())
        case .missedRetry: action = Self.describe(machine.heartbeatMissed(attempt: 1, retries: 2, suspended: false))
        case .missedLast: action = Self.describe(machine.heartbeatMissed(attempt: 3, retries: 2, suspended: false))
        case .missedSuspended: action = Self.describe(machine.heartbeatMissed(attempt: 1, retries: 2, suspended: true))
        case .check: action = Self.describe(machine.check(canCheck: true))
        case .checkWithout: action = Self.describe(machine.check(canCheck: false))
        case .resumeIdle:
            action = Self.describe(machine.resume(probe: Self.probe, idleSince: Self.idleSince, now: Self.idle))
        case .resumeTraffic:
            action = Self.describe(machine.resume(probe: Self.probe, idleSince: Self.idleSince, now: Self.traffic))
        case .close: action = Self.describe(machine.close(.closedByClient))
        case .finish: action = Self.describe(machine.finish(truncated: nil))
        case .finishTruncated:
            action = Self.describe(machine.finish(truncated: .badFrame(.malformedVarint(offset: 7))))
        }
        #expect(action == expected.result)
        #expect(Self.describe(machine.state) == expected.next)
    }

    /// Without an interval (a connection without a heartbeat) nothing is scheduled or checked
    /// on `resume`, and a timer that fires anyway arms nothing.
    @Test func withoutAnIntervalNothingIsScheduled() {
        var machine = Self.machine(in: .open)
        #expect(Self.describe(machine.scheduleHeartbeat(probe: nil, idleSince: Self.idleSince)) == "none")
        #expect(Self.describe(machine.resume(probe: nil, idleSince: Self.idleSince, now: Self.idle)) == "none")
        machine = Self.machine(in: .waiting)
        let action = machine.heartbeatDue(probe: nil, suspended: false, idleSince: Self.idleSince, now: Self.idle)
        #expect(Self.describe(action) == "none")
        #expect(Self.describe(machine.state) == "open")
    }

    /// Frames are taken until the connection is closing.
    @Test(arguments: Place.allCases) func framesAreTakenUntilClosing(_ place: Place) {
        #expect(Self.machine(in: place).takesFrames == [.idle, .open, .waiting, .awaiting].contains(place))
    }

    /// A heartbeat's life: sent when idle, retried, answered, and the next one scheduled from
    /// the traffic since.
    @Test func aHeartbeatIsRetriedThenAnswered() {
        var machine = Self.machine(in: .awaiting)
        #expect(Self.describe(machine.heartbeatMissed(attempt: 1, retries: 2, suspended: false)) == "send heartbeat 2")
        #expect(Self.describe(machine.heartbeatAnswered()) == "reschedule, answered 10s")
        #expect(Self.describe(machine.scheduleHeartbeat(probe: Self.probe, idleSince: Self.idle)) == "arm 125s")
        let kept = machine.armed(3)
        #expect(kept)
        #expect(Self.describe(machine.state) == "timer 3")
    }

    // MARK: The places and their descriptions

    static func machine(in place: Place) -> Machine {
        var machine = Machine()
        if place == .idle { return machine }
        machine.activate()
        switch place {
        case .idle, .open: break
        case .waiting:
            _ = machine.scheduleHeartbeat(probe: probe, idleSince: idleSince)
            _ = machine.armed(1)
        case .awaiting:
            _ = machine.scheduleHeartbeat(probe: probe, idleSince: idleSince)
            _ = machine.armed(1)
            _ = machine.heartbeatDue(probe: probe, suspended: false, idleSince: idleSince, now: idle)
        case .closing: _ = machine.close(.heartbeatTimeout(attempts: 1))
        case .closed: _ = machine.finish(truncated: nil)
        }
        return machine
    }

    static func describe(_ reason: DisconnectReason) -> String {
        switch reason {
        case .closedByPeer: "peer"
        case .closedByClient: "client"
        case let .heartbeatTimeout(attempts): "heartbeat timeout \(attempts)"
        case .badFrame: "bad frame"
        default: "\(reason)"
        }
    }

    static func describe(_ deadline: NIODeadline) -> String { "\(deadline.uptimeNanoseconds / 1_000_000_000)s" }

    static func describe(_ probe: HeartbeatPacer.Probe) -> String { "\(probe.interval.components.seconds)s" }

    static func describe(_ state: Machine.State) -> String {
        switch state {
        case .idle: "idle"
        case .open(.off): "open"
        case let .open(.waiting(timer)): "timer \(timer)"
        case let .open(.awaiting(probe)): "heartbeat out after \(describe(probe))"
        case let .closing(reason): "closing: \(describe(reason))"
        case let .closed(reason): "closed: \(describe(reason))"
        }
    }

    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .none: return "none"
        case let .armHeartbeat(due, cancel):
            return "arm \(describe(due))" + (cancel.map { ", cancel \($0)" } ?? "")
        case let .sendHeartbeat(attempt): return "send heartbeat \(attempt)"
        case .sendCheck: return "send a check"
        case let .reschedule(answered): return "reschedule" + (answered.map { ", answered \(describe($0))" } ?? "")
        case let .close(cancel, missed):
            return "close" + (cancel.map { ", cancel \($0)" } ?? "") + (missed.map { ", missed \(describe($0))" } ?? "")
        case let .finish(reason, cancel):
            return "finish: \(describe(reason))" + (cancel.map { ", cancel \($0)" } ?? "")
        }
    }
}
