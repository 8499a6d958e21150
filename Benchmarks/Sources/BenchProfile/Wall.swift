// Wall-clock times side by side, over several runs: `BenchProfile wall [RUNS] [ROW...]`.
//
// Each row is one operation done by two or more contenders (SwiftFrame against SwiftProtobuf,
// or against NIO's frame decoder). A run times about 40 ms of each contender (a batch sized
// once beforehand), cut into blocks taken in turn (`Turns`: this VM changes speed within a
// second, and a slow moment then falls on every contender of the run alike). The table
// gives, per contender, the median time per operation over the runs and its spread (lowest to
// highest), and per row the ratio of the medians and the lowest and highest ratio of a single
// run, so a lead that holds only in some runs shows as such.
import BenchData
import BenchMachine
import Foundation
@_spi(Benchmarks) import SwiftFrame
import SwiftProtobuf

struct WallRow {
    let name: String
    /// Contender name and a batch of `n` operations.
    let contenders: [(name: String, batch: (Int) -> Void)]
}

func codecRow<F: SwiftFrame.Message, P: SwiftProtobuf.Message>(
    _ operation: String, _ caseName: String, _ sf: F, _ pb: P, label: String = "SwiftFrame"
) -> WallRow {
    let sfBytes = try! sf.serializedBytes()
    let pbBytes: [UInt8] = try! pb.serializedBytes()
    // Map entries come out in different orders (SwiftFrame sorts them by key): same size only.
    precondition(
        sfBytes == pbBytes || ["map", "kinds"].contains(caseName) && sfBytes.count == pbBytes.count,
        "\(caseName): \(label) and SwiftProtobuf encode different bytes")
    let encode = operation == "encode"
    return WallRow(name: "\(operation) \(caseName)" + (label == "SwiftFrame" ? "" : ", \(label)"), contenders: [
        (label, codecBatch(sf, sfBytes, encode: encode)),
        ("SwiftProtobuf", swiftProtobufBatch(pb, pbBytes, encode: encode)),
    ])
}

/// One message as proto3 and as its edition 2023 copy, which must encode the same bytes.
func editionsRow<P: SwiftFrame.Message, E: SwiftFrame.Message>(
    _ operation: String, _ caseName: String, _ proto3: P, _ edition: E
) -> WallRow {
    let bytes = try! proto3.serializedBytes()
    precondition(try! edition.serializedBytes() == bytes, "\(caseName): the edition 2023 copy encodes other bytes")
    let encode = operation == "encode"
    return WallRow(name: "\(operation) \(caseName), editions", contenders: [
        ("proto3", codecBatch(proto3, bytes, encode: encode)),
        ("edition 2023", codecBatch(edition, bytes, encode: encode)),
    ])
}

/// A message's floor beside SwiftFrame and SwiftProtobuf: the first contender is the floor, so
/// each ratio is that library's time over the floor's.
struct FloorRow {
    let contenders: (_ encode: Bool) -> [(name: String, batch: (Int) -> Void)]

    init<F: SwiftFrame.Message & Equatable, P: SwiftProtobuf.Message>(
        _ sf: F, _ pb: P, _ encoded: [UInt8], _ decoded: @escaping () -> F, _ encodedAgain: @escaping () -> [UInt8],
        encodeFloor: String = "floor (memcpy)"
    ) {
        precondition(decoded() == sf && encodedAgain() == encoded, "\(F.self): the floor makes another message or other bytes")
        let pbBytes: [UInt8] = try! pb.serializedBytes()
        contenders = { encode in
            [
                (encode ? encodeFloor : "floor", { n in for _ in 0..<n { if encode { consume(encodedAgain()) } else { consume(decoded()) } } }),
                ("SwiftFrame", codecBatch(sf, encoded, encode: encode)),
                ("SwiftProtobuf", swiftProtobufBatch(pb, pbBytes, encode: encode)),
            ]
        }
    }

    init<F: SwiftFrame.Message & Equatable, P: SwiftProtobuf.Message>(_ sf: F, _ pb: P, _ floor: Floor, _ decoded: @escaping (Floor) -> F) {
        self.init(sf, pb, floor.encoded, { decoded(floor) }, floor.encode)
    }

    func wallRow(_ operation: String, _ caseName: String) -> WallRow {
        WallRow(name: "floor: \(operation) \(caseName)", contenders: contenders(operation == "encode"))
    }
}

