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

            A pcap or pcapng capture (tcpdump's, Wireshark's, or one written by FrameCapture) is \
            told apart by its magic number: every TCP connection is followed, each direction put \
            back in order (retransmissions dropped) and cut into frames, and the frames of both \
            directions are printed interleaved by time, each line starting with the time, the \
            two ends and the direction (client->server, server->client or unknown: the server \
            is the side on --port, else the side that received the SYN), \
            `frame time=<seconds> from=<address:port> to=<address:port> dir=<direction> offset=<o> ...`. \
            A direction the capture joined mid-stream is searched for the layout's magic \
            (a `note` line says so).

            Presets: \(FrameLayout.presetNames.joined(separator: ", ")).
            """
    )

    @Option(name: .long, help: "A preset name, or the path of a file holding a layout description.")
    var layout: String

    @Option(name: .long, help: "After a bad header, skip at most this many bytes looking for the magic and go on.")
    var resync: Int?

    @Option(name: .long, help: "In a capture, only the connections to or from this TCP port, the server's.")
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
        if CaptureFormat(magic: start) != nil {
            if try CaptureInspection(layout: frameLayout, port: port).run(head: start, input: input) { throw ExitCode.failure }
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
