/// Why a TLS connection could not be set up (`ClientConfiguration.tls`, with the `TLS` trait),
/// reported as `DisconnectReason.connectFailed(.tls(failure))`.
///
/// Failures that retrying cannot heal (`isFinal`: an untrusted chain, a wrong host name, a pin
/// mismatch, an expired certificate, a configuration that does not load) stop the client after
/// that one attempt, as a `FinalFailure` thrown by `onConnect` does: `run()` (or
/// `withFrameClient`) throws the `TLSFailure`, and requests waiting for a connection fail with
/// it. The others (`notTLS`, `other`) are retried after the backoff like a refused connect.
public enum TLSFailure: Error, Sendable, CustomStringConvertible {
    /// The server's certificate chain does not lead to a trusted root: a self-signed
    /// certificate, an unknown certificate authority, a bad signature.
    case untrustedChain
    /// The server's certificate is not for `expected`, the name the client checked
    /// (`ClientTLS.serverName`, or the host connected to): no DNS SAN matches it (for a DNS
    /// name) or no IP SAN (for an IP address); see `ClientTLS.serverName`.
    case hostnameMismatch(expected: String)
    /// The server's key is none of `ClientTLS.pins`: `found` is its pin (`sha256/BASE64`).
    case pinMismatch(found: String)
    /// The server's certificate is outside its validity period: expired, or not valid yet
    /// (then the device's clock may be wrong).
    case expiredCertificate
    /// The peer does not speak TLS on this port: it closed the connection during the handshake
    /// without a TLS alert, or answered with bytes that are no TLS record (a plain TCP server).
    case notTLS
    /// The TLS configuration does not load: a certificate, key or CA that is missing or not
    /// PEM, or a pin that is not a base64 SHA-256.
    case badConfiguration(String)
    /// Any other TLS failure, as the TLS library reported it: an alert from the server during
    /// the handshake (no common protocol version or cipher). Under TLS 1.3 a server that refuses
    /// the client's certificate does so after the client's side of the handshake is done: that
    /// connection comes up and then drops with `DisconnectReason.transportError`.
    case other(any Error)

    /// True when retrying cannot heal it: the client stops instead of reconnecting.
    public var isFinal: Bool {
        switch self {
        case .untrustedChain, .hostnameMismatch, .pinMismatch, .expiredCertificate, .badConfiguration: true
        case .notTLS, .other: false
        }
    }

    public var description: String {
        switch self {
        case .untrustedChain: "untrusted chain"
        case let .hostnameMismatch(expected): "hostname mismatch: the certificate is not for \(expected)"
        case let .pinMismatch(found): "pin mismatch: the server's key is \(found)"
        case .expiredCertificate: "expired certificate"
        case .notTLS: "not TLS: the peer does not speak TLS on this port"
        case let .badConfiguration(problem): "bad TLS configuration: \(problem)"
        case let .other(error): "\(error)"
        }
    }
}
