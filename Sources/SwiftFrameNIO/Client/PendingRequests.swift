import NIOCore
import SwiftFrame

/// The requests of one connection that await replies, and the rule that matches a reply to
/// one of them. It lives on the connection's event loop and is only touched there, so it needs
/// no lock. Keys are sequence numbers, body ids, or (in order) ordinals.
struct PendingRequests {
    struct Entry {
        let command: UInt32
        let replyCommand: UInt32
        let completion: Completion
        let deadline: NIODeadline
        let timeout: Duration
        /// When it was sent, for its latency.
        var sent = NIODeadline.now()
        /// Tells this entry's place in `deadlines` from an earlier one's under the same key.
        var ticket: UInt64 = 0
    }

    enum Completion {
        /// A caller's request: hands the reply frame to the caller waiting for it (the caller's
        /// task decodes it, from the payload where it lies).
        case caller(ReplyWaiter)
        /// The connection's own heartbeat, attempt n.
        case heartbeat(attempt: Int)
        /// A heartbeat sent to check the connection (after a network change, or on resuming):
        /// unanswered, the connection is dropped at once.
        case check
    }

    let correlation: Correlation
    let errorCommand: UInt32?
    let limit: Int
    private(set) var entries: [UInt64: Entry] = [:]

    // Sequence numbers and body ids.
    private var next: UInt64
    private let largest: UInt64
    /// Keys given up (timed out or cancelled) whose replies may still come: kept, up to
    /// `abandonedLimit`, so a late reply is recognized and dropped rather than taken for a push.
    private var abandoned: Set<UInt64> = []
    private var abandonedOrder: [UInt64] = []
    private var abandonedHead = 0
    private let abandonedLimit = 4096

    /// Deadlines in order, soonest first, each with its entry's key and ticket. Entries answered
    /// in time leave theirs behind; they are skipped when reached, and swept out when they
    /// outnumber the live ones.
    private var deadlines: [(deadline: NIODeadline, key: UInt64, ticket: UInt64)] = []
    private var deadlinesHead = 0
    private var nextTicket: UInt64 = 0

    // In order: ordinals waiting per reply command, oldest first. A given-up request stays
    // in its queue (its entry removed) so that its late reply is matched to it.
    private var queues: [UInt32: OrdinalQueue] = [:]

    init(correlation: Correlation, errorCommand: UInt32?, limit: Int, sequenceWidth: Int?, first: UInt64) {
        self.correlation = correlation
        self.errorCommand = errorCommand
        self.limit = limit
        switch correlation {
        case .sequence:
            let width = sequenceWidth ?? 8
            largest = width >= 8 ? .max : (1 << (8 * UInt64(width))) - 1
        case .bodyField:
            largest = UInt64(Int64.max)
        case .inOrder:
            largest = .max
        }
        next = min(max(first, 1), largest)
    }

    var isEmpty: Bool { entries.isEmpty }

    /// A key for a new request, or nil when every key is taken.
    mutating func newKey() -> UInt64? {
        if case .inOrder = correlation {
            defer { next &+= 1 }
            return next
        }
        for _ in 0...(entries.count + abandoned.count) {
            let key = next
            next = key >= largest ? 1 : key + 1
            // With nothing pending, no lookup (the one-caller case: a hash a request saved).
            if (entries.isEmpty || entries[key] == nil) && (abandoned.isEmpty || !abandoned.contains(key)) {
                return key
            }
        }
        return nil
    }

    /// Adds a request; true when its deadline is now the soonest (the timer must be moved).
    mutating func insert(_ entry: Entry, key: UInt64) -> Bool {
        var entry = entry
        nextTicket += 1
        entry.ticket = nextTicket
        entries[key] = entry
        if case .inOrder = correlation { queues[entry.replyCommand, default: OrdinalQueue()].append(key) }
        // Usually the latest deadline of all (one timeout for every request): appended.
        var index = deadlines.count
        while index > deadlinesHead && deadlines[index - 1].deadline > entry.deadline { index -= 1 }
        deadlines.insert((entry.deadline, key, entry.ticket), at: index)
        if deadlines.count - deadlinesHead > 2 * entries.count + 1024 { sweepDeadlines() }
        return index == deadlinesHead
    }

    /// The soonest deadline of a request still outstanding.
    mutating func nextDeadline() -> NIODeadline? {
        while deadlinesHead < deadlines.count {
            let first = deadlines[deadlinesHead]
            if entries[first.key]?.ticket == first.ticket { return first.deadline }
            deadlinesHead += 1
        }
        deadlines.removeAll(keepingCapacity: true)
        deadlinesHead = 0
        return nil
    }

    /// Removes and returns the requests whose deadline has passed, given up (as `abandon`).
    mutating func expire(now: NIODeadline) -> [(key: UInt64, entry: Entry)] {
        var expired: [(key: UInt64, entry: Entry)] = []
        while let deadline = nextDeadline(), deadline <= now {
            let key = deadlines[deadlinesHead].key
            deadlinesHead += 1
            if let entry = abandon(key) { expired.append((key, entry)) }
        }
        return expired
    }