/// A batch of `n` encodes of `message`, or decodes of `bytes` into its type.
func codecBatch<M: SwiftFrame.Message>(_ message: M, _ bytes: [UInt8], encode: Bool) -> (Int) -> Void {
    { n in
        for _ in 0..<n {
            if encode { consume(try! message.serializedBytes()) } else { consume(try! M(serializedBytes: bytes)) }
        }
    }
}

/// `codecBatch` for a SwiftProtobuf message.
func swiftProtobufBatch<P: SwiftProtobuf.Message>(_ message: P, _ bytes: [UInt8], encode: Bool) -> (Int) -> Void {
    { n in
        for _ in 0..<n {
            if encode { consume(try! message.serializedBytes() as [UInt8]) } else { consume(try! P(serializedBytes: bytes)) }
        }
    }
}

func wallRows() -> [WallRow] {
    var rows: [WallRow] = []
    for operation in ["decode", "encode"] {
        rows.append(codecRow(operation, "flat", SF.flat, PB.flat))
        rows.append(codecRow(operation, "login", SF.login, PB.login))
        rows.append(codecRow(operation, "repeated", SF.repeated, PB.repeated))
        for (name, (sf, pb)) in zip(Values.repeatedParts, zip(SF.repeatedParts, PB.repeatedParts)) {
            rows.append(codecRow(operation, name, sf, pb))
        }
        rows.append(codecRow(operation, "map", SF.map, PB.map))
        for depth in CodecCase.depths {
            rows.append(codecRow(operation, "depth\(depth)", SF.node(depth: depth), PB.node(depth: depth)))
        }
        // Shapes of real apps' messages (BenchData/ShapedMessages.swift).
        rows.append(codecRow(operation, "chat", SF.chat, PB.chat))
        rows.append(codecRow(operation, "units", SF.units, PB.units))
        rows.append(codecRow(operation, "kinds", SF.kinds, PB.kinds))
    }
    // Each shape against its floor (BenchData/Floor.swift): the least work any library must do
    // to decode it; to encode it, one copy of the encoded bytes (unreachable: a message's
    // strings and arrays lie apart), or the encoder written for it by hand (BenchData/ByHand.swift).
    let chatFloor = Floor(SF.chat), unitsFloor = UnitsFloor()
    let floorRows: [(String, FloorRow)] = [
        ("flat", FloorRow(SF.flat, PB.flat, Floor(SF.flat), { $0.decodeFlat() })),
        ("login", FloorRow(SF.login, PB.login, Floor(SF.login), { $0.decodeLogin() })),
        ("repeated", FloorRow(SF.repeated, PB.repeated, Floor(SF.repeated), { $0.decodeRepeated() })),
        ("chat", FloorRow(SF.chat, PB.chat, chatFloor.encoded, { chatFloor.decodeChat() }, { ByHand.encodeChat(SF.chat) }, encodeFloor: "by hand")),
        ("units", FloorRow(SF.units, PB.units, unitsFloor.encoded, { unitsFloor.decode() }, { ByHand.encodeUnits(SF.units) }, encodeFloor: "by hand")),
    ]
    for operation in ["decode", "encode"] {
        for (name, row) in floorRows { rows.append(row.wallRow(operation, name)) }
    }
    // Login encoded by a function written for it alone (BenchData/ByHand.swift): how fast an
    // encoder of this message gets with String's public API and nothing else.
    let login = SF.login
    precondition(ByHand.encodeLogin(login) == (try! login.serializedBytes()), "login: the encoder by hand writes other bytes")
    rows.append(WallRow(name: "encode login, by hand", contenders: [
        ("by hand", { n in for _ in 0..<n { consume(ByHand.encodeLogin(login)) } }),
    ] + codecRow("encode", "login", login, PB.login).contenders))
    // The messages generated with optimize_for = CODE_SIZE (one table codec for all messages).
    for operation in ["decode", "encode"] {
        rows.append(codecRow(operation, "flat", SFC.flat, PB.flat, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "login", SFC.login, PB.login, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "repeated", SFC.repeated, PB.repeated, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "map", SFC.map, PB.map, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "chat", SFC.chat, PB.chat, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "units", SFC.units, PB.units, label: "CODE_SIZE"))
        rows.append(codecRow(operation, "kinds", SFC.kinds, PB.kinds, label: "CODE_SIZE"))
    }
    // The edition 2023 copies of the messages beside their proto3 originals, both SwiftFrame's.
    for operation in ["decode", "encode"] {
        rows.append(editionsRow(operation, "flat", SF.flat, SFE.flat))
        rows.append(editionsRow(operation, "login", SF.login, SFE.login))
        rows.append(editionsRow(operation, "repeated", SF.repeated, SFE.repeated))
        rows.append(editionsRow(operation, "depth8", SF.node(depth: 8), SFE.node(depth: 8)))
    }
    // JSON, proto3's canonical mapping, with each library's default options.
    for operation in ["decode", "encode"] {
        rows.append(jsonRow(operation, "flat", SF.flat, PB.flat))
        rows.append(jsonRow(operation, "login", SF.login, PB.login))
        rows.append(jsonRow(operation, "repeated", SF.repeated, PB.repeated))
        rows.append(jsonRow(operation, "map", SF.map, PB.map))
    }
    for size in FrameStream.payloadSizes {
        let stream = FrameStream(payloadSize: size)
        stream.verify()
        let destination = UnsafeMutableRawPointer.allocate(byteCount: stream.bytes.count, alignment: 64)
        rows.append(WallRow(name: "frames \(stream.name)", contenders: ["SwiftFrame", "NIO-decoder", "memcpy", "SwiftFrame-Frame"].map { decoder in
            (decoder, { n in
                var total = 0
                for _ in 0..<n { total &+= stream.run(decoder, destination: destination) }
                consume(total)
            })
        }))
    }
    // The same streams through channel handlers (EmbeddedChannel): SwiftFrameNIO's
    // FrameSliceHandler (no ByteToMessageHandler), then NIO's decoder and SwiftFrameNIO's two
    // decoders (payloads as slices of the reads, and as copied `Frame`s) in a ByteToMessageHandler.
    for size in FrameStream.payloadSizes {
        let stream = FrameStream(payloadSize: size)
        let destination = UnsafeMutableRawPointer.allocate(byteCount: stream.bytes.count, alignment: 64)
        rows.append(WallRow(name: "frames \(stream.name) in a channel", contenders: ["SwiftFrame-inbound", "NIO-handler", "SwiftFrame-slices"].map { decoder in
            (decoder, { n in
                var total = 0
                for _ in 0..<n { total &+= stream.run(decoder, destination: destination) }
                consume(total)
            })
        }))
    }
    // Frames cut and their messages decoded (a stream of 1 MiB of each message).
    rows.append(messageFramesRow("flat", SF.flat, PB.flat))
    rows.append(messageFramesRow("login", SF.login, PB.login))
    return rows
}

