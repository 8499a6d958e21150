import ArgumentParser
import Foundation
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import SwiftFrameURLSession

/// One scenario per seed system against a live server. Each prints one line per step and
/// exits 0 when the scenario succeeded, non-zero otherwise.
@main
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftframe-demo",
        abstract: "Talks to a server of one of the seed systems and prints one line per step.",
        subcommands: [Game.self, Erlang.self, IM.self, HTTP.self])
}

struct Endpoint: ParsableArguments {
    @Option(help: "The server's host.") var host = "127.0.0.1"
    @Option(help: "The server's port.") var port: Int
    @Option(help: "Seconds each request may take.") var timeout: Double = 10
}

/// Runs `body` while `client.run()` keeps the connection, then stops the client.
func withClient<Table: CommandTable, Result: Sendable>(
    _ client: FrameClient<Table>, _ body: @Sendable @escaping () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask {
            try await client.run()
            return nil
        }
        group.addTask { try await body() }
        while let next = try await group.next() {
            if let result = next {
                group.cancelAll()
                return result
            }
        }
        throw FrameClientError.stopped
    }
}

func clientConfiguration(_ endpoint: Endpoint, reconnect: Bool = false) -> ClientConfiguration {
    var configuration = ClientConfiguration()
    configuration.requestTimeout = .seconds(endpoint.timeout)
    configuration.connectTimeout = .seconds(endpoint.timeout)
    if !reconnect { configuration.reconnect.maxAttempts = 0 }
    return configuration
}

struct Game: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The game backend: magic | size | command | body.")
    @OptionGroup var endpoint: Endpoint

    func run() async throws {
        let client = FrameClient<GameCommands>(host: endpoint.host, port: endpoint.port, configuration: clientConfiguration(endpoint))
        try await withClient(client) {
            let reply = try await client.request(TestReq(param1: "hello", param2: 21))
            print("Test_Rsp result1=\(reply.result1) result2=\(reply.result2)")
            _ = try await client.request(command: GameCommands.heartbeatCommand!)
            print("heartbeat ok")
            do {
                let answer = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
                print("logout answered without an error: \(answer)")
                throw ExitCode.failure
            } catch let error as ErrorReply<GameCommands> {
                guard case let .errorRsp(reply) = error.reply else { throw error }
                print("Error_Rsp code=\(reply.code) message=\(reply.message)")
            }
        }
    }
}

struct Erlang: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The Erlang backend: length | protocol | body.")
    @OptionGroup var endpoint: Endpoint

    func run() async throws {
        let client = FrameClient<ErlangCommands>(host: endpoint.host, port: endpoint.port, configuration: clientConfiguration(endpoint))
        try await withClient(client) {
            let reply = try await client.request(Cs20001(sceneId: 42))
            print("Sc_20001 res=\(reply.res) scene_id=\(reply.sceneId) pos=\(reply.pos) message=\(reply.message)")
        }
    }
}

struct IM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The IM system: magic | seq | type | length | body, with login, pushes, heartbeat, reconnect.")
    @OptionGroup var endpoint: Endpoint
    @Option var nick = "neo"
    @Option var password = "secret"
    @Option(help: "Keep the connection this many seconds, reporting drops and reconnects.") var watch: Double?
    @Option(help: "Seconds of idleness before a heartbeat (with --watch).") var heartbeatInterval: Double = 180
    @Option(help: "Seconds a heartbeat answer may take before it is retried.") var heartbeatTimeout: Double = 10

    struct LoginFailed: Swift.Error {}

    func run() async throws {
        var configuration = clientConfiguration(endpoint, reconnect: watch != nil)
        configuration.heartbeat = Heartbeat(
            interval: .seconds(heartbeatInterval), timeout: .seconds(heartbeatTimeout), retries: 3)
        configuration.reconnect.initialDelay = .milliseconds(500)
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: nick, pwd: password, deviceName: "demo")))))
        // The login runs on every new connection, before anything else is sent on it.
        let client = FrameClient<ImCommands>(
            host: endpoint.host, port: endpoint.port, configuration: configuration
        ) { connection in
            let reply = try await connection.request(login)
            guard reply.isSuc else {
                print("login failed type=\(reply.error?.type.rawValue ?? 0) msg=\(reply.error?.msg ?? "")")
                throw LoginFailed()
            }
            let answer = try LoginRequest.Response(serializedBytes: reply.respon)
            print("login ok uid=\(answer.uid) token=\(answer.token)")
        }
        let watch = watch
        try await withClient(client) {
            var states = client.states.makeAsyncIterator()
            while let state = await states.next() {
                if state == .connected { break }
                if case .disconnected = state { throw ExitCode.failure }
            }
            // Pushes that arrive within a second of the login.
            let pushes = Task {
                for await push in client.pushes {
                    if case let .push(payload) = push { print("push bytes=\(payload.count)") }
                }
            }
            try await Task.sleep(for: .seconds(1))
            pushes.cancel()
            _ = try await client.request(command: ImCommands.ID.heartbeat.rawValue)
            print("heartbeat ok")
            guard let watch else { return }
            let report = Task {
                while let state = await states.next() {
                    switch state {
                    case let .disconnected(reason): print("disconnected reason=\(reason)")
                    case let .reconnecting(attempt, _): print("reconnecting attempt=\(attempt)")
                    case .connected: print("reconnected")
                    default: break
                    }
                }
            }
            try await Task.sleep(for: .seconds(watch))
            report.cancel()
        }
    }
}

struct HTTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The game backend's HTTP short connection: one POST, the reply and events back.")
    @Option(help: "The URL to post to.") var url: String

    func run() async throws {
        guard let url = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
        let http = HTTPFrameClient<GameCommands>(
            url: url, requestLayout: .gameHTTPRequest, extras: ["playerId": 7, "sessionId": 9])
        let answer = try await http.post(TestReq(param1: "web", param2: -5))
        print("Test_Rsp result1=\(answer.reply.result1) result2=\(answer.reply.result2)")
        for frame in answer.eventFrames {
            print("event cmd=\(GameCommands.commandID(of: frame)) bytes=\(frame.payload.count)")
        }
    }
}
