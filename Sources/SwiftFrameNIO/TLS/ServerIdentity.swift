#if TLS
import X509

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The name a server's certificate must be for (RFC 6125's reference identity): a DNS name or an
/// IP address, and only that kind of subject alternative name matches it.
///
/// - A DNS name matches a DNS SAN equal to it, ASCII case ignored and one trailing dot on either
///   side ignored, or a wildcard SAN whose left-most label is exactly `*` and which has at least
///   two labels after it (`*.example.com`): the `*` stands for one whole non-empty label, so
///   `*.example.com` matches `game.example.com` but neither `example.com` nor
///   `a.game.example.com`. Partial wildcards (`g*.example.com`) match nothing.
/// - An IP address (IPv4 or IPv6 text) matches an IP SAN of the same bytes, and nothing else:
///   not a DNS SAN that spells it.
/// - The subject's common name is never consulted; a certificate without SANs matches nothing.
///
/// swiftframe checks this itself, on swift-nio-ssl and on Network.framework alike, with the
/// TLS library left to check the chain only: swift-nio-ssl on its own accepts an IP SAN for the
/// address connected to even when the reference is a DNS name.
struct ServerIdentity: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Lower-cased labels, without a trailing dot.
        case dns([Substring])
        /// 4 or 16 bytes.
        case ip([UInt8])
    }

    /// The reference as given, for `TLSFailure.hostnameMismatch`.
    let name: String
    let kind: Kind

    init(_ name: String) {
        self.name = name
        if let address = Self.addressBytes(name) {
            kind = .ip(address)
        } else {
            kind = .dns(Self.labels(name) ?? [])
        }
    }

    /// Whether it is a DNS name (sent as SNI) rather than an IP address.
    var isDNSName: Bool {
        if case .dns = kind { return true }
        return false
    }

    /// Whether the certificate (DER) is for this identity. A certificate that does not parse, or
    /// whose SAN extension does not, is for no one.
    func isMatched(byCertificate der: [UInt8]) -> Bool {
        guard let certificate = try? Certificate(derEncoded: der),
            let names = try? certificate.extensions.subjectAlternativeNames
        else { return false }
        return isMatched(by: Array(names))
    }

    /// Whether any of `names` (a certificate's SANs) is for this identity.
    func isMatched(by names: [GeneralName]) -> Bool {
        names.contains { name in
            switch (kind, name) {
            case let (.dns(reference), .dnsName(presented)): Self.dnsMatches(reference, presented)
            case let (.ip(reference), .ipAddress(presented)): Array(presented.bytes) == reference
            default: false
            }
        }
    }

    private static func dnsMatches(_ reference: [Substring], _ presented: String) -> Bool {
        guard !reference.isEmpty, let presented = labels(presented) else { return false }
        if presented == reference { return true }
        guard presented.first == "*", presented.count >= 3, presented.count == reference.count else { return false }
        return presented.dropFirst() == reference.dropFirst()
    }

    /// The lower-cased labels of a DNS name (one trailing dot dropped); nil when a label is empty
    /// or the name has characters outside ASCII.
    private static func labels(_ name: String) -> [Substring]? {
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var text = name.lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty, labels.allSatisfy({ !$0.isEmpty }) else { return nil }
        return labels
    }

    /// The bytes of an IPv4 or IPv6 address written as text; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
#endif
