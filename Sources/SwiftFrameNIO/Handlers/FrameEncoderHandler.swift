import NIOCore
import SwiftFrame

/// A frame to write: header values and an encoded body.
public struct OutboundFrame: Sendable, Hashable {
    public var header: FrameHeader
    public var payload: [UInt8]

    public init(header: FrameHeader, payload: [UInt8]) {
        self.header = header
        self.payload = payload
    }

    /// A frame carrying `message` under its command id, in `layout`'s command field (or its
    /// type field, for layouts without one).
    public init<M: CommandMessage>(
        _ message: M, layout: FrameLayout, sequence: UInt64? = nil, extras: [String: UInt64] = [:]
    ) throws {
        self.init(
            header: layout.header(command: M.commandID, sequence: sequence, extras: extras),
            payload: try message.framePayloadBytes())
    }
}

/// Writes `OutboundFrame`s in one layout. A frame the layout cannot carry (a payload too large
/// for the length field, a value too wide for its field) fails its write with the
/// `FrameError`, and nothing of it is written.
public struct FrameEncoderHandler: MessageToByteEncoder, Sendable {
    public typealias OutboundIn = OutboundFrame

    private let encoder: FrameEncoder

    public init(layout: FrameLayout) {
        self.encoder = FrameEncoder(layout: layout)
    }

    public func encode(data: OutboundFrame, out: inout ByteBuffer) throws {
        try encoder.write(data.header, payload: data.payload, to: &out)
    }
}

extension FrameEncoder {
    /// Writes a frame with `payload` as its body to a `ByteBuffer`.
    func write(_ header: FrameHeader, payload: [UInt8], to buffer: inout ByteBuffer) throws(FrameError) {
        buffer.reserveCapacity(minimumWritableBytes: largestHeaderSize + payload.count)
        var failure: FrameError?
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: largestHeaderSize) { memory in
            do throws(FrameError) {
                return try writeHeader(header, payloadCount: payload.count, into: memory)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        buffer.writeBytes(payload)
    }
}
