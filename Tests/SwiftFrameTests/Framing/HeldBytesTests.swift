@testable import SwiftFrame
import TestSupport
import Testing

/// `FrameDecoder.cutFrame(in:at:)` and `bytesWanted`: frames cut where they lie in the
/// caller's reads, the decoder fed only what spans reads, give the frames (and stream
/// offsets) of the plain decoder, whatever the layout and wherever the reads end.
@Suite struct HeldBytesTests {
    /// Decodes `reads` the way a handler that holds its reads does: whole frames cut in place,
    /// the decoder fed no more than it wants while it holds the start of a frame, the rest of
    /// a read fed where nothing more can be cut. Returns the frames (payloads copied) and
    /// whether any frame was cut in place.
    static func decodeHeld(_ reads: [[UInt8]], layout: FrameLayout) throws(FrameError) -> (
        frames: [Frame], inPlace: Int
    ) {
        var decoder = FrameDecoder(layout: layout)
        var frames: [Frame] = []
        var inPlace = 0
        for read in reads {
            var position = 0
            while position < read.count {
                if decoder.bufferedByteCount > 0 {
                    let count = min(decoder.bytesWanted, read.count - position)
                    #expect(count > 0)
                    read.withUnsafeBytes {
                        decoder.feed(UnsafeRawBufferPointer(rebasing: $0[position..<(position + count)]))
                    }
                    position += count
                    while let frame = try decoder.nextFrame() {
                        frames.append(
                            Frame(header: frame.header, payload: ArraySlice(Array(frame.payload)), offset: frame.offset)
                        )
                    }
                    continue
                }
                let cut = read.withUnsafeBytes { decoder.cutFrame(in: $0, at: position) }
                if case let .frame(frame) = cut {
                    frames.append(Frame(header: frame.header, payload: read[frame.payload], offset: frame.offset))
                    position = frame.end
                    inPlace += 1
                } else {
                    read.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[position...])) }
                    position = read.count
                    while let frame = try decoder.nextFrame() {
                        frames.append(
                            Frame(header: frame.header, payload: ArraySlice(Array(frame.payload)), offset: frame.offset)
                        )
                    }
                }
            }
        }
        try decoder.finish()
        return (frames, inPlace)
    }

    static func normalized(_ frames: [Frame]) -> [Frame] {
        frames.map { Frame(header: $0.header, payload: ArraySlice(Array($0.payload)), offset: $0.offset) }
    }

    @Test(arguments: FrameStreamTests.allLayouts)
    func everySplitInTwo(name: String) throws {
        let layout = try FrameStreamTests.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for split in 0...bytes.count {
            let (frames, _) = try Self.decodeHeld([Array(bytes[..<split]), Array(bytes[split...])], layout: layout)
            #expect(Self.normalized(frames) == Self.normalized(expected), "\(name), split at \(split)")
        }
        let (_, inPlace) = try Self.decodeHeld([bytes], layout: layout)
        #expect(inPlace == expected.count, "\(name): one read, every frame cut in place")
    }

    @Test(arguments: FrameStreamTests.allLayouts)
    func randomReads(name: String) throws {
        let layout = try FrameStreamTests.layout(name)
        let (bytes, expected) = try sampleStream(layout)
        for seed in 0..<40 as Range<UInt64> {
            let reads = randomChunks(bytes, seed: seed, maxChunk: 1 + Int(seed % 40)).map { Array($0) }
            let (frames, _) = try Self.decodeHeld(reads, layout: layout)
            #expect(Self.normalized(frames) == Self.normalized(expected), "\(name), seed \(seed)")
        }
    }

    @Test func anIncompleteFrameIsSizedAndNothingIsTaken() throws {
        let layout = FrameLayout.gameTCP
        let (bytes, expected) = try sampleStream(layout, sizes: [4, 50])
        var decoder = FrameDecoder(layout: layout)
        let firstEnd = bytes.count - 62
        let cuts: [HeldCut] = bytes.dropLast(10).withUnsafeBytes { bytes in
            [
                decoder.cutFrame(in: bytes, at: 0), decoder.cutFrame(in: bytes, at: firstEnd),
                decoder.cutFrame(in: bytes, at: firstEnd),
            ]
        }
        #expect(cuts[0] == .frame(HeldFrame(header: expected[0].header, payload: 12..<16, offset: 0)))
        #expect(cuts[1] == .incomplete(frameSize: 62))
        #expect(cuts[2] == cuts[1])
        // A header split across the end, and a bad magic: left to the decoder.
        #expect(bytes.prefix(firstEnd + 5).withUnsafeBytes { decoder.cutFrame(in: $0, at: firstEnd) } == .feed)
        var bad = bytes
        bad[firstEnd + 3] = 0
        #expect(bad.withUnsafeBytes { decoder.cutFrame(in: $0, at: firstEnd) } == .feed)
        #expect(decoder.bufferedByteCount == 0 && decoder.bytesWanted == 0)
        bad.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[firstEnd...])) }
        #expect(throws: FrameError.badMagic(offset: firstEnd, found: 0, expected: 0xFF)) { _ = try decoder.nextFrame() }
        // Holding bytes, the decoder cuts nothing from the caller's.
        var holding = FrameDecoder(layout: layout)
        holding.feed(Array(bytes.prefix(5)))
        #expect(holding.bytesWanted == 7)
        #expect(bytes.withUnsafeBytes { holding.cutFrame(in: $0, at: 0) } == .feed)
        holding.feed(Array(bytes[5..<12]))
        #expect(try holding.nextFrame() == nil)
        #expect(holding.bytesWanted == 4)
    }
}
