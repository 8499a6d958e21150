// Reads the results of one benchmark run (package-benchmark's JMH export) and prints them as
// Markdown tables with the ratios against the peers of the same run, then the targets of issue #4.
//
//   BenchCheck results/*.jmh.json
//
// Times are medians (p50) of package-benchmark's wall-clock samples; a sample of a codec
// benchmark covers `opsPerIteration` operations, so ns/op = sample / opsPerIteration.
// MB/s = wire bytes / (ns/op) * 1000 (1 MB = 10^6 bytes).
import BenchData
import BenchMachine
import Foundation

struct Result {
    var nanoseconds: Double  // p50 wall clock of one sample (one measured iteration)
    var mallocs: Double  // p50 mallocs of one sample
}

func load(_ paths: [String]) -> [String: Result] {
    var results: [String: Result] = [:]
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path),
              let elements = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else {
            FileHandle.standardError.write("BenchCheck: cannot read \(path)\n".data(using: .utf8)!)
            exit(1)
        }
        for element in elements {
            guard let full = element["benchmark"] as? String,
                  let secondary = element["secondaryMetrics"] as? [String: [String: Any]],
                  let time = p50(secondary["Time (wall clock)"])
            else { continue }
            // package.benchmark.TARGET.NAME, with the name's spaces turned into underscores.
            let name = full.split(separator: ".", maxSplits: 3).last.map(String.init) ?? full
            results[name] = Result(nanoseconds: time * 1000, mallocs: p50(secondary["Malloc (total)"]) ?? .nan)
        }
    }
    return results
}

func p50(_ metric: [String: Any]?) -> Double? {
    (metric?["scorePercentiles"] as? [String: Any])?["50.0"] as? Double
}

func key(_ name: String) -> String { name.replacingOccurrences(of: " ", with: "_") }

func format(_ value: Double, _ digits: Int = 0) -> String {
    guard value.isFinite else { return "–" }
    return String(format: "%.\(digits)f", value)
}

func ratioText(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    return value >= 10 ? String(format: "%.0f×", value) : String(format: "%.2f×", value)
}

let paths = Array(CommandLine.arguments.dropFirst())
guard !paths.isEmpty else {
    print("usage: BenchCheck RESULTS.jmh.json ...")
    exit(2)
}
let results = load(paths)
print("\(Machine.line) (as the results are printed, right after the run)")
print()
var targets: [(String, Bool, String)] = []

// MARK: Codec

struct CodecRow {
    var ns: [Library: Double] = [:]
    var mallocs: [Library: Double] = [:]
}

var codec: [String: [String: CodecRow]] = [:]  // operation -> case -> row
for operation in ["encode", "decode"] {
    for codecCase in CodecCase.all {
        var row = CodecRow()
        for library in Library.allCases {
            guard let result = results[key(CodecCase.benchmarkName(operation, codecCase.name, library))] else { continue }
            row.ns[library] = result.nanoseconds / Double(codecCase.opsPerIteration)
            row.mallocs[library] = result.mallocs / Double(codecCase.opsPerIteration)
        }
        codec[operation, default: [:]][codecCase.name] = row
    }
}

