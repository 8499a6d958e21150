import Foundation
import Testing

/// Paths and process helpers shared by the plugin tests.
enum Support {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtureProtos = root.appendingPathComponent("Fixtures/protos").path
    /// Where `swiftframe/options.proto` lives.
    static let optionsProtos = root.appendingPathComponent("Protos").path

    /// The plugin SwiftPM built for this test run (the test target depends on it).
    static var plugin: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var directory = beside
        // The test binary may sit inside a bundle directory below the products directory.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("protoc-gen-swiftframe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return beside.appendingPathComponent("protoc-gen-swiftframe").path
    }

    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs a program to completion, feeding `input` on stdin.
    static func run(_ executable: String, _ arguments: [String], input: Data = Data(),
                    environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // stderr goes to a file so a chatty child can never block on a full pipe.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        // The plugin reads all of stdin before it writes, so writing first cannot deadlock.
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return Output(status: process.terminationStatus, stdout: outputData, stderr: errorText)
    }

    static let protoc = onPath("protoc")
    static let swiftc = onPath("swiftc")

    /// The first executable with this name on PATH.
    static func onPath(_ name: String) -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/" + name
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftframe-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes .proto sources into a temporary directory and returns it.
    static func protoDirectory(_ files: [String: String]) throws -> URL {
        let directory = try temporaryDirectory()
        for (name, source) in files {
            let file = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try source.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// The exact CodeGeneratorRequest protoc sends a plugin, captured by a stand-in plugin.
    static func capturedRequest(includes: [String], files: [String], parameter: String? = nil) throws -> Data {
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
        let result = try run(protoc, arguments, environment: ["CAPTURE_TO": requestFile.path])
        // The stand-in writes no response, so protoc complains after the capture; that is expected.
        guard let data = FileManager.default.contents(atPath: requestFile.path), !data.isEmpty else {
            throw CaptureFailed(stderr: result.stderr)
        }
        return data
    }

    struct CaptureFailed: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "protoc did not run the capture plugin: \(stderr)" }
    }

    /// Runs protoc with the built plugin; returns its status, stderr and the generated files.
    /// `only` names the files to generate; by default all of `files`.
    static func generate(_ files: [String: String], parameter: String? = nil,
                         only: [String]? = nil) throws -> (Output, [String: String]) {
        let sources = try protoDirectory(files)
        let output = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: sources)
            try? FileManager.default.removeItem(at: output)
        }
        var arguments = ["-I" + sources.path, "-I" + optionsProtos, "--plugin=protoc-gen-swiftframe=\(plugin)",
                         "--swiftframe_out=\(output.path)"]
        if let parameter { arguments.append("--swiftframe_opt=\(parameter)") }
        arguments += only ?? files.keys.sorted()
        let result = try run(protoc, arguments)
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
            let check = try run(swiftc, ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules]
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
