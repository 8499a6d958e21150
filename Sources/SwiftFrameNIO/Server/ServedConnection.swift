import Logging
import NIOConcurrencyHelpers
import NIOCore
import SwiftFrame

/// One connection of a `FrameServer`: the frames its event loop has read and not yet handled,
/// and the task that handles them (or, under `FrameServer.runOnEventLoop`, the handler that
/// answers each frame inside the read, with no queue and no task).
///
/// An idle connection holds no task: its handler (`ServingHandler`, on the event loop) queues
/// each frame it reads here, and the first frame queued while no task is handling starts one.
/// That task handles the queued frames one at a time, in order, and ends when the queue is
/// empty. So a server holding thousands of silent connections holds their channels and
/// nothing else.
///
/// The queue is bounded: once `pauseAt` frames wait, the handler stops reading from the socket
/// (the peer's writes then wait in the kernel's buffers and its own), and it reads again when
/// the task has brought the queue down to `resumeAt`.
final class ServedConnection: Sendable {
    private struct State {
        var queue = CircularBuffer<Frame>(initialCapacity: 1)
        /// The pipeline failed (a bad frame) after the frames queued: the connection closes
        /// once they are handled, and frames read later are dropped. (Kept beside the queue
        /// rather than in it: an enum of frame or error, and its optional as it left the
        /// queue, were destroyed through the run-time's value witnesses at every request.)
        var failure: (any Error)?
        /// A task is handling the queue.
        var handling = false
        /// The task is gone for good (the connection is refused or the server stops): frames
        /// read later are dropped.
        var finished = false
        /// The channel has closed.
        var closed = false
        /// The handler reads nothing more until the task has brought the queue down.
        var readingPaused = false
        /// The most items queued at once (for tests and debugging).
        var mostQueued = 0
        var task: Task<Void, Never>?
    }

    /// How the connection's frames are handled.
    enum Handling: Sendable {
        /// By a task started when frames wait, on Swift's global pool or on the connection's
        /// event loop (`onEventLoop`); `handle` returns false when the connection must close.
        case inTasks(onEventLoop: Bool, handle: @Sendable (Frame, ServedConnection) async -> Bool)
        /// On the event loop, inside the read: returns the reply to write, if any, and sets
        /// its flag when the connection must close.
        case onEventLoop(@Sendable (FrameSlice, ServedConnection, inout Bool) -> OutboundFrame?)
    }

    static var pauseAt: Int { 16 }
    static var resumeAt: Int { 4 }

    let id: Int
    let channel: any Channel
    let writer: ServerWriter
    let logger: Logger
    /// The peer's address, for log lines.
    let peer: String
    let handling: Handling
    private let state = NIOLockedValueBox(State())
    /// Told when the connection is done with (closed, and no task handling it).
    private let done: @Sendable (ServedConnection) -> Void

    init(
        id: Int, channel: any Channel, chain: InterceptorChain, logger: Logger, handling: Handling,
        done: @escaping @Sendable (ServedConnection) -> Void
    ) {
        self.id = id
        self.channel = channel
        self.writer = ServerWriter(channel: channel, chain: chain, outbound: OutboundQueue())
        self.handling = handling
        self.logger = logger
        self.peer = channel.remoteAddress.map { "\($0)" } ?? "?"
        self.done = done
    }

    // MARK: On the event loop

    /// Queues a frame the handler read, and starts a task to handle it when none is handling.
    func enqueue(_ frame: Frame) {
        let start: Bool = state.withLockedValue { state in
            guard !state.finished, state.failure == nil else { return false }
            state.queue.append(frame)
            state.mostQueued = max(state.mostQueued, state.queue.count)
            if state.queue.count >= Self.pauseAt { state.readingPaused = true }
            return Self.startsHandling(&state)
        }
        if start { startHandling() }
    }

    /// The pipeline failed (a bad frame): the connection closes once the frames read before
    /// are handled.
    func fail(_ error: any Error) {
        let start: Bool = state.withLockedValue { state in
            guard !state.finished, state.failure == nil else { return false }
            state.failure = error
            return Self.startsHandling(&state)
        }
        if start { startHandling() }
    }

    /// Whether a task must start to handle what was queued: none is handling.
    private static func startsHandling(_ state: inout State) -> Bool {
        guard !state.handling else { return false }
        state.handling = true
        return true
    }

    /// Items queued now, and the most queued at once so far.
    var queued: (now: Int, most: Int) { state.withLockedValue { ($0.queue.count, $0.mostQueued) } }

    /// Whether a task is handling what the connection sent, or replies wait to be written
    /// (queued by a task that has just ended, for the event loop's next turn).
    var isBusy: Bool { state.withLockedValue { $0.handling } || !writer.outbound.isEmpty }

    /// Whether the handler should hold back its reads.
    var readingPaused: Bool { state.withLockedValue { $0.readingPaused } }

