// Encode and decode of the same messages with SwiftFrame and SwiftProtobuf.
//   swift package benchmark --target MessageCodec
// Each measured iteration runs `opsPerIteration` operations (the scaling factor); BenchCheck
// turns one run's results into ns/op, MB/s, allocations/op and ratios.
import Benchmark
import BenchData
import SwiftFrame
import SwiftProtobuf

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    for codecCase in CodecCase.all {
        let sf: any SwiftFrame.Message
        let pb: any SwiftProtobuf.Message
        switch codecCase.name {
        case "flat": (sf, pb) = (SF.flat, PB.flat)
        case "login": (sf, pb) = (SF.login, PB.login)
        case "repeated": (sf, pb) = (SF.repeated, PB.repeated)
        case "map": (sf, pb) = (SF.map, PB.map)
        case "chat": (sf, pb) = (SF.chat, PB.chat)
        case "units": (sf, pb) = (SF.units, PB.units)
        case "kinds": (sf, pb) = (SF.kinds, PB.kinds)
        default:
            let depth = Int(codecCase.name.dropFirst("depth".count))!
            (sf, pb) = (SF.node(depth: depth), PB.node(depth: depth))
        }
        let scaling: BenchmarkScalingFactor = codecCase.opsPerIteration == 1000 ? .kilo : .one
        register(codecCase.name, sf, scaling)
        register(codecCase.name, pb, scaling)
    }
}

// Generic so that each message type gets its own specialised loop.
func register<M: SwiftFrame.Message>(_ name: String, _ message: M, _ scaling: BenchmarkScalingFactor) {
    let bytes = try! message.serializedBytes()
    let configuration = Benchmark.Configuration(scalingFactor: scaling)
    Benchmark(CodecCase.benchmarkName("encode", name, .swiftFrame), configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! message.serializedBytes())
        }
    }
    Benchmark(CodecCase.benchmarkName("decode", name, .swiftFrame), configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! M(serializedBytes: bytes))
        }
    }
}

func register<M: SwiftProtobuf.Message>(_ name: String, _ message: M, _ scaling: BenchmarkScalingFactor) {
    let bytes: [UInt8] = try! message.serializedBytes()
    let configuration = Benchmark.Configuration(scalingFactor: scaling)
    Benchmark(CodecCase.benchmarkName("encode", name, .swiftProtobuf), configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! message.serializedBytes() as [UInt8])
        }
    }
    Benchmark(CodecCase.benchmarkName("decode", name, .swiftProtobuf), configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! M(serializedBytes: bytes))
        }
    }
}
