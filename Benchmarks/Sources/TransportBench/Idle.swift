// Idle connections: swiftframe's FrameServer beside a plain SwiftNIO server (IdleServer.swift),
// each in a process of its own, holding N connections that send nothing, opened from this
// process. Per run and server: a fresh server process; one round trip on a connection of its
// own to check it speaks the wire format (and to warm it), then its RSS; then N connections,
// at most 64 connecting at once (NIO's listen backlog is 128, and a SYN dropped from a full
// queue is retried only after a second), timed until the server reports holding all N; a
// second to settle, its RSS again. Memory per connection is the RSS grown, divided by N.
// Runs alternate between the two servers; medians and min–max over the runs.

import BenchMachine
import Foundation
import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif
import NIOPosix
import SwiftFrameBenchMessages

struct IdleSample {
    var before: Int  // bytes
    var after: Int
    var acceptSeconds: Double
    /// CPU time the server's threads ran from the first connect until it held them all.
    var serverCPUSeconds: Double

    func bytesPerConnection(_ count: Int) -> Double { Double(after - before) / Double(count) }
}

/// Connections that may be connecting at once.
private let connectWindow = 64
/// Descriptors a process needs besides its connections (standard streams, pipes, event loops,
/// the listening socket), with room to spare.
private let spareDescriptors = 100

func runIdle(runs: Int, counts: [Int]) async throws {
    signal(SIGPIPE, SIG_IGN)  // a server that died must fail the run with a message, not kill it
    let started = fileLimits()
    let limit = raiseFileLimit()
    let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let system = ["net/core/somaxconn", "net/ipv4/ip_local_port_range", "fs/nr_open"].map { name in
        let value = (try? String(contentsOfFile: "/proc/sys/" + name, encoding: .utf8)) ?? "?"
        return "\(name.replacingOccurrences(of: "/", with: ".")) \(value.split(whereSeparator: \.isWhitespace).joined(separator: "–"))"
    }
    print(Machine.line)
    print("Limits: open files soft \(started.soft), hard \(started.hard == Int.max ? "unlimited" : String(started.hard)); "
        + "this process and each server raise the soft limit to \(limit). " + system.joined(separator: ", ") + ".")
    print()

    var rows: [(count: Int, samples: [String: [IdleSample]])] = []
    var skipped: [String] = []
    for count in counts {
        guard count + spareDescriptors <= limit else {
            skipped.append("\(count) connections: each process would need \(count + spareDescriptors) descriptors, "
                + "above the limit of \(limit)")
            continue
        }
        var samples: [String: [IdleSample]] = [:]
        for run in 0..<runs {
            for kind in run % 2 == 0 ? ["swiftframe", "nio"] : ["nio", "swiftframe"] {
                note("idle \(count) \(kind) run \(run)")
                samples[kind, default: []].append(try await measureIdle(kind: kind, count: count, executable: executable))
            }
        }
        rows.append((count, samples))
    }

    let names = ["swiftframe": "swiftframe FrameServer", "nio": "SwiftNIO"]
    print("| connections | server | memory per connection (median) | spread (min–max) | time to accept all (median) | spread (min–max) "
        + "| server CPU per connection | RSS before → after (median run) |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (count, samples) in rows {
        for kind in ["swiftframe", "nio"] {
            let runs = samples[kind]!
            let memory = runs.map { $0.bytesPerConnection(count) }
            let times = runs.map { $0.acceptSeconds * 1000 }
            let cpu = median(runs.map { $0.serverCPUSeconds / Double(count) * 1e6 })
            let middle = runs.sorted { $0.bytesPerConnection(count) < $1.bytesPerConnection(count) }[runs.count / 2]
            print("| \(count) | \(names[kind]!) | \(bytes(median(memory))) | \(bytes(memory.min()!))–\(bytes(memory.max()!)) "
                + "| \(format(median(times))) ms | \(format(times.min()!))–\(format(times.max()!)) ms "
                + "| \(format(cpu)) µs | \(mebibytes(middle.before)) → \(mebibytes(middle.after)) |")
        }
    }
    print()
    print("| connections | memory per connection, swiftframe / SwiftNIO | time to accept, swiftframe / SwiftNIO | server CPU, swiftframe / SwiftNIO |")
    print("| ---: | ---: | ---: | ---: |")
    for (count, samples) in rows {
        let memory = ["swiftframe", "nio"].map { median(samples[$0]!.map { $0.bytesPerConnection(count) }) }
        let times = ["swiftframe", "nio"].map { median(samples[$0]!.map(\.acceptSeconds)) }
        let cpu = ["swiftframe", "nio"].map { median(samples[$0]!.map(\.serverCPUSeconds)) }
        print("| \(count) | \(ratio(memory[0] / memory[1])) | \(ratio(times[0] / times[1])) | \(ratio(cpu[0] / cpu[1])) |")
    }
    for line in skipped {
        print()
        print("Skipped: \(line).")
    }
}