    /// The channel has closed: frames still queued are handled (their replies go nowhere);
    /// the connection is done with once no task is handling.
    func channelClosed() {
        for entry in writer.outbound.close() { entry.written?.fail(ChannelError.ioOnClosedChannel) }
        let idle = state.withLockedValue { state in
            state.closed = true
            return !state.handling
        }
        if idle { done(self) }
    }

    // MARK: Off the event loop

    /// Closes the connection and cancels the task handling it, if any (the server stops).
    func stop() {
        let task = state.withLockedValue { state in
            state.finished = true
            state.queue.removeAll()
            return state.task
        }
        task?.cancel()
        channel.close(promise: nil)
    }

    private func startHandling() {
        guard case let .inTasks(onEventLoop, handle) = handling else { return }
        let task = startTask(on: onEventLoop ? channel.eventLoop : nil) {
            await self.handleQueued(with: handle)
        }
        let stopped = state.withLockedValue { state in
            if state.handling { state.task = task }
            return state.finished
        }
        if stopped { task.cancel() }
    }

    /// The next queued frame, or nil when none is left: the task then ends (the next frame
    /// starts another), or, when the pipeline failed after the frames handled, the connection
    /// closes. Asks the handler to read again when the queue has come down.
    private func next() -> Frame? {
        // Flags set in the closure rather than returned beside the frame: a tuple holding an
        // optional is destroyed through the run-time's value witnesses.
        var resume = false
        var idleAndClosed = false
        var failure: (any Error)?
        let frame: Frame? = state.withLockedValue { state in
            guard !state.finished, let frame = state.queue.popFirst() else {
                if !state.finished, let error = state.failure {
                    failure = error
                } else {
                    state.handling = false
                    state.task = nil
                    idleAndClosed = state.closed
                }
                return nil
            }
            if state.readingPaused && state.queue.count <= Self.resumeAt {
                state.readingPaused = false
                resume = true
            }
            return frame
        }
        if resume {
            let loop = channel.eventLoop
            loop.execute { [channel] in channel.pipeline.fireUserInboundEventTriggered(ResumeReading()) }
        }
        if let failure {
            logger.warning("connection closed", metadata: ["peer": "\(peer)", "error": "\(failure)"])
            finish()
        }
        if idleAndClosed { done(self) }
        return frame
    }

    /// Handles queued frames until none is left, the connection must close, or the server stops.
    private func handleQueued(with handle: @Sendable (Frame, ServedConnection) async -> Bool) async {
        while let frame = next() {
            if await !handle(frame, self) || Task.isCancelled {
                finish()
                return
            }
        }
    }

    /// Stops taking frames and closes the channel.
    private func finish() {
        let closed = state.withLockedValue { state in
            state.finished = true
            state.handling = false
            state.task = nil
            state.queue.removeAll()
            return state.closed
        }
        channel.close(promise: nil)
        if closed { done(self) }
    }
}

/// Sent down a connection's pipeline when its queue has room again.
struct ResumeReading: Sendable {}

/// The last handler of a server connection's pipeline, after a `FrameSliceHandler`, which
/// hands it each frame directly (`received`): queues the frames in its `ServedConnection`, or,
/// under `runOnEventLoop`, answers each one there and flushes the replies at the end of the
/// read. It holds back reads while that queue is full or the channel takes no more writes, and
/// frames and writes the replies and pushes queued for the connection, with one flush for all
/// those queued by then.
final class ServingHandler: ChannelDuplexHandler {
    typealias InboundIn = FrameSlice
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: ServedConnection
    /// This handler's place in the pipeline, from `handlerAdded` on.
    private var context: ChannelHandlerContext?
    /// Set by the `FrameSliceHandler` before this one (which holds this handler and passes its
    /// slices to `received`) once its stream has ended: an error after that ends the
    /// connection, one before is a bad header skipped under the layout's `resync`. (No
    /// reference back to it: a weak one would cost each connection a side table.)
    var streamEnded = false
    private let encoder: FrameEncoder
    /// A read was held back while the queue was full, or the channel could not take replies.
    private var readHeldBack = false
    /// Replies were written in this read and wait for its flush (`runOnEventLoop`).
    private var flushPending = false
    /// The connection is closing (`runOnEventLoop`): frames still cut are dropped.
    private var closing = false

    init(_ connection: ServedConnection, after slices: FrameSliceHandler, layout: FrameLayout) {
        self.connection = connection
        self.encoder = FrameEncoder(layout: layout)
        slices.receiver = self
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The slice handler keeps this handler until it goes too; this one lets go of its
        // context, which holds it.
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(unwrapInboundIn(data))
    }

