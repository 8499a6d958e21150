// The transport table: swiftframe's FrameClient against a plain SwiftNIO client over loopback,
// in one process and one run, both talking to the same server (a plain NIO echo or counting
// handler, behind swift-nio-ssl in the TLS rows). Within each run the clients take turns, a
// block at a time (`Turns`); each row gives the median of the runs and their spread
// (min–max). The rows of one caller also run a floor client (Floor.swift), and a last table
// gives each client's time above it. `make transport-one-cpu` runs those rows with the process
// on one CPU (`taskset`), where a thread's wake-up is a task switch rather than a halted vCPU's
// wake-up, and the header says so.

import BenchMachine
import Foundation
import NIOCore
import NIOPosix
import SwiftFrameBenchMessages

struct Sample: Sendable {
    var seconds: Double
    var latencies: [Double] = []
}

struct Scenario {
    let name: String
    let unit: String
    let count: Int
    /// Body bytes per frame (for MB/s; the header's 12 are added).
    let bytes: Int
    var options = ClientOptions.plain
    /// Run beside the two clients: the floor client (`FloorBenchClient`), for the time each
    /// spends above it.
    var floor = false
    let run: @Sendable (any BenchClient, Int, Servers) async throws -> Sample

    var oneWay: Bool { unit == "frames/s" }

    /// Blocks a run is cut into (`Turns`): 40 for the rows of one caller (those with a floor),
    /// 10 for the others. One caller's 10,000 round trips take about a second, and a tenth of
    /// it is long enough for this VM to change speed within a block: the floor's lead over the
    /// plain client, which no change to swiftframe moves, varied less from run to run in
    /// blocks of a fortieth than of a tenth. Rows of many callers or of
    /// one-way sends keep 10: cut finer, a block would be mostly the filling and draining of
    /// the pipeline.
    var blocks: Int { floor ? Turns.blocks(usual: Scenario.oneCallerBlocks) : Turns.blocks() }

    static let oneCallerBlocks = 40
}

/// The servers both clients talk to, started once: echoing and counting, over plain TCP and TLS.
struct Servers: Sendable {
    let echoing: any Channel
    let counting: any Channel
    let echoingTLS: any Channel
    let countingTLS: any Channel
    let counter: ByteCounter

    func port(oneWay: Bool, tls: Bool) -> Int {
        let server = switch (oneWay, tls) {
        case (false, false): echoing
        case (true, false): counting
        case (false, true): echoingTLS
        case (true, true): countingTLS
        }
        return server.localAddress!.port!
    }
}

/// Where the callers of a round-trip row run.
enum Callers {
    /// Tasks on Swift's global pool.
    case pool
    /// Tasks that prefer the client's event loop as their executor (`BenchClient.eventLoopExecutor`).
    case eventLoop
    /// An actor with a thread of its own (`CallerActor`), as an app's main actor is.
    case actor
}

