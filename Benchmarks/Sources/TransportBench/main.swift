// Transport benchmarks, over loopback:
//
//   TransportBench [runs [row ...]]          swiftframe's FrameClient beside a plain SwiftNIO
//                                             client, plain TCP, TLS and with interceptors
//                                             (make -C Benchmarks transport; Transport.swift),
//                                             every row or those whose names start with a `row`
//                                             (`rows-of-one-caller`: the rows with a floor)
//   TransportBench idle [runs] [count ...]    FrameServer beside a plain SwiftNIO server holding
//                                             idle connections: memory per connection and time
//                                             to accept them (make -C Benchmarks idle; Idle.swift)
//   TransportBench serve-idle KIND            a server `idle` and `server` measure, in a process
//                                             of its own (IdleServer.swift lists the kinds)
//   TransportBench one ROW CLIENT COUNT        one client (swiftframe, SwiftNIO or floor) on one row (the
//                                             first whose name starts with ROW), COUNT operations
//                                             twice, for a profiler (make transport-profile)
//
// The main thread waits on a semaphore instead of running an async main: under valgrind 3.19,
// a Swift program whose main is async (dispatch_main) crashes valgrind at its first thread.

import Foundation

func main(_ arguments: [String]) async throws {
    switch arguments.first {
    case "idle":
        let numbers = arguments.dropFirst().compactMap(Int.init)
        try await runIdle(runs: numbers.first ?? 3, counts: numbers.count > 1 ? Array(numbers.dropFirst()) : [1_000, 10_000])
    case "one" where arguments.count == 4:
        try await runOne(scenario: arguments[1], client: arguments[2], count: Int(arguments[3]) ?? 1000)
    case "serve-idle":
        try await serveIdle(kind: arguments.dropFirst().first ?? "")
    default:
        try await runTransport(runs: arguments.first.flatMap(Int.init) ?? 7, rows: Array(arguments.dropFirst()))
    }
}

let finished = DispatchSemaphore(value: 0)
Task.detached { [arguments = Array(CommandLine.arguments.dropFirst())] in
    do {
        try await main(arguments)
    } catch {
        fail("\(error)")
    }
    finished.signal()
}
finished.wait()
