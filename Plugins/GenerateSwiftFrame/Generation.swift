// What both command plugins do (GenerateSwiftFrame writes, CheckSwiftFrame compares), one
// file that both link (plugins cannot share a library).
import Foundation
import PackagePlugin

/// Every target whose swiftframe.json names an `output` folder, generated into the plugin's
/// work folder and then written over the checked-in sources, or compared with them.
struct Regeneration {
    let context: PluginContext
    let only: Set<String>

    /// Reads `--target NAME` (repeatable); any other argument left is an error.
    init(context: PluginContext, extractor: ArgumentExtractor) throws {
        var extractor = extractor
        self.context = context
        only = Set(extractor.extractOption(named: "target"))
        if let unknown = extractor.remainingArguments.first {
            throw PluginFailure("unknown argument \(unknown) (expected --target NAME)")
        }
    }

    /// With `check`, writes nothing in the package and fails, naming each file, when a
    /// checked-in file differs from a fresh generation.
    func run(check: Bool) throws {
        let plugin = try context.tool(named: "protoc-gen-swiftframe").url
        let schemas = try SwiftFrameSchemas(package: context.package)
        var jobs = 0
        var stale: [String] = []
        for (name, directory) in folders() where only.isEmpty || only.contains(name) {
            guard let settings = try PluginSettings.read(in: directory), let output = settings.output else { continue }
            jobs += 1
            let job = Job(
                name: name, directory: directory, settings: settings,
                output: settings.resolve(output, in: directory))
            let scratch = context.pluginWorkDirectoryURL.appending(path: name)
            try? FileManager.default.removeItem(at: scratch)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try job.generate(into: scratch, plugin: plugin, schemas: schemas) { try context.tool(named: $0).url }
            if check {
                stale += try job.differences(between: scratch, and: job.output)
            } else {
                try job.replace(job.output, with: scratch)
                print(
                    "\(name): \(job.output.relativePath(from: context.package.directoryURL) ?? job.output.path) regenerated"
                )
            }
        }
        guard jobs > 0 else {
            throw PluginFailure(
                "no target has a \(PluginSettings.fileName) with an \"output\" folder"
                    + (only.isEmpty ? "" : " among \(only.sorted().joined(separator: ", "))"))
        }
        if !stale.isEmpty {
            throw PluginFailure(
                "generated sources are stale; run `swift package --allow-writing-to-package-directory "
                    + "generate-swiftframe`:\n" + stale.map { "  " + $0 }.joined(separator: "\n"))
        }
        if check { print("generated sources are up to date") }
    }

    /// The package's source targets by name and folder, and the folders of `Sources/` and
    /// `Tests/` holding a swiftframe.json that no target has: SwiftPM leaves out a target
    /// without Swift files, which a target whose only sources are generated is before its
    /// first generation. Named after the folder, as SwiftPM names a target by default.
    private func folders() -> [(name: String, directory: URL)] {
        var folders = context.package.targets.compactMap { target in
            (target as? SourceModuleTarget).map { (name: $0.name, directory: $0.directoryURL) }
        }
        let known = Set(folders.map { $0.directory.standardizedFileURL.path })
        let manager = FileManager.default
        for parent in ["Sources", "Tests"] {
            let parent = context.package.directoryURL.appending(path: parent)
            for name in (try? manager.contentsOfDirectory(atPath: parent.path))?.sorted() ?? [] {
                let directory = parent.appending(path: name)
                if !known.contains(directory.standardizedFileURL.path),
                    manager.fileExists(atPath: directory.appending(path: PluginSettings.fileName).path)
                {
                    folders.append((name: name, directory: directory))
                }
            }
        }
        return folders
    }
}

/// One target's generation.
struct Job {
    /// The target's name and folder.
    let name: String
    let directory: URL
    let settings: PluginSettings
    let output: URL

    func generate(into scratch: URL, plugin: URL, schemas: SwiftFrameSchemas, tool: (String) throws -> URL) throws {
        guard let rootPath = settings.protoRoot else {
            throw PluginFailure(
                "\(name): \(PluginSettings.fileName) needs \"protoRoot\", the folder of the .proto files")
        }
        let root = settings.resolve(rootPath, in: directory)
        let protos = try settings.protos ?? Self.protos(under: root)
        guard !protos.isEmpty else { throw PluginFailure("\(name): no .proto files under \(root.path)") }
        let process = Process()
        process.executableURL = try settings.protocURL(tool: tool)
        process.arguments = settings.protocArguments(
            plugin: plugin, output: scratch, root: root, files: protos,
            directory: directory, schemas: schemas)
        // SwiftPM closes a plugin's own standard input, and protoc started without one can hand
        // the plugin a closed stdin too (its pipe for the plugin's input takes descriptor 0,
        // which it then closes in the child): "cannot read stdin (errno 9)".
        process.standardInput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PluginFailure("\(name): protoc failed (\(process.terminationStatus)):\n\(message)")
        }
        FileHandle.standardError.write(Data(message.utf8))
    }

    private static func protos(under root: URL) throws -> [String] {
        let names = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        return names.filter { $0.hasSuffix(".proto") }.sorted()
    }

    /// The generated files under a folder, by relative path.
    private static func generatedFiles(under folder: URL) -> [String: Data] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        var files: [String: Data] = [:]
        for name in names where name.hasSuffix(".swiftframe.swift") {
            files[name] = FileManager.default.contents(atPath: folder.appending(path: name).path)
        }
        return files
    }

    /// What differs between fresh output and the checked-in folder, one line per file.
    func differences(between fresh: URL, and checkedIn: URL) throws -> [String] {
        let new = Self.generatedFiles(under: fresh)
        let old = Self.generatedFiles(under: checkedIn)
        let place = { (name: String) in "\(self.name): \(checkedIn.appending(path: name).path)" }
        return Set(new.keys).union(old.keys).sorted().compactMap { name in
            switch (new[name], old[name]) {
            case (_?, nil): return place(name) + " is missing"
            case (nil, _?): return place(name) + " is no longer generated"
            case let (a?, b?) where a != b: return place(name) + " differs"
            default: return nil
            }
        }
    }

    /// Writes fresh output over the checked-in folder and removes generated files that are
    /// no longer produced; other files there are left alone.
    func replace(_ checkedIn: URL, with fresh: URL) throws {
        let manager = FileManager.default
        for name in Self.generatedFiles(under: checkedIn).keys {
            try manager.removeItem(at: checkedIn.appending(path: name))
        }
        for (name, data) in Self.generatedFiles(under: fresh) {
            let destination = checkedIn.appending(path: name)
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: destination)
        }
    }
}
