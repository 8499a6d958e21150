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
    /// Prints each frame's payload as its command's message, when the .proto files are given.
    let payloads: PayloadPrinter?
    /// JSON objects instead of lines.
    let json: Bool

    /// Bytes read from the file at a time.
    static let readSize = 1 << 20
    /// The bytes a direction that starts mid-stream may skip looking for the magic.
    static let midStreamSkip = 1 << 20

    /// One direction of one connection.
    struct Stream {
        var decoder: FrameDecoder
        /// The first error of a mid-stream direction is expected (it starts inside a frame).
        var expectingResync: Bool
        /// ` from=... to=... dir=... `: the part of each line's place after the time.
        var ends: [UInt8]
        /// Bytes were lost and the layout has no magic to find a frame's start by.
        var stopped = false
        /// Client to server (true), server to client (false), or not known.
        var toServer: Bool?
        /// `from`, `to` and `dir`, for JSON.
        var place: InspectJSON.Place = []
    }

    init(layout: FrameLayout, port: Int?, payloads: PayloadPrinter?, json: Bool = false) {
        self.layout = layout
        self.port = port
        self.payloads = payloads
        self.json = json
        var resync = layout
        if case .fail = layout.badHeaderPolicy {
            resync.badHeaderPolicy = .resynchronize(maxSkip: Self.midStreamSkip)
        }
        resyncLayout = (try? resync.validate()) != nil ? resync : nil
    }

    /// Prints the frames of the capture whose first bytes are `head` and the rest `input`;
    /// true if there were errors.
    func run(head: Data, input: FileHandle) throws -> Bool {
        var reader = CaptureReader()
        var follower = TCPFollower(serverPort: port.map { UInt16(truncatingIfNeeded: $0) })
        var streams: [Stream?] = []
        var awaiting: [Int: AwaitingReplies] = [:]
        var output = Output()
        var hadErrors = false
        var chunk = head
        var readable = false
        var skippedLinkTypes: Set<UInt32> = []
        func fail(_ error: CaptureError) -> Never {
            output.flush()
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
                        if take(
                            delivery, streams: &streams,
                            awaiting: &awaiting[delivery.connection, default: AwaitingReplies()],
                            output: &output)
                        {
                            hadErrors = true
                        }
                    }
                    if output.bytes.count >= 1 << 16 { output.flush() }
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
        output.flush()
        return hadErrors
    }

    /// Feeds one delivery to its direction's decoder and prints what completes; true on an error.
    private func take(
        _ delivery: TCPFollower.Delivery, streams: inout [Stream?], awaiting: inout AwaitingReplies,
        output: inout Output
    ) -> Bool {
        let id = delivery.connection * 2 + delivery.direction
        if streams.count <= id { streams += [Stream?](repeating: nil, count: id + 1 - streams.count) }
        let role =
            switch delivery.role {
            case .clientToServer: "client->server"
            case .serverToClient: "server->client"
            case .unknown: "unknown"
            }
        var hadErrors = false
        var time: [UInt8] = []
        Output.appendTime(delivery.time, to: &time)
        // Made only for a new stream or an error: formatting addresses for every segment was a
        // noticeable part of a run.
        func place() -> InspectJSON.Place { [("from", "\(delivery.from)"), ("to", "\(delivery.to)"), ("dir", role)] }
        if delivery.afterGap {
            hadErrors = true
            let reason =
                "bytes missing from the capture; "
                + (resyncLayout == nil ? "this direction is not decoded further" : "looking for the magic")
            if json {
                output.bytes +=
                    InspectJSON.event(
                        "error", place: [("time", Self.time(delivery.time))] + place(),
                        offset: 0, reason: reason
                    ).utf8
            } else {
                output.bytes += Array("error time=".utf8) + time
                output.bytes += Array(" from=\(delivery.from) to=\(delivery.to) dir=\(role) \(reason)\n".utf8)
            }
            streams[id] = nil
            if resyncLayout == nil {
                streams[id] = Stream(
                    decoder: FrameDecoder(layout: layout), expectingResync: false, ends: [], stopped: true,
                    toServer: nil)
                return true
            }
        }
        if streams[id] == nil {
            let restart = delivery.midStream || delivery.afterGap
            streams[id] = Stream(
                decoder: FrameDecoder(layout: restart ? resyncLayout ?? layout : layout),
                expectingResync: restart && resyncLayout != nil,
                ends: Array(" from=\(delivery.from) to=\(delivery.to) dir=\(role) ".utf8),
                toServer: delivery.role == .clientToServer ? true : delivery.role == .serverToClient ? false : nil,
                place: place())
        }
        let json: InspectJSON.Place? = self.json ? [("time", Self.time(delivery.time))] : nil
        return streams[id]!.print(
            delivery.bytes, time: time, payloads: payloads, json: json, awaiting: &awaiting,
            output: &output) || hadErrors
    }
}

