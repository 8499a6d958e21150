// Helpers for the framing tests: reproducible random chunking, sample streams built with the
// encoder for any layout, and decoding in arbitrary pieces.

@testable import SwiftFrame
import TestSupport

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
func sampleStream(_ layout: FrameLayout, sizes: [Int] = samplePayloadSizes) throws(FrameError) -> (
    bytes: [UInt8], frames: [Frame]
) {
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
/// The frames are taken both ways, as `Frame` values (`nextFrame()`) and borrowed
/// (`withNextFrame`, each copied), by two decoders fed alike; they must agree, in the frames and
/// in the error.
func decodeChunks(_ chunks: [ArraySlice<UInt8>], layout: FrameLayout, style: FeedStyle = .array) throws(FrameError)
    -> [Frame]
{
    let values = decodeChunks(chunks, layout: layout, style: style, borrowed: false)
    let borrowed = decodeChunks(chunks, layout: layout, style: style, borrowed: true)
    precondition(
        values.frames == borrowed.frames && values.error == borrowed.error,
        "nextFrame() and withNextFrame(_:) disagree")
    if let error = values.error { throw error }
    return values.frames
}

/// The frames of `chunks` and the error that ended them (then the frames before it).
func decodeChunks(
    _ chunks: [ArraySlice<UInt8>], layout: FrameLayout, style: FeedStyle, borrowed: Bool
) -> (frames: [Frame], error: FrameError?) {
    var decoder = FrameDecoder(layout: layout)
    var frames: [Frame] = []
    do throws(FrameError) {
        for chunk in chunks {
            switch style {
            case .array: decoder.feed(Array(chunk))
            case .slice: decoder.feed(chunk)
            case .rawBuffer: chunk.withUnsafeBytes { decoder.feed($0) }
            }
            if borrowed {
                while let frame = try decoder.withNextFrame({ $0.copy() }) {
                    frames.append(frame)
                }
            } else {
                while let frame = try decoder.nextFrame() {
                    frames.append(frame)
                }
            }
        }
        try decoder.finish()
        return (frames, nil)
    } catch {
        return (frames, error)
    }
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

/// The pieces are fed as slices and as arrays (which the decoder may keep and queue), and the
/// frames taken both ways (`nextFrame()`, and `withNextFrame(_:)` with each frame copied): every
/// way must report the same events.
func events(_ chunks: [ArraySlice<UInt8>], layout: FrameLayout) -> [Event] {
    let values = events(chunks, layout: layout, borrowed: false, arrays: false)
    precondition(
        values == events(chunks, layout: layout, borrowed: false, arrays: true), "feeding arrays and slices disagree")
    precondition(
        values == events(chunks, layout: layout, borrowed: true, arrays: true),
        "nextFrame() and withNextFrame(_:) disagree")
    return values
}

func events(_ chunks: [ArraySlice<UInt8>], layout: FrameLayout, borrowed: Bool, arrays: Bool) -> [Event] {
    var decoder = FrameDecoder(layout: layout)
    var events: [Event] = []
    func drain() -> Bool {
        while true {
            do throws(FrameError) {
                let next = borrowed ? try decoder.withNextFrame({ $0.copy() }) : try decoder.nextFrame()
                guard let frame = next else { return true }
                events.append(.frame(frame))
            } catch {
                events.append(.error(error))
                if decoder.failure != nil { return false }
            }
        }
    }
    for chunk in chunks {
        if arrays { decoder.feed(Array(chunk)) } else { decoder.feed(chunk) }
        guard drain() else { return events }
    }
    if let error = frameError({ () throws(FrameError) in try decoder.finish() }) {
        events.append(.error(error))
    }
    return events
}
