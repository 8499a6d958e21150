// Frame decoding of one byte stream (u32 big-endian length + body), fed in 4 KiB chunks:
// SwiftFrame's FrameDecoder, NIO's LengthFieldBasedFrameDecoder (in a ByteToMessageHandler, and
// called directly), and memcpy of the same bytes as the ceiling.
//   swift package benchmark --target FrameDecoding
import Benchmark
import BenchData

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 5,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    for payloadSize in FrameStream.payloadSizes {
        let stream = FrameStream(payloadSize: payloadSize)
        stream.verify()
        for decoder in FrameStream.decoders {
            Benchmark(FrameStream.benchmarkName(stream.name, decoder)) { benchmark in
                let destination = UnsafeMutableRawPointer.allocate(byteCount: stream.bytes.count, alignment: 64)
                defer { destination.deallocate() }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(stream.run(decoder, destination: destination))
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
