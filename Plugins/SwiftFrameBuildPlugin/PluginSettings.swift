// The settings both plugins read from a target's `swiftframe.json`, and the protoc command
// line they run. (Plugins cannot share a library, so GenerateSwiftFrame links this file.)
import Foundation
import PackagePlugin

/// A target's `swiftframe.json`; every member is optional.
///
///     {
///       "protoc": "/opt/protobuf/bin/protoc",
///       "protoRoot": "../../protos",
///       "protos": ["im/user.proto"],
///       "importPaths": ["../../vendor/protos"],
///       "options": { "Visibility": "internal", "Config": "commands.txtpb" },
///       "output": "Generated"
///     }
///
/// Paths are relative to the target's directory.
struct PluginSettings: Decodable {
    /// protoc to run; otherwise `$PROTOC`, otherwise `protoc` on the PATH.
    var protoc: String?
    /// The folder the .proto files and their imports are named from (`-I`). The build-tool
    /// plugin's default is the target's folder; the command plugin needs it.
    var protoRoot: String?
    /// The files to generate, relative to `protoRoot`; by default every .proto under it.
    var protos: [String]?
    /// More `-I` folders, for imports from outside `protoRoot`.
    var importPaths: [String]?
    /// Passed as `--swiftframe_opt`. A relative path in `Config`, `LayoutFile` or `ModuleMap`
    /// is relative to the target's folder.
    var options: [String: String]?
    /// The command plugin's output folder, where the checked-in sources live.
    var output: String?

    static let fileName = "swiftframe.json"

    /// The target's settings, or the defaults when it has no `swiftframe.json`.
    static func read(in directory: URL) throws -> PluginSettings? {
        let url = directory.appending(path: fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(PluginSettings.self, from: Data(contentsOf: url))
        } catch {
            throw PluginFailure("\(url.path): \(error)")
        }
    }

    /// Options whose value is a file.
    private static let fileOptions: Set<String> = ["Config", "LayoutFile", "ModuleMap"]

    /// `key=value,...` for `--swiftframe_opt`, with file paths made absolute; and those files,
    /// which are inputs of the generation.
    func pluginOptions(relativeTo directory: URL) -> (parameter: String?, files: [URL]) {
        var files: [URL] = []
        let items = (options ?? [:]).sorted { $0.key < $1.key }.map { key, value in
            guard Self.fileOptions.contains(key) else { return "\(key)=\(value)" }
            let file = resolve(value, in: directory)
            files.append(file)
            return "\(key)=\(file.path)"
        }
        return (items.isEmpty ? nil : items.joined(separator: ","), files)
    }

    /// The protoc to run.
    func protocURL(tool: (String) throws -> URL) throws -> URL {
        if let protoc { return URL(fileURLWithPath: protoc) }
        if let protoc = ProcessInfo.processInfo.environment["PROTOC"] { return URL(fileURLWithPath: protoc) }
        if let onPath = Self.onPath("protoc") { return onPath }
        do {
            return try tool("protoc")
        } catch {
            throw PluginFailure(
                "protoc not found: install it (apt install protobuf-compiler, brew install protobuf), "
                    + "set PROTOC, or name it in \(Self.fileName) as \"protoc\"")
        }
    }

    private static func onPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appending(path: name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    func resolve(_ path: String, in directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appending(path: path).standardizedFileURL
    }

    /// protoc's arguments: the plugin, the output folder, the options, `-I` folders and the
    /// files (relative to `root`). Output files are named after the .proto paths. `schemas`
    /// (swiftframe's own `Protos/`, see ``SwiftFrameSchemas``) comes last, so that
    /// `import "swiftframe/options.proto"` works without an `importPaths` entry.
    func protocArguments(
        plugin: URL, output: URL, root: URL, files: [String], directory: URL,
        schemas: SwiftFrameSchemas
    ) -> [String] {
        var arguments = ["--plugin=protoc-gen-swiftframe=\(plugin.path)", "--swiftframe_out=\(output.path)"]
        if let parameter = pluginOptions(relativeTo: directory).parameter {
            arguments.append("--swiftframe_opt=\(parameter)")
        }
        arguments.append("-I\(root.path)")
        arguments += (importPaths ?? []).map { "-I" + resolve($0, in: directory).path }
        arguments.append("-I\(schemas.includePath.path)")
        return arguments + files
    }

    /// `im/user.proto` → `im/user.swiftframe.swift`, as the plugin names its output.
    static func outputName(of proto: String) -> String {
        (proto.hasSuffix(".proto") ? String(proto.dropLast(6)) : proto) + ".swiftframe.swift"
    }
}

/// swiftframe's own .proto files (`Protos/swiftframe/options.proto` and `config.proto`), which
/// users import as `swiftframe/options.proto`. They live in swiftframe's package directory:
/// the repository for a path dependency, `.build/checkouts/<name>` for a URL dependency. The
/// plugin's context names the user's package, and through its dependencies, recursively,
/// every package in the graph: swiftframe is the one that declares `protoc-gen-swiftframe`
/// (the executable these plugins run) and holds the schemas.
struct SwiftFrameSchemas {
    /// The folder to pass as `-I`.
    let includePath: URL
    /// The schema files, inputs of every generation (a new swiftframe version regenerates).
    let files: [URL]

    static let names = ["swiftframe/options.proto", "swiftframe/config.proto"]

    init(package root: Package) throws {
        var seen: Set<Package.ID> = []
        var queue = [root]
        var candidates: [Package] = []
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            if package.targets.contains(where: { $0.name == "protoc-gen-swiftframe" }) {
                candidates.append(package)
            }
            queue += package.dependencies.map(\.package)
        }
        for package in candidates {
            let protos = package.directoryURL.appending(path: "Protos")
            let files = Self.names.map { protos.appending(path: $0) }
            if files.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) {
                includePath = protos
                self.files = files
                return
            }
        }
        throw PluginFailure(
            "cannot find swiftframe's Protos/swiftframe/options.proto: looked in "
                + (candidates.isEmpty
                    ? "no package (none declares protoc-gen-swiftframe)"
                    : candidates.map { $0.directoryURL.path }.joined(separator: ", ")))
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "swiftframe: " + description }
}

extension URL {
    /// This path relative to `base`, when it lies inside it.
    func relativePath(from base: URL) -> String? {
        let path = standardizedFileURL.path
        let prefix = base.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }
}
