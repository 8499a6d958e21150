import ArgumentParser
import Foundation
import SwiftFrame

/// `swiftframe inspect`: prints the frames of a captured byte stream, one line each.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the frames of a captured byte stream.",
        discussion: """
            Prints one line per frame, `frame offset=<o> <field>=<value> ... payload=<n>`, with \
            the header fields in wire order (magic, length, cmd, seq, type and extra fields by \
            name, decimal values), and one line per error, `error offset=<o> <what>`. Exits with \
            status 1 if the stream had errors, a truncated last frame included.

            Presets: \(FrameLayout.presetNames.joined(separator: ", ")).
            """
    )

    @Option(name: .long, help: "A preset name, or the path of a file holding a layout description.")
    var layout: String

    @Option(name: .long, help: "After a bad header, skip at most this many bytes looking for the magic and go on.")
    var resync: Int?

    @Argument(help: "The captured stream (default: standard input).")
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

        var decoder = FrameDecoder(layout: frameLayout)
        var output = ""
        var hadErrors = false

        func report(_ error: FrameError) {
            hadErrors = true
            output += "error offset=\(error.offset ?? 0) \(error.reason)\n"
        }

        /// Takes every complete frame; false once the stream is unusable.
        func drain() -> Bool {
            while true {
                do throws(FrameError) {
                    guard let frame = try decoder.nextFrame() else { return true }
                    output += "frame offset=\(frame.offset)"
                    for field in frameLayout.headerFields(of: frame) {
                        output += " \(field.name)=\(field.value)"
                    }
                    output += " payload=\(frame.payload.count)\n"
                } catch {
                    report(error)
                    if decoder.failure != nil { return false }
                }
                if output.utf8.count >= 1 << 16 { flush(&output) }
            }
        }

        var usable = true
        while usable {
            let chunk = try input.read(upToCount: Self.chunkSize) ?? Data()
            if chunk.isEmpty { break }
            decoder.feed([UInt8](chunk))
            usable = drain()
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
