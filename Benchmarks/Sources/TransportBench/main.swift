// Transport benchmarks, over loopback:
//
//   TransportBench [runs]                     swiftframe's FrameClient beside a plain SwiftNIO
//                                             client, plain TCP, TLS and with interceptors
//                                             (make -C Benchmarks transport; Transport.swift)
//   TransportBench idle [runs] [count ...]    FrameServer beside a plain SwiftNIO server holding
//                                             idle connections: memory per connection and time
//                                             to accept them (make -C Benchmarks idle; Idle.swift)
//   TransportBench serve-idle swiftframe|nio  the server `idle` measures, in a process of its own
//                                             (IdleServer.swift)

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "idle":
    let numbers = arguments.dropFirst().compactMap(Int.init)
    try await runIdle(runs: numbers.first ?? 3, counts: numbers.count > 1 ? Array(numbers.dropFirst()) : [1_000, 10_000])
case "serve-idle":
    try await serveIdle(kind: arguments.dropFirst().first ?? "")
default:
    try await runTransport(runs: arguments.first.flatMap(Int.init) ?? 7)
}
