import ArgumentParser
import Foundation
import SwiftFrame
import SwiftFrameDescriptors
import SwiftFrameGenerator

/// The .proto files a command reads, given as to protoc-gen-swiftframe: the files with their
/// `-I` folders and the config file (protoc runs here), or a descriptor set protoc wrote.
struct ProtocolOptions: ParsableArguments {
    @Option(
        name: .customLong("proto"),
        help: ArgumentHelp(
            "A .proto file whose command table and messages to use (repeatable).", valueName: "file"))
    var protos: [String] = []

    @Option(
        name: .customShort("I"),
        help: ArgumentHelp(
            "A folder imports are found in, as protoc's -I (repeatable; default: the current folder).",
            valueName: "dir"))
    var importPaths: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A command configuration file, as the plugin's Config= option.", valueName: "file"))
    var config: String?

    @Option(
        name: .customLong("descriptor-set"),
        help: ArgumentHelp(
            "A FileDescriptorSet (protoc --descriptor_set_out --include_imports --include_source_info) instead of running protoc.",
            valueName: "file"))
    var descriptorSet: String?

    var isEmpty: Bool { protos.isEmpty && descriptorSet == nil }

    /// The descriptors of every file, and what their command tables and envelopes say.
    func load() throws -> LoadedProtocol {
        let set = try descriptorSet.map(Self.readSet) ?? runProtoc()
        var request = CodeGeneratorRequest()
        request.protoFile = set.file
        request.fileToGenerate = filesToDescribe(in: set)
        request.parameter = config.map { "Config=" + $0 }
        do {
            let index = DescriptorIndex(set.file)
            return LoadedProtocol(set: set, index: index, description: try Generator.describe(request, index: index))
        } catch {
            throw ToolFailure(status: .usage, message: error.description)
        }
    }

    /// The files named by --proto, as protoc names them (relative to their -I folder); with a
    /// descriptor set alone, every file in it but google/protobuf's and swiftframe's own.
    private func filesToDescribe(in set: Google_Protobuf_FileDescriptorSet) -> [String] {
        let names = set.file.compactMap(\.name)
        guard !protos.isEmpty else {
            return names.filter { !$0.hasPrefix("google/protobuf/") && !$0.hasPrefix("swiftframe/") }
        }
        return protos.compactMap { path in
            let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
            return names.first { name in standardized == name || standardized.hasSuffix("/" + name) } ?? path
        }
    }

    private static func readSet(_ path: String) throws -> Google_Protobuf_FileDescriptorSet {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolFailure(status: .usage, message: "cannot read the descriptor set '\(path)'")
        }
        do {
            return try Google_Protobuf_FileDescriptorSet(serializedBytes: [UInt8](data), partial: true)
        } catch {
            throw ToolFailure(status: .usage, message: "'\(path)' is no FileDescriptorSet: \(error)")
        }
    }

    /// protoc (from the PATH, or $PROTOC) with swiftframe's own .proto files on its path.
    private func runProtoc() throws -> Google_Protobuf_FileDescriptorSet {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftframe-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bundled = scratch.appendingPathComponent("include")
        for (name, text) in bundledProtos {
            let file = bundled.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (text + "\n").write(to: file, atomically: true, encoding: .utf8)
        }
        let output = scratch.appendingPathComponent("set.pb")
        let includes = (importPaths.isEmpty ? ["."] : importPaths) + [bundled.path]
        let arguments =
            ["--descriptor_set_out=" + output.path, "--include_imports", "--include_source_info"]
            + includes.map { "-I" + $0 } + protos
        let process = Process()
        let protoc = ProcessInfo.processInfo.environment["PROTOC"]
        process.executableURL = URL(fileURLWithPath: protoc ?? "/usr/bin/env")
        process.arguments = (protoc == nil ? ["protoc"] : []) + arguments
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw ToolFailure(status: .usage, message: "cannot run protoc: \(error)")
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(
                status: .usage, message: "protoc failed:\n" + message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return try Self.readSet(output.path)
    }
}

/// The descriptors and command tables a command works with.
struct LoadedProtocol {
    let set: Google_Protobuf_FileDescriptorSet
    /// The set's files indexed once, for the description and the schemas.
    let index: DescriptorIndex
    let description: ProtocolDescription

    /// The one layout all tables share, for a command given no --layout.
    func layout() throws -> FrameLayout {
        let layouts = description.tables.map(\.layout)
        guard let first = layouts.first else {
            throw ToolFailure(status: .usage, message: "the .proto files declare no command table: give --layout")
        }
        guard layouts.allSatisfy({ $0 == first }) else {
            throw ToolFailure(status: .usage, message: "the command tables have different layouts: give --layout")
        }
        return first
    }
}
