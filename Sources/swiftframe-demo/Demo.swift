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

/// TLS for the game and IM scenarios (with the `TLS` trait).
struct TLSOptions: ParsableArguments {
    @Flag(help: "Speak TLS.") var tls = false
    @Option(help: "With --tls: trust only this CA (PEM); default: the system's roots.") var caFile: String?
    @Option(help: "With --tls: the name the server's certificate must carry (default: --host).") var serverName: String?
    @Option(help: "With --tls: a pin of the server's key, sha256/BASE64 (repeat it for spare pins).") var pin:
        [String] = []

    func validate() throws {
        if !tls && (caFile != nil || serverName != nil || !pin.isEmpty) {
            throw ValidationError("--ca-file, --server-name and --pin go with --tls")
        }
        #if !TLS
        if tls { throw ValidationError("this build has no TLS (the package's TLS trait is off)") }
        #endif
    }
}

func clientConfiguration(_ endpoint: Endpoint, tls: TLSOptions? = nil, reconnect: Bool = false) -> ClientConfiguration {
    var configuration = ClientConfiguration()
    configuration.requestTimeout = .seconds(endpoint.timeout)
    configuration.connectTimeout = .seconds(endpoint.timeout)
    if !reconnect { configuration.reconnect.maxAttempts = 0 }
    #if TLS
    if let tls, tls.tls {
        configuration.tls = ClientTLS(
            serverName: tls.serverName, trustRoots: tls.caFile.map { .certificates(.file($0)) } ?? .system,
            pins: tls.pin)
    }
    #endif
    return configuration
}

/// Runs a scenario; when TLS refused the server (or the server does not speak it), prints
/// `tls failed reason=...` and exits 1.
func reportingTLSFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as TLSFailure {
        print("tls failed reason=\(failure)")
        throw ExitCode.failure
    } catch let FrameClientError.gaveUp(_, .connectFailed(.tls(failure))) {
        print("tls failed reason=\(failure)")
        throw ExitCode.failure
    }
}

struct Game: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The game backend: magic | size | command | body.")
    @OptionGroup var endpoint: Endpoint
    @OptionGroup var tls: TLSOptions

    func run() async throws {
        try await reportingTLSFailures { try await play() }
    }

    func play() async throws {
        try await withFrameClient(
            GameCommands.self, host: endpoint.host, port: endpoint.port,
            configuration: clientConfiguration(endpoint, tls: tls)
        ) { client in
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
        try await withFrameClient(
            ErlangCommands.self, host: endpoint.host, port: endpoint.port, configuration: clientConfiguration(endpoint)
        ) { client in
            let reply = try await client.request(Cs20001(sceneId: 42))
            print("Sc_20001 res=\(reply.res) scene_id=\(reply.sceneId) pos=\(reply.pos) message=\(reply.message)")
        }
    }
}

struct IM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The IM system: magic | seq | type | length | body, with login, pushes, heartbeat, reconnect.")
    @OptionGroup var endpoint: Endpoint
    @OptionGroup var tls: TLSOptions
    @Option var nick = "neo"
    @Option var password = "secret"
    @Option(help: "Keep the connection this many seconds, reporting drops and reconnects.") var watch: Double?
    @Option(help: "Seconds of idleness before a heartbeat (with --watch).") var heartbeatInterval: Double = 180
    @Option(
        help: "Seconds a heartbeat answer may take before it is retried (default: 10, or the interval when shorter).")
    var heartbeatTimeout: Double?

    struct LoginFailed: Swift.Error {}

    func run() async throws {
        try await reportingTLSFailures { try await chat() }
    }

    func chat() async throws {
        var configuration = clientConfiguration(endpoint, tls: tls, reconnect: watch != nil)
        configuration.heartbeat = Heartbeat(
            interval: .seconds(heartbeatInterval), timeout: heartbeatTimeout.map { .seconds($0) }, retries: 3)
        configuration.reconnect.initialDelay = .milliseconds(500)
        let login = try Common(.user(UserMsg(.login(LoginRequest(nickName: nick, pwd: password, deviceName: "demo")))))
        // The login runs on every new connection, before anything else is sent on it. A
        // rejected password ends the client: retrying cannot heal it.
        let client = FrameClient<ImCommands>(
            host: endpoint.host, port: endpoint.port, configuration: configuration
        ) { connection in
            let reply = try await connection.request(login)
            guard reply.isSuc else {
                print("login failed type=\(reply.error?.type.rawValue ?? 0) msg=\(reply.error?.msg ?? "")")
                throw FinalFailure(LoginFailed())
            }
            let answer = try LoginRequest.Response(serializedBytes: reply.respon)
            print("login ok uid=\(answer.uid) token=\(answer.token)")
        }
        let watch = watch
        try await client.running { client in
            // Subscribed before connecting, so that nothing is missed: one reader waits for the
            // login, one reports what happens while watching, one prints pushes.
            let states = client.states
            let report = client.states
            let pushes = client.pushes
            guard try await Self.connected(states, reportingDrops: watch == nil) else { throw ExitCode.failure }
            // Pushes that arrive within a second of the login.
            let printing = Task {
                for await push in pushes {
                    if case let .push(payload) = push { print("push bytes=\(payload.count)") }
                }
            }
            try await Task.sleep(for: .seconds(1))
            printing.cancel()
            do {
                _ = try await client.request(command: ImCommands.ID.heartbeat.rawValue)
                print("heartbeat ok")
            } catch {
                // While watching, a server that stops answering or drops the connection is what
                // the watch reports; it goes on.
                guard watch != nil else { throw error }
                print("heartbeat failed error=\(error)")
            }
            guard let watch else { return }
            let reporting = Task { await Self.report(report) }
            try await Task.sleep(for: .seconds(watch))
            reporting.cancel()
        }
    }

    /// Waits for the first `.connected`: false if the client was cancelled first (or, when
    /// `reportingDrops`, disconnected first); throws the error the client stopped with.
    static func connected(_ states: Subscription<ConnectionState>, reportingDrops: Bool) async throws -> Bool {
        for await state in states {
            switch state {
            case .connected: return true
            case .disconnected(.connectFailed(.tls)): continue  // `reportingTLSFailures` says why
            case let .disconnected(reason) where reportingDrops:
                print("disconnected reason=\(reason)")
                return false
            case let .stopped(error):
                if let error { throw error }  // the client's own reason: a refused login or TLS
                return false
            default: continue
            }
        }
        return false
    }

    /// Prints the drops and reconnects after the first connection.
    static func report(_ states: Subscription<ConnectionState>) async {
        var connections = 0
        for await state in states {
            switch state {
            case let .disconnected(reason) where connections > 0: print("disconnected reason=\(reason)")
            case let .reconnecting(attempt, _) where connections > 0: print("reconnecting attempt=\(attempt)")
            case .connected:
                if connections > 0 { print("reconnected") }
                connections += 1
            case let .stopped(error?): print("stopped error=\(error)")
            default: break
            }
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
