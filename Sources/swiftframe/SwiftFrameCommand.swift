import ArgumentParser

@main
struct SwiftFrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftframe",
        abstract: "Tools for protobuf inside binary packet headers.",
        subcommands: [Inspect.self]
    )
}