/// JSON text of `sf` and `pb` (the same message) printed or read by each library. Each reads
/// the other's text back to the message it started from, so both print the same content
/// (the texts may differ in how they spell a number: SwiftProtobuf and swiftframe both print
/// floats in their shortest form, but keys are compared as parsed, not as text).
func jsonRow<F: SwiftFrame.Message & Equatable, P: SwiftProtobuf.Message & Equatable>(
    _ operation: String, _ caseName: String, _ sf: F, _ pb: P
) -> WallRow {
    let sfText = try! sf.jsonString()
    let pbText = try! pb.jsonString()
    precondition(try! F(jsonString: pbText) == sf, "\(caseName): SwiftFrame reads SwiftProtobuf's JSON as another message")
    precondition(try! P(jsonString: sfText) == pb, "\(caseName): SwiftProtobuf reads SwiftFrame's JSON as another message")
    let encode = operation == "encode"
    let sfBytes = Array(sfText.utf8)
    precondition(try! F(jsonUTF8BytesByTreeReader: sfBytes) == sf, "\(caseName): the tree reader reads another message")
    var contenders: [(name: String, batch: (Int) -> Void)] = [
        ("SwiftFrame", { n in
            for _ in 0..<n {
                if encode { consume(try! sf.jsonString()) } else { consume(try! F(jsonString: sfText)) }
            }
        }),
        ("SwiftProtobuf", { n in
            for _ in 0..<n {
                if encode { consume(try! pb.jsonString()) } else { consume(try! P(jsonString: pbText)) }
            }
        }),
    ]
    // Decoding also by swiftframe's tree reader alone (no streaming reader): what the second
    // reader is worth.
    if !encode {
        contenders.append(("tree reader", { n in
            for _ in 0..<n { consume(try! F(jsonUTF8BytesByTreeReader: sfBytes)) }
        }))
    }
    return WallRow(name: "JSON \(operation) \(caseName)", contenders: contenders)
}

