import SwiftFrame
import Testing

/// The two code modes of the same .proto files must behave alike. A CODE_SIZE message differs
/// from the default (SPEED) one only in how it decodes, sizes and encodes itself: through its
/// field table (`CompactMessage`) instead of generated straight-line code. Its properties,
/// equality, hash, text format and JSON are the same code in both. So each input is decoded by
/// both messages and everything that can be observed of the result is compared; the suites that
/// check the default mode against protoc and protobuf's C++ runtime then speak for both.
public enum CodeModes {
    /// One message generated in both modes.
    public struct Pair: Sendable, CustomTestStringConvertible {
        /// The Swift name, the same in both modules.
        public let name: String
        public let speed: any FieldTableMessage.Type
        public let codeSize: any FieldTableMessage.Type
        public var testDescription: String { name }

        public init(name: String, speed: any FieldTableMessage.Type, codeSize: any FieldTableMessage.Type) {
            self.name = name
            self.speed = speed
            self.codeSize = codeSize
        }
    }

    /// Where one mode's generated code is checked in, and its module.
    public typealias Module = (folder: String, module: String)

    /// Every message of `speed`'s module with its twin in `codeSize`'s, by Swift name; a line for
    /// each message either module lacks.
    public static func pairs(speed: Module, codeSize: Module) throws -> (pairs: [Pair], problems: [String]) {
        let (fast, fastMissing) = try GeneratedMessages.find(folder: speed.folder, module: speed.module)
        let (small, smallMissing) = try GeneratedMessages.find(folder: codeSize.folder, module: codeSize.module)
        let twins = Dictionary(small.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        var problems = fastMissing + smallMissing
        let pairs = fast.compactMap { message -> Pair? in
            guard let twin = twins[message.name] else {
                problems.append("\(message.name): in \(speed.module), not in \(codeSize.module)")
                return nil
            }
            return Pair(name: message.name, speed: message.type, codeSize: twin)
        }
        let names = Set(fast.map(\.name))
        problems += small.filter { !names.contains($0.name) }.map {
            "\($0.name): in \(codeSize.module), not in \(speed.module)"
        }
        return (pairs, problems)
    }

    /// `seeds`, then each seed cut short at up to `cuts` places and changed in one byte in
    /// `changes` ways (the same every run): the truncated and corrupted inputs reach the
    /// decoders' error paths, which must fail alike.
    public static func inputs(_ seeds: [[UInt8]], cuts: Int = 16, changes: Int = 16) -> [[UInt8]] {
        var generator = SeededGenerator(seed: 0x5EED)
        var inputs = seeds
        let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x0B, 0x0C]
        for seed in seeds where !seed.isEmpty {
            let step = max(1, seed.count / cuts)
            for end in stride(from: 0, to: seed.count, by: step) { inputs.append(Array(seed[..<end])) }
            for _ in 0..<changes {
                var changed = seed
                let index = Int(generator.next() % UInt64(seed.count))
                let pick = generator.next()
                changed[index] =
                    pick & 1 == 0
                    ? interesting[Int((pick >> 1) % UInt64(interesting.count))] : UInt8(truncatingIfNeeded: pick >> 8)
                inputs.append(changed)
            }
        }
        return inputs
    }

    /// Nil when both modes of `pair` make the same of `bytes`; otherwise the first difference.
    public static func difference(_ pair: Pair, _ bytes: [UInt8]) -> String? {
        let speed = behaviour(pair.speed, bytes), codeSize = behaviour(pair.codeSize, bytes)
        guard speed != codeSize else { return nil }
        let line = zip(speed, codeSize).first { $0 != $1 } ?? (speed.last ?? "-", codeSize.last ?? "-")
        func cut(_ text: String) -> Substring { text.count > 400 ? text.prefix(400) + "..." : text[...] }
        return "\(pair.name), input \(cut(hex(bytes))):\n  SPEED:     \(cut(line.0))\n  CODE_SIZE: \(cut(line.1))"
    }

    /// What a message of type `M` makes of `bytes`, one line per thing observed.
    static func behaviour<M: Message>(_: M.Type, _ bytes: [UInt8]) -> [String] {
        func outcome(_ body: () throws -> String) -> String {
            do { return try body() } catch { return "throws \(error)" }
        }
        var lines = [
            "decode: " + outcome { try hex(M(serializedBytes: bytes).serializedBytes()) },
            "decode at depth 2: "
                + outcome {
                    try hex(M(serializedBytes: bytes, maxDepth: 2, partial: true).serializedBytes(partial: true))
                },
            "decode a slice: "
                + outcome {
                    try hex(M(serializedBytes: ([0xEE] + bytes)[1...], partial: true).serializedBytes(partial: true))
                },
        ]
        let message: M
        do {
            message = try M(serializedBytes: bytes, partial: true)
        } catch {
            return lines + ["partial decode: throws \(error)"]
        }
        let encoded = (try? message.serializedBytes(partial: true)) ?? []
        var merged = message
        lines += [
            "encode: " + hex(encoded),
            "size: \(message.serializedSize())",
            "initialized: "
                + outcome {
                    try message.checkInitialized(); return "yes"
                },
            "text: " + message.textFormatString(),
            "JSON: " + outcome { try message.jsonString() },
            "merged twice: "
                + outcome {
                    try merged.merge(serializedBytes: bytes); return try hex(merged.serializedBytes(partial: true))
                },
            "appended: "
                + outcome {
                    var out: [UInt8] = [0xEE]
                    try message.serialize(appendingTo: &out, partial: true)
                    return hex(out)
                },
            "equals its re-decoding: "
                + outcome {
                    let again = try M(serializedBytes: encoded, partial: true)
                    return "\(again == message) \(again.hashValue == message.hashValue)"
                },
        ]
        return lines
    }
}
