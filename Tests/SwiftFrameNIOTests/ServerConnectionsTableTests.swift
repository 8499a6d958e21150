// A server's connections by event: what each event does to `ServerConnections` (the
// connections of a `FrameServer` and whether `run` serves, stops or waits for the last one) in
// each state. One Swift table holds every cell, the state it moves to and what it returns; one
// test drives it through each cell without sockets.

@testable import SwiftFrameNIO
import Testing

@Suite struct ServerConnectionsTableTests {
    /// Connections are their ids, waiters plain numbers.
    typealias Connections = ServerConnections<Int, Int>

    enum Place: String, CaseIterable {
        case serving = "serving, none open", servingOne = "serving, 1 open", stopping = "stopping, none open",
            stoppingOne = "stopping, 1 open", draining = "draining, 1 open"
    }

    enum Event: String, CaseIterable {
        case start, admit, stop, wait = "waitUntilEmpty(8)", removeOne = "remove(1)", removeOther = "remove(5)"
    }

    /// Connection 1 is open where one is; the waiter draining is 9.
    static let table: [Place: [Event: StateCell]] = [
        .serving: [
            .start: cell("serving", "none"),
            .admit: cell("serving: 1", "admitted 1"),
            .stop: cell("stopping", "stop []"),
            .wait: cell("stopping", "resume 8"),
            .removeOne: cell("serving", "none"),
            .removeOther: cell("serving", "none"),
        ],
        .servingOne: [
            .start: cell("serving: 1", "none"),
            .admit: cell("serving: 1 2", "admitted 2"),
            .stop: cell("stopping: 1", "stop [1]"),
            .wait: cell("draining 8: 1", "wait"),
            .removeOne: cell("serving", "none"),
            .removeOther: cell("serving: 1", "none"),
        ],
        .stopping: [
            .start: cell("serving", "none"),
            .admit: cell("stopping", "refused"),
            .stop: cell("stopping", "stop []"),
            .wait: cell("stopping", "resume 8"),
            .removeOne: cell("stopping", "none"),
            .removeOther: cell("stopping", "none"),
        ],
        .stoppingOne: [
            .start: cell("serving: 1", "none"),
            .admit: cell("stopping: 1", "refused"),
            .stop: cell("stopping: 1", "stop [1]"),
            .wait: cell("draining 8: 1", "wait"),
            .removeOne: cell("stopping", "none"),
            .removeOther: cell("stopping: 1", "none"),
        ],
        .draining: [
            .start: cell("draining 9: 1", "none"),
            .admit: cell("draining 9: 1", "refused"),
            .stop: cell("draining 9: 1", "stop [1]"),
            .wait: cell("draining 8: 1", "resume 9"),
            .removeOne: cell("stopping", "resume 9"),
            .removeOther: cell("draining 9: 1", "none"),
        ],
    ]

    static let cases = StateCase<Place, Event>.all

    @Test(arguments: cases) func eachEventInEachState(_ cell: StateCase<Place, Event>) throws {
        let expected = try #require(Self.table[cell.place]?[cell.event], "no cell for \(cell.testDescription)")
        var connections = Self.connections(in: cell.place)
        let result: String
        switch cell.event {
        case .start:
            connections.start()
            result = "none"
        case .admit: result = connections.admit { $0 }.map { "admitted \($0)" } ?? "refused"
        case .stop: result = "stop \(connections.stop().sorted())"
        case .wait: result = connections.waitUntilEmpty(8).map { "resume \($0)" } ?? "wait"
        case .removeOne: result = connections.remove(id: 1).map { "resume \($0)" } ?? "none"
        case .removeOther: result = connections.remove(id: 5).map { "resume \($0)" } ?? "none"
        }
        #expect(result == expected.result)
        #expect(Self.describe(connections) == expected.next)
    }

    /// Ids are never given twice, across stops and starts.
    @Test func idsAreNotReused() {
        var connections = Connections()
        let first = connections.admit { $0 }
        _ = connections.remove(id: 1)
        _ = connections.stop()
        connections.start()
        let second = connections.admit { $0 }
        #expect(first == 1)
        #expect(second == 2)
    }

    static func connections(in place: Place) -> Connections {
        var connections = Connections()
        switch place {
        case .serving: break
        case .servingOne: _ = connections.admit { $0 }
        case .stopping: _ = connections.stop()
        case .stoppingOne:
            _ = connections.admit { $0 }
            _ = connections.stop()
        case .draining:
            _ = connections.admit { $0 }
            _ = connections.stop()
            _ = connections.waitUntilEmpty(9)
        }
        return connections
    }

    static func describe(_ connections: Connections) -> String {
        let phase =
            switch connections.phase {
            case .serving: "serving"
            case .stopping: "stopping"
            case let .draining(waiter): "draining \(waiter)"
            }
        let open = connections.byID.keys.sorted()
        return open.isEmpty ? phase : "\(phase): " + open.map(String.init).joined(separator: " ")
    }
}
