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
    /// The frames read and not yet handled, and where the task handling them is.
    private let state = NIOLockedValueBox(
        ServedConnectionState<Frame>(pauseAt: ServedConnection.pauseAt, resumeAt: ServedConnection.resumeAt))
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
        if state.withLockedValue({ $0.enqueue(frame) }) { startHandling() }
    }

    /// The pipeline failed (a bad frame): the connection closes once the frames read before
    /// are handled.
    func fail(_ error: any Error) {
        if state.withLockedValue({ $0.fail(error) }) { startHandling() }
    }

    /// Items queued now, and the most queued at once so far.
    var queued: (now: Int, most: Int) { state.withLockedValue { ($0.queue.count, $0.mostQueued) } }

    /// Whether a task is handling what the connection sent, or replies wait to be written
    /// (queued by a task that has just ended, for the event loop's next turn).
    var isBusy: Bool { isHandling || !writer.outbound.isEmpty }

    /// Whether a task is handling what the connection sent.
    var isHandling: Bool { state.withLockedValue { $0.isHandling } }

    /// Whether the handler should hold back its reads.
    var readingPaused: Bool { state.withLockedValue { $0.readingPaused } }

    /// The channel has closed: frames still queued are handled (their replies go nowhere);
    /// the connection is done with once no task is handling.
    func channelClosed() {
        for entry in writer.outbound.close() { entry.written?.fail(ChannelError.ioOnClosedChannel) }
        if state.withLockedValue({ $0.channelClosed() }) { done(self) }
    }

    // MARK: Off the event loop

    /// Closes the connection and cancels the task handling it, if any (the server stops).
    func stop() {
        state.withLockedValue { $0.stop() }?.cancel()
        channel.close(promise: nil)
    }

    private func startHandling() {
        guard case let .inTasks(onEventLoop, handle) = handling else { return }
        let task = startTask(on: onEventLoop ? channel.eventLoop : nil) {
            await self.handleQueued(with: handle)
        }
        if state.withLockedValue({ $0.taskStarted(task) }) { task.cancel() }
    }

    /// The next queued frame, or nil when none is left: the task then ends (the next frame
    /// starts another), or, when the pipeline failed after the frames handled, the connection
    /// closes. Asks the handler to read again when the queue has come down.
    private func next() -> Frame? {
        // What follows set in the closure rather than returned beside the frame: a tuple
        // holding an optional is destroyed through the run-time's value witnesses.
        var then = ServedConnectionState<Frame>.Next.none
        let frame = state.withLockedValue { $0.next(then: &then) }
        switch then {
        case .none:
            break
        case .resumeReading:
            let loop = channel.eventLoop
            loop.execute { [channel] in channel.pipeline.fireUserInboundEventTriggered(ResumeReading()) }
        case let .ended(isDone):
            if isDone { done(self) }
        case let .fail(failure):
            logger.warning("connection closed", metadata: ["peer": "\(peer)", "error": "\(failure)"])
            finish()
        }
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
        let isDone = state.withLockedValue { $0.finish() }
        channel.close(promise: nil)
        if isDone { done(self) }
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

    /// Where the handler is: reading, with what it has held back or left to flush, or closing.
    enum State: Equatable {
        struct Reading: Equatable {
            /// The peer's stream has ended (set by the `FrameSliceHandler` before this one): an
            /// error after that ends the connection, one before is a bad header skipped under
            /// the layout's `resync`.
            var streamEnded = false
            /// A read was held back while the queue was full, or the channel took no replies.
            var readHeldBack = false
            /// Replies were written in this read and wait for its flush (`runOnEventLoop`).
            var flushPending = false
        }

        case reading(Reading)
        /// Flushed and closing (`runOnEventLoop`): frames still cut are dropped, errors too.
        case closing

        var isClosing: Bool {
            if case .closing = self { true } else { false }
        }

        /// Passes a read on unless the handler must hold it back (`canRead` false).
        mutating func read(canRead: Bool) -> Bool {
            guard !canRead, case var .reading(reading) = self else { return true }
            reading.readHeldBack = true
            self = .reading(reading)
            return false
        }

        /// Whether to pass on a read held back, now that the handler `canRead`.
        mutating func readAgain(canRead: Bool) -> Bool {
            guard canRead, case var .reading(reading) = self, reading.readHeldBack else { return false }
            reading.readHeldBack = false
            self = .reading(reading)
            return true
        }

        /// Replies were written in this read.
        mutating func wrote() {
            guard case var .reading(reading) = self else { return }
            reading.flushPending = true
            self = .reading(reading)
        }

        /// The read is complete: whether to flush.
        mutating func readComplete() -> Bool {
            guard case var .reading(reading) = self, reading.flushPending else { return false }
            reading.flushPending = false
            self = .reading(reading)
            return true
        }

        var streamEnded: Bool {
            get {
                if case let .reading(reading) = self { reading.streamEnded } else { true }
            }
            set {
                guard case var .reading(reading) = self else { return }
                reading.streamEnded = newValue
                self = .reading(reading)
            }
        }
    }

    private let connection: ServedConnection
    /// This handler's place in the pipeline, from `handlerAdded` on.
    private var context: ChannelHandlerContext?
    private var state = State.reading(.init())
    private let encoder: FrameEncoder

    /// Set by the `FrameSliceHandler` before this one, which holds this handler and passes its
    /// slices to `received`. (No reference back to it: a weak one would cost each connection a
    /// side table.)
    var streamEnded: Bool {
        get { state.streamEnded }
        set { state.streamEnded = newValue }
    }

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
        guard !state.isClosing, let context else { return }
        var close = false
        let reply = answer(slice, connection, &close)
        // Pushes the handler queued (or others did) go before its reply.
        if !connection.writer.outbound.isEmpty, writeQueued(context: context) { state.wrote() }
        if let reply {
            write(reply, context: context)
            state.wrote()
        }
        if close { closeAfterFlush(context: context) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if state.readComplete() { context.flush() }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        readAgainIfHeldBack(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Passes on the read held back once the queue has room and the channel takes writes.
    private func readAgainIfHeldBack(context: ChannelHandlerContext) {
        if state.readAgain(canRead: !connection.readingPaused && context.channel.isWritable) { context.read() }
    }

    /// Flushes the replies written before and closes the connection (what the socket does not
    /// take at once goes with it, as when the task-run handlers' connection closes).
    private func closeAfterFlush(context: ChannelHandlerContext) {
        state = .closing
        context.flush()
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A bad header skipped under the layout's `resync`: the frames after it go on.
        if error is FrameError, !state.streamEnded {
            connection.logger.warning(
                "skipping a bad header, decoding goes on from the next magic",
                metadata: [
                    "peer": "\(connection.peer)", "error": "\(error)",
                ])
            return
        }
        if case .onEventLoop = connection.handling {
            // The frames read before it are answered.
            guard !state.isClosing else { return }
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
        if state.read(canRead: !connection.readingPaused && context.channel.isWritable) { context.read() }
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
