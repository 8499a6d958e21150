// `swift package --allow-writing-to-package-directory generate-swiftframe [--target T]`:
// regenerates the checked-in Swift of every target whose swiftframe.json names an `output`
// folder. `swift package check-swiftframe` (Plugins/CheckSwiftFrame) compares without
// writing; `--check` here does the same, but SwiftPM asks for the write permission first.
import PackagePlugin

@main
struct GenerateSwiftFrame: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let check = extractor.extractFlag(named: "check") > 0
        try Regeneration(context: context, extractor: extractor).run(check: check)
    }
}
