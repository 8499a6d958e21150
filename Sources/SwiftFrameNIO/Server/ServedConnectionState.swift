import NIOCore

/// A `ServedConnection`'s frames read and not yet handled, and the life of the task that
/// handles them, as one value: no task (the next frame starts one), a task handling, a task
/// handling what came before a failure of the pipeline (then the connection closes), a task
/// told to stop (the server stops), no task ever again, or done with (closed, no task). Each
/// event is a method that moves to the next state and returns what the connection must do
/// (start a task, cancel one, ask for reads again, close, report itself done). It takes no
/// lock (the connection keeps it under its own) and does no I/O, so every cell is tested
/// without sockets (`ServedConnectionStateTableTests`).
///
/// The queue and the flag that holds back reads are fields beside the phase, not inside it:
/// they change at every frame, and a queue inside an enum's payload would be copied when the
/// payload is taken out to change it.
struct ServedConnectionState<Item> {
    enum Phase {
        /// No task is handling the queue: the next frame queued (or a failure) starts one.
        case idle
        /// A task handles the queue (`task` once it is handed over); `closed`: the channel has
        /// closed (frames still queued are handled, their replies go nowhere).
        case handling(Task<Void, Never>?, closed: Bool)
        /// The pipeline failed after the frames queued: the task handles them, then the
        /// connection closes. Frames read later are dropped.
        case failing(any Error, Task<Void, Never>?, closed: Bool)
        /// The server stops: the queue was emptied and the task cancelled; it ends at its next
        /// frame. Frames read later are dropped.
        case stopping(closed: Bool)
        /// No task will handle the queue again (the connection is refused or the server
        /// stopped it): frames read are dropped; the channel is closing.
        case finished
        /// The channel has closed and no task is handling: the connection is done with.
        case done
    }

    /// What follows the frame `next()` returns (or its end).
    enum Next {
        /// Nothing: the task goes on.
        case none
        /// The queue came down: ask the handler to read again.
        case resumeReading
        /// The queue is empty: the task ends; `done`: the connection is done with.
        case ended(done: Bool)
        /// The frames before the failure are handled: log it, then `finish()`.
        case fail(any Error)
    }

    private(set) var queue = CircularBuffer<Item>(initialCapacity: 1)
    /// The most items queued at once (for tests and debugging).
    private(set) var mostQueued = 0
    /// The handler reads nothing more until the task has brought the queue down.
    private(set) var readingPaused = false
    private(set) var phase = Phase.idle
    let pauseAt: Int
    let resumeAt: Int

    init(pauseAt: Int, resumeAt: Int) {
        self.pauseAt = pauseAt
        self.resumeAt = resumeAt
    }

    /// Whether a task is handling what the connection sent.
    var isHandling: Bool {
        switch phase {
        case .handling, .failing, .stopping: true
        case .idle, .finished, .done: false
        }
    }

    /// The handler read `item`: queued, and true to start a task to handle it (none is
    /// handling). Dropped after a failure, once stopped, or once done with.
    mutating func enqueue(_ item: Item) -> Bool {
        switch phase {
        case .idle, .handling:
            queue.append(item)
            mostQueued = max(mostQueued, queue.count)
            if queue.count >= pauseAt { readingPaused = true }
            guard case .idle = phase else { return false }
            phase = .handling(nil, closed: false)
            return true
        case .failing, .stopping, .finished, .done:
            return false
        }
    }

    /// The pipeline failed (a bad frame): the connection closes once the frames read before are
    /// handled. True to start a task to handle them (none is handling).
    mutating func fail(_ error: any Error) -> Bool {
        switch phase {
        case .idle:
            phase = .failing(error, nil, closed: false)
            return true
        case let .handling(task, closed):
            phase = .failing(error, task, closed: closed)
            return false
        case .failing, .stopping, .finished, .done:
            return false
        }
    }

    /// The task asked for was started as `task`: true to cancel it now (the server stopped
    /// the connection first).
    mutating func taskStarted(_ task: Task<Void, Never>) -> Bool {
        switch phase {
        case let .handling(nil, closed):
            phase = .handling(task, closed: closed)
            return false
        case let .failing(error, nil, closed):
            phase = .failing(error, task, closed: closed)
            return false
        case .stopping, .finished:
            return true
        case .idle, .handling, .failing, .done:
            // It has handled the queue and ended already.
            return false
        }
    }

    /// The channel has closed: true when the connection is done with now (no task handling).
    mutating func channelClosed() -> Bool {
        switch phase {
        case .idle, .finished:
            phase = .done
            return true
        case let .handling(task, _):
            phase = .handling(task, closed: true)
        case let .failing(error, task, _):
            phase = .failing(error, task, closed: true)
        case .stopping:
            phase = .stopping(closed: true)
        case .done:
            break
        }
        return false
    }

    /// The server stops: the queue is emptied, and the task handling it, if any, is to be
    /// cancelled (the channel closed).
    mutating func stop() -> Task<Void, Never>? {
        queue.removeAll()
        switch phase {
        case .idle:
            phase = .finished
            return nil
        case let .handling(task, closed), let .failing(_, task, closed):
            phase = .stopping(closed: closed)
            return task
        case .stopping, .finished, .done:
            return nil
        }
    }

    /// The task takes the next frame, nil when it is to end; `then` says what follows.
    mutating func next(then: inout Next) -> Item? {
        switch phase {
        case .handling(_, let closed):
            guard let item = queue.popFirst() else {
                phase = closed ? .done : .idle
                then = .ended(done: closed)
                return nil
            }
            resumeReadingIfRoom(then: &then)
            return item
        case .failing(let error, _, _):
            guard let item = queue.popFirst() else {
                then = .fail(error)
                return nil
            }
            resumeReadingIfRoom(then: &then)
            return item
        case .stopping(let closed):
            phase = closed ? .done : .finished
            then = .ended(done: closed)
            return nil
        case .idle, .finished, .done:
            then = .ended(done: false)
            return nil
        }
    }

    private mutating func resumeReadingIfRoom(then: inout Next) {
        if readingPaused && queue.count <= resumeAt {
            readingPaused = false
            then = .resumeReading
        }
    }

    /// The task ends the connection (its handler asked to close, or it was cancelled, or the
    /// frames before a failure are handled): the queue is emptied; true when the connection is
    /// done with now (the channel has closed), else it is once the channel closes.
    mutating func finish() -> Bool {
        queue.removeAll()
        switch phase {
        case let .handling(_, closed), let .failing(_, _, closed), let .stopping(closed):
            phase = closed ? .done : .finished
            return closed
        case .idle, .finished:
            phase = .finished
            return false
        case .done:
            return false
        }
    }
}

extension ServedConnectionState: Sendable where Item: Sendable {}
extension ServedConnectionState.Phase: Sendable where Item: Sendable {}