    private mutating func sweepDeadlines() {
        deadlines = deadlines[deadlinesHead...].filter { entries[$0.key]?.ticket == $0.ticket }
        deadlinesHead = 0
    }

    /// What a frame is to the requests awaiting replies.
    ///
    /// An enum rather than an optional tuple of the key and an optional entry: the compiler
    /// destroyed that through the run-time tuple and optional witnesses, on every reply.
    enum Match {
        /// Not a reply: a push.
        case none
        /// The reply to this request (removed).
        case reply(Entry)
        /// A late reply to the request of this key, given up: drop the frame.
        case late(key: UInt64)
    }

    /// What the frame with `header` answers, if anything.
    mutating func match(_ header: FrameHeader, command: UInt32, bodyKey: UInt64?) -> Match {
        switch correlation {
        case .sequence, .bodyField:
            let candidate: UInt64?
            if case .sequence = correlation { candidate = header.sequence } else { candidate = bodyKey }
            guard let key = candidate else { return .none }
            if let index = entries.index(forKey: key),
                command == entries.values[index].replyCommand || command == errorCommand
            {
                let entry = entries.remove(at: index).value
                dropLastDeadline(of: entry, key: key)
                return .reply(entry)
            }
            if !abandoned.isEmpty, abandoned.remove(key) != nil { return .late(key: key) }
            return .none
        case .inOrder:
            let key: UInt64
            if command == errorCommand, queues[command] == nil || queues[command]!.isEmpty {
                // An error reply answers the oldest request of all.
                guard
                    let (replyCommand, oldest) = queues.compactMap({ item in item.value.first.map { (item.key, $0) } })
                        .min(by: { $0.1 < $1.1 })
                else { return .none }
                _ = queues[replyCommand]!.popFirst()
                key = oldest
            } else {
                guard let next = queues[command]?.popFirst() else { return .none }
                key = next
            }
            guard let entry = entries.removeValue(forKey: key) else { return .late(key: key) }
            dropLastDeadline(of: entry, key: key)
            return .reply(entry)
        }
    }

    /// Forgets the deadline of a request just answered when it was the last one added and is
    /// not the soonest (the one the timer is set for): with one request at a time the list
    /// stays at two, where it would grow until the next sweep (a lookup a request).
    private mutating func dropLastDeadline(of entry: Entry, key: UInt64) {
        if deadlines.count - deadlinesHead > 1, let last = deadlines.last, last.key == key, last.ticket == entry.ticket
        {
            deadlines.removeLast()
        }
    }

    /// Removes a request given up (timed out or cancelled); its reply, if it comes, is dropped.
    mutating func abandon(_ key: UInt64) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        switch correlation {
        case .sequence, .bodyField:
            abandoned.insert(key)
            abandonedOrder.append(key)
            if abandonedOrder.count - abandonedHead > abandonedLimit {
                abandoned.remove(abandonedOrder[abandonedHead])
                abandonedHead += 1
                if abandonedHead > abandonedLimit {
                    abandonedOrder.removeFirst(abandonedHead)
                    abandonedHead = 0
                }
            }
        case .inOrder:
            break  // its ordinal stays queued; the reply that takes it finds no entry
        }
        return entry
    }

    /// The key of the request `waiter` waits for: a search, made only when a caller is
    /// cancelled (a map of waiters would cost every request two more hashes).
    func key(of waiter: ReplyWaiter) -> UInt64? {
        entries.first { entry in
            if case let .caller(waiting) = entry.value.completion { waiting === waiter } else { false }
        }?.key
    }

    /// Every outstanding request, removed.
    mutating func removeAll() -> [Entry] {
        let all = Array(entries.values)
        entries.removeAll()
        queues.removeAll()
        deadlines.removeAll()
        deadlinesHead = 0
        return all
    }

}

/// A queue of ordinals: an array read from `head`, compacted when half is consumed.
struct OrdinalQueue {
    private var items: [UInt64] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: UInt64? { isEmpty ? nil : items[head] }

    mutating func append(_ item: UInt64) { items.append(item) }

    mutating func popFirst() -> UInt64? {
        guard let item = first else { return nil }
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}

/// A request id carried in a varint field of the body (`Correlation.bodyField`).
enum BodyID {
    /// Appends the field to an encoded body. A later occurrence of a scalar field wins, so
    /// this overrides any value the message itself holds.
    static func append(_ id: UInt64, field: Int, to payload: inout [UInt8]) {
        payload.appendVarint(UInt64(Wire.tag(fieldNumber: field, wireType: .varint)))
        payload.appendVarint(id)
    }

    /// The last value of varint field `field` in an encoded body, or nil when it has none or
    /// does not parse.
    static func read(field: Int, in payload: UnsafeRawBufferPointer) -> UInt64? {
        var reader = ProtoReader(buffer: payload)
        var found: UInt64?
        do {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                if tag == Wire.tag(fieldNumber: field, wireType: .varint) {
                    found = try reader.readVarint()
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
        } catch {
            return nil
        }
        return found
    }
}

extension [UInt8] {
    /// Appends `value` as a protobuf varint.
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }
}
