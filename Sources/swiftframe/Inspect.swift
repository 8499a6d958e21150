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

    @Option(
        name: .long,
        help:
            "A preset name, or the path of a file holding a layout description (default: the command table's, with --proto)."
    )
    var layout: String?

    @OptionGroup(title: "Payloads") var protocolOptions: ProtocolOptions

    enum Side: String, ExpressibleByArgument {
        case client, server
    }

    @Option(
        name: .customLong("sent-by"),
        help: ArgumentHelp(
            "Who sent a raw stream, for its payloads: client (requests) or server (replies and pushes; the default).",
            valueName: "side"))
    var sentBy: Side = .server

    @Option(name: .long, help: "After a bad header, skip at most this many bytes looking for the magic and go on.")
    var resync: Int?

    @Option(name: .long, help: "In a capture, only the connections to or from this TCP port, the server's.")
    var port: Int?

    @Flag(name: .long, help: "One JSON object per line for each frame, error and note, for scripts.")
    var json = false

    @Argument(help: "The captured stream or pcap file (default: standard input).")
    var file: String?

    /// Bytes handed to the decoder at a time, as a socket read would.
    static let chunkSize = 4096

    func validate() throws {
        guard layout != nil || !protocolOptions.isEmpty else {
            throw ValidationError("give --layout, or the .proto files (--proto) whose command table has one")
        }
        if let layout { _ = try resolveLayout(layoutNamed(layout)) }
    }

    func run() throws {
        var payloads: PayloadPrinter?
        var frameLayout = FrameLayout.gameTCP
        try reportingFailures {
            let loaded = protocolOptions.isEmpty ? nil : try protocolOptions.load()
            guard let named = try layout.map(layoutNamed) ?? loaded?.layout() else {
                throw ToolFailure(status: .usage, message: "give --layout")
            }
            frameLayout = try resolveLayout(named)
            payloads = try loaded.map { try PayloadPrinter($0, layout: frameLayout) }
        }

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
            if try CaptureInspection(layout: frameLayout, port: port, payloads: payloads, json: json).run(
                head: start, input: input)
            {
                throw ExitCode.failure
            }
            return
        }

        var decoder = FrameDecoder(layout: frameLayout)
        var output = ""
        var hadErrors = false

        func report(_ error: FrameError) {
            hadErrors = true
            output +=
                json
                ? InspectJSON.event("error", place: [], offset: error.offset ?? 0, reason: error.reason)
                : "error offset=\(error.offset ?? 0) \(error.reason)\n"
        }

        var usable = true
        var chunk = start
        while usable, !chunk.isEmpty {
            decoder.feed([UInt8](chunk))
            if Self.printFrames(of: &decoder, payloads: payloads, toServer: sentBy == .client, json: json, to: &output)
            {
                hadErrors = true
            }
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

    /// Prints a line for each complete frame `decoder` holds (with its payload, given the
    /// .proto files), and for each error (JSON objects with `json`); true if there was an
    /// error. It stops at an error that ends the stream (`decoder.failure`).
    static func printFrames(
        of decoder: inout FrameDecoder, payloads: PayloadPrinter? = nil,
        toServer: Bool? = nil, json: Bool = false, to output: inout String
    ) -> Bool {
        var hadErrors = false
        while true {
            do throws(FrameError) {
                guard let frame = try decoder.nextFrame() else { return hadErrors }
                if json {
                    output += InspectJSON.frame(
                        frame, layout: decoder.layout, place: [], payloads: payloads, toServer: toServer)
                    continue
                }
                output += "frame offset=\(frame.offset)"
                for field in decoder.layout.headerFields(of: frame) { output += " \(field.name)=\(field.value)" }
                output += " payload=\(frame.payload.count)"
                if let payloads { output += payloads.annotation(of: frame, toServer: toServer) }
                output += "\n"
            } catch {
                hadErrors = true
                output +=
                    json
                    ? InspectJSON.event("error", place: [], offset: error.offset ?? 0, reason: error.reason)
                    : "error offset=\(error.offset ?? 0) \(error.reason)\n"
                if decoder.failure != nil { return hadErrors }
            }
        }
    }

    /// `frameLayout` with `--resync` applied.
    func resolveLayout(_ frameLayout: FrameLayout) throws -> FrameLayout {
        var frameLayout = frameLayout
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

    func flush(_ output: inout String) {
        guard !output.isEmpty else { return }
        FileHandle.standardOutput.write(Data(output.utf8))
        output = ""
    }
}
