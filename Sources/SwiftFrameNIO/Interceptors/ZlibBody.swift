#if Compression
import CompressNIO
import NIOCore

/// zlib (RFC 1950) bodies, through the system's zlib. Decoding stops at the layout's largest
/// frame size, so a small body that would inflate past it is refused, not allocated.
public struct ZlibBody: BodyCodec {
    public init() {}

    public func encode(_ body: [UInt8]) throws -> [UInt8] {
        var input = ByteBuffer(bytes: body)
        let output = try input.compress(with: .zlib())
        return Array(output.readableBytesView)
    }

    public func decode(_ body: [UInt8], limit: Int) throws -> [UInt8] {
        var input = ByteBuffer(bytes: body)
        let output = try input.decompress(with: .zlib(), maxSize: limit)
        return Array(output.readableBytesView)
    }
}
#endif
