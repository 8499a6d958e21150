import Logging
import NIOCore
import SwiftFrame

/// What a `Connection` writes into its channel.
struct ClientWrite: Sendable {
    enum Kind: Sendable {
        /// A request awaiting a reply on `replyCommand`, due by `deadline`.
        case request(replyCommand: UInt32, deadline: NIODeadline, timeout: Duration, waiter: ReplyWaiter)
        /// Fire and forget.
        case send
    }

    var frame: OutboundFrame
    var kind: Kind
}

/// Asks the handler to give up a request (its caller was cancelled).
struct CancelRequest: Sendable {
    let waiter: ReplyWaiter
}

/// The client end of one connection, on its event loop: cuts the bytes read into frames,
/// numbers requests, frames them, keeps the table of requests awaiting replies with their
/// deadlines, matches each frame to the request it answers or hands it on as a push, and keeps
/// the connection alive with heartbeats. Every table and timer it owns is touched on the event
/// loop only.
///
/// It reads bytes rather than frames from a decoder handler in front of it: a frame passed
/// between handlers is boxed in an existential and cast back for every frame, which with the
/// `ByteToMessageHandler` around the decoder was much of the cost of a reply.
///
/// A frame that lies wholly in a read is cut from the read's `ByteBuffer` where it lies, and a
/// reply travels to its caller as a slice of that buffer, to be decoded from there in the
/// caller's task: no byte of it is copied on the way. A frame that spans reads is copied once
/// (see `FrameSlicer`). A push is copied into the `Frame` handed to the app, and so is every
/// frame when interceptors are configured (they take and give `Frame`s).
final class ConnectionHandler<Table: CommandTable>: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ClientWrite
    typealias OutboundOut = ByteBuffer

    private let encoder: FrameEncoder
    private let heading: Heading
    private let allocator = ByteBufferAllocator()
    /// Frames queued by callers, written when a `DrainOutbound` reaches the handler.
    let outbound = OutboundQueue<ClientWrite>()
    private var slicer: FrameSlicer
    /// True while the frames of one read are being handled.
    private var decoding = false
    private var pending: PendingRequests
    private let heartbeat: Heartbeat?
    private let heartbeatCommand: UInt32?
    private let headerExtras: [String: UInt64]
    private let push: @Sendable (FrameSlicer.Piece) -> Void
    private let logger: Logger
    private let interceptors: [any FrameInterceptor]
    private var chain: InterceptorChain?
    private let metrics: ConnectionMetrics?
    /// Succeeded with the reason when the channel goes inactive.
    let closed: EventLoopPromise<DisconnectReason>
    /// Open or closing, and the idle heartbeat's timer or the heartbeat awaiting its answer.
    private var machine = ConnectionStateMachine<Scheduled<Void>>()

    // Kept out of `machine`: they change at every request, reply or read.
    private var lastRead = NIODeadline.now()
    private var lastWrite = NIODeadline.now()
    /// The one timer at the soonest deadline of the requests outstanding.
    private var deadlineTimer: (deadline: NIODeadline, task: Scheduled<Void>)?
    /// The client's interval (learned, in adaptive mode) and whether the app is suspended; nil
    /// for a handler of its own, which keeps a pacer of its own.
    private let shared: ClientHeartbeat?
    private var ownPacer: HeartbeatPacer?

    init(
        configuration: ClientConfiguration, eventLoop: EventLoop, metrics: ConnectionMetrics? = nil,
        heartbeat shared: ClientHeartbeat? = nil, push: @escaping @Sendable (FrameSlicer.Piece) -> Void
    ) {
        self.metrics = metrics
        let layout = Table.layout
        encoder = FrameEncoder(layout: layout)
        heading = Heading(layout)
        slicer = FrameSlicer(layout: layout)
        let sequenceField = layout.sequenceField
        let correlation = configuration.correlation ?? (sequenceField != nil ? .sequence : .inOrder)
        pending = PendingRequests(
            correlation: correlation, errorCommand: configuration.errorCommand ?? Table.errorCommand,
            limit: configuration.maxPendingRequests, sequenceWidth: sequenceField?.width,
            first: configuration.firstSequence)
        heartbeatCommand = configuration.heartbeat?.command ?? Table.heartbeatCommand
        heartbeat = heartbeatCommand == nil ? nil : configuration.heartbeat
        self.shared = shared
        ownPacer = shared == nil ? heartbeat.map(HeartbeatPacer.init) : nil
        headerExtras = configuration.headerExtras
        self.push = push
        logger = configuration.logger
        interceptors = configuration.interceptors
        closed = eventLoop.makePromise()
    }

    // MARK: Lifecycle

    func channelActive(context: ChannelHandlerContext) {
        // Made now: the connection's addresses are known once it is active.
        if !interceptors.isEmpty {
            chain = InterceptorChain(interceptors, side: .client, channel: context.channel, table: Table.self)
        }
        lastRead = .now()
        lastWrite = .now()
        machine.activate()
        scheduleHeartbeat(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context: context)
    }

    /// The channel is gone (or the handler removed): timers stopped, what callers queued
    /// refused, the requests failed, the close reported.
    private func finish(context: ChannelHandlerContext) {
        deadlineTimer?.task.cancel()
        deadlineTimer = nil
        refuseOutbound()
        var truncated: DisconnectReason?
        // The peer closed in the middle of a frame.
        if machine.takesFrames, !decoding {
            do throws(FrameError) { try slicer.finish() } catch { truncated = .badFrame(error) }
        }
        perform(machine.finish(truncated: truncated), context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reason = (error as? FrameError).map(DisconnectReason.badFrame) ?? .transportError(error)
        logger.warning("closing the connection", metadata: ["error": "\(error)"])
        // Closed again even when closing (`close` keeps the first reason).
        close(context: context, reason: reason)
    }

    /// Closes the connection for `reason` (kept for the disconnect report unless one was given
    /// before).
    private func close(context: ChannelHandlerContext, reason: DisconnectReason) {
        perform(machine.close(reason), context: context)
    }

    /// Carries out what the state machine asked.
    private func perform(_ action: ConnectionStateMachine<Scheduled<Void>>.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case let .armHeartbeat(due, cancel):
            cancel?.cancel()
            // The timers hold the handler strongly until they fire or are cancelled (see
            // `armDeadlineTimer`).
            let timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
                self.heartbeatDue(context: context)
            }
            if !machine.armed(timer) { timer.cancel() }
        case let .sendHeartbeat(attempt):
            guard let heartbeat else { return }
            logger.trace("heartbeat", metadata: ["attempt": "\(attempt)"])
            sendHeartbeatFrame(timeout: heartbeat.timeout, completion: .heartbeat(attempt: attempt), context: context)
        case .sendCheck:
            guard let heartbeat else { return }
            logger.debug("checking the connection")
            sendHeartbeatFrame(timeout: heartbeat.checkTimeout, completion: .check, context: context)
        case let .reschedule(answered):
            if let answered { updatePacer { $0.answered(answered, at: .now) } }
            scheduleHeartbeat(context: context)
        case let .close(cancel, missed):
            if let missed { updatePacer { $0.missed(missed, at: .now) } }
            cancel?.cancel()
            context.close(promise: nil)
        case let .finish(reason, cancel):
            cancel?.cancel()
            for entry in pending.removeAll() {
                record(entry.command, failure: "connection_lost")
                if case let .caller(waiter) = entry.completion {
                    waiter.complete(.failure(FrameClientError.connectionLost(reason)))
                }
            }
            closed.succeed(reason)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        // A type comparison: `is` would go through the run-time cast.
        if type(of: event) == DrainOutbound.self {
            drainOutbound(context: context)
            promise?.succeed()
        } else if let cancel = event as? CancelRequest {
            if let key = pending.key(of: cancel.waiter), let entry = pending.abandon(key),
                case let .caller(waiter) = entry.completion
            {
                logger.debug("request cancelled; a late reply will be dropped", metadata: ["key": "\(key)"])
                record(entry.command, failure: "cancelled")
                waiter.complete(.failure(CancellationError()))
            }
            promise?.succeed()
        } else if let request = event as? HeartbeatRequest {
            switch request {
            case .check: check(context: context)
            case .resume: resumed(context: context)
            }
            promise?.succeed()
        } else if event is CloseRequest {
            close(context: context, reason: .closedByClient)
            promise?.succeed()
        } else {
            context.triggerUserOutboundEvent(event, promise: promise)
        }
    }

    // MARK: Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        handle(unwrapOutboundIn(data), written: promise, context: context)
    }

    /// Writes every frame callers have queued, then flushes once.
    private func drainOutbound(context: ChannelHandlerContext) {
        let entries = outbound.take()
        for entry in entries { handle(entry.write, written: entry.written, context: context) }
        if !entries.isEmpty { context.flush() }
        outbound.recycle(entries)
    }

    /// Fails what callers queued after the connection closed: a request's caller sees
    /// `NotSent` and tries the next connection.
    private func refuseOutbound() {
        for entry in outbound.close() { fail(entry.write, written: entry.written, ChannelError.ioOnClosedChannel) }
    }

    /// Frames one caller's frame and writes it, without a flush.
    private func handle(_ write: ClientWrite, written: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        // Closed, or closing: a request taken now would wait in the table for nothing.
        guard context.channel.isActive, machine.takesFrames else {
            fail(write, written: written, ChannelError.ioOnClosedChannel)
            return
        }
        switch write.kind {
        case .send:
            var frame = write.frame
            // Numbered like a request (so the server can tell frames apart), but awaiting nothing.
            if case .sequence = pending.correlation { frame.header.sequence = pending.newKey() ?? 0 }
            guard let buffer = framed(frame, failing: write, written: written) else { return }
            lastWrite = .now()
            recordSent(nil, bytes: buffer.readableBytes)
            context.write(wrapOutboundOut(buffer), promise: written)
        case let .request(replyCommand, deadline, timeout, waiter):
            let command = heading.commandID(of: write.frame.header)
            startRequest(
                write.frame, command: command, replyCommand: replyCommand, deadline: deadline,
                timeout: timeout, completion: .caller(waiter), context: context, written: written)
        }
    }

    /// A frame that was not written: its caller's request fails with `error` (`NotSent` for
    /// a closed channel), a waiting send with the error itself.
    private func fail(_ write: ClientWrite, written: EventLoopPromise<Void>?, _ error: any Error) {
        written?.fail(error)
        if case let .request(_, _, _, waiter) = write.kind {
            waiter.complete(.failure(error is ChannelError ? NotSent() : error))
        }
    }

    /// Takes a request into the table and writes its frame, without a flush.
    private func startRequest(
        _ frame: OutboundFrame, command: UInt32, replyCommand: UInt32, deadline: NIODeadline, timeout: Duration,
        completion: PendingRequests.Completion, context: ChannelHandlerContext,
        written: EventLoopPromise<Void>? = nil
    ) {
        func fail(_ error: any Error) {
            written?.fail(error)
            if case let .caller(waiter) = completion { waiter.complete(.failure(error)) }
        }
        guard pending.entries.count < pending.limit, let key = pending.newKey() else {
            record(command, failure: "too_many_pending", wasPending: false)
            fail(FrameClientError.tooManyPending(limit: pending.limit))
            return
        }
        var frame = frame
        switch pending.correlation {
        case .sequence: frame.header.sequence = key
        case let .bodyField(number): BodyID.append(key, field: number, to: &frame.payload)
        case .inOrder: break
        }
        let buffer: ByteBuffer
        do {
            buffer = try framed(frame)
        } catch {
            fail(error)
            return
        }
        let soonest = pending.insert(
            .init(
                command: command, replyCommand: replyCommand, completion: completion,
                deadline: deadline, timeout: timeout),
            key: key)
        if soonest { armDeadlineTimer(context: context) }
        lastWrite = .now()
        recordSent(command, bytes: buffer.readableBytes)
        context.write(wrapOutboundOut(buffer), promise: written)
    }

    /// The frame's bytes, after the interceptors; throws (and logs) when an interceptor
    /// refuses it or the layout cannot carry it.
    private func framed(_ frame: OutboundFrame) throws -> ByteBuffer {
        do {
            let frame = try chain?.outbound(frame) ?? frame
            var buffer = allocator.buffer(capacity: encoder.largestHeaderSize + frame.payload.count)
            try encoder.write(frame.header, payload: frame.payload, to: &buffer)
            return buffer
        } catch {
            logger.error("frame not sent", metadata: ["error": "\(error)"])
            throw error
        }
    }

    private func framed(_ frame: OutboundFrame, failing write: ClientWrite, written: EventLoopPromise<Void>?)
        -> ByteBuffer?
    {
        do {
            return try framed(frame)
        } catch {
            fail(write, written: written, error)
            return nil
        }
    }

    /// One timer for the connection, at the soonest deadline of a request still outstanding.
    private func armDeadlineTimer(context: ChannelHandlerContext) {
        guard let deadline = pending.nextDeadline() else {
            deadlineTimer?.task.cancel()
            deadlineTimer = nil
            return
        }
        if let timer = deadlineTimer, timer.deadline == deadline { return }
        deadlineTimer?.task.cancel()
        // The timers hold the handler strongly until they fire or are cancelled (on
        // `channelInactive` or `handlerRemoved`): a weak capture would give the handler a
        // side table, referenced only through its tagged header word, which LeakSanitizer
        // reports as leaked when a process exits with a connection still open.
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.deadlineTimer = nil
            self.expireRequests(context: context)
        }
        deadlineTimer = (deadline, task)
    }

    private func expireRequests(context: ChannelHandlerContext) {
        for (key, entry) in pending.expire(now: .now()) {
            record(entry.command, failure: "timed_out")
            switch entry.completion {
            case let .caller(waiter):
                logger.debug("request timed out", metadata: ["command": "\(entry.command)", "key": "\(key)"])
                waiter.complete(.failure(FrameClientError.timedOut(command: entry.command, after: entry.timeout)))
            case let .heartbeat(attempt):
                heartbeatMissed(attempt: attempt, context: context)
            case .check:
                logger.notice("no answer to the check")
                close(context: context, reason: .heartbeatTimeout(attempts: 1))
            }
        }
        armDeadlineTimer(context: context)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        lastRead = .now()
        decoding = true
        defer { decoding = false }
        do throws(FrameError) {
            try slicer.cut(&buffer) { result in
                guard machine.takesFrames else { return }  // closed by an earlier frame of this read
                switch result {
                case let .success(piece):
                    received(piece, context: context)
                case let .failure(error):
                    logger.warning(
                        "skipping a bad header, decoding goes on from the next magic", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            logger.warning("closing the connection", metadata: ["error": "\(error)"])
            close(context: context, reason: .badFrame(error))
        }
    }

    private func received(_ piece: FrameSlicer.Piece, context: ChannelHandlerContext) {
        var piece = piece
        // Only a chain with interceptors for frames received takes the payload out of the
        // buffer it was read into: the others (a token stamp, logging that is off) leave the
        // reply where it lies.
        if let chain, !chain.inbound.isEmpty {
            do {
                piece = .frame(try chain.inbound(piece.frame))
            } catch {
                logger.warning("closing the connection: a frame was refused", metadata: ["error": "\(error)"])
                close(context: context, reason: .rejectedFrame(error))
                return
            }
        }
        let header = piece.header
        let command = heading.commandID(of: header)
        var bodyKey: UInt64?
        if case let .bodyField(number) = pending.correlation {
            bodyKey = piece.withPayload { BodyID.read(field: number, in: $0) }
        }
        let entry: PendingRequests.Entry
        switch pending.match(header, command: command, bodyKey: bodyKey) {
        case .none:
            push(piece)
            return
        case let .late(key):
            logger.info(
                "dropping a late reply to a request given up", metadata: ["command": "\(command)", "key": "\(key)"])
            return
        case let .reply(answered):
            entry = answered
        }
        switch entry.completion {
        case let .caller(waiter):
            if command == pending.errorCommand && entry.replyCommand != command {
                do {
                    waiter.complete(.failure(ErrorReply<Table>(reply: try Table.decode(piece.frame), header: header)))
                    record(entry.command, failure: "error_reply")
                } catch {
                    waiter.complete(.failure(FrameClientError.badReply(command: command, error)))
                    record(entry.command, failure: "bad_reply")
                }
            } else {
                recordAnswer(entry)
                waiter.complete(.success(piece.slice))
            }
        case .heartbeat:
            recordAnswer(entry)
            perform(machine.heartbeatAnswered(), context: context)
        case .check:
            recordAnswer(entry)
            scheduleHeartbeat(context: context)
        }
    }

    // MARK: Heartbeat

    /// The interval to wait now: the client's (learned, in adaptive mode), or the handler's own;
    /// nil for a connection without a heartbeat.
    private var probe: HeartbeatPacer.Probe? {
        guard heartbeat != nil else { return nil }
        if let shared { return shared.pacer.withLockedValue { $0.probe } }
        return ownPacer?.probe
    }

    private func updatePacer(_ change: (inout HeartbeatPacer) -> Void) {
        if let shared {
            shared.pacer.withLockedValue(change)
        } else if ownPacer != nil {
            change(&ownPacer!)
        }
    }

    private var isSuspended: Bool { shared?.isSuspended() ?? false }

    /// Arms the timer for when the connection will have been idle for the interval.
    private func scheduleHeartbeat(context: ChannelHandlerContext) {
        perform(machine.scheduleHeartbeat(probe: probe, idleSince: min(lastRead, lastWrite)), context: context)
    }

    private func heartbeatDue(context: ChannelHandlerContext) {
        let action = machine.heartbeatDue(
            probe: probe, suspended: isSuspended, idleSince: min(lastRead, lastWrite), now: .now())
        perform(action, context: context)
    }

    private func sendHeartbeatFrame(
        timeout: Duration, completion: PendingRequests.Completion, context: ChannelHandlerContext
    ) {
        guard let heartbeat, let command = heartbeatCommand else { return }
        let frame = OutboundFrame(
            header: heading.header(command: command, extras: headerExtras), payload: heartbeat.payload)
        startRequest(
            frame, command: command, replyCommand: command, deadline: .now() + TimeAmount(timeout),
            timeout: timeout, completion: completion, context: context)
        context.flush()
    }

    private func heartbeatMissed(attempt: Int, context: ChannelHandlerContext) {
        guard let heartbeat else { return }
        logger.notice("heartbeat missed", metadata: ["attempt": "\(attempt)"])
        perform(
            machine.heartbeatMissed(attempt: attempt, retries: heartbeat.retries, suspended: isSuspended),
            context: context)
    }

    /// A heartbeat now, whatever the interval; unanswered within `checkTimeout`, the connection
    /// is dropped. Without a heartbeat to check with, the connection is dropped at once, to be
    /// made again.
    private func check(context: ChannelHandlerContext) {
        perform(machine.check(canCheck: heartbeat != nil && heartbeatCommand != nil), context: context)
    }

    /// Back from the background: a check now if nothing came or went for longer than the
    /// interval, else the heartbeat goes on from the last traffic.
    private func resumed(context: ChannelHandlerContext) {
        perform(machine.resume(probe: probe, idleSince: min(lastRead, lastWrite), now: .now()), context: context)
    }
}

// MARK: Metrics (nothing without the Metrics trait)

extension ConnectionHandler {
    fileprivate func recordSent(_ command: UInt32?, bytes: Int) {
        #if Metrics
        guard let metrics else { return }
        metrics.bytesOut.increment(by: bytes)
        if let command { metrics.sent(command) }
        #endif
    }

    fileprivate func recordAnswer(_ entry: PendingRequests.Entry) {
        #if Metrics
        metrics?.answered(entry.command, after: .now() - entry.sent)
        #endif
    }

    fileprivate func record(_ command: UInt32, failure kind: String, wasPending: Bool = true) {
        #if Metrics
        metrics?.failed(command, kind: kind, wasPending: wasPending)
        #endif
    }
}

/// Asks the handler to close the connection (reported as `DisconnectReason.closedByClient`).
struct CloseRequest: Sendable {}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension ClientWrite: QueuedWrite {
    var payloadBytes: Int { frame.payload.count }
}
