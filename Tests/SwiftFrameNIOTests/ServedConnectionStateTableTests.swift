// A served connection's queue and task by event: what each event does to
// `ServedConnectionState` (the frames a `ServedConnection` has read and not handled, and the
// life of the task handling them) in each state. One Swift table holds every cell, the state
// it moves to and what it returns; one test drives it through each cell without sockets.

@testable import SwiftFrameNIO
import Testing

@Suite struct ServedConnectionStateTableTests {
    /// Frames are plain numbers.
    typealias State = ServedConnectionState<Int>

    struct Failure: Error {}

    enum Place: String, CaseIterable {
        case idle
        case handling = "handling, 7 queued"
        case handlingEmpty = "handling, none queued"
        case handlingClosed = "handling, closed, 7 queued"
        case failing = "failing, 7 queued"
        case failingEmpty = "failing, none queued"
        case stopping, finished, done
    }

    enum Event: String, CaseIterable {
        case enqueue = "enqueue(8)", fail, taskStarted = "taskStarted(t2)", channelClosed, stop, next, finish
    }

    /// The task handling is t1 where there is one.
    static let table: [Place: [Event: StateCell]] = [
        .idle: [
            .enqueue: cell("handling no task: [8]", "start a task"),
            .fail: cell("failing no task", "start a task"),
            .taskStarted: cell("idle", "keep it"),
            .channelClosed: cell("done", "done"),
            .stop: cell("finished", "cancel nothing"),
            .next: cell("idle", "nil, ended"),
            .finish: cell("finished", "not done"),
        ],
        .handling: [
            .enqueue: cell("handling t1: [7, 8]", "none"),
            .fail: cell("failing t1: [7]", "none"),
            .taskStarted: cell("handling t1: [7]", "keep it"),
            .channelClosed: cell("handling t1, closed: [7]", "not done"),
            .stop: cell("stopping", "cancel t1"),
            .next: cell("handling t1", "7"),
            .finish: cell("finished", "not done"),
        ],
        .handlingEmpty: [
            .enqueue: cell("handling t1: [8]", "none"),
            .fail: cell("failing t1", "none"),
            .taskStarted: cell("handling t1", "keep it"),
            .channelClosed: cell("handling t1, closed", "not done"),
            .stop: cell("stopping", "cancel t1"),
            .next: cell("idle", "nil, ended"),
            .finish: cell("finished", "not done"),
        ],
        .handlingClosed: [
            .enqueue: cell("handling t1, closed: [7, 8]", "none"),
            .fail: cell("failing t1, closed: [7]", "none"),
            .taskStarted: cell("handling t1, closed: [7]", "keep it"),
            .channelClosed: cell("handling t1, closed: [7]", "not done"),
            .stop: cell("stopping, closed", "cancel t1"),
            .next: cell("handling t1, closed", "7"),
            .finish: cell("done", "done"),
        ],
        .failing: [
            .enqueue: cell("failing t1: [7]", "none"),
            .fail: cell("failing t1: [7]", "none"),
            .taskStarted: cell("failing t1: [7]", "keep it"),
            .channelClosed: cell("failing t1, closed: [7]", "not done"),
            .stop: cell("stopping", "cancel t1"),
            .next: cell("failing t1", "7"),
            .finish: cell("finished", "not done"),
        ],
        .failingEmpty: [
            .enqueue: cell("failing t1", "none"),
            .fail: cell("failing t1", "none"),
            .taskStarted: cell("failing t1", "keep it"),
            .channelClosed: cell("failing t1, closed", "not done"),
            .stop: cell("stopping", "cancel t1"),
            .next: cell("failing t1", "nil, fail"),
            .finish: cell("finished", "not done"),
        ],
        .stopping: [
            .enqueue: cell("stopping", "none"),
            .fail: cell("stopping", "none"),
            .taskStarted: cell("stopping", "cancel it"),
            .channelClosed: cell("stopping, closed", "not done"),
            .stop: cell("stopping", "cancel nothing"),
            .next: cell("finished", "nil, ended"),
            .finish: cell("finished", "not done"),
        ],
        .finished: [
            .enqueue: cell("finished", "none"),
            .fail: cell("finished", "none"),
            .taskStarted: cell("finished", "cancel it"),
            .channelClosed: cell("done", "done"),
            .stop: cell("finished", "cancel nothing"),
            .next: cell("finished", "nil, ended"),
            .finish: cell("finished", "not done"),
        ],
        .done: [
            .enqueue: cell("done", "none"),
            .fail: cell("done", "none"),
            .taskStarted: cell("done", "keep it"),
            .channelClosed: cell("done", "not done"),
            .stop: cell("done", "cancel nothing"),
            .next: cell("done", "nil, ended"),
            .finish: cell("done", "not done"),
        ],
    ]

