// The Python reference peers of the swiftframe repository (Tests/Peers/peer.py: Google's
// protobuf runtime for the bodies), started on a free loopback port.

import Foundation
import SwiftFrame
import SwiftFrameNIO

/// One running peer server; stopped (stdin closed, then terminated) when released.
final class Peer: @unchecked Sendable {
    // @unchecked: the process and pipes are set up in init and then only read; stop() may race
    // with the process ending, which Process allows.
    private let process = Process()
    private let input = Pipe()
    let port: Int

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts `peer.py role --port 0 --watch-stdin arguments...` and waits at most 30 s for its
    /// `listening PORT` line, on a thread of its own.
    static func start(_ role: String, _ arguments: [String] = []) async throws -> Peer {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Peer(role, arguments) }) }.start()
        }
    }

    private init(_ role: String, _ arguments: [String]) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", "Tests/Peers/peer.py", role, "--port", "0", "--watch-stdin"] + arguments
        process.currentDirectoryURL = Self.repository
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = Self.firstLine(of: output.fileHandleForReading, within: 30)
        guard let line, line.hasPrefix("listening "), let port = Int(line.dropFirst("listening ".count)) else {
            process.terminate()
            throw PeerFailure(description: "peer \(role) did not start: \(line ?? "no output within 30 s")")
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    private static func firstLine(of handle: FileHandle, within seconds: Double) -> String? {
        let done = DispatchSemaphore(value: 0)
        let line = LockedLine()
        Thread {
            var bytes: [UInt8] = []
            while let byte = handle.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") { bytes.append(byte) }
            line.set(String(decoding: bytes, as: UTF8.self))
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success ? line.get() : nil
    }
}

struct PeerFailure: Error, CustomStringConvertible {
    let description: String
}

private final class LockedLine: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var line: String?
    func set(_ value: String) { lock.withLock { line = value } }
    func get() -> String? { lock.withLock { line } }
}

/// Runs `body` with a client of `Table` connected to `peer`, its `run()` in a child task.
func withClient<Table: CommandTable, Result: Sendable>(
    _ table: Table.Type, peer: Peer, configuration: ClientConfiguration = ClientConfiguration(),
    onConnect: (@Sendable (Connection<Table>) async throws -> Void)? = nil,
    _ body: @Sendable @escaping (FrameClient<Table>) async throws -> Result
) async throws -> Result {
    let client = FrameClient<Table>(
        host: "127.0.0.1", port: peer.port, configuration: configuration, onConnect: onConnect)
    return try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask {
            try await client.run()
            return nil
        }
        defer { group.cancelAll() }
        return try await body(client)
    }
}
