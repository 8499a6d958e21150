// Runs one benchmark's operation in a loop, for profilers (valgrind --tool=callgrind, perf):
//
//   BenchProfile codec encode|decode CASE SwiftFrame|SwiftProtobuf|CODE_SIZE|editions [ITERATIONS]  (CODE_SIZE: flat, login,
//     repeated, map, chat, units, kinds; editions, the edition 2023 copies: flat, login, repeated, depthN; CASE repeated-ints,
//     repeated-doubles or repeated-names: one field of `repeated`)
//   BenchProfile frames 64B|1KiB|64KiB SwiftFrame|SwiftFrame-inbound|SwiftFrame-slices|NIO-handler|NIO-decoder|memcpy [ITERATIONS]
//   BenchProfile floor encode|decode flat|login|repeated|chat|units [ITERATIONS]   (BenchData/Floor.swift)
//   BenchProfile json encode|decode flat|login|repeated|map SwiftFrame|SwiftProtobuf [ITERATIONS]
//   BenchProfile wall [RUNS] [ROW...]   wall-clock times side by side over RUNS runs (Wall.swift)
//   BenchProfile sizes                  each codec case's size on the wire
//
// `make -C Benchmarks profile ARGS="codec decode flat SwiftFrame"` runs it under callgrind.
import BenchData
import Foundation
import SwiftFrame
import SwiftProtobuf

@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func loop<M: SwiftFrame.Message>(_ operation: String, _ message: M, _ iterations: Int) {
    let bytes = try! message.serializedBytes()
    let encode = operation == "encode"  // not compared per turn: the floor's loop tests a Bool
    for _ in 0..<iterations {
        if encode { consume(try! message.serializedBytes()) } else { consume(try! M(serializedBytes: bytes)) }
    }
}

func loop<M: SwiftProtobuf.Message>(_ operation: String, _ message: M, _ iterations: Int) {
    let bytes: [UInt8] = try! message.serializedBytes()
    let encode = operation == "encode"
    for _ in 0..<iterations {
        if encode { consume(try! message.serializedBytes() as [UInt8]) } else { consume(try! M(serializedBytes: bytes)) }
    }
}

