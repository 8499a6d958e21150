import Foundation
import SwiftFrame
import SwiftProtobuf

/// The benchmark names, shared by the benchmark targets and by BenchCheck (which reads one run's
/// results back and prints the table with ratios).
public let swiftProtobufVersion = SwiftProtobuf.Version.versionString

public enum Library: String, CaseIterable, Sendable {
    case swiftFrame = "SwiftFrame"
    case swiftProtobuf = "SwiftProtobuf"
}

public struct CodecCase: Sendable {
    /// `flat`, `login`, `repeated`, `map`, `depth1`, `depth8`, `depth32`, `chat`, `units`, `kinds`.
    public let name: String
    /// What the case is, for the table.
    public let title: String
    /// Operations per measured iteration (package-benchmark's scaling factor: 1 or 1000).
    public let opsPerIteration: Int
    /// Bytes on the wire (the same for both libraries).
    public let wireSize: Int

    public static func benchmarkName(_ operation: String, _ caseName: String, _ library: Library) -> String {
        "\(operation) \(caseName) \(library.rawValue)"
    }

    public static let depths = [1, 8, 32]

    public static let all: [CodecCase] = {
        var cases: [CodecCase] = []
        func add<P: SwiftProtobuf.Message>(_ name: String, _ title: String, _ ops: Int, _ pb: P, sf: [UInt8]) {
            let pbBytes: [UInt8] = try! pb.serializedBytes()
            // Map entries come out in different orders (SwiftFrame sorts them by key).
            if name == "map" || name == "kinds" {
                precondition(sf.count == pbBytes.count, "\(name): SwiftFrame and SwiftProtobuf encode different sizes")
            } else {
                precondition(sf == pbBytes, "\(name): SwiftFrame and SwiftProtobuf encode different bytes")
            }
            cases.append(CodecCase(name: name, title: title, opsPerIteration: ops, wireSize: pbBytes.count))
        }
        add("flat", "flat (uint32, int64, string, 64 B bytes, 16 × int32)", 1000, PB.flat, sf: try! SF.flat.serializedBytes())
        add("login", "IM login_request (6 strings, int32)", 1000, PB.login, sf: try! SF.login.serializedBytes())
        add("repeated", "1,000 packed int32 + 1,000 packed double + 100 strings", 1, PB.repeated,
            sf: try! SF.repeated.serializedBytes())
        // Map entries come out in different orders (SwiftFrame sorts by key), so the map is checked
        // by decoding each side's bytes with the other.
        let sfMap: [UInt8] = try! SF.map.serializedBytes()
        precondition(try! PBMap(serializedBytes: sfMap).counts == Values.counts)
        precondition(try! SFMap(serializedBytes: try! PB.map.serializedBytes() as [UInt8]).counts == Values.counts)
        add("map", "map<string, int32>, 100 entries", 1, PB.map, sf: sfMap)
        for depth in depths {
            add("depth\(depth)", "Node chain, depth \(depth), 5 leaves per level", depth == 1 ? 1000 : 1,
                PB.node(depth: depth), sf: try! SF.node(depth: depth).serializedBytes())
        }
        add("chat", "proto2 chat message (5 required strings, some not ASCII, 3 scalars)", 1000, PB.chat,
            sf: try! SF.chat.serializedBytes())
        add("units", "100 units (nested position, 12 + 6 int64 of varied magnitude)", 1, PB.units,
            sf: try! SF.units.serializedBytes())
        add("kinds", "every field kind, repeated, maps, oneof, 3 levels, varied values", 1, PB.kinds,
            sf: try! SF.kinds.serializedBytes())
        return cases
    }()
}
