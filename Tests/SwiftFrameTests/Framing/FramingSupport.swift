// Helpers for the framing tests: reproducible random chunking, sample streams built with the
// encoder for any layout, decoding in arbitrary pieces, and two hand-written messages from
// the game backend's proto (format A).

@testable import SwiftFrame

// MARK: Randomness

/// SplitMix64: seeded, so a failing random chunking can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` bytes that differ from frame to frame, so a payload cut at the wrong place shows.
func payloadBytes(_ count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 17 &+ 1) }
}

// MARK: Sample streams

/// A header with a value for every field of `layout` (the largest value the field holds on
/// odd frames, to catch byte order and width mistakes).
func sampleHeader(for layout: FrameLayout, index: Int) -> FrameHeader {
    var header = FrameHeader()
    for field in layout.fields {
        let largest: UInt64 = field.width >= 8 ? .max : (1 << UInt64(8 * field.width)) - 1
        let value: UInt64 = index % 2 == 1 ? largest : UInt64(index + 1) &* 0x0102_0304_0506_0708 & largest
        switch field.kind {
        case .command: header.command = UInt32(truncatingIfNeeded: value)
        case .sequence: header.sequence = value
        case let .type(known): header.type = known.isEmpty ? value : known[index % known.count]
        case let .extra(name): header.extras[name] = value
        case .magic, .length: break
        }
    }
    return header
}

/// Payload sizes of the sample streams: empty frames first, last and in between, a two-byte
/// varint length (130), and a frame larger than a few reads.
let samplePayloadSizes = [0, 1, 5, 0, 130, 17, 0]

/// The bytes of frames with the sizes above, written by the encoder, and the frames a decoder
/// must return for them.
func sampleStream(_ layout: FrameLayout, sizes: [Int] = samplePayloadSizes) throws(FrameError) -> (bytes: [UInt8], frames: [Frame]) {
    let encoder = FrameEncoder(layout: layout)
    var bytes: [UInt8] = []
    var frames: [Frame] = []
    for (index, size) in sizes.enumerated() {
        let header = sampleHeader(for: layout, index: index)
        let payload = payloadBytes(size, seed: index)
        frames.append(Frame(header: header, payload: payload[...], offset: bytes.count))
        try encoder.append(header: header, payload: payload, to: &bytes)
    }
    return (bytes, frames)
}

// MARK: Decoding in pieces

/// How a test hands bytes to the decoder, to exercise every `feed` overload.
enum FeedStyle: CaseIterable {
    case array, slice, rawBuffer
}

/// Decodes `chunks` fed one after another, taking every frame after each feed, then finishes.
func decodeChunks(_ chunks: [ArraySlice<UInt8>], layout: FrameLayout, style: FeedStyle = .array) throws(FrameError) -> [Frame] {
    var decoder = FrameDecoder(layout: layout)
    var frames: [Frame] = []
    for chunk in chunks {
        switch style {
        case .array: decoder.feed(Array(chunk))
        case .slice: decoder.feed(chunk)
        case .rawBuffer: chunk.withUnsafeBytes { decoder.feed($0) }
        }
        while let frame = try decoder.nextFrame() {
            frames.append(frame)
        }
    }
    try decoder.finish()
    return frames
}

/// `bytes` cut at the given offsets.
func chunks(_ bytes: [UInt8], cuttingAt cuts: [Int]) -> [ArraySlice<UInt8>] {
    var pieces: [ArraySlice<UInt8>] = []
    var previous = 0
    for cut in cuts + [bytes.count] {
        pieces.append(bytes[previous..<cut])
        previous = cut
    }
    return pieces
}

/// `bytes` cut into pieces of 1...maxChunk bytes (0-byte feeds included now and then).
func randomChunks(_ bytes: [UInt8], seed: UInt64, maxChunk: Int) -> [ArraySlice<UInt8>] {
    var generator = SeededGenerator(seed: seed)
    var pieces: [ArraySlice<UInt8>] = []
    var position = 0
    while position < bytes.count {
        let size = Int.random(in: 0...maxChunk, using: &generator)
        let end = min(bytes.count, position + size)
        pieces.append(bytes[position..<end])
        position = end
    }
    return pieces
}

