// Transport benchmark: swiftframe's FrameClient beside a plain SwiftNIO client over loopback,
// plain TCP, TLS and with interceptors (Transport.swift).
//
//   swift run -c release TransportBench [runs]     (or: make -C Benchmarks transport)

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 7
try await runTransport(runs: runs)
