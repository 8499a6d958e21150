// What the transport and idle benchmarks share: medians and percentiles, the number format of
// the tables, and the deadline every wait runs under.

import Foundation
import NIOConcurrencyHelpers

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

func format(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}

func ratio(_ value: Double) -> String { String(format: "%.2f", value) + "×" }

/// A line on standard error (progress, and why a run stopped); the tables go to standard output.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Processes this one started (the idle benchmark's servers), killed when it gives up.
let children = NIOLockedValueBox<Set<Int32>>([])

/// Ends the benchmark: a table with a row missing would mislead.
func fail(_ reason: String) -> Never {
    note("TransportBench: \(reason)")
    for pid in children.withLockedValue({ $0 }) { kill(pid, SIGKILL) }
    exit(2)
}

/// `body`, or the end of the process if it takes longer than `seconds`. Every wait of the
/// benchmarks runs under one: a server that died or hangs must not hang the run, and several
/// of the calls inside (a SwiftNIO future, a request of the plain client) have no deadline of
/// their own.
func within<T: Sendable>(
    _ seconds: Double, _ what: @autoclosure () -> String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let what = what()
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            fail("\(what) took longer than \(format(seconds)) s")
        }
        return result
    }
}
