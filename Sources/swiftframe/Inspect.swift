import ArgumentParser
import Foundation
import SwiftFrame
import SwiftFrameCapture

/// `swiftframe inspect`: prints the frames of a captured byte stream, one line each.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the frames of a captured byte stream or a pcap capture.",
        discussion: """
            Prints one line per frame, `frame offset=<o> <field>=<value> ... payload=<n>`, with \
            the header fields in wire order (magic, length, cmd, seq, type and extra fields by \
            name, decimal values), and one line per error, `error offset=<o> <what>`. Exits with \
            status 1 if the stream had errors, a truncated last frame included.

            A pcap file (tcpdump's, Wireshark's, or one written by FrameCapture) is told apart \
            by its first bytes: each direction of each TCP connection is put back in order and \
            cut into frames, and each line starts with the time and the two ends, \
            `frame time=<seconds> from=<address:port> to=<address:port> offset=<o> ...`.

            Presets: \(FrameLayout.presetNames.joined(separator: ", ")).
            """
    )

    @Option(name: .long, help: "A preset name, or the path of a file holding a layout description.")
    var layout: String

    @Option(name: .long, help: "After a bad header, skip at most this many bytes looking for the magic and go on.")
    var resync: Int?

    @Option(name: .long, help: "In a pcap capture, only the connections to or from this TCP port.")
    var port: Int?

    @Argument(help: "The captured stream or pcap file (default: standard input).")
    var file: String?

    /// Bytes handed to the decoder at a time, as a socket read would.
    static let chunkSize = 4096

    func validate() throws {
        _ = try resolveLayout()
    }

    func run() throws {
        let frameLayout = try resolveLayout()

        let input: FileHandle
        if let file {
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw ValidationError("cannot read '\(file)'")
            }
            input = handle
        } else {
            input = FileHandle.standardInput
        }

        let start = try input.read(upToCount: 4) ?? Data()
        if PcapReader.isPcap(start) {
            try inspectCapture(start + (input.readDataToEndOfFile()), layout: frameLayout)
            return
        }

        var decoder = FrameDecoder(layout: frameLayout)
        var output = ""
        var hadErrors = false

        func report(_ error: FrameError) {
            hadErrors = true
            output += "error offset=\(error.offset ?? 0) \(error.reason)\n"
        }

        var usable = true
        var chunk = start
        while usable, !chunk.isEmpty {
            decoder.feed([UInt8](chunk))
            if Self.printFrames(of: &decoder, place: "", to: &output) { hadErrors = true }
            usable = decoder.failure == nil
            if output.utf8.count >= 1 << 16 { flush(&output) }
            chunk = try input.read(upToCount: Self.chunkSize) ?? Data()
        }
        if usable {
            do throws(FrameError) {
                try decoder.finish()
            } catch {
                report(error)
            }
        }
        flush(&output)
        if hadErrors { throw ExitCode.failure }
    }

    /// Prints the frames of every TCP stream in a pcap capture, as they complete.
    func inspectCapture(_ data: Data, layout: FrameLayout) throws {
        let segments: [TCPSegment]
        do throws(CaptureError) {
            segments = try PcapReader(bytes: [UInt8](data)).segments()
        } catch {
            throw ValidationError("the capture: \(error)")
        }
        var reassembler = TCPReassembler()
        var decoders: [TCPReassembler.Flow: FrameDecoder] = [:]
        var output = ""
        var hadErrors = false
        for segment in segments where port.map({ Int(segment.from.port) == $0 || Int(segment.to.port) == $0 }) ?? true {
            let (flow, bytes, gap) = reassembler.add(segment)
            let place = "time=\(Self.time(segment.time)) from=\(flow.from) to=\(flow.to)"
            if gap {
                hadErrors = true
                output += "error \(place) bytes missing from the capture; this direction is not decoded further\n"
                decoders[flow] = nil
            }
            var decoder = decoders[flow] ?? FrameDecoder(layout: layout)
            guard decoder.failure == nil else { continue }
            decoder.feed(bytes)
            if Self.printFrames(of: &decoder, place: place + " ", to: &output) { hadErrors = true }
            decoders[flow] = decoder
            if output.utf8.count >= 1 << 16 { flush(&output) }
        }
        flush(&output)
        if hadErrors { throw ExitCode.failure }
    }

    /// Prints a line for each complete frame `decoder` holds, and for each error, starting
    /// `frame PLACE` or `error PLACE`; true if there was an error. It stops at an error that
    /// ends the stream (`decoder.failure`).
    static func printFrames(of decoder: inout FrameDecoder, place: String, to output: inout String) -> Bool {
        var hadErrors = false
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return hadErrors }
                output += "frame \(place)offset=\(frame.offset)"
                for field in decoder.layout.headerFields(of: frame) { output += " \(field.name)=\(field.value)" }
                output += " payload=\(frame.payload.count)\n"
            } catch {
                hadErrors = true
                output += "error \(place)offset=\(error.offset ?? 0) \(error.reason)\n"
                if decoder.failure != nil { return hadErrors }
            }
        }
    }

    /// Seconds since 1970 with microseconds.
    static func time(_ seconds: Double) -> String {
        let whole = Int(seconds)
        let micros = Int(((seconds - Double(whole)) * 1e6).rounded())
        let digits = String(micros)
        return "\(whole)." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The layout to decode with: a preset by name, else a description file; `--resync` applied.
    func resolveLayout() throws -> FrameLayout {
        var frameLayout = try namedLayout()
        if let resync {
            frameLayout.badHeaderPolicy = .resynchronize(maxSkip: resync)
            do throws(FrameLayoutError) {
                try frameLayout.validate()
            } catch {
                throw ValidationError("--resync: \(error.message)")
            }
        }
        return frameLayout
    }

    func namedLayout() throws -> FrameLayout {
        if let preset = FrameLayout.preset(named: layout) { return preset }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: layout)
        else {
            throw ValidationError(
                "'\(layout)' is neither a preset nor a readable layout file. Presets: "
                    + FrameLayout.presetNames.joined(separator: ", ")
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("\(layout): not UTF-8 text")
        }
        do throws(FrameLayoutError) {
            return try FrameLayout(description: text)
        } catch {
            throw ValidationError("\(layout): \(error)")
        }
    }

    func flush(_ output: inout String) {
        guard !output.isEmpty else { return }
        FileHandle.standardOutput.write(Data(output.utf8))
        output = ""
    }
}
