import ArgumentParser
import SwiftFrame

@main
struct SwiftFrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftframe",
        abstract: "Tools for protobuf inside binary packet headers.",
        version: Release.version,
        subcommands: [Inspect.self, Dissector.self]
    )
}
