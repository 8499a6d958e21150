// The least work any Swift protobuf library must do to decode or encode these messages, with
// no parsing and no wire format at all, for `BenchProfile floor` and the instruction table:
//
// - decoding must make every string and array of the message anew from the input bytes, so
//   its floor builds the message (`init()`, then one assignment per field, as decoders do)
//   from the encoded bytes at offsets found beforehand: each string and array allocated and
//   filled by one `memcpy` (packed varints from the already decoded values, the one thing
//   not in the input as is);
// - encoding must make the output array, so its floor is one allocation and one `memcpy` of
//   the encoded bytes.
//
// Both floors include freeing what they made, as the benchmarks do.
import SwiftFrame

public struct Floor {
    /// The encoded message.
    public let encoded: [UInt8]
    /// Where the value of each length-delimited field starts and how long it is, in order.
    let pieces: [Range<Int>]

    public init<M: SwiftFrame.Message>(_ message: M) {
        encoded = try! message.serializedBytes()
        var pieces: [Range<Int>] = []
        encoded.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            while reader.hasRemaining {
                let tag = try! reader.readTag()
                guard tag & 7 == 2 else {
                    try! reader.skipValue(tag: tag)
                    continue
                }
                let start = try! reader.readLengthDelimited { $0.offset }
                pieces.append(start..<reader.offset)
            }
        }
        self.pieces = pieces
    }

    /// A new string of the UTF-8 in `piece` (no allocation for 15 bytes or fewer, as in decoding).
    @inline(__always)
    static func string(_ buffer: UnsafeRawBufferPointer, _ piece: Range<Int>) -> String {
        let count = piece.count
        return String(unsafeUninitializedCapacity: count) { target in
            if count > 0 {
                UnsafeMutableRawPointer(target.baseAddress!).copyMemory(from: buffer.baseAddress! + piece.lowerBound, byteCount: count)
            }
            return count
        }
    }

    /// A new array of the values in memory at `source`, in one allocation and one `memcpy`.
    @inline(__always)
    static func array<T: BitwiseCopyable>(_ source: UnsafeRawPointer, count: Int, of _: T.Type) -> [T] {
        [T](UnsafeBufferPointer(start: source.assumingMemoryBound(to: T.self), count: count))
    }

    /// The encoded bytes in a new array.
    @inline(never)
    public func encode() -> [UInt8] {
        encoded.withUnsafeBytes { [UInt8]($0) }
    }

    @inline(never)
    public func decodeFlat() -> SFFlat {
        encoded.withUnsafeBytes { buffer in
            var message = SFFlat()
            message.id = Values.flatID
            message.timestamp = Values.flatTimestamp
            message.name = Floor.string(buffer, pieces[0])
            message.payload = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[pieces[1]]))
            message.samples = Values.flatSamples.withUnsafeBytes { Floor.array($0.baseAddress!, count: 16, of: Int32.self) }
            return message
        }
    }

    @inline(never)
    public func decodeLogin() -> SFLogin {
        encoded.withUnsafeBytes { buffer in
            var message = SFLogin()
            message.nickName = Floor.string(buffer, pieces[0])
            message.pwd = Floor.string(buffer, pieces[1])
            message.ip = Floor.string(buffer, pieces[2])
            message.port = Values.login.port
            message.deviceName = Floor.string(buffer, pieces[3])
            message.deviceId = Floor.string(buffer, pieces[4])
            message.version = Floor.string(buffer, pieces[5])
            return message
        }
    }

    @inline(never)
    public func decodeRepeated() -> SFRepeated {
        encoded.withUnsafeBytes { buffer in
            var message = SFRepeated()
            message.ints = Values.ints.withUnsafeBytes { Floor.array($0.baseAddress!, count: $0.count / 4, of: Int32.self) }
            // Packed doubles are little-endian IEEE 754 on the wire, as in memory here.
            message.doubles = Floor.array(buffer.baseAddress! + pieces[1].lowerBound, count: pieces[1].count / 8, of: Double.self)
            message.names.reserveCapacity(pieces.count - 2)
            for piece in pieces[2...] { message.names.append(Floor.string(buffer, piece)) }
            return message
        }
    }
}
