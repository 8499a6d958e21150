import ArgumentParser
import Foundation
import SwiftFrame
import SwiftFrameCapture

/// `swiftframe inspect` on a pcap or pcapng capture: the file is read in pieces (memory stays
/// flat with its size), every TCP connection is followed in both directions, each direction is
/// cut into frames, and the frames are printed as they complete, interleaved by time:
///
///     frame time=<s> from=<a:p> to=<a:p> dir=<client->server|server->client|unknown> offset=<o> <fields> payload=<n>
///
/// A direction the capture did not see start (no SYN), or one that lost bytes, may start
/// inside a frame: with a layout that has a magic the decoder looks for it (`note` lines say
/// so, and they are not errors); without one it decodes from where it is.
struct CaptureInspection {
    let layout: FrameLayout
    /// The layout a direction that starts mid-stream is decoded with: the same, looking for the
    /// magic after a bad header; nil when the layout has no magic.
    let resyncLayout: FrameLayout?
    let port: Int?

    /// Bytes read from the file at a time.
    static let readSize = 1 << 20
    /// The bytes a direction that starts mid-stream may skip looking for the magic.
    static let midStreamSkip = 1 << 20

    private struct Stream {
        var decoder: FrameDecoder
        /// The first error of a mid-stream direction is expected (it starts inside a frame).
        var expectingResync: Bool
        /// `from=... to=... dir=... `: the part of each line's place after the time.
        var ends: String
        /// Bytes were lost and the layout has no magic to find a frame's start by.
        var stopped = false
    }

    init(layout: FrameLayout, port: Int?) {
        self.layout = layout
        self.port = port
        var resync = layout
        if case .fail = layout.badHeaderPolicy {
            resync.badHeaderPolicy = .resynchronize(maxSkip: Self.midStreamSkip)
        }
        resyncLayout = (try? resync.validate()) != nil ? resync : nil
    }

    /// Prints the frames of the capture whose first bytes are `head` and the rest `input`;
    /// true if there were errors.
    func run(head: Data, input: FileHandle, output: inout String, flush: (inout String) -> Void) throws -> Bool {
        var reader = CaptureReader()
        var follower = TCPFollower(serverPort: port.map { UInt16(truncatingIfNeeded: $0) })
        var streams: [Int: Stream] = [:]
        var hadErrors = false
        var chunk = head
        var readable = false
        var skippedLinkTypes: Set<UInt32> = []
        func fail(_ error: CaptureError) -> Never {
            flush(&output)
            FileHandle.standardError.write(Data("error: the capture: \(error)\n".utf8))
            Foundation.exit(1)
        }
        while true {
            chunk.withUnsafeBytes { reader.feed($0) }
            do throws(CaptureError) {
                while let packet = try reader.nextPacket() {
                    guard TCPSegment.linkTypes.contains(packet.linkType) else {
                        skippedLinkTypes.insert(packet.linkType)
                        continue
                    }
                    readable = true
                    guard let segment = TCPSegment(packet: packet) else { continue }
                    if let port, Int(segment.from.port) != port && Int(segment.to.port) != port { continue }
                    follower.add(segment) { delivery in
                        if take(delivery, streams: &streams, output: &output) { hadErrors = true }
                    }
                    if output.utf8.count >= 1 << 16 { flush(&output) }
                }
            } catch {
                fail(error)
            }
            if chunk.isEmpty { break }
            chunk = try input.read(upToCount: Self.readSize) ?? Data()
        }
        do throws(CaptureError) {
            try reader.finish()
        } catch {
            fail(error)
        }
        if !readable, let linkType = skippedLinkTypes.min() {
            fail(CaptureError(offset: 0, reason: "link type \(linkType) is not one this reader knows"))
        }
        return hadErrors
    }

    /// Feeds one delivery to its direction's decoder and prints what completes; true on an error.
    private func take(_ delivery: TCPFollower.Delivery, streams: inout [Int: Stream], output: inout String) -> Bool {
        let id = delivery.connection * 2 + delivery.direction
        let role = switch delivery.role {
        case .clientToServer: "client->server"
        case .serverToClient: "server->client"
        case .unknown: "unknown"
        }
        var hadErrors = false
        let time = Self.time(delivery.time)
        if delivery.afterGap {
            hadErrors = true
            output += "error time=\(time) from=\(delivery.from) to=\(delivery.to) dir=\(role) bytes missing from the capture; "
                + (resyncLayout == nil ? "this direction is not decoded further\n" : "looking for the magic\n")
            streams[id] = nil
            if resyncLayout == nil {
                streams[id] = Stream(decoder: FrameDecoder(layout: layout), expectingResync: false, ends: "", stopped: true)
                return true
            }
        }
        if streams[id] == nil {
            let restart = delivery.midStream || delivery.afterGap
            streams[id] = Stream(
                decoder: FrameDecoder(layout: restart ? resyncLayout ?? layout : layout),
                expectingResync: restart && resyncLayout != nil,
                ends: "from=\(delivery.from) to=\(delivery.to) dir=\(role) ")
        }
        guard !streams[id]!.stopped, streams[id]!.decoder.failure == nil else { return hadErrors }
        streams[id]!.decoder.feed(delivery.bytes)
        let place = "time=\(time) " + streams[id]!.ends
        while true {
            do throws(FrameError) {
                guard let frame = try streams[id]!.decoder.nextFrame() else { return hadErrors }
                streams[id]!.expectingResync = false
                output += "frame \(place)offset=\(frame.offset)"
                for field in layout.headerFields(of: frame) { output += " \(field.name)=\(field.value)" }
                output += " payload=\(frame.payload.count)\n"
            } catch {
                if streams[id]!.expectingResync && streams[id]!.decoder.failure == nil {
                    streams[id]!.expectingResync = false
                    output += "note \(place)offset=\(error.offset ?? 0) the capture starts inside a frame (\(error.reason)); looking for the magic\n"
                    continue
                }
                hadErrors = true
                output += "error \(place)offset=\(error.offset ?? 0) \(error.reason)\n"
                if streams[id]!.decoder.failure != nil { return hadErrors }
            }
        }
    }

    /// Seconds since 1970 with microseconds.
    static func time(_ seconds: Double) -> String {
        var whole = Int(seconds)
        var micros = Int(((seconds - Double(whole)) * 1e6).rounded())
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        let digits = String(micros)
        return "\(whole)." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
