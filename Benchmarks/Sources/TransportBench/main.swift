// Transport benchmark: swiftframe's FrameClient against a plain SwiftNIO client (NIO's frame
// decoder and NIORequestResponseWithIDHandler) over loopback, in one process and one run,
// both talking to the same echo server. Runs alternate between the two clients; each row
// gives the median of the runs and their spread (min–max).
//
//   swift run -c release TransportBench [runs]     (or: make -C Benchmarks transport)

import Foundation
import SwiftFrameBenchMessages

struct Sample {
    var seconds: Double
    var latencies: [Double] = []
}

struct Scenario {
    let name: String
    let unit: String
    let count: Int
    let bytes: Int
    let run: @Sendable (any BenchClient, Int) async throws -> Sample
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// `callers` tasks each make `count / callers` requests one after another.
func roundTrips(callers: Int, size: Int) -> @Sendable (any BenchClient, Int) async throws -> Sample {
    { client, count in
        let message = benchMessage(size: size)
        let start = now()
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(count / callers)
                    for _ in 0..<(count / callers) {
                        let sent = now()
                        let reply = try await client.request(message)
                        precondition(reply.payload.count == message.payload.count)
                        latencies.append(now() - sent)
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return Sample(seconds: now() - start, latencies: latencies)
    }
}

let counter = ByteCounter()

/// `count` frames one way, timed until the server has every byte.
func oneWay(size: Int) -> @Sendable (any BenchClient, Int) async throws -> Sample {
    { client, count in
        let message = benchMessage(size: size)
        let frameSize = 12 + size
        let server = try await counting.value
        let done = counter.expect(count * frameSize, on: server.eventLoop)
        let start = now()
        for _ in 0..<count { try await client.send(message) }
        try await done.get()
        return Sample(seconds: now() - start)
    }
}

let echoing = Task { try await startServer(counter: nil) }
let counting = Task { try await startServer(counter: counter) }

let scenarios = [
    Scenario(name: "round trips, 1 caller, 64 B", unit: "req/s", count: 4_000, bytes: 64, run: roundTrips(callers: 1, size: 64)),
    Scenario(name: "round trips, 64 callers, 64 B", unit: "req/s", count: 12_800, bytes: 64, run: roundTrips(callers: 64, size: 64)),
    Scenario(name: "one way, 64 B", unit: "frames/s", count: 200_000, bytes: 64, run: oneWay(size: 64)),
    Scenario(name: "one way, 1 KiB", unit: "frames/s", count: 50_000, bytes: 1024, run: oneWay(size: 1024)),
]

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 7

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

func format(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}

print("| scenario | client | rate (median) | spread (min–max) | MB/s | p50 µs | p99 µs |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
var ratios: [(String, Double, Double?)] = []
for scenario in scenarios {
    var rates: [String: [Double]] = [:]
    var p50: [String: [Double]] = [:]
    var p99: [String: [Double]] = [:]
    for run in 0...runs {
        for name in run % 2 == 0 ? ["swiftframe", "SwiftNIO"] : ["SwiftNIO", "swiftframe"] {
            let oneWay = scenario.unit == "frames/s"
            let port = (try await (oneWay ? counting : echoing).value).localAddress!.port!
            let client: any BenchClient = name == "swiftframe"
                ? try await SwiftFrameBenchClient.connect(port: port)
                : try await NIOBenchClient.connect(port: port, requests: !oneWay)
            FileHandle.standardError.write("\(scenario.name) \(name) run \(run)\n".data(using: .utf8)!)
            let sample = try await scenario.run(client, scenario.count)
            await client.close()
            if run == 0 { continue }  // warm-up
            rates[name, default: []].append(Double(scenario.count) / sample.seconds)
            let sorted = sample.latencies.sorted()
            if !sorted.isEmpty {
                p50[name, default: []].append(percentile(sorted, 0.5) * 1e6)
                p99[name, default: []].append(percentile(sorted, 0.99) * 1e6)
            }
        }
    }
    for name in ["swiftframe", "SwiftNIO"] {
        let values = rates[name]!
        let rate = median(values)
        let mb = rate * Double(scenario.bytes + 12) / 1e6
        let latency = p50[name].map { (format(median($0)), format(median(p99[name]!))) } ?? ("–", "–")
        print("| \(scenario.name) | \(name) | \(format(rate)) \(scenario.unit) | \(format(values.min()!))–\(format(values.max()!)) | \(format(mb)) | \(latency.0) | \(latency.1) |")
    }
    let ratio = median(rates["swiftframe"]!) / median(rates["SwiftNIO"]!)
    let p99Ratio = p99["swiftframe"].map { median($0) / median(p99["SwiftNIO"]!) }
    ratios.append((scenario.name, ratio, p99Ratio))
}
print()
print("| scenario | swiftframe / SwiftNIO (rate) | p99 swiftframe / SwiftNIO |")
print("| --- | ---: | ---: |")
for (name, ratio, p99Ratio) in ratios {
    print("| \(name) | \(String(format: "%.2f", ratio))× | \(p99Ratio.map { String(format: "%.2f", $0) + "×" } ?? "–") |")
}
