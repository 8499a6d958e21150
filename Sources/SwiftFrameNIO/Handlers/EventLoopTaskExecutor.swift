import NIOCore

/// Runs a task's jobs on an event loop (Swift's `TaskExecutor`, given to a task as its
/// executor preference). A job enqueued from the loop itself (a reply completing the request
/// the task awaits) runs in the same turn of the loop, with no thread woken; a task on Swift's
/// global pool would wake one of the pool's threads instead, and each request it makes wakes
/// the loop.
///
/// The server runs its handlers on one (`ServerConfiguration.handlersRunOnEventLoop`); a
/// client gives one to the app (`FrameClient.eventLoopExecutor`) that follows its current
/// connection's loop from job to job. (A task executor where the system has them: see the
/// conformance below; the class itself is available everywhere, so that a client can hold one.)
final class EventLoopTaskExecutor: Sendable {
    /// The loop of the next job.
    private let loop: @Sendable () -> any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = { loop }
    }

    /// An executor whose jobs go to the loop `loop` names when each is enqueued.
    init(following loop: @escaping @Sendable () -> any EventLoop) {
        self.loop = loop
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension EventLoopTaskExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run as a task executor's job, not a serial executor's (NIO's `EventLoop.executor`):
        // the task's code is not isolated to the loop, only prefers it.
        loop().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A task running `operation` on `loop` where the system has task executors (Linux, macOS 15,
/// iOS 18 and later), on Swift's global pool elsewhere and when `loop` is nil.
func startTask(on loop: (any EventLoop)?, _ operation: sending @escaping () async -> Void) -> Task<Void, Never> {
    if let loop, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        return Task(executorPreference: EventLoopTaskExecutor(loop), operation: operation)
    }
    return Task(operation: operation)
}
