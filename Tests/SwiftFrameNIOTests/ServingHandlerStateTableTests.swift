// The last handler of a served connection by event: what each event does to
// `ServingHandler.State` (reading, with a read held back, replies to flush or the stream
// ended; or closing) in each state. One Swift table holds every cell, the state it moves to and
// what it returns; one test drives it through each cell without sockets.

@testable import SwiftFrameNIO
import Testing

@Suite struct ServingHandlerStateTableTests {
    typealias State = ServingHandler.State

    enum Place: String, CaseIterable {
        case reading, heldBack = "reading, a read held back", flushPending = "reading, replies to flush",
            ended = "reading, stream ended", closing
    }

    enum Event: String, CaseIterable {
        case read = "read(canRead: true)", readFull = "read(canRead: false)",
            readAgain = "readAgain(canRead: true)", readAgainFull = "readAgain(canRead: false)", wrote,
            readComplete, endStream = "streamEnded = true"
    }

    static let table: [Place: [Event: StateCell]] = [
        .reading: [
            .read: cell("reading", "pass on"),
            .readFull: cell("reading: held back", "hold back"),
            .readAgain: cell("reading", "nothing to read"),
            .readAgainFull: cell("reading", "nothing to read"),
            .wrote: cell("reading: flush pending", "none"),
            .readComplete: cell("reading", "no flush"),
            .endStream: cell("reading: ended", "none"),
        ],
        .heldBack: [
            .read: cell("reading: held back", "pass on"),
            .readFull: cell("reading: held back", "hold back"),
            .readAgain: cell("reading", "read"),
            .readAgainFull: cell("reading: held back", "nothing to read"),
            .wrote: cell("reading: held back, flush pending", "none"),
            .readComplete: cell("reading: held back", "no flush"),
            .endStream: cell("reading: held back, ended", "none"),
        ],
        .flushPending: [
            .read: cell("reading: flush pending", "pass on"),
            .readFull: cell("reading: held back, flush pending", "hold back"),
            .readAgain: cell("reading: flush pending", "nothing to read"),
            .readAgainFull: cell("reading: flush pending", "nothing to read"),
            .wrote: cell("reading: flush pending", "none"),
            .readComplete: cell("reading", "flush"),
            .endStream: cell("reading: flush pending, ended", "none"),
        ],
        .ended: [
            .read: cell("reading: ended", "pass on"),
            .readFull: cell("reading: held back, ended", "hold back"),
            .readAgain: cell("reading: ended", "nothing to read"),
            .readAgainFull: cell("reading: ended", "nothing to read"),
            .wrote: cell("reading: flush pending, ended", "none"),
            .readComplete: cell("reading: ended", "no flush"),
            .endStream: cell("reading: ended", "none"),
        ],
        .closing: [
            .read: cell("closing", "pass on"),
            .readFull: cell("closing", "pass on"),
            .readAgain: cell("closing", "nothing to read"),
            .readAgainFull: cell("closing", "nothing to read"),
            .wrote: cell("closing", "none"),
            .readComplete: cell("closing", "no flush"),
            .endStream: cell("closing", "none"),
        ],
    ]

    static let cases = StateCase<Place, Event>.all

    @Test(arguments: cases) func eachEventInEachState(_ cell: StateCase<Place, Event>) throws {
        let expected = try #require(Self.table[cell.place]?[cell.event], "no cell for \(cell.testDescription)")
        var state = Self.state(in: cell.place)
        let result: String
        switch cell.event {
        case .read: result = state.read(canRead: true) ? "pass on" : "hold back"
        case .readFull: result = state.read(canRead: false) ? "pass on" : "hold back"
        case .readAgain: result = state.readAgain(canRead: true) ? "read" : "nothing to read"
        case .readAgainFull: result = state.readAgain(canRead: false) ? "read" : "nothing to read"
        case .wrote:
            state.wrote()
            result = "none"
        case .readComplete: result = state.readComplete() ? "flush" : "no flush"
        case .endStream:
            state.streamEnded = true
            result = "none"
        }
        #expect(result == expected.result)
        #expect(Self.describe(state) == expected.next)
    }

    static func state(in place: Place) -> State {
        switch place {
        case .reading: .reading(.init())
        case .heldBack: .reading(.init(readHeldBack: true))
        case .flushPending: .reading(.init(flushPending: true))
        case .ended: .reading(.init(streamEnded: true))
        case .closing: .closing
        }
    }

    static func describe(_ state: State) -> String {
        guard case let .reading(reading) = state else { return "closing" }
        let flags = [
            reading.readHeldBack ? "held back" : nil, reading.flushPending ? "flush pending" : nil,
            reading.streamEnded ? "ended" : nil,
        ].compactMap { $0 }
        return flags.isEmpty ? "reading" : "reading: " + flags.joined(separator: ", ")
    }
}
