import SwiftFrame
// The capture reader's sources, compiled by FuzzTesting/Package.swift as FuzzCaptureReader (the
// main package's SwiftFrameCapture is no product), or the main package's own for FuzzReplayTests.
#if canImport(FuzzCaptureReader)
import FuzzCaptureReader
#else
import SwiftFrameCapture
#endif

/// A pcap or pcapng file as `swiftframe inspect` reads one: the streaming `CaptureReader` fed in
/// pieces the input chooses, each packet's TCP segment, the `TCPFollower`, and each direction's
/// bytes cut into frames with a layout (looking for the magic where a direction starts
/// mid-stream or after a gap, as inspect does). The input is a layout selector byte and a
/// chunking seed byte (as for `FuzzFrames`), then the file. What must hold:
/// - the packets, and the error or end that stops them, are the same read in pieces as read at
///   once (a reader that gives up early, or reads past a record, shows as a difference);
/// - the reader never holds more unread bytes than one record or block may have: nothing is
///   kept (or allocated) on a length's word;
/// - each packet's time is finite and prints; a segment's payload lies inside its packet;
/// - the follower never delivers more bytes for a direction than that direction's segments
///   carried;
/// - every failure is a typed error (the reader's `CaptureError`, the decoder's `FrameError`).
public func checkCapture(_ data: UnsafeRawBufferPointer) {
    guard let input = StreamInput(data) else { return }

    var whole = CaptureReader()
    whole.feed(input.stream)
    let expected = readAll(&whole)

    var split = CaptureReader()
    var packets: [PacketSummary] = []
    var failure: CaptureError?
    var chunks = input.chunks()
    var follower = TCPFollower(serverPort: input.seed & 1 == 0 ? nil : 9000, maxHeld: 1 << 12)
    var carried: [Pair: Int] = [:]
    var delivered: [Pair: Int] = [:]
    var streams: [Int: FrameDecoder] = [:]
    let resync = resyncLayout(input.layout)
    while let chunk = chunks.next(), failure == nil {
        split.feed(chunk)
        do throws(CaptureError) {
            while let packet = try split.nextPacket() {
                packets.append(PacketSummary(packet))
                precondition(packet.time.isFinite, "a packet's time is \(packet.time)")
                _ = CapturedPacket.timeText(packet.time)
                guard let segment = TCPSegment(packet: packet) else { continue }
                precondition(
                    packet.data.indices.contains(segment.payload.startIndex) || segment.payload.isEmpty,
                    "a segment's payload starts outside its packet")
                precondition(
                    segment.payload.endIndex <= packet.data.endIndex, "a segment's payload ends outside its packet")
                carried[Pair(from: segment.from, to: segment.to), default: 0] += segment.payload.count
                follower.add(segment) { delivery in
                    delivered[Pair(from: delivery.from, to: delivery.to), default: 0] += delivery.bytes.count
                    let id = delivery.connection * 2 + delivery.direction
                    if delivery.afterGap { streams[id] = nil }
                    if streams[id] == nil {
                        let restart = delivery.midStream || delivery.afterGap
                        streams[id] = FrameDecoder(layout: restart ? resync ?? input.layout : input.layout)
                    }
                    decodeFrames(delivery.bytes, with: &streams[id]!)
                }
            }
        } catch {
            failure = error
        }
        // At most a record's header and its largest body, or a block of the largest size.
        precondition(
            split.bufferedByteCount <= CaptureReader.maxBlockSize + 16,
            "the reader holds \(split.bufferedByteCount) unread bytes, more than a record may have")
    }
    if failure == nil {
        do throws(CaptureError) { try split.finish() } catch { failure = error }
    }
    for (pair, count) in delivered {
        precondition(count <= carried[pair] ?? 0, "\(pair): \(count) bytes delivered of \(carried[pair] ?? 0) carried")
    }
    precondition(packets == expected.packets, "reading in pieces gave other packets than reading at once")
    precondition(
        failure == expected.failure,
        "reading in pieces ended with \(String(describing: failure)), at once with \(String(describing: expected.failure))"
    )
}

/// What is compared of a packet.
private struct PacketSummary: Equatable {
    var time: Double
    var linkType: UInt32
    var data: [UInt8]
    var offset: Int

    init(_ packet: CapturedPacket) {
        time = packet.time
        linkType = packet.linkType
        data = Array(packet.data)
        offset = packet.offset
    }
}

private struct Pair: Hashable, CustomStringConvertible {
    var from: CaptureEndpoint
    var to: CaptureEndpoint
    var description: String { "\(from) -> \(to)" }
}

private func readAll(_ reader: inout CaptureReader) -> (packets: [PacketSummary], failure: CaptureError?) {
    var packets: [PacketSummary] = []
    do throws(CaptureError) {
        while let packet = try reader.nextPacket() { packets.append(PacketSummary(packet)) }
        try reader.finish()
        return (packets, nil)
    } catch {
        return (packets, error)
    }
}

/// The layout a direction that starts mid-stream is decoded with, as `swiftframe inspect` makes it.
private func resyncLayout(_ layout: FrameLayout) -> FrameLayout? {
    var resync = layout
    if case .fail = layout.badHeaderPolicy {
        resync.badHeaderPolicy = .resynchronize(maxSkip: 1 << 20)
    }
    return (try? resync.validate()) != nil ? resync : nil
}

/// Feeds a direction's bytes to its decoder and takes every frame; the first error that ends
/// the stream ends it (later bytes are ignored, as inspect ignores them).
private func decodeFrames(_ bytes: ArraySlice<UInt8>, with decoder: inout FrameDecoder) {
    guard decoder.failure == nil else { return }
    decoder.feed(bytes)
    while true {
        do throws(FrameError) {
            guard let frame = try decoder.nextFrame() else { return }
            precondition(frame.payload.count <= decoder.layout.maxFrameSize, "a frame larger than the layout allows")
        } catch {
            if decoder.failure != nil { return }
        }
    }
}
