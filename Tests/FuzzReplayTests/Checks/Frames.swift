import SwiftFrame

/// The frame decoder over a layout drawn from the input, fed in chunks whose sizes the input
/// chooses: the frames, and the error that ends them, equal those of one-shot decoding.
public func checkFrames(_ data: UnsafeRawBufferPointer) {
    guard let input = StreamInput(data) else { return }
    let layout = input.layout
    var whole = FrameDecoder(layout: layout)
    whole.feed(input.stream)
    let expected = drain(&whole)

    var split = FrameDecoder(layout: layout)
    var frames: [Frame] = []
    var failure: FrameError?
    var chunks = input.chunks()
    while let chunk = chunks.next(), failure == nil {
        split.feed(chunk)
        let (more, error) = drainFrames(&split)
        frames += more
        failure = error
    }
    if failure == nil {
        do throws(FrameError) { try split.finish() } catch { failure = error }
    }
    precondition(frames == expected.frames, "\(layout): split decoding gave other frames than one-shot decoding")
    precondition(
        failure == expected.failure,
        "\(layout): split decoding ended with \(String(describing: failure)), one-shot with \(String(describing: expected.failure))"
    )

    // The same pieces fed as arrays (which the decoder keeps, queues and copies frames together
    // from) and the frames taken with `withNextFrame`, each copied.
    var arrays = FrameDecoder(layout: layout)
    var borrowed: [Frame] = []
    var borrowedFailure: FrameError?
    chunks = input.chunks()
    while let chunk = chunks.next(), borrowedFailure == nil {
        arrays.feed(Array(chunk))
        do throws(FrameError) {
            while let frame = try arrays.withNextFrame({ $0.copy() }) { borrowed.append(frame) }
        } catch {
            borrowedFailure = error
        }
    }
    if borrowedFailure == nil {
        do throws(FrameError) { try arrays.finish() } catch { borrowedFailure = error }
    }
    precondition(
        borrowed == expected.frames, "\(layout): arrays and withNextFrame gave other frames than one-shot decoding")
    precondition(
        borrowedFailure == expected.failure,
        "\(layout): arrays and withNextFrame ended with \(String(describing: borrowedFailure)), one-shot with \(String(describing: expected.failure))"
    )
}

/// A fuzz input for the frame checks: a layout selector byte (below 0x80: a preset; from 0x80:
/// a layout description follows, up to a newline), a chunking seed byte, then the stream.
struct StreamInput {
    let layout: FrameLayout
    let seed: UInt8
    let stream: [UInt8]

    init(layout: FrameLayout, seed: UInt8, stream: [UInt8]) {
        self.layout = layout
        self.seed = seed
        self.stream = stream
    }

    init?(_ data: UnsafeRawBufferPointer) {
        guard data.count >= 2 else { return nil }
        var rest = data.dropFirst(2)
        if data[0] < 0x80 {
            let names = FrameLayout.presetNames
            guard let preset = FrameLayout.preset(named: names[Int(data[0]) % names.count]) else {
                fatalError("preset \(names[Int(data[0]) % names.count]) is listed but not found")
            }
            layout = preset
        } else {
            guard let newline = rest.firstIndex(of: 0x0A),
                let parsed = try? FrameLayout(description: String(decoding: rest[..<newline], as: UTF8.self))
            else { return nil }
            layout = parsed
            rest = rest[(newline + 1)...]
        }
        seed = data[1]
        stream = Array(rest)
    }

    /// The stream in pieces of 0 to 286 bytes, their sizes drawn from the seed.
    func chunks() -> some IteratorProtocol<ArraySlice<UInt8>> {
        var state = UInt64(seed) &+ 1
        var position = 0
        let stream = stream
        return AnyIterator {
            guard position < stream.count else { return nil }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = Int(state >> 59) + (state & 1 == 0 ? 0 : Int(state >> 40 & 0xFF))
            let end = min(stream.count, position + size)
            defer { position = end }
            return stream[position..<end]
        }
    }
}

private func drain(_ decoder: inout FrameDecoder) -> (frames: [Frame], failure: FrameError?) {
    var (frames, failure) = drainFrames(&decoder)
    if failure == nil {
        do throws(FrameError) { try decoder.finish() } catch { failure = error }
    }
    return (frames, failure)
}

private func drainFrames(_ decoder: inout FrameDecoder) -> ([Frame], FrameError?) {
    var frames: [Frame] = []
    do throws(FrameError) {
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return (frames, nil)
    } catch {
        return (frames, error)
    }
}

/// The layout text parser: whatever parses prints a description that parses to the same
/// layout and prints the same again.
public func checkLayoutText(_ data: UnsafeRawBufferPointer) {
    guard let layout = try? FrameLayout(description: String(decoding: data, as: UTF8.self)) else { return }
    let text = layout.description
    let again: FrameLayout
    do {
        again = try FrameLayout(description: text)
    } catch {
        fatalError("the printed layout \"\(text)\" does not parse: \(error)")
    }
    precondition(again == layout, "\"\(text)\" parses to another layout")
    precondition(again.description == text, "\"\(text)\" prints as \"\(again.description)\"")
}
