import SwiftFrame

/// Turns a body into what travels and back: compression, encryption.
public protocol BodyCodec: Sendable {
    func encode(_ body: [UInt8]) throws -> [UInt8]
    /// The body that `encode` made `body` from; at most `limit` bytes (a body that would be
    /// larger is refused, not allocated).
    func decode(_ body: [UInt8], limit: Int) throws -> [UInt8]
}

/// A body transform keyed by a bit of a header field, as game and IM headers often carry: a
/// frame sent gets its body encoded and the bit set; a frame received with the bit set gets its
/// body decoded and the bit cleared before anything else reads it; one without is left alone.
/// The field is one of the layout's `extra.NAME` fields (`extra.flags:u8` in the layout text).
///
///     // magic:u8=0x81 seq:u32 type:u8 extra.flags:u8 length:u16:body
///     configuration.interceptors = [
///         FlaggedBody(field: "flags", bit: 0x01, codec: ZlibBody(), minimumSize: 256),   // compressed
///         FlaggedBody(field: "flags", bit: 0x02, codec: AESGCMBody(key: key)),           // then encrypted
///     ]
public struct FlaggedBody: FrameInterceptor {
    public let field: String
    public let bit: UInt64
    public let codec: any BodyCodec
    /// Bodies shorter than this are sent as they are (the bit clear): small bodies do not
    /// shrink by compression.
    public let minimumSize: Int

    public init(field: String, bit: UInt64, codec: any BodyCodec, minimumSize: Int = 0) {
        precondition(bit != 0 && bit & (bit - 1) == 0, "one bit")
        self.field = field
        self.bit = bit
        self.codec = codec
        self.minimumSize = minimumSize
    }

    public func intercept(_ frame: inout InterceptedFrame) throws {
        let flags = frame.header.extras[field] ?? 0
        switch frame.direction {
        case .outbound:
            guard frame.payload.count >= minimumSize else { return }
            frame.payload = try codec.encode(frame.payload)
            frame.header.extras[field] = flags | bit
        case .inbound:
            guard flags & bit != 0 else { return }
            do {
                frame.payload = try codec.decode(frame.payload, limit: frame.layout.maxFrameSize)
            } catch {
                throw BodyTransformError(field: field, bit: bit, command: frame.command, underlying: error)
            }
            frame.header.extras[field] = flags & ~bit
        }
    }
}

/// A body whose header flag says it is transformed did not decode.
public struct BodyTransformError: Error, CustomStringConvertible {
    public let field: String
    public let bit: UInt64
    public let command: UInt32
    public let underlying: any Error

    public var description: String {
        "the body of command \(command), flagged \(field) & 0x\(String(bit, radix: 16)), does not decode: \(underlying)"
    }
}

/// A body would decode to more than the layout's largest frame.
public struct BodyTooLarge: Error, CustomStringConvertible {
    public let size: Int
    public let limit: Int

    public var description: String { "a body of \(size) bytes, over the limit of \(limit)" }
}
