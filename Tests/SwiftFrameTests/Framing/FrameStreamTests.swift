@testable import SwiftFrame
import TestSupport
import Testing

/// Every preset (and more layouts) through encoder and decoder, with the stream cut in every
/// possible way: the frames that come out are always the frames that went in.
@Suite struct FrameStreamTests {
    /// Layouts beyond the presets: signed, little-endian, 8-byte, adjusted and oddly ordered
    /// fields.
    static let moreLayouts = [
        "length:i16:body cmd:u8",
        "length:i32le:frame cmd:u32le",
        "seq:u64le type:u16 magic:u16le=0xCAFE length:varint:cmd+body cmd:u16le",
        "extra.a:u8 extra.b:u16 extra.c:u32le extra.d:u64 length:u8:after cmd:u8",
        "magic:u64=0x0123456789ABCDEF length:u64le:frame:adj=-3 type:u16",
        "length:u32:body:adj=+2 cmd:u32",
        "length:varint:after seq:u8",
    ]

    static let allLayouts: [String] = FrameLayout.presetNames + moreLayouts

    static func layout(_ name: String) throws -> FrameLayout {
        if let preset = FrameLayout.preset(named: name) { return preset }
        return try FrameLayout(description: name)
    }

    @Test(arguments: allLayouts)
    func oneFeedGivesEveryFrame(name: String) throws {
        let layout = try Self.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        #expect(try decodeChunks([bytes[...]], layout: layout) == expected)
        #expect(try FrameDecoder.decodeAll(bytes, layout: layout) == expected)
        // The payloads really are the bytes that went in, at the offsets they went in at.
        let decoded = try FrameDecoder.decodeAll(bytes, layout: layout)
        #expect(decoded.map { Array($0.payload) } == samplePayloadSizes.enumerated().map { payloadBytes($1, seed: $0) })
        #expect(decoded.map(\.offset) == expected.map(\.offset))
    }

    @Test(arguments: allLayouts)
    func everyTwoWaySplitGivesTheSameFrames(name: String) throws {
        let layout = try Self.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for cut in 0...bytes.count {
            let style = FeedStyle.allCases[cut % FeedStyle.allCases.count]
            let frames = try decodeChunks(chunks(bytes, cuttingAt: [cut]), layout: layout, style: style)
            #expect(frames == expected, "cut at \(cut)")
        }
    }

    @Test(arguments: allLayouts)
    func byteByByteGivesTheSameFrames(name: String) throws {
        let layout = try Self.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for style in FeedStyle.allCases {
            let pieces = (0..<bytes.count).map { bytes[$0..<($0 + 1)] }
            #expect(try decodeChunks(pieces, layout: layout, style: style) == expected)
        }
    }

    @Test(arguments: allLayouts)
    func randomChunksGiveTheSameFrames(name: String) throws {
        let layout = try Self.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for seed in 0..<40 as Range<UInt64> {
            let pieces = randomChunks(bytes, seed: seed, maxChunk: seed < 20 ? 7 : 64)
            let style = FeedStyle.allCases[Int(seed) % FeedStyle.allCases.count]
            #expect(try decodeChunks(pieces, layout: layout, style: style) == expected, "seed \(seed)")
        }
    }

    /// Every piece fed before any frame is taken: the decoder holds one array and queues the
    /// rest, and takes frames out of the queue in order.
    @Test(arguments: allLayouts)
    func piecesAllFedBeforeDecodingGiveTheSameFrames(name: String) throws {
        let layout = try Self.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for seed in 0..<10 as Range<UInt64> {
            var decoder = FrameDecoder(layout: layout)
            for piece in randomChunks(bytes, seed: seed, maxChunk: 5 + Int(seed) * 9) {
                decoder.feed(Array(piece))
            }
            #expect(decoder.bufferedByteCount == bytes.count)
            var frames: [Frame] = []
            while let frame = try decoder.nextFrame() {
                frames.append(frame)
            }
            #expect(frames == expected, "seed \(seed)")
            #expect(decoder.bufferedByteCount == 0)
            try decoder.finish()
        }
        // Two pieces, both fed first, cut at every offset: a frame straddles the two arrays at
        // every point of its header and payload.
        for cut in 0...bytes.count {
            var decoder = FrameDecoder(layout: layout)
            decoder.feed(Array(bytes[..<cut]))
            decoder.feed(Array(bytes[cut...]))
            var frames: [Frame] = []
            while let frame = try decoder.nextFrame() {
                frames.append(frame)
            }
            #expect(frames == expected, "cut at \(cut)")
            try decoder.finish()
        }
    }