if !codec.values.allSatisfy({ $0.values.allSatisfy { $0.ns.isEmpty } }) {
    print("### Message codec (SwiftFrame vs SwiftProtobuf \(swiftProtobufVersion))\n")
    print("| message | bytes | op | SwiftFrame ns/op | SwiftProtobuf ns/op | speed-up | SwiftFrame MB/s | SwiftProtobuf MB/s | allocs/op SF / PB |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for codecCase in CodecCase.all {
        for operation in ["decode", "encode"] {
            guard let row = codec[operation]?[codecCase.name], !row.ns.isEmpty else { continue }
            let sf = row.ns[.swiftFrame] ?? .nan
            let pb = row.ns[.swiftProtobuf] ?? .nan
            let bytes = Double(codecCase.wireSize)
            print(
                "| \(codecCase.name) | \(codecCase.wireSize) | \(operation) | \(format(sf, sf < 100 ? 1 : 0)) | \(format(pb, pb < 100 ? 1 : 0)) "
                    + "| **\(ratioText(pb / sf))** | \(format(bytes / sf * 1000)) | \(format(bytes / pb * 1000)) "
                    + "| \(format(row.mallocs[.swiftFrame] ?? .nan, 1)) / \(format(row.mallocs[.swiftProtobuf] ?? .nan, 1)) |"
            )
        }
    }
    print()
    for name in ["flat", "login", "repeated"] {
        for operation in ["decode", "encode"] {
            guard let row = codec[operation]?[name], let sf = row.ns[.swiftFrame], let pb = row.ns[.swiftProtobuf] else { continue }
            targets.append(("\(operation) \(name) ≥ 3× SwiftProtobuf", pb / sf >= 3, ratioText(pb / sf)))
        }
    }
    let sizes = Dictionary(uniqueKeysWithValues: CodecCase.all.map { ($0.name, Double($0.wireSize)) })
    if let deep = codec["encode"]?["depth32"]?.ns[.swiftFrame], let shallow = codec["encode"]?["depth1"]?.ns[.swiftFrame] {
        let deepRate = sizes["depth32"]! / deep * 1000
        let shallowRate = sizes["depth1"]! / shallow * 1000
        targets.append((
            "encode MB/s at depth 32 within 20% of depth 1", deepRate >= 0.8 * shallowRate,
            "\(format(deepRate)) vs \(format(shallowRate)) MB/s (\(format(deepRate / shallowRate * 100))%)"
        ))
    }
}

// MARK: Frames

var frameTimes: [String: [String: Double]] = [:]
for payloadSize in FrameStream.payloadSizes {
    let name = FrameStream.streamName(payloadSize: payloadSize)
    for decoder in FrameStream.decoders {
        if let result = results[key(FrameStream.benchmarkName(name, decoder))] {
            frameTimes[name, default: [:]][decoder] = result.nanoseconds
        }
    }
}
if !frameTimes.isEmpty {
    print("### Frame decoding (u32 BE length + body, about 1 MiB fed in 4 KiB chunks)\n")
    print("| frames | decoder | µs per stream | GB/s | ns/frame | vs NIO handler | vs NIO decoder | of memcpy |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for payloadSize in FrameStream.payloadSizes {
        let name = FrameStream.streamName(payloadSize: payloadSize)
        guard let times = frameTimes[name] else { continue }
        let stream = FrameStream.shape(payloadSize: payloadSize)
        for decoder in FrameStream.decoders {
            guard let ns = times[decoder] else { continue }
            let handler = times["NIO-handler"] ?? .nan
            let direct = times["NIO-decoder"] ?? .nan
            let copy = times["memcpy"] ?? .nan
            print(
                "| \(name) × \(stream.frameCount) | \(decoder) | \(format(ns / 1000, 1)) | \(format(Double(stream.byteCount) / ns, 2)) "
                    + "| \(format(ns / Double(stream.frameCount), 1)) | \(ratioText(handler / ns)) | \(ratioText(direct / ns)) "
                    + "| \(format(copy / ns * 100))% |"
            )
        }
    }
    print()
    if let times = frameTimes["1KiB"], let sf = times["SwiftFrame"] {
        if let handler = times["NIO-handler"], let direct = times["NIO-decoder"] {
            targets.append((
                "1 KiB frames ≥ 3× NIO's decoder", handler / sf >= 3 && direct / sf >= 3,
                "\(ratioText(handler / sf)) the ByteToMessageHandler, \(ratioText(direct / sf)) the decoder called directly"
            ))
        }
        if let copy = times["memcpy"] {
            targets.append(("1 KiB frames ≥ 30% of memcpy", copy / sf >= 0.3, "\(format(copy / sf * 100))%"))
        }
    }
}

if !targets.isEmpty {
    print("### Targets\n")
    for (name, met, detail) in targets {
        print("- \(met ? "met" : "**missed**"): \(name): \(detail)")
    }
}
