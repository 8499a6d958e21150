#if TLS
import Crypto
import NIOSSL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// PEM text (`-----BEGIN CERTIFICATE-----`, `-----BEGIN PRIVATE KEY-----`, ...), from a file or
/// in memory.
public enum PEMSource: Sendable, Hashable {
    case file(String)
    case bytes([UInt8])

    /// PEM text held in a string.
    public static func string(_ text: String) -> PEMSource { .bytes(Array(text.utf8)) }

    func certificates() throws(TLSFailure) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            switch self {
            case let .file(path): certificates = try NIOSSLCertificate.fromPEMFile(path)
            case let .bytes(bytes): certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
            }
        } catch {
            throw .badConfiguration("\(self) holds no PEM certificate (\(error))")
        }
        guard !certificates.isEmpty else { throw .badConfiguration("\(self) holds no PEM certificate") }
        return certificates
    }

    func privateKey() throws(TLSFailure) -> NIOSSLPrivateKey {
        do {
            switch self {
            case let .file(path): return try NIOSSLPrivateKey(file: path, format: .pem)
            case let .bytes(bytes): return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
            }
        } catch {
            throw .badConfiguration("\(self) holds no PEM private key (\(error))")
        }
    }
}

extension PEMSource: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .file(path): path
        case let .bytes(bytes): "\(bytes.count) bytes of PEM"
        }
    }
}

/// A certificate chain (the leaf first) and the leaf's private key: a server's identity, or a
/// client's certificate.
public struct TLSIdentity: Sendable, Hashable {
    public var certificateChain: PEMSource
    public var privateKey: PEMSource

    public init(certificateChain: PEMSource, privateKey: PEMSource) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

/// A client's TLS (`ClientConfiguration.tls`): whom to trust, which name to check, and
/// optionally the server keys to pin and a certificate of the client's own.
///
/// The handshake is part of connecting: the connection counts as made (and `onConnect` runs)
/// once the server's chain, name and pin have been checked. A chain, name or pin that is
/// refused ends the client (see `TLSFailure`).
public struct ClientTLS: Sendable, Hashable {
    /// The certificate authorities a server's chain must lead to.
    public enum TrustRoots: Sendable, Hashable {
        /// The system's (on Linux, the CA bundle of the distribution).
        case system
        /// Only these: your own CA, in PEM.
        case certificates(PEMSource)
    }

    /// The name the server's certificate must be for, also sent as SNI when it is a DNS name;
    /// nil: the host the client connects to. A DNS name is matched against the certificate's
    /// DNS names only (ASCII case and a trailing dot ignored; a `*.example.com` wildcard stands
    /// for one whole left-most label), an IP address against its IP addresses only, and the
    /// subject's common name never: a certificate for `127.0.0.1` is refused for
    /// `game.example.com` even when the client connects to 127.0.0.1
    /// (`TLSFailure.hostnameMismatch`, final).
    public var serverName: String?
    public var trustRoots: TrustRoots
    /// Public-key pins: the SHA-256 of the server's leaf key (its SubjectPublicKeyInfo, DER),
    /// base64, as HPKP and mobile pinning libraries write them: `sha256/BASE64` (the prefix
    /// may be left out). When not empty, the server's key must be one of them, checked after
    /// its chain and name. Ship a spare pin (the next key's) so that a key change does not lock
    /// the app out. `ClientTLS.pin(ofCertificate:)` gives a certificate's pin.
    public var pins: [String]
    /// A certificate for servers that ask for one.
    public var clientCertificate: TLSIdentity?

    public init(
        serverName: String? = nil, trustRoots: TrustRoots = .system, pins: [String] = [],
        clientCertificate: TLSIdentity? = nil
    ) {
        self.serverName = serverName
        self.trustRoots = trustRoots
        self.pins = pins
        self.clientCertificate = clientCertificate
    }

    /// The pin (`sha256/BASE64`) of the first certificate in `certificate`'s PEM.
    public static func pin(ofCertificate certificate: PEMSource) throws(TLSFailure) -> String {
        guard let first = try certificate.certificates().first else { throw .badConfiguration("no certificate") }
        do {
            return pinString(try keyDigest(of: first))
        } catch {
            throw .badConfiguration("the certificate's key cannot be read (\(error))")
        }
    }

    /// The pins as SHA-256 digests.
    func pinDigests() throws(TLSFailure) -> Set<[UInt8]> {
        var digests = Set<[UInt8]>()
        for pin in pins {
            let text = pin.hasPrefix("sha256/") ? String(pin.dropFirst("sha256/".count)) : pin
            guard let data = Data(base64Encoded: text), data.count == SHA256.byteCount else {
                throw .badConfiguration("pin \(pin) is not sha256/ and the base64 of 32 bytes")
            }
            digests.insert(Array(data))
        }
        return digests
    }

    /// The TLS library's configuration.
    func nioConfiguration() throws(TLSFailure) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // The chain only: the name is checked by `ServerIdentity`, after the handshake.
        configuration.certificateVerification = .noHostnameVerification
        switch trustRoots {
        case .system: configuration.trustRoots = .default
        case let .certificates(source): configuration.trustRoots = .certificates(try source.certificates())
        }
        if let identity = clientCertificate {
            configuration.certificateChain = try identity.certificateChain.certificates().map { .certificate($0) }
            configuration.privateKey = .privateKey(try identity.privateKey.privateKey())
        }
        return configuration
    }
}

/// A server's TLS (`ServerConfiguration.tls`): its certificate chain and key, and optionally the
/// certificate authorities whose client certificates it requires.
public struct ServerTLS: Sendable, Hashable {
    public var identity: TLSIdentity
    /// When set, every client must present a certificate that leads to one of these CAs; a
    /// client without one is refused during the handshake.
    public var clientCertificateAuthorities: PEMSource?

    public init(certificateChain: PEMSource, privateKey: PEMSource, clientCertificateAuthorities: PEMSource? = nil) {
        identity = TLSIdentity(certificateChain: certificateChain, privateKey: privateKey)
        self.clientCertificateAuthorities = clientCertificateAuthorities
    }

    func makeContext() throws(TLSFailure) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try identity.certificateChain.certificates().map { .certificate($0) },
            privateKey: .privateKey(try identity.privateKey.privateKey()))
        configuration.minimumTLSVersion = .tlsv12
        if let authorities = clientCertificateAuthorities {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try authorities.certificates())
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw .badConfiguration("\(error)")
        }
    }
}

/// The SHA-256 of a certificate's SubjectPublicKeyInfo (DER).
func keyDigest(of certificate: NIOSSLCertificate) throws -> [UInt8] {
    Array(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes()))
}

func pinString(_ digest: [UInt8]) -> String {
    "sha256/" + Data(digest).base64EncodedString()
}
#endif
