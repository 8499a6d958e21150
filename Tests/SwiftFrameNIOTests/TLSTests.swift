// TLS over loopback sockets, with a CA and certificates made for this run (TestCertificates):
// the Swift client and server together and each against the Python peers (Python's ssl
// module); CA trust, pins, and each refusal as its own typed error, which ends the client after
// one attempt; a plain TCP server and a silent one as quick typed failures; client certificates.

#if TLS
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

/// Runs `body` with a game server on a free port, with `configuration`.
func withGameServer<Result: Sendable>(
    _ configuration: ServerConfiguration, handler: @escaping FrameServer<GameCommands>.Handler = gameHandler,
    _ body: @Sendable @escaping (FrameServer<GameCommands>, Int) async throws -> Result
) async throws -> Result {
    try await withServer(GameCommands.self, configuration: configuration, handler: handler, body)
}

extension TestCertificates {
    func serverConfiguration(
        _ pair: (certificate: String, key: String), clientCertificateAuthorities: String? = nil
    ) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.tls = ServerTLS(
            certificateChain: .file(pair.certificate), privateKey: .file(pair.key),
            clientCertificateAuthorities: clientCertificateAuthorities.map { .file($0) })
        return configuration
    }

    /// A client configuration trusting the test CA (and nothing else), with short backoffs.
    func clientConfiguration(
        serverName: String? = nil, pins: [String] = [], clientCertificate: TLSIdentity? = nil, maxAttempts: Int? = 3
    ) -> ClientConfiguration {
        var configuration = quickReconnect()
        configuration.reconnect.maxAttempts = maxAttempts
        configuration.connectTimeout = .seconds(5)
        configuration.tls = ClientTLS(
            serverName: serverName, trustRoots: .certificates(.file(ca)), pins: pins,
            clientCertificate: clientCertificate)
        return configuration
    }
}

/// Runs a client of the game server at `port` until `run()` ends: what it threw, every state it
/// went through, and how long it ran.
func runUntilStopped(port: Int, _ configuration: ClientConfiguration) async -> (
    error: (any Swift.Error)?, states: [ConnectionState], took: Duration
) {
    let client = FrameClient<GameCommands>(host: "127.0.0.1", port: port, configuration: configuration)
    let states = client.states
    let start = ContinuousClock.now
    var thrown: (any Swift.Error)?
    do {
        try await client.run()
    } catch {
        thrown = error
    }
    let took = ContinuousClock.now - start
    var seen: [ConnectionState] = []
    for await state in states { seen.append(state) }
    return (thrown, seen, took)
}

/// A refused server, and the failure the client must name.
enum Refusal: String, CaseIterable, Sendable {
    case pinMismatch, hostnameMismatch, hostnameMismatchOnTheAddress, expired, selfSigned, notInTheSystemRoots
    /// The client connects to 127.0.0.1 and names the server game.example.com.
    case anAddressSANForAServerName, anAddressAndANameSANForAnotherName, anAddressSANForAServerNameWithItsPin
    case aCommonNameOnly, aWildcardTwoLabelsDeep, aWildcardForTheBareDomain, aPartialWildcard
    /// A DNS SAN that spells the address is no IP SAN.
    case aNameSANThatSpellsTheAddress

    func setUp(_ pki: TestCertificates) -> (server: ServerConfiguration, client: ClientConfiguration) {
        switch self {
        case .pinMismatch: (pki.serverConfiguration(pki.server), pki.clientConfiguration(pins: [pki.otherPin]))
        case .hostnameMismatch:
            (pki.serverConfiguration(pki.otherName), pki.clientConfiguration(serverName: "localhost"))
        case .anAddressSANForAServerName:
            (pki.serverConfiguration(pki.addressOnly), pki.clientConfiguration(serverName: "game.example.com"))
        case .anAddressAndANameSANForAnotherName:
            (pki.serverConfiguration(pki.server), pki.clientConfiguration(serverName: "game.example.com"))
        case .anAddressSANForAServerNameWithItsPin:
            (
                pki.serverConfiguration(pki.server),
                pki.clientConfiguration(serverName: "game.example.com", pins: [pki.serverPin])
            )
        case .aCommonNameOnly:
            (pki.serverConfiguration(pki.commonNameOnly), pki.clientConfiguration(serverName: "localhost"))
        case .aWildcardTwoLabelsDeep:
            (pki.serverConfiguration(pki.wildcard), pki.clientConfiguration(serverName: "a.game.example.com"))
        case .aWildcardForTheBareDomain:
            (pki.serverConfiguration(pki.wildcard), pki.clientConfiguration(serverName: "example.com"))
        case .aPartialWildcard:
            (pki.serverConfiguration(pki.partialWildcard), pki.clientConfiguration(serverName: "game.example.com"))
        case .aNameSANThatSpellsTheAddress:
            (pki.serverConfiguration(pki.otherName), pki.clientConfiguration(serverName: "127.0.0.1"))
        case .hostnameMismatchOnTheAddress: (pki.serverConfiguration(pki.otherName), pki.clientConfiguration())
        case .expired: (pki.serverConfiguration(pki.expired), pki.clientConfiguration(serverName: "localhost"))
        case .selfSigned: (pki.serverConfiguration(pki.selfSigned), pki.clientConfiguration(serverName: "localhost"))
        case .notInTheSystemRoots:
            (
                pki.serverConfiguration(pki.server),
                {
                    var configuration = pki.clientConfiguration(serverName: "localhost")
                    configuration.tls?.trustRoots = .system
                    return configuration
                }()
            )
        }
    }

