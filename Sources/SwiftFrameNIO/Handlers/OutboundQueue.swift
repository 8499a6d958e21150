import NIOConcurrencyHelpers
import NIOCore

/// What an `OutboundQueue` holds: a client's request or send, a server's reply or push.
protocol QueuedWrite: Sendable {
    /// Bytes of its payload, counted against `OutboundQueue.waitAbove`.
    var payloadBytes: Int { get }
}

/// The frames callers hand to one connection, waiting for its event loop to write them
/// (a client's requests and sends, a server's replies and pushes).
///
/// A caller off the event loop that wrote each frame with `channel.writeAndFlush` would post a
/// task per frame to the loop, and each task would end in a flush: a system call per frame.
/// Here callers append to a list under a lock, and only the first frame after the list was
/// emptied posts a task (`DrainOutbound`); the handler takes every frame queued by then,
/// writes them, and flushes once. Callers that send faster than the loop writes share its
/// flushes; a lone request still gets its own.
///
/// Frames leave in the order they were queued. Once the connection has closed, the queue
/// refuses frames, and the handler fails those it took back on the way out.
final class OutboundQueue<Write: QueuedWrite>: Sendable {
    /// One frame, with the promise of its write when the caller waits for it.
    struct Entry {
        let write: Write
        let written: EventLoopPromise<Void>?
    }

    private struct State {
        var entries: [Entry] = []
        /// The storage of the last batch taken, emptied and handed back (`recycle`), for the
        /// next frames: a drain allocates nothing.
        var spare: [Entry] = []
        /// Bytes of the payloads in `entries`.
        var bytes = 0
        /// A `DrainOutbound` was posted and has not taken the list yet.
        var draining = false
        var closed = false
    }

    /// What a caller does after `enqueue`.
    enum Enqueued {
        /// Queued; post `DrainOutbound` to the channel when `drain` is true.
        case queued(drain: Bool)
        /// The connection has closed; nothing was queued.
        case closed
        /// The queue or the channel is full, and the frame `refuses` to wait: nothing was queued.
        case full
    }

    /// What a frame does when the channel takes no more writes or more than `waitAbove` bytes
    /// wait in the queue.
    enum WhenFull {
        /// Queued all the same (a request: its caller waits for the reply instead).
        case queues
        /// Queued, with its write's future to wait on (a send, a reply, a push).
        case waits
        /// Not queued (a push from a handler that cannot wait).
        case refuses
    }

    /// Payload bytes queued beyond which a send waits for its write (as it does when the
    /// channel's own buffer is above its high-water mark).
    static var waitAbove: Int { 64 * 1024 }

    private let state = NIOLockedValueBox(State())

    /// Queues `write`, unless it `refuses` to wait and the queue or the channel (`writable`) is
    /// full. One that `waits` gets a promise to wait on then (made on `eventLoop`).
    func enqueue(
        _ write: Write, whenFull: WhenFull, channelWritable writable: Bool, eventLoop: any EventLoop
    ) -> (Enqueued, written: EventLoopFuture<Void>?) {
        state.withLockedValue { state in
            guard !state.closed else { return (.closed, nil) }
            var written: EventLoopPromise<Void>?
            if whenFull != .queues, !writable || state.bytes > Self.waitAbove {
                guard whenFull == .waits else { return (.full, nil) }
                written = eventLoop.makePromise()
            }
            state.entries.append(Entry(write: write, written: written))
            state.bytes += write.payloadBytes
            let drain = !state.draining
            state.draining = true
            return (.queued(drain: drain), written?.futureResult)
        }
    }

    /// Queues `write` for `channel`'s handler, posting `DrainOutbound` to its event loop when
    /// the queue was empty. `written` is the write's future when `write` waits and the channel
    /// or the queue is full.
    func enqueue(_ write: Write, on channel: any Channel, whenFull: WhenFull) -> (
        Enqueued, written: EventLoopFuture<Void>?
    ) {
        let writable = whenFull == .queues || channel.isWritable
        let (enqueued, written) = enqueue(
            write, whenFull: whenFull, channelWritable: writable, eventLoop: channel.eventLoop)
        if case .queued(drain: true) = enqueued {
            // Posted even from the event loop (a server's handlers may run there): the frames
            // queued in the rest of this turn of the loop go out with the same flush.
            channel.eventLoop.execute { channel.triggerUserOutboundEvent(DrainOutbound(), promise: nil) }
        }
        return (enqueued, written)
    }

    /// Whether no frame waits to be written.
    var isEmpty: Bool { state.withLockedValue { $0.entries.isEmpty } }

    /// Every frame queued so far, for the handler to write (then to `recycle`); the next frame
    /// queued posts a new `DrainOutbound`.
    func take() -> [Entry] {
        state.withLockedValue { state in
            state.draining = false
            state.bytes = 0
            var taken = state.spare
            state.spare = []
            swap(&taken, &state.entries)
            return taken
        }
    }

    /// Hands back a batch `take` returned, once written, so that its storage holds the next.
    func recycle(_ batch: consuming [Entry]) {
        batch.removeAll(keepingCapacity: true)
        // A batch that grew large (a burst of frames) is let go of rather than kept.
        guard batch.capacity <= 64 else { return }
        state.withLockedValue { $0.spare = batch }
    }

    /// Refuses every later frame; returns those still queued, for the handler to fail.
    func close() -> [Entry] {
        state.withLockedValue { state in
            state.closed = true
            defer { state.entries = [] }
            return state.entries
        }
    }
}

extension OutboundFrame: QueuedWrite {
    var payloadBytes: Int { payload.count }
}

/// Asks the connection's handler to write what its `OutboundQueue` holds.
struct DrainOutbound: Sendable {}