/// `callers` tasks each make `count / callers` requests one after another, placed as `on` says.
func roundTrips(callers: Int, size: Int, on place: Callers = .pool) -> @Sendable (any BenchClient, Int, Servers) async throws -> Sample {
    { client, count, _ in
        let message = benchMessage(size: size)
        let start = now()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<callers {
                let caller: @Sendable () async throws -> [Double] = {
                    place == .actor
                        ? try await CallerActor.shared.requests(message, count: count / callers, on: client)
                        : try await requests(message, count: count / callers, on: client)
                }
                // Only the event-loop row gives an executor preference: Swift 6.3.1's
                // `addTask(executorPreference: nil)` still gives the task a preference record,
                // and a task with one takes a lock at every executor check (`swift_task_switch`),
                // which a caller made with `addTask {}` or `Task {}`, as an app's are, does not.
                if place == .eventLoop {
                    group.addTask(executorPreference: client.eventLoopExecutor, operation: caller)
                } else {
                    group.addTask(operation: caller)
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return Sample(seconds: now() - start, latencies: latencies)
    }
}

/// `count` requests one after another, on the caller's executor; the latency of each.
nonisolated(nonsending) func requests(_ message: Bench_Flat, count: Int, on client: some BenchClient) async throws -> [Double] {
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    for _ in 0..<count {
        let sent = now()
        let reply = try await client.request(message)
        precondition(reply.payload.count == message.payload.count)
        latencies.append(now() - sent)
    }
    return latencies
}

/// An actor on a thread of its own, as an app's main actor is on the main thread: a caller
/// that stays on it between its requests.
actor CallerActor {
    static let shared = CallerActor()

    private let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// Each client by its own type: Swift 6.3.1 at -O starts a `nonisolated(nonsending)`
    /// requirement called through an existential off the caller's actor (and comes back after),
    /// which would add two thread hops to every request.
    func requests(_ message: Bench_Flat, count: Int, on client: any BenchClient) async throws -> [Double] {
        switch client {
        case let client as SwiftFrameBenchClient: try await TransportBench.requests(message, count: count, on: client)
        case let client as NIOBenchClient: try await TransportBench.requests(message, count: count, on: client)
        case let client as FloorBenchClient: try await TransportBench.requests(message, count: count, on: client)
        default: fail("no such client: \(type(of: client))")
        }
    }
}

/// `count` frames one way, timed until the server has every byte (after decryption, over TLS).
func oneWay(size: Int) -> @Sendable (any BenchClient, Int, Servers) async throws -> Sample {
    { client, count, servers in
        let message = benchMessage(size: size)
        let frameSize = 12 + size
        let done = servers.counter.expect(count * frameSize, on: servers.counting.eventLoop)
        let start = now()
        for _ in 0..<count { try await client.send(message) }
        try await done.get()
        return Sample(seconds: now() - start)
    }
}

/// The token of the interceptor rows: 32 bytes, so each request and reply carries 34 bytes
/// more than the 64 B message.
let token = "bench-token-0123456789abcdefghij"

func transportScenarios(tls: ClientTLSOptions) -> [Scenario] {
    let stamped = 64 + 2 + token.utf8.count
    return [
        Scenario(name: "round trips, 1 caller, 64 B", unit: "req/s", count: 10_000, bytes: 64, floor: true, run: roundTrips(callers: 1, size: 64)),
        Scenario(name: "round trips, 64 callers, 64 B", unit: "req/s", count: 64_000, bytes: 64, run: roundTrips(callers: 64, size: 64)),
        Scenario(name: "round trips, 1 caller on the event loop, 64 B", unit: "req/s", count: 10_000, bytes: 64, floor: true,
                 run: roundTrips(callers: 1, size: 64, on: .eventLoop)),
        Scenario(name: "round trips, 1 caller on an actor of its own thread, 64 B", unit: "req/s", count: 10_000, bytes: 64,
                 floor: true, run: roundTrips(callers: 1, size: 64, on: .actor)),
        Scenario(name: "one way, 64 B", unit: "frames/s", count: 200_000, bytes: 64, run: oneWay(size: 64)),
        Scenario(name: "one way, 1 KiB", unit: "frames/s", count: 50_000, bytes: 1024, run: oneWay(size: 1024)),
        Scenario(name: "TLS round trips, 1 caller, 64 B", unit: "req/s", count: 10_000, bytes: 64,
                 options: ClientOptions(tls: tls), floor: true, run: roundTrips(callers: 1, size: 64)),
        Scenario(name: "TLS round trips, 64 callers, 64 B", unit: "req/s", count: 64_000, bytes: 64,
                 options: ClientOptions(tls: tls), run: roundTrips(callers: 64, size: 64)),
        Scenario(name: "TLS one way, 1 KiB", unit: "frames/s", count: 50_000, bytes: 1024,
                 options: ClientOptions(tls: tls), run: oneWay(size: 1024)),
        Scenario(name: "interceptors, round trips, 1 caller, 64 B + token", unit: "req/s", count: 10_000, bytes: stamped,
                 options: ClientOptions(stamp: token), floor: true, run: roundTrips(callers: 1, size: 64)),
        Scenario(name: "interceptors, round trips, 64 callers, 64 B + token", unit: "req/s", count: 64_000, bytes: stamped,
                 options: ClientOptions(stamp: token), run: roundTrips(callers: 64, size: 64)),
    ]
}

/// The client called `name`, connected to `port`. The floor's frame is the 64 B message's.
func connect(_ name: String, port: Int, options: ClientOptions, oneWay: Bool) async throws -> any BenchClient {
    switch name {
    case "swiftframe": try await SwiftFrameBenchClient.connect(port: port, options: options)
    case "SwiftNIO": try await NIOBenchClient.connect(port: port, requests: !oneWay, options: options)
    default: try await FloorBenchClient.connect(port: port, message: benchMessage(size: 64), options: options)
    }
}

/// The argument of `runTransport` that picks the rows of one caller (those with a floor).
let oneCallerRows = "rows-of-one-caller"

/// The table, of every row or of those whose names start with one of `rows` (`oneCallerRows`:
/// the rows of one caller).
func runTransport(runs: Int, rows: [String] = []) async throws {
    let certificates = try BenchCertificates.make()
    let serverTLS = try certificates.serverContext()
    let clientTLS = try ClientTLSOptions(certificates)
    let counter = ByteCounter()
    let servers = try await within(30, "starting the servers") {
        Servers(
            echoing: try await startServer(counter: nil), counting: try await startServer(counter: counter),
            echoingTLS: try await startServer(counter: nil, tls: serverTLS),
            countingTLS: try await startServer(counter: counter, tls: serverTLS), counter: counter)
    }

    print(Machine.line)
    print("Each run in blocks taken in turn: \(Turns.blocks(usual: Scenario.oneCallerBlocks)) for the rows of one caller, \(Turns.blocks()) for the others.")
    print()
    print("| scenario | client | rate (median) | spread (min–max) | MB/s | p50 µs | p99 µs |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    var ratios: [(String, Double, ClosedRange<Double>, Double?)] = []
    var aboveFloor: [(String, floor: Double, swiftframe: Double, nio: Double, floorRuns: ClosedRange<Double>)] = []
    let scenarios = transportScenarios(tls: clientTLS).filter { scenario in
        rows.isEmpty || rows.contains { $0 == oneCallerRows ? scenario.floor : scenario.name.hasPrefix($0) }
    }
    for scenario in scenarios {
        let clients = ["swiftframe", "SwiftNIO"] + (scenario.floor ? ["floor"] : [])
        var rates: [String: [Double]] = [:]
        var p50: [String: [Double]] = [:]
        var p99: [String: [Double]] = [:]
        let port = servers.port(oneWay: scenario.oneWay, tls: scenario.options.tls != nil)
        let (options, oneWay) = (scenario.options, scenario.oneWay)
        let (measure, blocks) = (scenario.run, scenario.blocks)
        let share = scenario.count / blocks
        for run in 0...runs {
            var connected: [String: any BenchClient] = [:]
            for name in Turns.order(clients, turn: run) {
                connected[name] = try await within(20, "\(scenario.name): \(name) connecting") {
                    try await connect(name, port: port, options: options, oneWay: oneWay)
                }
            }
            note("\(scenario.name) run \(run)")
            var seconds: [String: Double] = [:]
            var latencies: [String: [Double]] = [:]
            for block in 0..<blocks {
                for name in Turns.order(clients, turn: run + block) {
                    let client = connected[name]!
                    // Every block takes a fraction of a second; two minutes means a server died or hangs.
                    let sample = try await within(120, "\(scenario.name): \(name), run \(run), block \(block)") {
                        try await measure(client, share, servers)
                    }
                    seconds[name, default: 0] += sample.seconds
                    latencies[name, default: []] += sample.latencies
                }
            }
            for (name, client) in connected {
                try await within(20, "\(scenario.name): \(name) closing") { await client.close() }
            }
            if run == 0 { continue }  // warm-up
            for name in clients {
                rates[name, default: []].append(Double(share * blocks) / seconds[name]!)
                let sorted = latencies[name]!.sorted()
                if !sorted.isEmpty {
                    p50[name, default: []].append(percentile(sorted, 0.5) * 1e6)
                    p99[name, default: []].append(percentile(sorted, 0.99) * 1e6)
                }
            }
        }
        for name in clients {
            let values = rates[name]!
            let rate = median(values)
            let mb = rate * Double(scenario.bytes + 12) / 1e6
            let latency = p50[name].map { (format(median($0)), format(median(p99[name]!))) } ?? ("–", "–")
            print("| \(scenario.name) | \(name) | \(format(rate)) \(scenario.unit) | \(format(values.min()!))–\(format(values.max()!)) | \(format(mb)) | \(latency.0) | \(latency.1) |")
        }
        let rateRatio = median(rates["swiftframe"]!) / median(rates["SwiftNIO"]!)
        // Run n of one client beside run n of the other, made one after the other.
        let perRun = zip(rates["swiftframe"]!, rates["SwiftNIO"]!).map { $0 / $1 }
        let p99Ratio = p99["swiftframe"].map { median($0) / median(p99["SwiftNIO"]!) }
        ratios.append((scenario.name, rateRatio, perRun.min()!...perRun.max()!, p99Ratio))
        if let floor = rates["floor"] {
            // Microseconds per round trip, from the median rates.
            let time = { (rates: [Double]) in 1e6 / median(rates) }
            // How far a client that does no work of its own leads the plain one, run by run: the
            // most any client could lead it by on this machine.
            let floorRuns = zip(floor, rates["SwiftNIO"]!).map { $0 / $1 }
            aboveFloor.append((scenario.name, time(floor), time(rates["swiftframe"]!) - time(floor), time(rates["SwiftNIO"]!) - time(floor),
                               floorRuns.min()!...floorRuns.max()!))
        }
    }
    print()
    print("| scenario | swiftframe / SwiftNIO (rate) | per-run ratios (min–max) | p99 swiftframe / SwiftNIO |")
    print("| --- | ---: | ---: | ---: |")
    for (name, rateRatio, perRun, p99Ratio) in ratios {
        print("| \(name) | \(ratio(rateRatio)) | \(ratio(perRun.lowerBound))–\(ratio(perRun.upperBound)) | \(p99Ratio.map(ratio) ?? "–") |")
    }
    if !aboveFloor.isEmpty {
        print()
        print("| scenario | floor µs per round trip | swiftframe above it | SwiftNIO above it | swiftframe / SwiftNIO above it | floor / SwiftNIO (rate), per run |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for row in aboveFloor {
            let runs = "\(ratio(row.floorRuns.lowerBound))–\(ratio(row.floorRuns.upperBound))"
            print("| \(row.0) | \(format(row.floor)) | \(format(row.swiftframe)) | \(format(row.nio)) | \(ratio(row.swiftframe / row.nio)) | \(runs) |")
        }
    }
    print()
    print("At the end: \(Machine.load).")
}

/// One client on one row, `count` operations after as many to warm up, for a profiler
/// (`make transport-profile`): the first row whose name starts with `scenario`.
func runOne(scenario prefix: String, client name: String, count: Int) async throws {
    let certificates = try BenchCertificates.make()
    let serverTLS = try certificates.serverContext()
    let clientTLS = try ClientTLSOptions(certificates)
    guard let scenario = transportScenarios(tls: clientTLS).first(where: { $0.name.hasPrefix(prefix) }) else {
        fail("no row starts with '\(prefix)'")
    }
    guard ["swiftframe", "SwiftNIO", "floor"].contains(name) else { fail("the client is swiftframe, SwiftNIO or floor, not '\(name)'") }
    let counter = ByteCounter()
    let servers = try await within(120, "starting the servers") {
        Servers(
            echoing: try await startServer(counter: nil), counting: try await startServer(counter: counter),
            echoingTLS: try await startServer(counter: nil, tls: serverTLS),
            countingTLS: try await startServer(counter: counter, tls: serverTLS), counter: counter)
    }
    let port = servers.port(oneWay: scenario.oneWay, tls: scenario.options.tls != nil)
    let (options, oneWay, measure) = (scenario.options, scenario.oneWay, scenario.run)
    let client = try await within(120, "connecting") { try await connect(name, port: port, options: options, oneWay: oneWay) }
    for round in ["warm-up", "measured"] {
        let sample = try await within(600, "\(scenario.name): \(name), \(round)") { try await measure(client, count, servers) }
        print("\(scenario.name) \(name) \(round): \(count) in \(format(sample.seconds * 1000)) ms")
    }
    try await within(60, "closing") { await client.close() }
}
