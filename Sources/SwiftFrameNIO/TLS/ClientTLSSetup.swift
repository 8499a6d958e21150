import NIOConcurrencyHelpers
import NIOCore

#if TLS
import NIOSSL
import NIOTLS

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif

/// What TLS adds to a client's connect attempts (`ClientConfiguration.tls`): the handlers put
/// in front of each new channel (swift-nio-ssl, over NIO's sockets or a bootstrap of the app's
/// own), or, on Apple platforms with Network.framework's event loops and no bootstrap of the
/// app's own, a Network.framework bootstrap that does TLS itself. The TLS library's context is
/// made on the first attempt and kept. Without the `TLS` trait it adds nothing.
final class ClientTLSSetup: Sendable {
    #if TLS
    private let tls: ClientTLS?
    private let host: String
    private let group: any EventLoopGroup
    private let networkFramework: Bool
    private let prepared = NIOLockedValueBox<Result<ClientTLSHandlers, TLSFailure>?>(nil)
    /// Network.framework: why its verify block refused the last attempt's server.
    let refusal = NIOLockedValueBox<TLSFailure?>(nil)
    #endif

    init(configuration: ClientConfiguration, host: String, group: any EventLoopGroup, customBootstrap: Bool) {
        #if TLS
        tls = configuration.tls
        self.host = host
        self.group = group
        networkFramework = configuration.tls != nil && !customBootstrap && Self.isNetworkFramework(group)
        #endif
    }

    /// The handlers that make a new channel speak TLS; nil without TLS (or when
    /// Network.framework does it). Throws `TLSFailure.badConfiguration`.
    func handlers() throws(TLSFailure) -> ClientTLSHandlers? {
        #if TLS
        guard let tls, !networkFramework else { return nil }
        let result = prepared.withLockedValue { prepared in
            if let prepared { return prepared }
            let made = Result { () throws(TLSFailure) in try ClientTLSHandlers(tls, host: host) }
            prepared = made
            return made
        }
        return try result.get()
        #else
        return nil
        #endif
    }

    /// A Network.framework bootstrap with the TLS options, when that is the way to connect.
    func bootstrap() throws(TLSFailure) -> NIOClientTCPBootstrap? {
        #if TLS && canImport(Network) && canImport(NIOTransportServices)
        guard networkFramework, let tls else { return nil }
        refusal.withLockedValue { $0 = nil }
        return try NetworkFrameworkTLS.bootstrap(group: group, tls: tls, host: host, refusal: refusal)
        #else
        return nil
        #endif
    }

    /// What a failed connect reports: on Network.framework, the reason its verify block refused
    /// the server.
    func connectError(_ error: any Error) -> any Error {
        #if TLS && canImport(Network) && canImport(NIOTransportServices)
        if networkFramework {
            return refusal.withLockedValue { $0 } ?? NetworkFrameworkTLS.failure(error) ?? error
        }
        #endif
        return error
    }

    #if TLS
    private static func isNetworkFramework(_ group: any EventLoopGroup) -> Bool {
        #if canImport(Network) && canImport(NIOTransportServices)
        NetworkFrameworkTLS.isNetworkFramework(group)
        #else
        false
        #endif
    }
    #endif
}

#if TLS
/// The swift-nio-ssl handler for one connection and the handler that checks its handshake.
struct ClientTLSHandlers: Sendable {
    let context: NIOSSLContext
    /// Sent as SNI; nil for an IP address. swift-nio-ssl checks the chain only: the name is
    /// `identity`'s to check.
    let serverHostname: String?
    /// The name the server's certificate must be for.
    let identity: ServerIdentity
    let pins: Set<[UInt8]>

    init(_ tls: ClientTLS, host: String) throws(TLSFailure) {
        do {
            context = try NIOSSLContext(configuration: try tls.nioConfiguration())
        } catch let error as TLSFailure {
            throw error
        } catch {
            throw .badConfiguration("\(error)")
        }
        let name = tls.serverName ?? host
        identity = ServerIdentity(name)
        serverHostname = identity.isDNSName ? name : nil
        pins = try tls.pinDigests()
        // Checked now, as swift-nio-ssl would on every connection.
        do {
            _ = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
        } catch {
            throw .badConfiguration("server name \(name): \(error)")
        }
    }

    /// Adds the handlers in front of `channel`'s pipeline. The future succeeds when the
    /// handshake is done and the server's chain, name and pin were accepted, and fails with a
    /// `TLSFailure` (or `ConnectFailure.timedOut` after `timeout`) otherwise.
    func add(to channel: any Channel, timeout: Duration) throws -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let check = TLSHandshakeHandler(pins: pins, identity: identity, timeout: timeout, done: promise)
        do {
            try channel.pipeline.syncOperations.addHandlers(
                try NIOSSLClientHandler(context: context, serverHostname: serverHostname), check, position: .first)
        } catch {
            promise.fail(error)
            throw error
        }
        return promise.futureResult
    }
}

