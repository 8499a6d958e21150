import Foundation
import TestSupport
import Testing

/// Paths and process helpers shared by the plugin tests.
enum Support {
    static let fixtureProtos = Repository.fixtureProtos
    /// Where `swiftframe/options.proto` lives.
    static let optionsProtos = Repository.optionsProtos
    /// The plugin SwiftPM built for this test run (the test target depends on it).
    static var plugin: String { Repository.builtExecutable("protoc-gen-swiftframe") }
    static let swiftc = Repository.onPath("swiftc")

    /// Writes .proto sources into a temporary directory and returns it.
    static func protoDirectory(_ files: [String: String]) throws -> URL {
        let directory = try temporaryDirectory()
        for (name, source) in files {
            let file = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try source.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// The exact CodeGeneratorRequest protoc sends a plugin, captured by a stand-in plugin.
    static func capturedRequest(includes: [String], files: [String], parameter: String? = nil) throws -> [UInt8] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("protoc-gen-capture")
        let requestFile = directory.appendingPathComponent("request.bin")
        try "#!/bin/sh\ncat > \"$CAPTURE_TO\"\n".write(to: capture, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: capture.path)
        var arguments = (includes + [optionsProtos]).map { "-I" + $0 }
        arguments += ["--plugin=protoc-gen-capture=\(capture.path)", "--capture_out=\(directory.path)"]
        if let parameter { arguments.append("--capture_opt=\(parameter)") }
        arguments += files
        let result = try runProcess(Protoc.executable, arguments, environment: ["CAPTURE_TO": requestFile.path])
        // The stand-in writes no response, so protoc complains after the capture; that is expected.
        guard let data = FileManager.default.contents(atPath: requestFile.path), !data.isEmpty else {
            throw CaptureFailed(stderr: result.stderr)
        }
        return [UInt8](data)
    }

    struct CaptureFailed: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "protoc did not run the capture plugin: \(stderr)" }
    }

    /// Runs protoc with the built plugin; returns its status, stderr and the generated files.
    /// `only` names the files to generate; by default all of `files`.
    static func generate(
        _ files: [String: String], parameter: String? = nil,
        only: [String]? = nil
    ) throws -> (ProcessResult, [String: String]) {
        let sources = try protoDirectory(files)
        let output = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: sources)
            try? FileManager.default.removeItem(at: output)
        }
        var arguments = [
            "-I" + sources.path, "-I" + optionsProtos, "--plugin=protoc-gen-swiftframe=\(plugin)",
            "--swiftframe_out=\(output.path)",
        ]
        if let parameter { arguments.append("--swiftframe_opt=\(parameter)") }
        arguments += only ?? files.keys.sorted()
        let result = try runProcess(Protoc.executable, arguments)
        var generated: [String: String] = [:]
        if let names = FileManager.default.enumerator(atPath: output.path) {
            for case let name as String in names where name.hasSuffix(".swift") {
                generated[name] = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
            }
        }
        return (result, generated)
    }

    /// The directory of this build's Swift modules (SwiftFrame, SwiftFrameWellKnownTypes, ...).
    static var modules: String {
        URL(fileURLWithPath: plugin).deletingLastPathComponent().appendingPathComponent("Modules").path
    }

    /// Type-checks Swift sources against this build's modules in Swift 6 mode with warnings as
    /// errors, also with MainActor as the default isolation; returns swiftc's complaints.
    static func typecheck(_ paths: [String]) throws -> [String] {
        var complaints: [String] = []
        for isolation in [[], ["-default-isolation", "MainActor"]] {
            let check = try runProcess(
                swiftc,
                ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules]
                    + isolation + paths)
            if check.status != 0 || !check.stderr.isEmpty { complaints.append("swiftc \(isolation): \(check.stderr)") }
        }
        return complaints
    }

    /// Type-checks generated sources given by name and content.
    static func typecheck(_ sources: [String: String]) throws -> [String] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            let file = directory.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_"))
            try source.write(to: file, atomically: true, encoding: .utf8)
            paths.append(file.path)
        }
        return try typecheck(paths)
    }
}
