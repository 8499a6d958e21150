import NIOCore
import NIOPosix
import SwiftFrame

/// Runs a client of `Table`'s server for as long as `body` runs, and returns what `body`
/// returns. The connection is made in the background (requests wait for it, up to their
/// deadline) and closed when `body` returns or throws; every subscription to `pushes` and
/// `states` then ends.
///
///     let reply = try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: 9000) { client in
///         try await client.request(TestReq(param1: "hello", param2: 21))
///     }
///
/// If the client stops for good while `body` runs (out of attempts: `FrameClientError.gaveUp`;
/// `onConnect` threw a `FinalFailure`: its error; TLS refused the server with a final
/// `TLSFailure`), `body` is cancelled, whatever it awaits (a request, `pushes`, `states`,
/// `Task.sleep`, anything of its own that ends on cancellation), and this throws that error once
/// `body` has ended, unless `body` threw an error of its own first (a request that failed
/// with `connectionLost` before the client gave up), which is thrown instead. Otherwise it
/// returns what `body` returns or throws what `body` throws.
/// `body` runs in a child task of the caller's (an actor-isolated closure still runs on its
/// actor).
public func withFrameClient<Table: CommandTable, Result>(
    _ table: Table.Type, host: String, port: Int, configuration: ClientConfiguration = ClientConfiguration(),
    onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    bootstrap: (@Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap)? = nil,
    _ body: (FrameClient<Table>) async throws -> Result
) async throws -> Result {
    try await withFrameClient(
        table, endpoints: [Endpoint(host: host, port: port)], configuration: configuration, onConnect: onConnect,
        eventLoopGroup: eventLoopGroup, bootstrap: bootstrap, body)
}

/// `withFrameClient(_:host:port:...)` for a server at several endpoints, raced each time the
/// client connects (see `FrameClient.init(endpoints:...)`).
public func withFrameClient<Table: CommandTable, Result>(
    _ table: Table.Type, endpoints: [Endpoint], configuration: ClientConfiguration = ClientConfiguration(),
    onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    bootstrap: (@Sendable (any EventLoopGroup) -> NIOClientTCPBootstrap)? = nil,
    _ body: (FrameClient<Table>) async throws -> Result
) async throws -> Result {
    let client = FrameClient<Table>(
        endpoints: endpoints, configuration: configuration, onConnect: onConnect,
        eventLoopGroup: eventLoopGroup, bootstrap: bootstrap)
    return try await client.running(body)
}

extension FrameClient {
    /// Runs this client (`run()`) for as long as `body` runs; see `withFrameClient`.
    public func running<Result>(_ body: (FrameClient) async throws -> Result) async throws -> Result {
        // Begun here, so that a request `body` makes at once waits for this run's connection
        // rather than failing because an earlier run has stopped.
        try begin()
        return try await withoutActuallyEscaping(body) { body in
            let scoped = ScopedBody(call: body)
            return try await withThrowingTaskGroup(of: ScopedOutcome<Result>.self) { group in
                group.addTask {
                    do {
                        try await self.runBegun()
                        return .clientEnded(nil)
                    } catch {
                        return .clientEnded(error)
                    }
                }
                group.addTask {
                    do {
                        return .bodyEnded(.init(.success(try await scoped.call(self))))
                    } catch {
                        return .bodyEnded(.init(.failure(error)))
                    }
                }
                // Whichever ends first, the other is cancelled and waited for.
                // The children throw nothing: each reports how it ended.
                let first = try await group.next()
                group.cancelAll()
                let second = try await group.next()
                var stopped: (any Error)?
                var outcome: Swift.Result<Result, any Error>?
                for ended in [first, second] {
                    switch ended {
                    case let .clientEnded(error)?: stopped = error
                    case let .bodyEnded(box)?: outcome = box.result
                    case nil: break
                    }
                }
                guard let outcome else { throw FrameClientError.stopped }  // both children always report
                // An error of the body's own comes first (a request that failed, whether or not
                // the client then stopped); then the error the client stopped with for good, if
                // it did, when the body returned or was cancelled for it. Cancelled from outside,
                // `run()` throws nothing and the body's outcome stands.
                if case let .failure(error) = outcome, !(error is CancellationError) { throw error }
                if let stopped { throw stopped }
                return try outcome.get()
            }
        }
    }
}

/// What ended first in `running`: the client's run (with the error it stopped with), or `body`.
private enum ScopedOutcome<Result>: Sendable {
    case clientEnded((any Error)?)
    case bodyEnded(ScopedResult<Result>)
}

/// `body`'s closure, called in a child task of `running`. `@unchecked Sendable`: it is called
/// once, in that child, while the task that passed it is suspended in the task group until the
/// child has ended, so nothing it captured is touched by two tasks at once; a closure isolated
/// to an actor hops to that actor when called, as from any other task.
private struct ScopedBody<Client, Result>: @unchecked Sendable {
    let call: (Client) async throws -> Result
}

/// `body`'s result, handed from the child task to the task that waits for it.
/// `@unchecked Sendable`: made in the child as it ends and read by the parent after
/// `group.next()` has returned it, never by both at once.
private struct ScopedResult<Result>: @unchecked Sendable {
    let result: Swift.Result<Result, any Error>

    init(_ result: Swift.Result<Result, any Error>) {
        self.result = result
    }
}
