import ArgumentParser
import SwiftFrame

@main
struct SwiftFrameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftframe",
        abstract: "Tools for protobuf inside binary packet headers.",
        version: Release.version,
        subcommands: subcommands
    )

    #if Transport
    static let subcommands: [any ParsableCommand.Type] = [Inspect.self, Dissector.self, Call.self]
    #else
    static let subcommands: [any ParsableCommand.Type] = [Inspect.self, Dissector.self]
    #endif
}