private func bytes(_ value: Double) -> String {
    value >= 10_000 ? String(format: "%.1f KiB", value / 1024) : "\(Int(value.rounded())) B"
}

private func mebibytes(_ value: Int) -> String { String(format: "%.1f MiB", Double(value) / 1_048_576) }

/// One server process, N connections: its RSS before and after, and the time until it held them all.
private func measureIdle(kind: String, count: Int, executable: String) async throws -> IdleSample {
    let server = try IdleServerProcess(executable: executable, kind: kind)
    defer { server.stop() }
    let greeting = server.readLine(within: 20).split(separator: " ")
    guard greeting.count == 4, greeting[0] == "port", let port = Int(greeting[1]), let limit = Int(greeting[3]) else {
        fail("the \(kind) server said '\(greeting.joined(separator: " "))' instead of its port")
    }
    guard count + spareDescriptors <= limit else { fail("the \(kind) server may open only \(limit) files") }

    // One round trip on a connection of its own: the server speaks the benchmark's wire format.
    try await within(10, "a round trip with the \(kind) server") {
        let client = try await NIOBenchClient.connect(port: port, requests: true, options: .plain)
        let message = benchMessage(size: 64)
        let reply = try await client.request(message)
        precondition(reply == message, "the \(kind) server does not echo")
        await client.close()
    }
    try await server.waitForCount(0, within: 10)
    try await Task.sleep(for: .milliseconds(300))
    let before = server.rss()

    let cpu = server.cpuSeconds()
    let start = now()
    // Not under `within`: every connect has a deadline of its own, and a server that stops
    // accepting fails the pacing after 120 s.
    let paceDeadline = start + 120
    let channels = try await openConnections(count, port: port) {
        guard now() < paceDeadline else { fail("the \(kind) server stopped accepting connections") }
        return server.queued()
    }
    let connected = now() - start
    try await server.waitForCount(count, within: 120)
    let accepted = now() - start
    let serverCPU = server.cpuSeconds() - cpu
    note("  connected in \(format(connected * 1000)) ms, all held after \(format(accepted * 1000)) ms, "
        + "server CPU \(format(serverCPU * 1000)) ms")
    try await Task.sleep(for: .seconds(1))
    let after = server.rss()
    // Still all there: nothing timed out or closed them while they idled.
    let held = server.count()
    guard held == count else { fail("the \(kind) server holds \(held) of \(count) connections after a second") }

    server.stop()  // first, so the connections' ends in TIME_WAIT are the server's
    try await within(60, "closing \(count) connections") {
        for channel in channels { channel.close(promise: nil) }
        for channel in channels { try? await channel.closeFuture.get() }
    }
    return IdleSample(before: before, after: after, acceptSeconds: accepted, serverCPUSeconds: serverCPU)
}

