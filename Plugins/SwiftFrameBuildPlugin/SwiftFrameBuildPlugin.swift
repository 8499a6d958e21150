// Generates Swift from a target's .proto files at build time: protoc runs with the
// protoc-gen-swiftframe built from this package, and the output is compiled with the target.
import Foundation
import PackagePlugin

@main
struct SwiftFrameBuildPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let directory = target.directoryURL
        let settings = try PluginSettings.read(in: directory) ?? PluginSettings()
        if settings.options?["FileNaming"] != nil {
            throw PluginFailure(
                "\(target.name): the build-tool plugin names each output after its .proto path; "
                    + "remove FileNaming from \(PluginSettings.fileName)")
        }
        let root = settings.protoRoot.map { settings.resolve($0, in: directory) } ?? directory
        let protos = target.sourceFiles(withSuffix: "proto").compactMap { $0.url.relativePath(from: root) }.sorted()
        guard !protos.isEmpty else { return [] }

        let plugin = try context.tool(named: "protoc-gen-swiftframe").url
        let protoc = try settings.protocURL { try context.tool(named: $0).url }
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let schemas = try SwiftFrameSchemas(package: context.package)
        return [
            .buildCommand(
                displayName: "Generating Swift for \(protos.count) .proto file(s) of \(target.name)",
                executable: protoc,
                arguments: settings.protocArguments(
                    plugin: plugin, output: output, root: root, files: protos,
                    directory: directory, schemas: schemas),
                inputFiles: protos.map { root.appending(path: $0) }
                    + settings.pluginOptions(relativeTo: directory).files + schemas.files + [plugin],
                outputFiles: protos.map { output.appending(path: PluginSettings.outputName(of: $0)) }
            )
        ]
    }
}
