import NIOConcurrencyHelpers
import NIOCore

/// A task waiting, up to a deadline, for a value another party hands over: kept by its owner
/// (in the owner's state, under the owner's lock) until the value comes, the deadline passes
/// or the task is cancelled, whichever is first; whoever takes it from the owner resumes it,
/// so it is resumed once. The client's wait for a connection and the server's wait for its
/// port are this.
///
/// The deadline is a timer on an event loop (`scheduleTask`), as every timer of the transport
/// is: the handlers' timers must run on their channel's loop anyway, and a `Scheduled` is
/// cancelled from any thread, under a lock, without a task to make, wake or cancel.
///
/// A reply to a request is not awaited with this: its deadline is kept by the connection's
/// handler, which times out all of the connection's requests on its event loop, so each
/// request needs no timer and no owner's table of its own (`ReplyWaiter`).
struct DeadlineWaiter<Value: Sendable>: Sendable {
    private let continuation: CheckedContinuation<Value, any Error>
    private var timer: Scheduled<Void>?

    /// Resumes the task, and stops the timer. Called once, by whoever took the waiter back
    /// from its owner.
    func resume(with result: Result<Value, any Error>) {
        timer?.cancel()
        continuation.resume(with: result)
    }

    /// Gives the kept waiter the timer of its deadline.
    mutating func arm(_ timer: Scheduled<Void>) {
        self.timer = timer
    }

    /// Waits up to `timeout` for the value. `enroll` (under the owner's lock) answers at once,
    /// or keeps the waiter and returns nil; `arm` (under the lock) gives the kept waiter its
    /// timer (`arm(_:)`), false when it is no longer kept; `takeBack` (under the lock) takes it
    /// back, nil when someone else has. At the deadline it is taken back and fails with
    /// `timeoutError()`; on cancellation, with `CancellationError`.
    nonisolated(nonsending) static func wait(
        within timeout: Duration, on eventLoop: any EventLoop,
        enroll: (DeadlineWaiter) -> Result<Value, any Error>?,
        arm: (Scheduled<Void>) -> Bool,
        takeBack: @escaping @Sendable () -> DeadlineWaiter?,
        timeoutError: @escaping @Sendable () -> any Error
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                if let now = enroll(DeadlineWaiter(continuation: continuation)) {
                    continuation.resume(with: now)
                    return
                }
                let timer = eventLoop.scheduleTask(in: TimeAmount(timeout)) { () -> Void in
                    takeBack()?.resume(with: .failure(timeoutError()))
                }
                if !arm(timer) { timer.cancel() }  // resumed meanwhile
                // Cancelled before it was kept: the cancellation handler found nothing to take.
                if Task.isCancelled { takeBack()?.resume(with: .failure(CancellationError())) }
            }
        } onCancel: {
            takeBack()?.resume(with: .failure(CancellationError()))
        }
    }
}

extension DeadlineWaiter where Value == Void {
    /// Waits `duration` on `eventLoop`'s timer, as every wait of the transport does: a waiter
    /// that nobody answers, ended by its deadline. Throws `CancellationError` when the task is
    /// cancelled first.
    nonisolated(nonsending) static func sleep(for duration: Duration, on eventLoop: any EventLoop) async throws {
        let kept = NIOLockedValueBox<DeadlineWaiter?>(nil)
        do {
            try await wait(
                within: duration, on: eventLoop,
                enroll: { waiter in
                    kept.withLockedValue { $0 = waiter }
                    return nil
                },
                arm: { timer in
                    kept.withLockedValue {
                        guard var waiter = $0 else { return false }
                        waiter.arm(timer)
                        $0 = waiter
                        return true
                    }
                },
                takeBack: {
                    kept.withLockedValue { kept in
                        let waiter = kept
                        kept = nil
                        return waiter
                    }
                },
                timeoutError: { SleepElapsed() })
        } catch is SleepElapsed {
            return
        }
    }
}

/// How a sleep's waiter ends at its deadline.
private struct SleepElapsed: Error {}