/// `count` connections that send nothing, with at most `connectWindow` of them not yet accepted
/// by the server: connecting, or waiting in its accept queue (`queued`, asked of the server).
/// A connect completes with the handshake, before the server accepts: unpaced, the clients
/// fill the accept queue, the kernel drops their handshakes, and they try again only a second
/// later, which would time the kernel's retry instead of the server.
private func openConnections(_ count: Int, port: Int, queued: () -> Int) async throws -> [any Channel] {
    // An address, not a host name: no resolver and no Happy Eyeballs per connection.
    let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
    @Sendable func connect() async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(to: address)
            .get()
    }
    let connected = NIOLockedValueBox(0)
    return try await withThrowingTaskGroup(of: (any Channel).self) { group in
        var started = 0
        while started < count {
            let connecting = started - connected.withLockedValue { $0 }
            let room = min(connectWindow - connecting - queued(), count - started)
            if room <= 0 {
                try await Task.sleep(for: .microseconds(100))
                continue
            }
            for _ in 0..<room {
                group.addTask {
                    let channel = try await connect()
                    connected.withLockedValue { $0 += 1 }
                    return channel
                }
            }
            started += room
        }
        var opened: [any Channel] = []
        opened.reserveCapacity(count)
        while let channel = try await group.next() { opened.append(channel) }
        return opened
    }
}

/// A server process of the idle benchmark, spoken to a line at a time; every read has a deadline.
private final class IdleServerProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    let kind: String

    init(executable: String, kind: String) throws {
        self.kind = kind
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve-idle", kind]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let pid = process.processIdentifier
        children.withLockedValue { _ = $0.insert(pid) }
    }

    /// The next line the server writes, within `seconds`; the run fails without one.
    func readLine(within seconds: Double) -> String {
        let deadline = now() + seconds
        let descriptor = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let left = deadline - now()
            guard left > 0 else { fail("the \(kind) server did not answer within \(format(seconds)) s") }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(left * 1000) + 1) >= 0 else { continue }  // EINTR: again
            guard ready.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 256)
            let read = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard read > 0 else { fail("the \(kind) server ended (status \(process.isRunning ? "?" : String(process.terminationStatus)))") }
            buffered += chunk[..<read]
        }
    }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { fail("the \(kind) server is gone (writing to it: \(String(cString: strerror(errno))))") }
    }

    /// The connections the server holds now.
    func count() -> Int {
        send("count")
        let answer = readLine(within: 10).split(separator: " ")
        guard answer.count == 2, answer[0] == "count", let count = Int(answer[1]) else {
            fail("the \(kind) server answered '\(answer.joined(separator: " "))' to count")
        }
        return count
    }

    /// Connections in the server's accept queue.
    func queued() -> Int {
        send("queue")
        let answer = readLine(within: 10).split(separator: " ")
        guard answer.count == 2, answer[0] == "queue", let length = Int(answer[1]), length >= 0 else {
            fail("the \(kind) server answered '\(answer.joined(separator: " "))' to queue")
        }
        return length
    }

    /// Asks every 5 ms until the server holds `target` connections.
    func waitForCount(_ target: Int, within seconds: Double) async throws {
        let deadline = now() + seconds
        while count() != target {
            guard now() < deadline else { fail("the \(kind) server held \(count()) connections, not \(target), after \(format(seconds)) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The server's resident memory (VmRSS in /proc/PID/status), in bytes.
    func rss() -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ")[1])
        else { fail("no VmRSS for the \(kind) server") }
        return kilobytes * 1024
    }

    /// CPU time of the server's threads so far: the first field of each thread's
    /// /proc/PID/task/TID/schedstat, nanoseconds on a CPU.
    func cpuSeconds() -> Double {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        let nanoseconds = threads.reduce(0) { sum, thread in
            let text = (try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8)) ?? ""
            return sum + (text.split(separator: " ").first.flatMap { Int($0) } ?? 0)
        }
        return Double(nanoseconds) / 1e9
    }

    /// Asks the server to quit, and kills it if it has not within 5 s.
    func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        _ = Array("quit\n".utf8).withUnsafeBytes {
            Glibc.write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count)
        }
        let deadline = now() + 5
        while process.isRunning && now() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        children.withLockedValue { _ = $0.remove(pid) }
    }
}
