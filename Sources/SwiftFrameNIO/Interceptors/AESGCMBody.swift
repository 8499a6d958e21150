#if Encryption
import Crypto

/// Bodies sealed with AES-GCM (swift-crypto) under a key the app holds: a fresh 12-byte nonce,
/// the ciphertext and the 16-byte tag, in that order. A body altered on the way, or sealed
/// under another key, does not open: the frame is refused.
public struct AESGCMBody: BodyCodec {
    private let key: SymmetricKey

    /// `key`: 16, 24 or 32 bytes (AES-128, -192, -256).
    public init(key: SymmetricKey) {
        precondition([128, 192, 256].contains(key.bitCount), "an AES key is 16, 24 or 32 bytes")
        self.key = key
    }

    public init(key bytes: [UInt8]) {
        self.init(key: SymmetricKey(data: bytes))
    }

    public func encode(_ body: [UInt8]) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(body, using: key).combined else {
            throw CryptoKitError.incorrectParameterSize  // only for nonces of another size than 12
        }
        return Array(combined)
    }

    public func decode(_ body: [UInt8], limit: Int) throws -> [UInt8] {
        let box = try AES.GCM.SealedBox(combined: body)
        guard box.ciphertext.count <= limit else { throw BodyTooLarge(size: box.ciphertext.count, limit: limit) }
        return Array(try AES.GCM.open(box, using: key))
    }
}
#endif