/// The error `body` throws, or nil.
func frameError(_ body: () throws(FrameError) -> Void) -> FrameError? {
    do throws(FrameError) {
        try body()
        return nil
    } catch {
        return error
    }
}

/// The layout error `body` throws, or nil.
func layoutError(_ body: () throws(FrameLayoutError) -> Void) -> FrameLayoutError? {
    do throws(FrameLayoutError) {
        try body()
        return nil
    } catch {
        return error
    }
}

/// Frames and errors in the order a decoder reported them, feeding `chunks` and going on after
/// errors while the decoder allows it (as `swiftframe inspect` does).
enum Event: Equatable {
    case frame(Frame)
    case error(FrameError)
}

func events(_ chunks: [ArraySlice<UInt8>], layout: FrameLayout) -> [Event] {
    var decoder = FrameDecoder(layout: layout)
    var events: [Event] = []
    func drain() -> Bool {
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return true }
                events.append(.frame(frame))
            } catch {
                events.append(.error(error))
                if decoder.failure != nil { return false }
            }
        }
    }
    for chunk in chunks {
        decoder.feed(chunk)
        guard drain() else { return events }
    }
    if let error = frameError({ () throws(FrameError) in try decoder.finish() }) {
        events.append(.error(error))
    }
    return events
}

/// Big-endian bytes of `value` in `width` bytes (test-side reference, not the code under test).
func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
    (0..<width).map { UInt8((value >> UInt64(8 * (width - 1 - $0))) & 0xFF) }
}

// MARK: Game backend messages (PROTOCOLS.md, A)

/// `message Test_Req { string param1 = 1; int32 param2 = 2; }`
struct TestReq: Message {
    static let protoMessageName = "Test_Req"
    var param1 = ""
    var param2: Int32 = 0
    var unknownFields = UnknownFields()

    init() {}

    init(param1: String, param2: Int32) {
        self.param1 = param1
        self.param2 = param2
    }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 10: param1 = try reader.readString()
            case 16: param2 = try reader.readVarint(ProtoInt32.self)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        var size = unknownFields.count
        if !param1.isEmpty { size += 1 + Wire.lengthDelimitedSize(param1.utf8.count) }
        if param2 != 0 { size += 1 + ProtoInt32.size(param2) }
        return size
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if !param1.isEmpty {
            writer.writeTag(10)
            writer.writeString(param1)
        }
        if param2 != 0 {
            writer.writeTag(16)
            writer.writeVarint(ProtoInt32.self, param2)
        }
        writer.writeUnknownFields(unknownFields)
    }
}

/// `message Test_Rsp { string result1 = 1; int64 result2 = 2; }`
struct TestRsp: Message {
    static let protoMessageName = "Test_Rsp"
    var result1 = ""
    var result2: Int64 = 0
    var unknownFields = UnknownFields()

    init() {}

    init(result1: String, result2: Int64) {
        self.result1 = result1
        self.result2 = result2
    }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 10: result1 = try reader.readString()
            case 16: result2 = try reader.readVarint(ProtoInt64.self)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        var size = unknownFields.count
        if !result1.isEmpty { size += 1 + Wire.lengthDelimitedSize(result1.utf8.count) }
        if result2 != 0 { size += 1 + ProtoInt64.size(result2) }
        return size
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if !result1.isEmpty {
            writer.writeTag(10)
            writer.writeString(result1)
        }
        if result2 != 0 {
            writer.writeTag(16)
            writer.writeVarint(ProtoInt64.self, result2)
        }
        writer.writeUnknownFields(unknownFields)
    }
}

/// Command ids of the game backend's `CommandEnum`.
enum GameCommand {
    static let test: UInt32 = 1
    static let error: UInt32 = 100_000
    static let systemLogout: UInt32 = 99_900_001
    static let heartBeat: UInt32 = 99_900_002
}