    func matches(_ failure: TLSFailure, _ pki: TestCertificates) -> Bool {
        switch (self, failure) {
        case let (.pinMismatch, .pinMismatch(found)): found == pki.serverPin
        case let (.hostnameMismatch, .hostnameMismatch(expected)), let (.aCommonNameOnly, .hostnameMismatch(expected)):
            expected == "localhost"
        case let (.anAddressSANForAServerName, .hostnameMismatch(expected)),
            let (.anAddressAndANameSANForAnotherName, .hostnameMismatch(expected)),
            let (.anAddressSANForAServerNameWithItsPin, .hostnameMismatch(expected)),
            let (.aPartialWildcard, .hostnameMismatch(expected)):
            expected == "game.example.com"
        case let (.aWildcardTwoLabelsDeep, .hostnameMismatch(expected)): expected == "a.game.example.com"
        case let (.aWildcardForTheBareDomain, .hostnameMismatch(expected)): expected == "example.com"
        case let (.aNameSANThatSpellsTheAddress, .hostnameMismatch(expected)): expected == "127.0.0.1"
        case let (.hostnameMismatchOnTheAddress, .hostnameMismatch(expected)): expected == "127.0.0.1"
        case (.expired, .expiredCertificate): true
        case (.selfSigned, .untrustedChain), (.notInTheSystemRoots, .untrustedChain): true
        default: false
        }
    }
}