let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "sizes" {
    // Each codec case's size on the wire, the same for both libraries.
    for codecCase in CodecCase.all { print("\(codecCase.name): \(codecCase.wireSize) bytes, \(codecCase.title)") }
    exit(0)
}
if arguments.count >= 2 && arguments[1] == "wall" {
    runWall(runs: arguments.count > 2 ? Int(arguments[2])! : 7, filters: Array(arguments.dropFirst(3)))
    exit(0)
}
guard arguments.count >= 4 else {
    print("usage: BenchProfile codec encode|decode CASE LIBRARY [N] | floor encode|decode CASE [N] | byhand encode login|chat|units [N] | frames SIZE DECODER [N]")
    exit(2)
}
let iterations = Int(arguments.last!) ?? 10000
switch arguments[1] {
case "codec":
    let name = arguments[3]
    let swiftFrame = arguments.count > 4 && arguments[4] == "SwiftFrame"
    if arguments.count > 4 && arguments[4] == "CODE_SIZE" {
        // The messages generated with optimize_for = CODE_SIZE.
        switch name {
        case "flat": loop(arguments[2], SFC.flat, iterations)
        case "login": loop(arguments[2], SFC.login, iterations)
        case "map": loop(arguments[2], SFC.map, iterations)
        case "chat": loop(arguments[2], SFC.chat, iterations)
        case "units": loop(arguments[2], SFC.units, iterations)
        case "kinds": loop(arguments[2], SFC.kinds, iterations)
        default: loop(arguments[2], SFC.repeated, iterations)
        }
        exit(0)
    }
    if arguments.count > 4 && arguments[4] == "editions" {
        // The edition 2023 copies of the messages (Protos/bench_editions.proto).
        switch name {
        case "flat": loop(arguments[2], SFE.flat, iterations)
        case "login": loop(arguments[2], SFE.login, iterations)
        case "repeated": loop(arguments[2], SFE.repeated, iterations)
        default: loop(arguments[2], SFE.node(depth: Int(name.dropFirst("depth".count))!), iterations)
        }
        exit(0)
    }
    switch name {
    case "flat": swiftFrame ? loop(arguments[2], SF.flat, iterations) : loop(arguments[2], PB.flat, iterations)
    case "login": swiftFrame ? loop(arguments[2], SF.login, iterations) : loop(arguments[2], PB.login, iterations)
    case "repeated": swiftFrame ? loop(arguments[2], SF.repeated, iterations) : loop(arguments[2], PB.repeated, iterations)
    case "map": swiftFrame ? loop(arguments[2], SF.map, iterations) : loop(arguments[2], PB.map, iterations)
    case "chat": swiftFrame ? loop(arguments[2], SF.chat, iterations) : loop(arguments[2], PB.chat, iterations)
    case "units": swiftFrame ? loop(arguments[2], SF.units, iterations) : loop(arguments[2], PB.units, iterations)
    case "kinds": swiftFrame ? loop(arguments[2], SF.kinds, iterations) : loop(arguments[2], PB.kinds, iterations)
    case "repeated-ints", "repeated-doubles", "repeated-names":
        // `repeated` with one of its fields (the wall table's "repeated: … only" rows).
        let part = ["repeated-ints", "repeated-doubles", "repeated-names"].firstIndex(of: name)!
        swiftFrame ? loop(arguments[2], SF.repeatedParts[part], iterations) : loop(arguments[2], PB.repeatedParts[part], iterations)
    default:
        let depth = Int(name.dropFirst("depth".count))!
        swiftFrame ? loop(arguments[2], SF.node(depth: depth), iterations) : loop(arguments[2], PB.node(depth: depth), iterations)
    }
case "json":
    // JSON printed or read, for either library.
    func run<M: SwiftFrame.Message>(_ message: M) {
        let text = try! message.jsonString()
        for _ in 0..<iterations {
            if arguments[2] == "encode" { consume(try! message.jsonString()) } else { consume(try! M(jsonString: text)) }
        }
    }
    func run<M: SwiftProtobuf.Message>(_ message: M) {
        let text = try! message.jsonString()
        for _ in 0..<iterations {
            if arguments[2] == "encode" { consume(try! message.jsonString()) } else { consume(try! M(jsonString: text)) }
        }
    }
    let swiftFrame = arguments.count > 4 && arguments[4] == "SwiftFrame"
    switch arguments[3] {
    case "flat": swiftFrame ? run(SF.flat) : run(PB.flat)
    case "login": swiftFrame ? run(SF.login) : run(PB.login)
    case "repeated": swiftFrame ? run(SF.repeated) : run(PB.repeated)
    default: swiftFrame ? run(SF.map) : run(PB.map)
    }
case "floor":
    let decode = arguments[2] == "decode"
    func run<M>(_ message: some SwiftFrame.Message, _ decoded: (Floor) -> M) {
        let floor = Floor(message)
        for _ in 0..<iterations {
            if decode { consume(decoded(floor)) } else { consume(floor.encode()) }
        }
    }
    switch arguments[3] {
    case "flat": run(SF.flat) { $0.decodeFlat() }
    case "login": run(SF.login) { $0.decodeLogin() }
    case "repeated": run(SF.repeated) { $0.decodeRepeated() }
    case "chat": run(SF.chat) { $0.decodeChat() }
    case "units":
        let floor = UnitsFloor()
        for _ in 0..<iterations {
            if decode { consume(floor.decode()) } else { consume(floor.encode()) }
        }
    default:
        print("no floor for \(arguments[3])")
        exit(2)
    }
case "byhand":
    // A message encoded by BenchData/ByHand.swift, for its instruction count.
    precondition(arguments[2] == "encode" && ["login", "chat", "units"].contains(arguments[3]), "usage: BenchProfile byhand encode login|chat|units [N]")
    switch arguments[3] {
    case "login":
        let login = SF.login
        for _ in 0..<iterations { consume(ByHand.encodeLogin(login)) }
    case "chat":
        let chat = SF.chat
        for _ in 0..<iterations { consume(ByHand.encodeChat(chat)) }
    default:
        let units = SF.units
        for _ in 0..<iterations { consume(ByHand.encodeUnits(units)) }
    }
case "frames":
    let size = FrameStream.payloadSizes.first { FrameStream.streamName(payloadSize: $0) == arguments[2] }!
    let stream = FrameStream(payloadSize: size)
    let destination = UnsafeMutableRawPointer.allocate(byteCount: stream.bytes.count, alignment: 64)
    var total = 0
    for _ in 0..<iterations { total &+= stream.run(arguments[3], destination: destination) }
    consume(total)
default:
    print("unknown group \(arguments[1])")
    exit(2)
}
