// The least work any Swift protobuf library must do to decode or encode these messages, with
// no parsing of tags at all, for `BenchProfile floor` and the instruction and wall tables:
//
// - decoding must make every string and array of the message anew from the input bytes, so
//   its floor builds the message (`init()`, then one assignment per field, as decoders do)
//   from the encoded bytes at offsets found beforehand: each string made by one copy, which
//   the standard library validates as UTF-8 as it makes any String, and each array allocated
//   once and filled by one `memcpy`. Packed varints are decoded: by a plain loop over their
//   bytes in the units floor, from the values decoded beforehand in the older
//   flat and repeated floors (the one thing there not in the input as is). The scalars outside
//   arrays are assigned from values known beforehand;
// - encoding must make the output array, so its floor is one allocation and one `memcpy` of
//   the encoded bytes.
//
// Both floors include freeing what they made, as the benchmarks do.
import SwiftFrame
import SwiftFrameBenchMessages

public struct Floor {
    /// The encoded message.
    public let encoded: [UInt8]
    /// Where the value of each length-delimited field starts and how long it is, in order.
    let pieces: [Range<Int>]
    /// For `nested` floors, the pieces inside each piece, read as a message of its own.
    let inner: [[Range<Int>]]

    public init<M: SwiftFrame.Message>(_ message: M, nested: Bool = false) {
        let encoded = try! message.serializedBytes()
        self.encoded = encoded
        pieces = encoded.withUnsafeBytes { Floor.pieces(in: $0) }
        inner = !nested ? [] : pieces.map { piece in
            encoded.withUnsafeBytes { Floor.pieces(in: UnsafeRawBufferPointer(rebasing: $0[piece])).map { $0.shifted(by: piece.lowerBound) } }
        }
    }

    static func pieces(in buffer: UnsafeRawBufferPointer) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
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
        return pieces
    }

    /// A new string of the UTF-8 in `piece`, validated by the standard library as it makes it
    /// (no allocation for 15 bytes or fewer, as in decoding).
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

    /// A new array of the `count` varints in `piece`, decoded by a plain loop over their bytes
    /// into an array allocated once.
    @inline(__always)
    static func varints<T>(_ buffer: UnsafeRawBufferPointer, _ piece: Range<Int>, count: Int, as value: (UInt64) -> T) -> [T] {
        [T](unsafeUninitializedCapacity: count) { target, initialized in
            var byte = buffer.baseAddress! + piece.lowerBound
            while initialized < count {
                var raw: UInt64 = 0
                var shift: UInt64 = 0
                while true {
                    let next = byte.load(as: UInt8.self)
                    byte += 1
                    raw |= UInt64(next & 0x7F) &<< shift
                    if next < 0x80 { break }
                    shift &+= 7
                }
                (target.baseAddress! + initialized).initialize(to: value(raw))
                initialized += 1
            }
        }
    }

    /// How many varints end in `piece`.
    static func varintCount(_ buffer: UnsafeRawBufferPointer, _ piece: Range<Int>) -> Int {
        buffer[piece].filter { $0 < 0x80 }.count
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

    @inline(never)
    public func decodeChat() -> SFChat {
        encoded.withUnsafeBytes { buffer in
            var message = SFChat()
            message.msgId = Floor.string(buffer, pieces[0])
            message.sender = Floor.string(buffer, pieces[1])
            message.receiver = Floor.string(buffer, pieces[2])
            message.content = Floor.string(buffer, pieces[3])
            message.clientTag = Floor.string(buffer, pieces[4])
            message.sentAt = Values.chat.sentAt
            message.kind = Values.chat.kind
            message.flags = Values.chat.flags
            return message
        }
    }
}

/// The units floor: `Floor`'s rules for the list of units, whose pieces are the units, each
/// holding its name, position, stats and buffs.
public struct UnitsFloor {
    let floor: Floor
    /// Each unit's scalars, and the number of values in its packed stats and buffs.
    let scalars: [(id: Int64, kind: Int32, level: UInt32, alive: Bool, x: Int32, y: Int32, z: Int32)]
    let counts: [(stats: Int, buffs: Int)]

    public init() {
        floor = Floor(Values.units, nested: true)
        scalars = Values.units.units.map { unit in
            let position = unit.position!
            return (unit.id, unit.kind, unit.level, unit.alive, position.x, position.y, position.z)
        }
        let floor = floor
        counts = floor.encoded.withUnsafeBytes { buffer in
            // Each unit's pieces: name, position, stats, buffs.
            floor.inner.map { (Floor.varintCount(buffer, $0[2]), Floor.varintCount(buffer, $0[3])) }
        }
        precondition(floor.inner.allSatisfy { $0.count == 4 }, "units: a unit without its name, position, stats or buffs")
    }

    public var encoded: [UInt8] { floor.encoded }

    /// The encoded bytes in a new array.
    public func encode() -> [UInt8] { floor.encode() }

    @inline(never)
    public func decode() -> SFUnits {
        floor.encoded.withUnsafeBytes { buffer in
            var list = SFUnits()
            list.units.reserveCapacity(scalars.count)
            for index in scalars.indices {
                let pieces = floor.inner[index]
                let values = scalars[index]
                var unit = SwiftFrameBenchMessages.Bench_Unit()
                unit.id = values.id
                unit.kind = values.kind
                unit.name = Floor.string(buffer, pieces[0])
                unit.position = .init(x: values.x, y: values.y, z: values.z)
                unit.stats = Floor.varints(buffer, pieces[2], count: counts[index].stats) { Int64(bitPattern: $0) }
                unit.level = values.level
                unit.buffs = Floor.varints(buffer, pieces[3], count: counts[index].buffs) { Int64(bitPattern: $0) }
                unit.alive = values.alive
                list.units.append(unit)
            }
            list.version = Values.units.version
            return list
        }
    }
}

extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}
