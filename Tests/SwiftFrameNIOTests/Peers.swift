// Starts the Python reference peers of Tests/Peers (Google's protobuf runtime for the bodies,
// written independently of the Swift code) on free loopback ports, and runs the demo.

import Foundation
import TestSupport
import Testing

extension Repository {
    static let peerScript = root.appendingPathComponent("Tests/Peers/peer.py").path
    /// The server key of the README's TLS example (its pin is printed there); test data, so
    /// checked in. Its certificate is made per test run (TestCertificates.example).
    static let exampleServerKey = root.appendingPathComponent("Tests/Peers/tls/example-server.key").path
}

/// Runs blocking work (a process, the wait for a peer to listen) on a thread of its own rather
/// than on one of the few threads of Swift's task pool, which the servers under test need
/// meanwhile.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
}

/// One running peer: a server (with the port it listens on) or a client run to its end.
final class Peer: @unchecked Sendable {
    // @unchecked: the Process and pipes are set up in init and then only read (stdout is
    // drained by one thread); stop() may race with the process ending, which Process allows.
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    let port: Int

    /// Starts `peer.py role arguments...` as a server, from a thread of its own (`init` blocks
    /// the thread it runs on until the peer listens, and a test on one of the task pool's few
    /// threads would hold up every other test's servers and clients meanwhile).
    static func start(_ role: String, _ arguments: [String] = [], port: Int = 0) async throws -> Peer {
        try await offThePool { try Peer(role, arguments, port: port) }
    }

    /// Starts `peer.py role arguments...` as a server and waits (at most 30 s) for its
    /// `listening PORT` line; from async code, `start`.
    @available(*, noasync, message: "blocks its thread: use Peer.start, or offThePool")
    convenience init(_ role: String, _ arguments: [String] = [], port: Int = 0) throws {
        try self.init(
            script: Repository.peerScript, [role, "--port", "\(port)", "--watch-stdin"] + arguments, role: role)
    }

    /// Starts `python3 script arguments...` (a server printing `listening PORT` as peer.py's
    /// do; `role` names it in errors).
    @available(*, noasync, message: "blocks its thread: use offThePool")
    init(script: String, _ arguments: [String], role: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.currentDirectoryURL = Repository.root
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exit = try process.start()
        let line = try Self.firstLine(of: output.fileHandleForReading, within: 30)
        guard let line, line.hasPrefix("listening "), let port = Int(line.dropFirst("listening ".count)) else {
            process.terminate()
            exit.wait()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw PeerError(description: "peer \(role) did not start: \(line ?? "no output"); stderr: \(stderr)")
        }
        self.port = port
    }

    /// Closes its stdin (it stops at EOF) and terminates it; killed if still running after 3 s.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        let deadline = Date(timeIntervalSinceNow: 3)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }

    private static func firstLine(of handle: FileHandle, within seconds: Double) throws -> String? {
        let box = LineBox()
        let thread = Thread {
            var bytes: [UInt8] = []
            while true {
                let chunk = handle.readData(ofLength: 1)
                guard let byte = chunk.first else { break }
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            }
            box.set(String(decoding: bytes, as: UTF8.self))
        }
        thread.start()
        return box.wait(seconds: seconds)
    }

    /// Runs a client role to its end (at most `seconds`), returning its exit code and output.
    @available(*, noasync, message: "blocks its thread: use offThePool")
    static func runClient(_ role: String, _ arguments: [String], seconds: Double = 60) throws -> (
        status: Int32, output: String
    ) {
        try run(["python3", Repository.peerScript, role] + arguments, seconds: seconds)
    }

    /// Runs a command to its end (killed after `seconds`), returning its exit code and stdout.
    @available(*, noasync, message: "blocks its thread: use offThePool")
    static func run(_ command: [String], seconds: Double) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = Repository.root
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        let exit = try process.start()
        let box = LineBox()
        let thread = Thread {
            box.set(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        thread.start()
        guard let text = box.wait(seconds: seconds) else {
            process.terminate()
            throw PeerError(description: "\(command.joined(separator: " ")) did not finish within \(seconds) s")
        }
        exit.wait()
        return (process.terminationStatus, text)
    }
}

/// A value handed from one thread to another, waited for with a deadline.
final class LineBox: @unchecked Sendable {
    // @unchecked: every access goes through `condition`.
    private let condition = NSCondition()
    private var value: String?

    func set(_ text: String) {
        condition.lock()
        value = text
        condition.broadcast()
        condition.unlock()
    }

    func wait(seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil && condition.wait(until: deadline) {}
        return value
    }
}