    static let cases = StateCase<Place, Event>.all

    static let t1 = Task<Void, Never> {}
    static let t2 = Task<Void, Never> {}

    @Test(arguments: cases) func eachEventInEachState(_ cell: StateCase<Place, Event>) throws {
        let expected = try #require(Self.table[cell.place]?[cell.event], "no cell for \(cell.testDescription)")
        var state = Self.state(in: cell.place)
        let result: String
        switch cell.event {
        case .enqueue: result = state.enqueue(8) ? "start a task" : "none"
        case .fail: result = state.fail(Failure()) ? "start a task" : "none"
        case .taskStarted: result = state.taskStarted(Self.t2) ? "cancel it" : "keep it"
        case .channelClosed: result = state.channelClosed() ? "done" : "not done"
        case .stop: result = state.stop().map { "cancel \(Self.name($0))" } ?? "cancel nothing"
        case .next:
            var then = State.Next.none
            let item = state.next(then: &then)
            result = Self.describe(item, then)
        case .finish: result = state.finish() ? "done" : "not done"
        }
        #expect(result == expected.result)
        #expect(Self.describe(state) == expected.next)
    }

    /// Reads are held back once `pauseAt` frames wait, and asked for again when the task has
    /// brought the queue down to `resumeAt`.
    @Test func readsPauseWhenFullAndResumeWhenDown() {
        var state = State(pauseAt: 3, resumeAt: 1)
        let starts = [state.enqueue(1), state.enqueue(2)]
        #expect(starts == [true, false])
        #expect(!state.readingPaused)
        let third = state.enqueue(3)
        #expect(!third)
        #expect(state.readingPaused)
        var then = State.Next.none
        let first = state.next(then: &then)
        #expect(Self.describe(first, then) == "1")
        let second = state.next(then: &then)
        #expect(Self.describe(second, then) == "2, resume reading")
        #expect(!state.readingPaused)
        #expect(state.mostQueued == 3)
    }

    /// A task that handles the last frame after the channel closed leaves the connection done
    /// with; one that ends before the close leaves it to the close.
    @Test func theLastOfTaskAndCloseMakesItDone() {
        var state = Self.state(in: .handlingClosed)
        var then = State.Next.none
        let last = state.next(then: &then)
        #expect(Self.describe(last, then) == "7")
        let none = state.next(then: &then)
        #expect(Self.describe(none, then) == "nil, ended, done")
        #expect(Self.describe(state) == "done")
        state = Self.state(in: .handlingEmpty)
        let ended = state.next(then: &then)
        let isDone = state.channelClosed()
        #expect(ended == nil)
        #expect(isDone)
    }

    // MARK: The places and their descriptions

    static func state(in place: Place) -> State {
        var state = State(pauseAt: 16, resumeAt: 4)
        switch place {
        case .idle: break
        case .handling, .handlingEmpty, .handlingClosed, .failing, .failingEmpty, .stopping:
            _ = state.enqueue(7)
            _ = state.taskStarted(t1)
            if place == .handlingEmpty || place == .failingEmpty {
                var then = State.Next.none
                _ = state.next(then: &then)
            }
            if place == .failing || place == .failingEmpty { _ = state.fail(Failure()) }
            if place == .handlingClosed { _ = state.channelClosed() }
            if place == .stopping { _ = state.stop() }
        case .finished: _ = state.stop()
        case .done: _ = state.channelClosed()
        }
        return state
    }

    static func name(_ task: Task<Void, Never>?) -> String {
        guard let task else { return "no task" }
        return task == t1 ? "t1" : task == t2 ? "t2" : "another task"
    }

    static func describe(_ item: Int?, _ then: State.Next) -> String {
        let first = item.map(String.init) ?? "nil"
        switch then {
        case .none: return first
        case .resumeReading: return first + ", resume reading"
        case let .ended(done): return first + (done ? ", ended, done" : ", ended")
        case .fail: return first + ", fail"
        }
    }

    static func describe(_ state: State) -> String {
        let phase: String
        switch state.phase {
        case .idle: phase = "idle"
        case let .handling(task, closed): phase = "handling \(name(task))" + (closed ? ", closed" : "")
        case let .failing(_, task, closed): phase = "failing \(name(task))" + (closed ? ", closed" : "")
        case let .stopping(closed): phase = "stopping" + (closed ? ", closed" : "")
        case .finished: phase = "finished"
        case .done: phase = "done"
        }
        let queued = Array(state.queue)
        return queued.isEmpty ? phase : "\(phase): \(queued)"
    }
}