extension CaptureInspection.Stream {
    /// Feeds `bytes` and prints a line for each frame and error that completes; true on an error.
    /// `json`: the time, when the lines are JSON objects.
    /// `awaiting`: the requests of the connection that await replies, which a reply's response
    /// bytes are read through.
    mutating func print(
        _ bytes: ArraySlice<UInt8>, time: [UInt8], payloads: PayloadPrinter?, json: InspectJSON.Place?,
        awaiting: inout AwaitingReplies, output: inout Output
    ) -> Bool {
        guard !stopped, decoder.failure == nil else { return false }
        decoder.feed(bytes)
        var hadErrors = false
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return hadErrors }
                expectingResync = false
                var answering: [String]?
                if let payloads {
                    if toServer == true, let path = payloads.requestPath(of: frame) {
                        awaiting.sent(frame, path: path, layout: decoder.layout)
                    } else if toServer == false, payloads.isPairedReply(frame) {
                        answering = awaiting.reply(to: frame, layout: decoder.layout)
                    }
                }
                if let json {
                    output.bytes +=
                        InspectJSON.frame(
                            frame, layout: decoder.layout, place: json + place, payloads: payloads,
                            toServer: toServer, answering: answering
                        ).utf8
                    continue
                }
                output.place("frame", time: time, ends: ends)
                output.bytes += "offset=".utf8
                output.appendDecimal(UInt64(frame.offset))
                for field in decoder.layout.headerFields(of: frame) {
                    output.bytes.append(UInt8(ascii: " "))
                    output.bytes += field.name.utf8
                    output.bytes.append(UInt8(ascii: "="))
                    output.appendDecimal(field.value)
                }
                output.bytes += " payload=".utf8
                output.appendDecimal(UInt64(frame.payload.count))
                if let payloads {
                    output.bytes += payloads.annotation(of: frame, toServer: toServer, answering: answering).utf8
                }
                output.bytes.append(UInt8(ascii: "\n"))
            } catch {
                if expectingResync && decoder.failure == nil {
                    expectingResync = false
                    let reason = "the capture starts inside a frame (\(error.reason)); looking for the magic"
                    if let json {
                        output.bytes +=
                            InspectJSON.event("note", place: json + place, offset: error.offset ?? 0, reason: reason)
                            .utf8
                    } else {
                        output.place("note", time: time, ends: ends)
                        output.bytes += "offset=\(error.offset ?? 0) \(reason)\n".utf8
                    }
                    continue
                }
                hadErrors = true
                if let json {
                    output.bytes +=
                        InspectJSON.event("error", place: json + place, offset: error.offset ?? 0, reason: error.reason)
                        .utf8
                } else {
                    output.place("error", time: time, ends: ends)
                    output.bytes += "offset=\(error.offset ?? 0) \(error.reason)\n".utf8
                }
                if decoder.failure != nil { return hadErrors }
            }
        }
    }
}

/// Lines on their way to standard output, as bytes (formatting a line as a String per frame was
/// most of the time `inspect` took on a capture of small frames).
struct Output {
    var bytes: [UInt8] = []

    /// `KIND time=<time><ends>`.
    mutating func place(_ kind: StaticString, time: [UInt8], ends: [UInt8]) {
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: kind.utf8Start, count: kind.utf8CodeUnitCount))
        bytes += " time=".utf8
        bytes += time
        bytes += ends
    }

    mutating func appendDecimal(_ value: UInt64) {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let end = bytes.count + count
        bytes += repeatElement(UInt8(ascii: "0"), count: count)
        var index = end - 1
        rest = value
        while rest > 0 {
            bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        }
    }

    /// Seconds since 1970 with microseconds.
    static func appendTime(_ seconds: Double, to bytes: inout [UInt8]) {
        bytes += CaptureInspection.time(seconds).utf8
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}

extension CaptureInspection {
    /// Seconds since 1970 with microseconds.
    static func time(_ seconds: Double) -> String {
        CapturedPacket.timeText(seconds)
    }
}

/// The requests one connection's client sent that await their replies, each as the path of
/// what it holds (`Common`, `User_msg`, `login_request`): matched by the sequence number when
/// the layout has one, else in order by command (a server answers in order). At most
/// `limit` are kept (a capture with no replies drops the oldest).
struct AwaitingReplies {
    static let limit = 4096

    private var bySequence: [UInt64: [String]] = [:]
    private var inOrder: [(command: UInt32, path: [String])] = []
    private var first = 0

    mutating func sent(_ frame: Frame, path: [String], layout: FrameLayout) {
        if let sequence = frame.header.sequence {
            if bySequence.count >= Self.limit { bySequence.removeAll() }
            bySequence[sequence] = path
            return
        }
        if inOrder.count - first >= Self.limit { first += 1 }
        if first > Self.limit {
            inOrder.removeFirst(first)
            first = 0
        }
        inOrder.append((layout.commandID(of: frame), path))
    }

    /// The path of the request `frame` answers, taken off the list; nil when none was seen.
    mutating func reply(to frame: Frame, layout: FrameLayout) -> [String]? {
        if let sequence = frame.header.sequence { return bySequence.removeValue(forKey: sequence) }
        let command = layout.commandID(of: frame)
        guard let index = inOrder[first...].firstIndex(where: { $0.command == command }) else { return nil }
        let path = inOrder[index].path
        if index == first {
            first += 1
        } else {
            inOrder.remove(at: index)
        }
        return path
    }
}
