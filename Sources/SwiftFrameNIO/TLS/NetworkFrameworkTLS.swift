// Apple platforms only: this file is fenced out of Linux builds, where it was written, and has
// not been compiled or run (see the TLS article of SwiftFrameNIO.docc).
#if TLS && canImport(Network) && canImport(NIOTransportServices)
import Foundation
import Network
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTransportServices
import Security

/// `ClientTLS` on Network.framework (NIOTransportServices): its own TLS, with the same trust
/// roots, server name and pins, checked in the TLS options' verify block.
enum NetworkFrameworkTLS {
    static func isNetworkFramework(_ group: any EventLoopGroup) -> Bool {
        NIOTSConnectionBootstrap(validatingGroup: group) != nil
    }

    /// Where the verify blocks run (they may block on the trust evaluation).
    private static let queue = DispatchQueue(label: "swiftframe.tls.verify")

    /// A Network.framework bootstrap on `group` with TLS options for `tls`; each refusal is
    /// written to `refusal` before the handshake fails.
    static func bootstrap(
        group: any EventLoopGroup, tls: ClientTLS, host: String, refusal: NIOLockedValueBox<TLSFailure?>
    ) throws(TLSFailure) -> NIOClientTCPBootstrap? {
        guard let bootstrap = NIOTSConnectionBootstrap(validatingGroup: group) else { return nil }
        if tls.clientCertificate != nil {
            throw .badConfiguration(
                "a client certificate is not supported with Network.framework's TLS; "
                    + "pass a bootstrap on NIO's sockets (ClientBootstrap) to use swift-nio-ssl")
        }
        let identity = ServerIdentity(tls.serverName ?? host)
        var anchors: [[UInt8]]?
        if case let .certificates(source) = tls.trustRoots {
            var ders: [[UInt8]] = []
            for certificate in try source.certificates() {
                do {
                    ders.append(try certificate.toDERBytes())
                } catch {
                    throw .badConfiguration("\(source): \(error)")
                }
            }
            anchors = ders
        }
        let pins = try tls.pinDigests()
        let options = NWProtocolTLS.Options()
        let security = options.securityProtocolOptions
        sec_protocol_options_set_min_tls_protocol_version(security, .TLSv12)
        if identity.isDNSName {
            sec_protocol_options_set_tls_server_name(security, identity.name)
        }
        sec_protocol_options_set_verify_block(
            security,
            { _, trust, complete in
                let failure = verify(
                    sec_trust_copy_ref(trust).takeRetainedValue(), identity: identity, anchors: anchors, pins: pins)
                refusal.withLockedValue { $0 = failure }
                complete(failure == nil)
            }, queue)
        // A failed handshake fails the connect instead of waiting for the network to change.
        return NIOClientTCPBootstrap(
            bootstrap.channelOption(NIOTSChannelOptions.waitForActivity, value: false).tlsOptions(options),
            tls: NIOInsecureNoTLS())
    }

    /// The server's chain evaluated as the system would (with only the app's CAs, if given),
    /// then its name by swiftframe's own rule (`ServerIdentity`, as on swift-nio-ssl), then the
    /// leaf key's pin: nil when accepted.
    private static func verify(
        _ trust: SecTrust, identity: ServerIdentity, anchors: [[UInt8]]?, pins: Set<[UInt8]>
    ) -> TLSFailure? {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, nil))
        if let anchors {
            let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
            SecTrustSetAnchorCertificates(trust, certificates as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
        }
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else {
            switch error.map({ CFErrorGetCode($0) }) ?? 0 {
            case Int(errSecCertificateExpired), Int(errSecCertificateNotValidYet): return .expiredCertificate
            default: return .untrustedChain
            }
        }
        guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first else {
            return .untrustedChain
        }
        let der = Array(SecCertificateCopyData(leaf) as Data)
        guard identity.isMatched(byCertificate: der) else { return .hostnameMismatch(expected: identity.name) }
        guard !pins.isEmpty else { return nil }
        guard let certificate = try? NIOSSLCertificate(bytes: der, format: .der),
            let digest = try? keyDigest(of: certificate)
        else {
            return .pinMismatch(found: "unreadable")
        }
        return pins.contains(digest) ? nil : .pinMismatch(found: pinString(digest))
    }

    /// A TLS error of Network.framework's that the verify block did not explain.
    static func failure(_ error: any Error) -> TLSFailure? {
        guard let error = error as? NWError, case let .tls(status) = error else { return nil }
        // errSSLProtocol, errSSLClosedAbort, errSSLRecordOverflow (SecureTransport.h): not TLS.
        switch status {
        case -9800, -9806, -9847: return .notTLS
        default: return .other(error)
        }
    }
}
#endif
