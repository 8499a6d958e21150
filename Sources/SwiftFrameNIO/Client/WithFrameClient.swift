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
/// If the client stops on its own (out of attempts, `onConnect` threw a `FinalFailure`, or TLS
/// refused the server with a final `TLSFailure`), requests waiting for a connection fail with
/// that error, so `body` sees it. This throws what `body` throws; how the client stopped
/// afterwards does not change it.
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
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.runBegun() }
            let result: Result
            do {
                result = try await body(self)
            } catch {
                group.cancelAll()
                _ = try? await group.next()
                throw error
            }
            group.cancelAll()
            _ = try? await group.next()
            return result
        }
    }
}