    /// A frame cut by the handler before this one.
    func received(_ slice: FrameSlice) {
        guard case let .onEventLoop(answer) = connection.handling else {
            connection.enqueue(slice.copy())
            return
        }
        // The context is there from before the first read (the handler is added with the
        // channel).
        guard !closing, let context else { return }
        var close = false
        let reply = answer(slice, connection, &close)
        // Pushes the handler queued (or others did) go before its reply.
        if !connection.writer.outbound.isEmpty, writeQueued(context: context) { flushPending = true }
        if let reply {
            write(reply, context: context)
            flushPending = true
        }
        if close { closeAfterFlush(context: context) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        readAgainIfHeldBack(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Passes on the read held back once the queue has room and the channel takes writes.
    private func readAgainIfHeldBack(context: ChannelHandlerContext) {
        if readHeldBack && !connection.readingPaused && context.channel.isWritable {
            readHeldBack = false
            context.read()
        }
    }

    /// Flushes the replies written before and closes the connection (what the socket does not
    /// take at once goes with it, as when the task-run handlers' connection closes).
    private func closeAfterFlush(context: ChannelHandlerContext) {
        closing = true
        flushPending = false
        context.flush()
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A bad header skipped under the layout's `resync`: the frames after it go on.
        if error is FrameError, !streamEnded {
            connection.logger.warning(
                "skipping a bad header, decoding goes on from the next magic",
                metadata: [
                    "peer": "\(connection.peer)", "error": "\(error)",
                ])
            return
        }
        if case .onEventLoop = connection.handling {
            // The frames read before it are answered.
            guard !closing else { return }
            connection.logger.warning(
                "connection closed", metadata: ["peer": "\(connection.peer)", "error": "\(error)"])
            closeAfterFlush(context: context)
            return
        }
        // After the frames read before it.
        connection.fail(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A type comparison: `is` would go through the run-time cast.
        guard type(of: event) == ResumeReading.self else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        readAgainIfHeldBack(context: context)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard type(of: event) == DrainOutbound.self else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if writeQueued(context: context) { context.flush() }
        promise?.succeed()
    }

    /// Writes the replies and pushes queued for the connection, unflushed; false when there
    /// were none.
    private func writeQueued(context: ChannelHandlerContext) -> Bool {
        let entries = connection.writer.outbound.take()
        for entry in entries { write(entry.write, context: context, promise: entry.written) }
        let wrote = !entries.isEmpty
        connection.writer.outbound.recycle(entries)
        return wrote
    }

    /// Frames `frame` into a buffer of its own and writes it, unflushed.
    private func write(_ frame: OutboundFrame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        do {
            var buffer = context.channel.allocator.buffer(
                capacity: encoder.largestHeaderSize + frame.payload.count)
            try encoder.write(frame.header, payload: frame.payload, to: &buffer)
            // NIOAny(_:) rather than `wrapOutboundOut`, whose generic call checks the type at
            // run time.
            context.write(NIOAny(buffer), promise: promise)
        } catch {
            connection.logger.warning("frame not sent", metadata: ["peer": "\(connection.peer)", "error": "\(error)"])
            promise?.fail(error)
        }
    }

    func read(context: ChannelHandlerContext) {
        if connection.readingPaused || !context.channel.isWritable {
            readHeldBack = true
        } else {
            context.read()
        }
    }
}

/// Writes a connection's frames through its interceptors. Frames are queued for the event
/// loop, which writes all those queued by its turn and flushes once; a write waits only when
/// the channel's buffer is above its high-water mark or the queue is full.
struct ServerWriter: Sendable {
    let channel: any Channel
    let chain: InterceptorChain
    let outbound: OutboundQueue<OutboundFrame>

    func write(_ frame: OutboundFrame) async throws {
        try await queue(frame)?.get()
    }

    /// Queues `frame`; returns the future to wait on when the channel or the queue is full
    /// (the request path awaits only then: an `async` call it can skip is a task switch less).
    func queue(_ frame: OutboundFrame) throws -> EventLoopFuture<Void>? {
        try queue(frame, whenFull: .waits)
    }

    /// Queues `frame` unless the channel or the queue is full: then it throws
    /// `FrameServerError.outboundFull` and nothing is queued.
    func queueUnlessFull(_ frame: OutboundFrame) throws {
        _ = try queue(frame, whenFull: .refuses)
    }

    private func queue(_ frame: OutboundFrame, whenFull: OutboundQueue<OutboundFrame>.WhenFull) throws
        -> EventLoopFuture<Void>?
    {
        let (enqueued, written) = outbound.enqueue(try chain.outbound(frame), on: channel, whenFull: whenFull)
        switch enqueued {
        case .queued: return written
        case .closed: throw ChannelError.ioOnClosedChannel
        case .full: throw FrameServerError.outboundFull
        }
    }
}

/// Closes a connection when `IdleStateHandler` reports that it has been silent too long, unless
/// the server is still handling what it sent or has its reply yet to write (a peer waiting for
/// a slow reply is silent too).
final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    private let connection: ServedConnection

    init(_ connection: ServedConnection) {
        self.connection = connection
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if !connection.isBusy { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
