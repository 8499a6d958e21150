// `swift package check-swiftframe [--target T]`: fails, naming each stale file, when the
// checked-in Swift of a target whose swiftframe.json names an `output` folder differs from a
// fresh generation. It writes nothing in the package, so it asks for no permission: the
// golden test for CI in one line. `generate-swiftframe` (Plugins/GenerateSwiftFrame) rewrites.
import PackagePlugin

@main
struct CheckSwiftFrame: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try Regeneration(context: context, extractor: ArgumentExtractor(arguments)).run(check: true)
    }
}