/// Frames whose bodies are `sf`, cut and decoded by SwiftFrame, against NIO's decoder with
/// SwiftProtobuf decoding each body; both check every message they decode.
func messageFramesRow<F: SwiftFrame.Message & Equatable, P: SwiftProtobuf.Message & Equatable>(_ caseName: String, _ sf: F, _ pb: P) -> WallRow {
    let frames = MessageFrames(name: caseName, body: try! sf.serializedBytes())
    precondition(frames.decodeSwiftFrame(F.self, check: { $0 == sf }) == frames.frameCount, "\(caseName): SwiftFrame decoded other messages")
    precondition(frames.decodeSwiftFrameValues(F.self, check: { $0 == sf }) == frames.frameCount, "\(caseName): SwiftFrame (Frame values) decoded other messages")
    precondition(frames.decodeNIO(P.self, check: { $0 == pb }) == frames.frameCount, "\(caseName): SwiftProtobuf decoded other messages")
    return WallRow(name: "frames + decode \(caseName)", contenders: [
        ("SwiftFrame", { n in
            var total = 0
            for _ in 0..<n { total &+= frames.decodeSwiftFrame(F.self) }
            consume(total)
        }),
        ("NIO-decoder + SwiftProtobuf", { n in
            var total = 0
            for _ in 0..<n { total &+= frames.decodeNIO(P.self) }
            consume(total)
        }),
        ("SwiftFrame-Frame", { n in
            var total = 0
            for _ in 0..<n { total &+= frames.decodeSwiftFrameValues(F.self) }
            consume(total)
        }),
    ])
}

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// Operations per batch so that one batch takes about `target` nanoseconds.
func batchSize(_ batch: (Int) -> Void, target: Double = 40e6) -> Int {
    let clock = ContinuousClock()
    var n = 1
    while true {
        let elapsed = nanoseconds(clock.measure { batch(n) })
        if elapsed >= target / 4 { return max(1, Int(Double(n) * target / elapsed)) }
        n *= 4
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func formatted(_ nanoseconds: Double) -> String {
    nanoseconds >= 10_000 ? String(format: "%.1f µs", nanoseconds / 1000) : String(format: "%.0f ns", nanoseconds)
}

func runWall(runs: Int, filters: [String]) {
    // `HEAP_PAD=N`: N bytes allocated before anything else and kept, so that every value and
    // output array of the table lies elsewhere in memory (and elsewhere within its page). A
    // ratio that moves with N comes from where things fell, not from the code.
    let pad = [UInt8](repeating: 1, count: max(0, Int(ProcessInfo.processInfo.environment["HEAP_PAD"] ?? "") ?? 0))
    defer { withExtendedLifetime(pad) {} }
    let rows = wallRows().filter { row in filters.isEmpty || filters.contains { row.name.contains($0) } }
    let clock = ContinuousClock()
    let hashing = ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil ? "seeded per process" : "deterministic"
    print(Machine.line)
    let blocks = Turns.blocks()
    print("\(runs) runs, about 40 ms of each contender a run in \(blocks) blocks taken in turn; hashing \(hashing)"
        + (pad.isEmpty ? "." : "; \(pad.count) bytes allocated first (HEAP_PAD)."))
    defer { print("\nAt the end: \(Machine.load).") }
    print("")
    print("| operation | contender | median per op | lowest – highest | ratio of medians | ratio, lowest – highest run |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in rows {
        let sizes = row.contenders.map { batchSize($0.batch) }
        var times = Array(repeating: [Double](), count: row.contenders.count)
        let shares = sizes.map { max(1, $0 / blocks) }
        let indices = Array(row.contenders.indices)
        for run in 0..<runs {
            var elapsed = Array(repeating: 0.0, count: indices.count)
            for block in 0..<blocks {
                for index in Turns.order(indices, turn: run + block) {
                    let n = shares[index]
                    elapsed[index] += nanoseconds(clock.measure { row.contenders[index].batch(n) })
                }
            }
            for index in indices {
                times[index].append(elapsed[index] / Double(shares[index] * blocks))
            }
        }
        let medians = times.map(median)
        for (index, contender) in row.contenders.enumerated() {
            let spread = "\(formatted(times[index].min()!)) – \(formatted(times[index].max()!))"
            var ratio = "", perRun = ""
            if index > 0 {
                // How many times faster the first contender (SwiftFrame) is than this one.
                let ratios = zip(times[index], times[0]).map { $0 / $1 }
                ratio = String(format: "**%.2f×**", medians[index] / medians[0])
                perRun = String(format: "%.2f× – %.2f×", ratios.min()!, ratios.max()!)
            }
            print("| \(index == 0 ? row.name : "") | \(contender.name) | \(formatted(medians[index])) | \(spread) | \(ratio) | \(perRun) |")
        }
    }
}