    @Test func stickyFramesComeOutOfOneFeedWithoutMoreInput() throws {
        let (bytes, expected) = try sampleStream(.gameTCP)
        var decoder = FrameDecoder(layout: .gameTCP)
        decoder.feed(bytes)
        for frame in expected {
            #expect(try decoder.nextFrame() == frame)
        }
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 0)
        try decoder.finish()
    }

    @Test func aHeaderSplitAtEveryByteWaitsThenDecodes() throws {
        let frame = try FrameEncoder(layout: .gameHTTPRequest).encode(
            header: FrameHeader(command: 7, extras: ["playerId": 1, "sessionId": 2]), payload: [1, 2, 3])
        var decoder = FrameDecoder(layout: .gameHTTPRequest)
        for (index, byte) in frame.enumerated() {
            #expect(try decoder.nextFrame() == nil)
            #expect(decoder.bufferedByteCount == index)
            decoder.feed([byte])
        }
        let decoded = try #require(try decoder.nextFrame())
        #expect(decoded.header == FrameHeader(command: 7, extras: ["playerId": 1, "sessionId": 2]))
        #expect(Array(decoded.payload) == [1, 2, 3])
    }

    @Test func aValueSetAndClearedLeavesTheHeaderAsIfNeverSet() {
        var header = FrameHeader(command: 5, sequence: 6, type: 7)
        #expect(header.command == 5 && header.sequence == 6 && header.type == 7)
        header.command = nil
        header.sequence = nil
        header.type = nil
        #expect(header.command == nil && header.sequence == nil && header.type == nil)
        #expect(header == FrameHeader())
        #expect(header.hashValue == FrameHeader().hashValue)
        // Zero is a value, not the absence of one.
        #expect(FrameHeader(command: 0) != FrameHeader())
        header.sequence = 0
        #expect(header.sequence == 0 && header != FrameHeader())
    }

    @Test func headersWithAndWithoutEmptyExtrasAreEqual() {
        var header = FrameHeader(command: 3, extras: ["room": 9])
        #expect(header.extras == ["room": 9])
        header.extras = [:]
        #expect(header == FrameHeader(command: 3))
        #expect(FrameHeader(extras: [:]) == FrameHeader())
        #expect(FrameHeader(extras: [:]).hashValue == FrameHeader().hashValue)
    }

    @Test func bytesAfterAFrameAreKeptForTheNext() throws {
        let (bytes, expected) = try sampleStream(.im)
        let firstEnd = expected[1].offset
        let secondEnd = expected[2].offset
        var decoder = FrameDecoder(layout: .im)
        decoder.feed(Array(bytes[..<(firstEnd + 3)]))
        #expect(try decoder.nextFrame() == expected[0])
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 3)
        decoder.feed(Array(bytes[(firstEnd + 3)..<secondEnd]))
        #expect(try decoder.nextFrame() == expected[1])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func offsetsCountFromTheStreamStartAndTheBufferStaysSmall() throws {
        let encoder = FrameEncoder(layout: .u16u16)
        var decoder = FrameDecoder(layout: .u16u16)
        var offset = 0
        var carry: [UInt8] = []
        for index in 0..<500 {
            let frame = try encoder.encode(
                header: FrameHeader(command: UInt32(index)), payload: payloadBytes(index % 50, seed: index))
            // Feed each frame with the first half of the next one still missing (carried over).
            let all = carry + frame
            let split = all.count - frame.count / 2
            decoder.feed(Array(all[..<split]))
            carry = Array(all[split...])
            while let decoded = try decoder.nextFrame() {
                #expect(decoded.offset == offset)
                offset += 4 + decoded.payload.count
            }
            #expect(decoder.buffer.count < 256, "the consumed front is dropped")
        }
        decoder.feed(carry)
        while let decoded = try decoder.nextFrame() { offset += 4 + decoded.payload.count }
        try decoder.finish()
        #expect(decoder.base + decoder.start == offset)
    }

    @Test func payloadsAreSlicesOfTheBufferNotCopies() throws {
        let (bytes, _) = try sampleStream(.gameTCP)
        let frames = try FrameDecoder.decodeAll(bytes, layout: .gameTCP)
        let base = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for frame in frames where !frame.payload.isEmpty {
            let address = frame.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            #expect(address == base + UInt(frame.offset + 12))
        }
    }

    /// `withNextFrame` hands over the bytes where they lie: a frame within one read is read in
    /// the array fed, and a frame that straddles two reads is copied together once, when the
    /// second is fed, the frames after it being read in that second array.
    @Test func borrowedPayloadsAreTheBytesFed() throws {
        let (bytes, expected) = try sampleStream(.gameTCP, sizes: [10, 20, 30, 40])
        let cut = expected[1].offset + 12 + 5  // inside the second frame's payload
        let first = Array(bytes[..<cut])
        let second = Array(bytes[cut...])
        func address(_ array: [UInt8], _ index: Int) -> UInt {
            array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } + UInt(index)
        }
        var decoder = FrameDecoder(layout: .gameTCP)
        decoder.feed(first)
        let firstPayload = try #require(
            try decoder.withNextFrame { frame in
                #expect(UInt(bitPattern: frame.payload.baseAddress) == address(first, expected[0].offset + 12))
                return frame.copy()
            })
        #expect(firstPayload == expected[0])
        #expect(try decoder.withNextFrame { _ in Issue.record("the second frame is incomplete") } == nil)
        decoder.feed(second)
        #expect(decoder.bufferedByteCount == bytes.count - expected[1].offset)
        let secondFrame = try #require(
            try decoder.withNextFrame { frame in
                let inFirst = address(first, 0)..<address(first, first.count)
                let inSecond = address(second, 0)..<address(second, second.count)
                let at = UInt(bitPattern: frame.payload.baseAddress)
                #expect(!inFirst.contains(at) && !inSecond.contains(at), "copied together into the decoder's own array")
                return frame.copy()
            })
        #expect(secondFrame == expected[1])
        for frame in expected[2...] {
            let taken = try #require(
                try decoder.withNextFrame { borrowed in
                    #expect(UInt(bitPattern: borrowed.payload.baseAddress) == address(second, frame.offset - cut + 12))
                    return borrowed.copy()
                })
            #expect(taken == frame)
        }
        #expect(try decoder.withNextFrame { $0 } == nil)
        #expect(decoder.bufferedByteCount == 0)
        try decoder.finish()
    }

    /// A header in front of a frame that straddles two reads is checked when the second is fed;
    /// a bad one is still reported by `nextFrame()`, at its offset, after the good frames before.
    @Test func aBadHeaderBeforeAStraddlingFrameIsReportedInOrder() throws {
        let (bytes, expected) = try sampleStream(.gameTCP, sizes: [10, 20])
        var broken = bytes
        broken[expected[1].offset] ^= 0xFF  // the magic of the second frame
        for cut in (expected[1].offset + 1)..<broken.count {
            var decoder = FrameDecoder(layout: .gameTCP)
            decoder.feed(Array(broken[..<cut]))
            #expect(try decoder.nextFrame() == expected[0])
            decoder.feed(Array(broken[cut...]))
            let error = frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
            guard case let .badMagic(offset, _, _)? = error else {
                Issue.record("cut at \(cut): \(String(describing: error))")
                continue
            }
            #expect(offset == expected[1].offset)
        }
    }

    /// Large frames in 4 KiB reads are copied together into the room reserved beforehand: the
    /// array never moves, and the frames come out whole.
    @Test func reservedRoomHoldsLargeFramesWithoutGrowing() throws {
        let encoder = FrameEncoder(layout: .u16u16)
        var bytes: [UInt8] = []
        let payloads = (0..<3).map { payloadBytes(40_000, seed: $0) }
        for (index, payload) in payloads.enumerated() {
            bytes += try encoder.encode(header: FrameHeader(command: UInt32(index)), payload: payload)
        }
        var decoder = FrameDecoder(layout: .u16u16)
        decoder.reserveCapacity(40_004)
        let room = decoder.buffer.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        var decoded: [[UInt8]] = []
        for piece in stride(from: 0, to: bytes.count, by: 4096) {
            decoder.feed(Array(bytes[piece..<min(piece + 4096, bytes.count)]))
            while let frame = try decoder.nextFrame() {
                let header = frame.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } - 4
                #expect(header == room, "frame \(decoded.count) was copied into the reserved room")
                decoded.append(Array(frame.payload))
            }
        }
        try decoder.finish()
        #expect(decoded == payloads)

        var limited = try FrameLayout(description: "length:u32:body")
        limited.maxFrameSize = 1000
        var small = FrameDecoder(layout: limited)
        small.reserveCapacity(.max)
        #expect(small.buffer.capacity >= 1000 && small.buffer.capacity < 4096, "no more than the largest frame")
    }

    @Test func headerFieldsListTheWireValuesInOrder() throws {
        let (bytes, _) = try sampleStream(.gameTCP, sizes: [2])
        let frame = try #require(try FrameDecoder.decodeAll(bytes, layout: .gameTCP).first)
        #expect(
            FrameLayout.gameTCP.headerFields(of: frame).map { "\($0.name)=\($0.value)" }
                == ["magic=255", "length=6", "cmd=\(frame.header.command!)"])
        let im = Frame(header: FrameHeader(sequence: 9, type: 2), payload: [1, 2, 3], offset: 0)
        #expect(
            FrameLayout.im.headerFields(of: im).map { "\($0.name)=\($0.value)" }
                == ["magic=129", "seq=9", "type=2", "length=3"])
        let total = Frame(header: FrameHeader(command: 5), payload: [], offset: 0)
        #expect(FrameLayout.erlangTotal.headerFields(of: total).map(\.value) == [6, 5])
        #expect(FrameLayout.erlang.headerFields(of: total).map(\.value) == [2, 5])
    }
}