/// TLS for the channels of a bootstrap of your own, with no `FrameClient` (the `swiftframe call`
/// tool's): swift-nio-ssl's client handler and the check of the server's chain, name and pins,
/// as `ClientConfiguration.tls` sets them up. Made once, before connecting: making it loads the
/// configuration.
public struct ClientTLSChannelHandlers: Sendable {
    private let handlers: ClientTLSHandlers

    /// Throws `TLSFailure.badConfiguration` when `tls` does not load (a CA file that is missing
    /// or no PEM, a pin that is no base64 SHA-256). `host`: the host connected to, the name
    /// checked when `tls.serverName` is nil.
    public init(_ tls: ClientTLS, host: String) throws(TLSFailure) {
        handlers = try ClientTLSHandlers(tls, host: host)
    }

    /// Puts the handlers in front of `channel`'s pipeline; call it in the channel's initializer,
    /// on its event loop. The future succeeds when the handshake is done and the server was
    /// accepted; it fails with a `TLSFailure` (or `ConnectFailure.timedOut` after `timeout`)
    /// otherwise, and the channel is closed.
    public func add(to channel: any Channel, timeout: Duration) throws -> EventLoopFuture<Void> {
        try handlers.add(to: channel, timeout: timeout)
    }
}

/// Behind the TLS handler on the client: holds the connection back until the handshake is done,
/// checks the server's name (`ServerIdentity`) and key pin, names why a handshake failed
/// (`TLSFailure`), and fails at the deadline. After the handshake it passes everything on, but for the unclean shutdown a
/// server that closes without TLS's goodbye causes, which is reported as the close it is.
final class TLSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let pins: Set<[UInt8]>
    private let identity: ServerIdentity
    private let timeout: Duration
    private var done: EventLoopPromise<Void>?
    private var timer: Scheduled<Void>?

    init(pins: Set<[UInt8]>, identity: ServerIdentity, timeout: Duration, done: EventLoopPromise<Void>) {
        self.pins = pins
        self.identity = identity
        self.timeout = timeout
        self.done = done
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let timeout = timeout
        // Cancelled when the handshake ends, or when the handler is removed.
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) {
            self.fail(ConnectFailure.timedOut(after: timeout), context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        done?.fail(ChannelError.ioOnClosedChannel)
        done = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let done, let tls = event as? TLSUserEvent, case .handshakeCompleted = tls else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The chain was checked in the handshake; then the name, then the pin.
        let peer = try? context.pipeline.syncOperations.nioSSL_peerCertificate()
        guard let der = try? peer?.toDERBytes(), identity.isMatched(byCertificate: der) else {
            fail(TLSFailure.hostnameMismatch(expected: identity.name), context: context)
            return
        }
        if !pins.isEmpty {
            let digest = peer.flatMap { try? keyDigest(of: $0) }
            guard let digest, pins.contains(digest) else {
                fail(TLSFailure.pinMismatch(found: digest.map(pinString) ?? "unreadable"), context: context)
                return
            }
        }
        timer?.cancel()
        self.done = nil
        done.succeed()
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if done != nil {
            let peer = try? context.pipeline.syncOperations.nioSSL_peerCertificate()
            fail(TLSFailure(error, peer: peer, expectedName: identity.name), context: context)
        } else if let error = error as? NIOSSLError, error == .uncleanShutdown {
            return  // the peer closed the socket without TLS's close_notify: the channel is closing
        } else {
            context.fireErrorCaught(error)
        }
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        timer?.cancel()
        let done = done
        self.done = nil
        done?.fail(error)
        context.close(promise: nil)
    }
}

extension TLSFailure {
    /// Names a failed handshake. swift-nio-ssl reports a refused chain as BoringSSL's
    /// CERTIFICATE_VERIFY_FAILED, without saying why; the leaf's validity dates tell an
    /// expired certificate from an untrusted chain.
    init(_ error: any Error, peer: NIOSSLCertificate?, expectedName: String) {
        if let error = error as? TLSFailure {
            self = error
            return
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self = .hostnameMismatch(expected: expectedName)
            return
        }
        guard case let NIOSSLError.handshakeFailed(.sslError(stack)) = error else {
            self = .other(error)
            return
        }
        if stack == [.eofDuringHandshake] {
            self = .notTLS
            return
        }
        let text = stack.map(\.description).joined(separator: " ")
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            let now = Int(Date().timeIntervalSince1970)
            if let peer, Int(peer.notValidAfter) < now || Int(peer.notValidBefore) > now {
                self = .expiredCertificate
            } else {
                self = .untrustedChain
            }
        } else if ["WRONG_VERSION_NUMBER", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST", "RECORD_TOO_LARGE"]
            .contains(where: text.contains)
        {
            self = .notTLS
        } else {
            self = .other(error)
        }
    }
}
#else
/// Without the `TLS` trait there are no TLS handlers.
struct ClientTLSHandlers: Sendable {
    func add(to channel: any Channel, timeout: Duration) throws -> EventLoopFuture<Void> {
        channel.eventLoop.makeSucceededVoidFuture()
    }
}
#endif
