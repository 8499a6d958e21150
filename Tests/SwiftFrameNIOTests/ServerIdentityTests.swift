// The rule that decides whether a server's certificate is for the name the client checks
// (RFC 6125's reference identity), on subject alternative names given directly: the TLS tests
// run the same rule over real handshakes with certificates made by openssl.

#if TLS
@testable import SwiftFrameNIO
import SwiftASN1
import Testing
import X509

@Suite struct ServerIdentityTests {
    static let address: [UInt8] = [127, 0, 0, 1]

    @Test(arguments: [
        ("game.example.com", "game.example.com"), ("GAME.example.COM", "game.example.com"),
        ("game.example.com.", "game.example.com"), ("game.example.com", "game.example.com."),
        ("game.example.com", "*.example.com"), ("Game.Example.Com.", "*.EXAMPLE.com"),
    ])
    func aDNSNameMatches(reference: String, presented: String) {
        #expect(ServerIdentity(reference).isMatched(by: [.dnsName(presented)]))
    }

    @Test(arguments: [
        ("game.example.com", "other.example.com"), ("a.game.example.com", "*.example.com"),
        ("example.com", "*.example.com"), ("example.com", "*.com"), ("com", "*"),
        ("game.example.com", "g*.example.com"), ("game.example.com", "*game.example.com"),
        ("game.example.com", "game.*.com"), ("game.example.com", "game.example.com.."),
        ("game.example.com", ""), ("", ""), ("game..example.com", "game..example.com"),
        ("gáme.example.com", "gáme.example.com"),
    ])
    func aDNSNameDoesNotMatch(reference: String, presented: String) {
        #expect(!ServerIdentity(reference).isMatched(by: [.dnsName(presented)]))
    }

    @Test func anAddressMatchesOnlyAnIPSANOfItsBytes() {
        let v4 = ServerIdentity("127.0.0.1")
        #expect(!v4.isDNSName)
        #expect(v4.isMatched(by: [.ipAddress(ASN1OctetString(contentBytes: ArraySlice(Self.address)))]))
        #expect(!v4.isMatched(by: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 2]))]))
        #expect(!v4.isMatched(by: [.dnsName("127.0.0.1")]), "a DNS SAN that spells the address")
        let v6 = ServerIdentity("::1")
        #expect(
            v6.isMatched(by: [
                .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))
            ]))
        #expect(!v6.isMatched(by: [.ipAddress(ASN1OctetString(contentBytes: ArraySlice(Self.address)))]))
    }

    @Test func aNameIsNotMatchedByAnIPSANNorByOtherKinds() {
        let name = ServerIdentity("localhost")
        #expect(name.isDNSName)
        #expect(!name.isMatched(by: [.ipAddress(ASN1OctetString(contentBytes: ArraySlice(Self.address)))]))
        #expect(!name.isMatched(by: [.rfc822Name("localhost"), .uniformResourceIdentifier("localhost")]))
        #expect(!name.isMatched(by: []))
        #expect(
            name.isMatched(by: [
                .ipAddress(ASN1OctetString(contentBytes: ArraySlice(Self.address))), .dnsName("localhost"),
            ]))
    }

    @Test func bytesThatAreNoCertificateMatchNothing() {
        #expect(!ServerIdentity("localhost").isMatched(byCertificate: [0x30, 0x03, 0x02, 0x01, 0x01]))
        #expect(!ServerIdentity("localhost").isMatched(byCertificate: []))
    }
}
#endif
