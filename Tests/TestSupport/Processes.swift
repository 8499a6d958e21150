// Running programs from tests: the repository's paths, the executables SwiftPM built for the
// test run, and one process runner whose input and output go through files.

import Foundation

/// Where things are in the repository.
public enum Repository {
    /// The repository root: this file is `<root>/Tests/TestSupport/Processes.swift`.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Fixtures/protos`, the fixtures' .proto files.
    public static let fixtureProtos = root.appendingPathComponent("Fixtures/protos").path
    /// `Protos`, where `swiftframe/options.proto` lives.
    public static let optionsProtos = root.appendingPathComponent("Protos").path
    /// `Protos/conformance`, protobuf's conformance messages.
    public static let conformanceProtos = root.appendingPathComponent("Protos/conformance").path

    /// An executable product SwiftPM built for this test run (the test target depends on it).
    /// The test binary may sit inside a bundle directory below the products directory.
    public static func builtExecutable(_ name: String) -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var directory = beside
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return beside.appendingPathComponent(name).path
    }

    /// The first executable with this name on PATH.
    public static func onPath(_ name: String) -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/\(name)"
    }
}

/// A new, empty directory under the system's temporary directory.
public func temporaryDirectory(_ prefix: String = "swiftframe-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// How a program ended and what it wrote.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var reason: Process.TerminationReason
    public var stdout: [UInt8]
    public var stderr: String

    public var succeeded: Bool { reason == .exit && status == 0 }
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// A program exited non-zero (or was killed); the test fails with its stderr.
public struct ProcessFailure: Swift.Error, CustomStringConvertible {
    public let command: String
    public let status: Int32
    public let stderr: String
    public var description: String { "\(command) failed (status \(status)):\n\(stderr)" }

    public init(command: String, status: Int32, stderr: String) {
        self.command = command
        self.status = status
        self.stderr = stderr
    }
}

/// Runs a program to completion. Input and output go through temporary files, so no pipe
/// can fill up and block either side, whatever order the program reads and writes in.
public func runProcess(
    _ executable: String, _ arguments: [String], input: [UInt8] = [],
    environment: [String: String] = [:]
) throws -> ProcessResult {
    let files = FileManager.default
    let directory = try temporaryDirectory("swiftframe-process")
    defer { try? files.removeItem(at: directory) }
    let inURL = directory.appendingPathComponent("stdin")
    let outURL = directory.appendingPathComponent("stdout")
    let errURL = directory.appendingPathComponent("stderr")
    try Data(input).write(to: inURL)
    try Data().write(to: outURL)
    try Data().write(to: errURL)
    let stdinHandle = try FileHandle(forReadingFrom: inURL)
    let stdoutHandle = try FileHandle(forWritingTo: outURL)
    let stderrHandle = try FileHandle(forWritingTo: errURL)
    defer {
        try? stdinHandle.close()
        try? stdoutHandle.close()
        try? stderrHandle.close()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardInput = stdinHandle
    process.standardOutput = stdoutHandle
    process.standardError = stderrHandle
    try process.start().wait()
    return ProcessResult(
        status: process.terminationStatus,
        reason: process.terminationReason,
        stdout: [UInt8](try Data(contentsOf: outURL)),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    )
}

/// The end of a process started with `Process.start()`, to wait for.
public final class ProcessExit: Sendable {
    fileprivate let ended = DispatchSemaphore(value: 0)

    /// Returns once the process has ended (at once if it has).
    public func wait() {
        ended.wait()
        ended.signal()
    }
}

extension Process {
    /// Starts the process, and returns what waits for its end. `waitUntilExit()` spins the
    /// calling thread's run loop until Foundation delivers the child's end there, which, with
    /// many tests starting processes at once, has once taken longer than a test's time limit
    /// for a process that had ended in a fraction of a second; the termination handler, set
    /// before the start so that no end is missed, needs no run loop.
    public func start() throws -> ProcessExit {
        let exit = ProcessExit()
        terminationHandler = { _ in exit.ended.signal() }
        try run()
        return exit
    }
}
