// The Swift client against the Swift server over loopback sockets: typed requests and error
// replies, pushes, sequence numbers across their wrap, waiting for a connection.

import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// Runs `body` with a server of `Table` on a free port, served by `handler`, and a client
/// connected to it (its `run()` in a child task); stops both afterwards.
func withServerAndClient<Table: CommandTable, Result: Sendable>(
    _ table: Table.Type, configuration: ClientConfiguration = ClientConfiguration(),
    handler: @escaping FrameServer<Table>.Handler,
    _ body: @Sendable @escaping (FrameServer<Table>, FrameClient<Table>) async throws -> Result
) async throws -> Result {
    try await withServer(table, handler: handler) { server, port in
        try await FrameClient<Table>(host: "127.0.0.1", port: port, configuration: configuration).running { client in
            try await body(server, client)
        }
    }
}

/// The game server's answers, as the Python peer gives them.
@Sendable func gameHandler(_ request: GameCommands.Request, _ context: RequestContext<GameCommands>) async throws
    -> ServerFrame?
{
    try gameAnswer(request, context)
}

/// `gameHandler`'s answers, for `runOnEventLoop`.
@Sendable func gameAnswer(_ request: GameCommands.Request, _ context: RequestContext<GameCommands>) throws
    -> ServerFrame?
{
    switch request {
    case let .testReq(request):
        return try ServerFrame(TestRsp(result1: "echo:" + request.param1, result2: Int64(request.param2) * 2))
    case .emptyReq:
        return ServerFrame(command: GameCommands.heartbeatCommand!)
    case .systemLogout:
        return try ServerFrame(ErrorRsp(code: 401, message: "logged out"))
    case let .unknown(command, _):
        return try ServerFrame(ErrorRsp(code: 404, message: "unknown command \(command)"))
    case .error, .notice:
        return nil
    }
}

@Suite(.timeLimit(.minutes(1))) struct ClientServerTests {
    @Test func typedRequestsHeartbeatAndTheErrorReply() async throws {
        try await withServerAndClient(GameCommands.self, handler: gameHandler) { _, client in
            let reply = try await client.request(TestReq(param1: "hello", param2: 21))
            #expect(reply == TestRsp(result1: "echo:hello", result2: 42))
            #expect(try await client.request(command: GameCommands.heartbeatCommand!) == .heartBeat(payload: []))
            await #expect(throws: ErrorReply<GameCommands>.self) {
                _ = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
            }
            do {
                _ = try await client.request(command: 4242)
            } catch let error as ErrorReply<GameCommands> {
                #expect(error.reply == .errorRsp(ErrorRsp(code: 404, message: "unknown command 4242")))
            }
            // Still in step after the errors: in-order matching per command.
            #expect(try await client.request(TestReq(param1: "again")).result1 == "echo:again")
        }
    }

    @Test func pushesArriveOnTheirOwnStream() async throws {
        try await withServerAndClient(
            GameCommands.self,
            handler: { request, context in
                if case .testReq = request {
                    for serial in 1...3 {
                        try await context.push(ServerFrame(NoticeNtf(text: "n\(serial)", serial: Int64(serial))))
                    }
                }
                return try await gameHandler(request, context)
            }
        ) { _, client in
            _ = try await client.request(TestReq(param1: "x"))
            var pushes: [GameCommands.Inbound] = []
            for await push in client.pushes {
                pushes.append(push)
                if pushes.count == 3 { break }
            }
            #expect(pushes == (1...3).map { .noticeNtf(NoticeNtf(text: "n\($0)", serial: Int64($0))) })
        }
    }

    @Test func sequenceNumbersWrapAfterTheLargestAndSkipZero() async throws {
        var configuration = ClientConfiguration()
        configuration.firstSequence = UInt64(UInt32.max) - 2
        let seen = NIOLockedValueBox<[UInt64]>([])
        try await withServerAndClient(
            ImCommands.self, configuration: configuration,
            handler: { request, context in
                seen.withLockedValue { $0.append(context.header.sequence ?? 0) }
                guard case .common = request else { return nil }
                return try ServerFrame(CommonRespon(isSuc: true))
            }
        ) { _, client in
            for _ in 0..<6 {
                let reply = try await client.request(Common())
                #expect(reply.isSuc)
            }
        }
        let max = UInt64(UInt32.max)
        #expect(seen.withLockedValue { $0 } == [max - 2, max - 1, max, 1, 2, 3])
    }

    @Test func aRequestWaitsForTheConnectionUpToItsDeadline() async throws {
        let server = FrameServer<GameCommands>(port: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run(handler: gameHandler) }
            let client = FrameClient<GameCommands>(host: "127.0.0.1", port: try await server.port())
            // Made before the client runs: it waits, and goes out once connected.
            let early = Task { try await client.request(TestReq(param1: "early"), timeout: .seconds(10)) }
            try await Task.sleep(for: .milliseconds(200))
            group.addTask { try await client.run() }
            #expect(try await early.value.result1 == "echo:early")
            group.cancelAll()
        }
    }

    @Test func withNoServerARequestFailsAtItsDeadline() async throws {
        var configuration = ClientConfiguration()
        configuration.reconnect = Backoff(initialDelay: .milliseconds(50))
        let port = try freePort()
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, configuration: configuration)
        let states = client.states
        let running = Task { try await client.run() }
        // After the first refusal (on a busy machine the first attempt may outlast 300 ms).
        for await state in states {
            if case .disconnected(.connectFailed(.refused)) = state { break }
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: FrameClientError.self) {
            _ = try await client.request(TestReq(), timeout: .milliseconds(300))
        }
        // The error names the last attempt's failure: nothing listens there.
        guard case .noConnection(after: .milliseconds(300), last: .connectFailed(.refused)?) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect("\(error!)" == "no connection within 0.3 seconds (last attempt: connect refused)")
        // At its deadline, not after the connect timeout (10 s): sanitizers on a busy machine
        // have taken 3.1 s for this 300 ms.
        #expect(ContinuousClock.now - start < .seconds(6))
        running.cancel()
    }
}

/// A plain SwiftNIO server on a free loopback port, each connection's pipeline made of what
/// `handlers` returns: a peer written without FrameServer.
func plainServer(_ handlers: @escaping @Sendable () -> [any ChannelHandler]) async throws -> any Channel {
    try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandlers(handlers()) }
        }
        .bind(host: "127.0.0.1", port: 0).get()
}

/// A loopback port nothing listens on. Unless `held` is false it stays bound, never listening,
/// by a socket kept open for the rest of the test process: a connect there is refused, and no
/// server of another test running beside is given the port meanwhile (as one was, once in a
/// few runs of the whole suite, when the socket was closed at once). A test that starts a
/// server there later passes `held: false`.
func freePort(held: Bool = true) throws -> Int {
    #if canImport(Glibc)
    let stream = Int32(SOCK_STREAM.rawValue)
    #else
    let stream = SOCK_STREAM
    #endif
    let fd = socket(AF_INET, stream, 0)
    guard fd >= 0 else { throw PeerError(description: "socket() failed: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        throw PeerError(description: "bind() to a loopback port failed: errno \(errno)")
    }
    if !held { close(fd) }
    return Int(UInt16(bigEndian: address.sin_port))
}

extension ConnectionState {
    var isConnected: Bool {
        if case .connected = self { true } else { false }
    }
}