@Suite(.serialized, .timeLimit(.minutes(1))) struct TLSTests {
    let pki: TestCertificates

    init() async throws {
        pki = try await TestCertificates.load()
    }

    @Test func aClientTrustingTheServersCAConnectsByAddressAndByName() async throws {
        let pki = pki
        try await withGameServer(pki.serverConfiguration(pki.server)) { _, port in
            // By address (checked against the certificate's IP address) and by name (SNI and DNS name).
            for serverName in [nil, "localhost"] {
                let reply = try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port,
                    configuration: pki.clientConfiguration(serverName: serverName)
                ) { client in
                    try await client.request(TestReq(param1: "tls", param2: 3))
                }
                #expect(reply == TestRsp(result1: "echo:tls", result2: 6), "server name \(serverName ?? "nil")")
            }
        }
    }

    /// The names a certificate is accepted for, connecting to 127.0.0.1: the wildcard for one
    /// left-most label (case and a trailing dot ignored), an IP SAN for the address when no name
    /// is given, the right DNS name with and without its pin.
    @Test(
        arguments: [
            ("wildcard", "game.example.com", false), ("wildcard", "GAME.Example.COM.", false),
            ("addressOnly", nil, false), ("addressOnly", "127.0.0.1", true),
            ("server", "localhost", true), ("server", "localhost.", false),
        ] as [(String, String?, Bool)])
    func aCertificateForTheNameIsAccepted(certificate: String, serverName: String?, pinned: Bool) async throws {
        let pki = pki
        let pair =
            switch certificate {
            case "wildcard": pki.wildcard
            case "addressOnly": pki.addressOnly
            default: pki.server
            }
        let pins = pinned ? [try ClientTLS.pin(ofCertificate: .file(pair.certificate))] : []
        try await withGameServer(pki.serverConfiguration(pair)) { _, port in
            let reply = try await withFrameClient(
                GameCommands.self, host: "127.0.0.1", port: port,
                configuration: pki.clientConfiguration(serverName: serverName, pins: pins, maxAttempts: 0)
            ) { client in
                try await client.request(TestReq(param1: "named"))
            }
            #expect(reply.result1 == "echo:named")
        }
    }

    @Test func aPinnedKeyConnects() async throws {
        let pki = pki
        // The library's pin of the certificate is the one openssl computes.
        #expect(try ClientTLS.pin(ofCertificate: .file(pki.server.certificate)) == pki.serverPin)
        try await withGameServer(pki.serverConfiguration(pki.server)) { _, port in
            // A spare pin first; the prefix may be left out.
            for pins in [[pki.otherPin, pki.serverPin], [String(pki.serverPin.dropFirst("sha256/".count))]] {
                let reply = try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port,
                    configuration: pki.clientConfiguration(serverName: "localhost", pins: pins)
                ) { client in
                    try await client.request(TestReq(param1: "pinned"))
                }
                #expect(reply.result1 == "echo:pinned")
            }
        }
    }

    @Test(arguments: Refusal.allCases)
    func aRefusedServerEndsTheClientWithItsTypedErrorAfterOneAttempt(_ refusal: Refusal) async throws {
        let pki = pki
        let (server, client) = refusal.setUp(pki)
        try await withGameServer(server) { _, port in
            let (error, states, took) = await runUntilStopped(port: port, client)
            guard let failure = error as? TLSFailure else {
                Issue.record("run() ended with \(String(describing: error)), states \(states)")
                return
            }
            #expect(refusal.matches(failure, pki), "\(failure)")
            #expect(failure.isFinal)
            #expect(took < .seconds(5))
            // One attempt, then stopped with the same error: no reconnecting.
            #expect(states.count == 3, "\(states)")
            if states.count == 3, case .connecting = states[0],
                case let .disconnected(.connectFailed(.tls(reported))) = states[1],
                case let .stopped(stopped as TLSFailure) = states[2]
            {
                #expect(refusal.matches(reported, pki) && refusal.matches(stopped, pki))
            } else {
                Issue.record("\(states)")
            }
        }
    }

    @Test func aRequestWaitingForTheConnectionFailsWithTheRefusal() async throws {
        let pki = pki
        try await withGameServer(pki.serverConfiguration(pki.server)) { _, port in
            let start = ContinuousClock.now
            await #expect(throws: TLSFailure.self) {
                try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port,
                    configuration: pki.clientConfiguration(pins: [pki.otherPin])
                ) { client in
                    _ = try await client.request(TestReq(param1: "never"))
                }
            }
            #expect(ContinuousClock.now - start < .seconds(5), "at the refusal, not at the request's deadline")
        }
    }

    @Test func aPlainTCPServerIsAQuickTypedFailureThatIsRetried() async throws {
        let pki = pki
        try await withGameServer(ServerConfiguration()) { _, port in
            let (error, states, took) = await runUntilStopped(port: port, pki.clientConfiguration(maxAttempts: 1))
            guard case let .gaveUp(attempts, last)? = error as? FrameClientError,
                case .connectFailed(.tls(.notTLS)) = last
            else {
                Issue.record("\(String(describing: error)); \(states)")
                return
            }
            #expect(attempts == 2)
            #expect(took < .seconds(3))
        }
    }

    /// A scoped body that only listens, or sleeps, is cancelled by a pin mismatch, which
    /// `withFrameClient` throws.
    @Test func aPinMismatchEndsABodyThatOnlyListensOrSleeps() async throws {
        let pki = pki
        try await withGameServer(pki.serverConfiguration(pki.server)) { _, port in
            for listens in [true, false] {
                let start = ContinuousClock.now
                let error = await #expect(throws: TLSFailure.self) {
                    try await withFrameClient(
                        GameCommands.self, host: "127.0.0.1", port: port,
                        configuration: pki.clientConfiguration(pins: [pki.otherPin])
                    ) { client in
                        if listens {
                            for await _ in client.pushes {}
                        } else {
                            try await Task.sleep(for: .seconds(60))
                        }
                    }
                }
                guard case .pinMismatch? = error else {
                    Issue.record("\(String(describing: error))")
                    continue
                }
                #expect(ContinuousClock.now - start < .seconds(5))
            }
        }
    }

    /// A request's `noConnection` names why the attempts failed: the server speaks plain TCP.
    @Test func aRequestAgainstAPlainTCPServerSaysItIsNotTLS() async throws {
        let pki = pki
        try await withGameServer(ServerConfiguration()) { _, port in
            let error = await #expect(throws: FrameClientError.self) {
                try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port,
                    configuration: pki.clientConfiguration(maxAttempts: nil)
                ) { client in
                    _ = try await client.request(TestReq(param1: "plain"), timeout: .milliseconds(800))
                }
            }
            guard case .noConnection(_, last: .connectFailed(.tls(.notTLS))?) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(
                "\(error!)"
                    == "no connection within 0.8 seconds (last attempt: not TLS: the peer does not speak TLS on this port)"
            )
        }
    }

    @Test func aServerThatNeverAnswersTheHandshakeTimesOut() async throws {
        // Accepts connections and reads what comes, answering nothing.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        var configuration = pki.clientConfiguration(maxAttempts: 0)
        configuration.connectTimeout = .milliseconds(300)
        let (error, states, took) = await runUntilStopped(port: silent.localAddress?.port ?? 0, configuration)
        guard case let .gaveUp(_, .connectFailed(.timedOut(after)))? = error as? FrameClientError else {
            Issue.record("\(String(describing: error)); \(states)")
            return
        }
        #expect(after == .milliseconds(300))
        #expect(took < .seconds(3))
    }

    @Test func aServerThatRequiresAClientCertificate() async throws {
        let pki = pki
        let handled = NIOLockedValueBox(0)
        try await withGameServer(
            pki.serverConfiguration(pki.server, clientCertificateAuthorities: pki.ca),
            handler: { request, context in
                handled.withLockedValue { $0 += 1 }
                return try await gameHandler(request, context)
            }
        ) { _, port in
            let identity = TLSIdentity(
                certificateChain: .file(pki.client.certificate), privateKey: .file(pki.client.key))
            let reply = try await withFrameClient(
                GameCommands.self, host: "127.0.0.1", port: port,
                configuration: pki.clientConfiguration(clientCertificate: identity)
            ) { client in
                try await client.request(TestReq(param1: "mutual"))
            }
            #expect(reply.result1 == "echo:mutual")
            // Without one the server refuses the handshake. Under TLS 1.3 the client has finished its
            // side of it by then: the connection drops with the server's alert. The request is never
            // handled.
            var configuration = pki.clientConfiguration(maxAttempts: 0)
            configuration.requestTimeout = .seconds(3)
            let error = await #expect(throws: (any Swift.Error).self) {
                try await withFrameClient(
                    GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration
                ) { client in
                    _ = try await client.request(TestReq(param1: "anonymous"))
                }
            }
            #expect(String(describing: error).contains("CERTIFICATE_REQUIRED"), "\(String(describing: error))")
            #expect(handled.withLockedValue { $0 } == 1)
        }
    }

    @Test func aConfigurationThatDoesNotLoadIsFinal() async throws {
        let pki = pki
        // The client: a pin that is no SHA-256, a CA file that is not there.
        var badPin = pki.clientConfiguration()
        badPin.tls?.pins = ["sha256/not-base64!"]
        var noCA = pki.clientConfiguration()
        noCA.tls?.trustRoots = .certificates(.file(pki.path("missing.pem")))
        for configuration in [badPin, noCA] {
            let (error, states, _) = await runUntilStopped(port: try freePort(), configuration)
            guard case .badConfiguration? = error as? TLSFailure else {
                Issue.record("\(String(describing: error)); \(states)")
                continue
            }
            #expect(states.count == 3, "one attempt: \(states)")
        }
        // The server: run throws before listening.
        let server = FrameServer<GameCommands>(
            port: 0, configuration: pki.serverConfiguration((pki.server.certificate, pki.path("missing.key"))))
        await #expect(throws: TLSFailure.self) { try await server.run(handler: gameHandler) }
    }

    // MARK: Against the Python peers

    @Test func theSwiftClientAndThePythonGamePeerOverTLS() async throws {
        let pki = pki
        let peer = try await offThePool {
            try Peer("game", ["--split", "--tls-cert", pki.server.certificate, "--tls-key", pki.server.key])
        }
        try await withFrameClient(
            GameCommands.self, host: "127.0.0.1", port: peer.port,
            configuration: pki.clientConfiguration(serverName: "localhost", pins: [pki.serverPin])
        ) { client in
            let reply = try await client.request(TestReq(param1: "hello", param2: 21))
            #expect(reply == TestRsp(result1: "echo:hello", result2: 42))
            _ = try await client.request(command: GameCommands.heartbeatCommand!)
            let error = await #expect(throws: ErrorReply<GameCommands>.self) {
                _ = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
            }
            #expect(error.map { "\($0.reply)" }?.contains("401") == true)
        }
        // The peer's key is not the pinned one.
        let (error, _, _) = await runUntilStopped(
            port: peer.port, pki.clientConfiguration(serverName: "localhost", pins: [pki.otherPin]))
        guard case .pinMismatch? = error as? TLSFailure else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func thePythonGameClientAndTheSwiftServerOverTLS() async throws {
        let pki = pki
        try await withGameServer(pki.serverConfiguration(pki.server)) { _, port in
            let result = try await offThePool {
                try Peer.runClient(
                    "game-client", ["--port", "\(port)", "--requests", "5", "--split", "--tls-ca", pki.ca])
            }
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.split(separator: "\n").suffix(2) == ["heartbeat ok", "done"], "\(result.output)")
        }
    }
}
#endif
