import NIOConcurrencyHelpers

/// One reader's view of a client's pushes or states: its own buffer of at most `bufferSize`
/// values, so a reader that falls behind loses values of its own (counted in `dropped`)
/// and slows neither the connection nor any other reader.
///
///     let pushes = client.pushes          // subscribes now
///     for await push in pushes { ... }    // ends when `run()` returns
public struct Subscription<Element: Sendable>: AsyncSequence, Sendable {
    let stream: AsyncStream<Element>
    let drops: NIOLockedValueBox<Int>

    /// Values this reader lost because its buffer was full.
    public var dropped: Int { drops.withLockedValue { $0 } }

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        stream.makeAsyncIterator()
    }
}

/// Hands each value to every subscriber, each through its own bounded buffer. Values that
/// arrive while nobody subscribes wait, up to the same bound, for the first subscriber. With
/// `replaysLatest` (states), every later subscriber starts with the newest value, so a reader
/// that comes late still learns where things stand.
final class Broadcast<Element: Sendable>: Sendable {
    private struct Subscriber {
        let input: AsyncStream<Element>.Continuation
        let drops: NIOLockedValueBox<Int>
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// Values no subscriber has taken yet, oldest first.
        var backlog: [Element] = []
        /// Drops from the backlog and by subscribers that are gone.
        var pastDrops = 0
        /// Finished: a new subscription ends at once, until `reopen()`.
        var closed = false
        /// The newest value, kept when `replaysLatest`.
        var latest: Element?
    }

    private let state = NIOLockedValueBox(State())
    let bufferSize: Int
    let overflow: PushOverflow
    let replaysLatest: Bool

    init(bufferSize: Int, overflow: PushOverflow, replaysLatest: Bool = false) {
        self.bufferSize = max(bufferSize, 1)
        self.overflow = overflow
        self.replaysLatest = replaysLatest
    }

    /// Every value lost so far, by any subscriber or from the backlog.
    var dropped: Int {
        state.withLockedValue { state in
            state.subscribers.values.reduce(state.pastDrops) { $0 + $1.drops.withLockedValue { $0 } }
        }
    }

    /// A new subscriber with its own buffer (`bufferSize` and `overflow` unless given); the
    /// first one also gets the backlog, and with `replaysLatest` a later one the newest value.
    func subscribe(bufferSize: Int? = nil, overflow: PushOverflow? = nil) -> Subscription<Element> {
        let size = max(bufferSize ?? self.bufferSize, 1)
        let (stream, input) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: (overflow ?? self.overflow) == .dropOldest
                ? .bufferingNewest(size) : .bufferingOldest(size))
        let drops = NIOLockedValueBox(0)
        let id = state.withLockedValue { state -> Int? in
            if state.closed { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(input: input, drops: drops)
            // Under the lock: a value yielded meanwhile must not overtake the backlog.
            if !state.backlog.isEmpty {
                for value in state.backlog { _ = Self.deliver(value, to: input, counting: drops) }
                state.backlog.removeAll()
            } else if let latest = state.latest {
                _ = Self.deliver(latest, to: input, counting: drops)
            }
            return state.nextID
        }
        guard let id else {
            input.finish()
            return Subscription(stream: stream, drops: drops)
        }
        input.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                if let gone = state.subscribers.removeValue(forKey: id) {
                    state.pastDrops += gone.drops.withLockedValue { $0 }
                }
            }
        }
        return Subscription(stream: stream, drops: drops)
    }

    /// Hands `value` to every subscriber; the number of subscribers whose buffer was full.
    @discardableResult
    func yield(_ value: Element) -> Int {
        state.withLockedValue { state in
            if replaysLatest { state.latest = value }
            guard !state.subscribers.isEmpty else {
                state.backlog.append(value)
                if state.backlog.count > bufferSize {
                    state.backlog.remove(at: overflow == .dropOldest ? 0 : state.backlog.count - 1)
                    state.pastDrops += 1
                    return 1
                }
                return 0
            }
            var full = 0
            for subscriber in state.subscribers.values
            where !Self.deliver(value, to: subscriber.input, counting: subscriber.drops) {
                full += 1
            }
            return full
        }
    }

    /// Ends every subscription (their loops finish once their buffers are read) and the
    /// backlog; until `reopen()`, a new subscription ends at once.
    func finish() {
        let subscribers = state.withLockedValue { state in
            state.closed = true
            defer {
                state.subscribers.removeAll()
                state.backlog.removeAll()
            }
            for subscriber in state.subscribers.values { state.pastDrops += subscriber.drops.withLockedValue { $0 } }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.input.finish() }
    }

    /// Opens for new subscriptions again, with nothing to replay.
    func reopen() {
        state.withLockedValue { state in
            state.closed = false
            state.latest = nil
        }
    }

    /// False when the subscriber's buffer was full (a value was dropped).
    private static func deliver(
        _ value: Element, to input: AsyncStream<Element>.Continuation, counting drops: NIOLockedValueBox<Int>
    ) -> Bool {
        if case .dropped = input.yield(value) {
            drops.withLockedValue { $0 += 1 }
            return false
        }
        return true
    }
}
