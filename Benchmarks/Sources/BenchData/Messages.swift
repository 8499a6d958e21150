// The values every codec benchmark encodes and decodes, built once from the same plain data for
// both libraries, so both sides handle exactly the same bytes (checked by `CodecCase.all`).
import Foundation
import SwiftFrame
import SwiftFrameBenchMessages
import SwiftFrameCompactBenchMessages
import SwiftProtobuf
import SwiftProtobufBenchMessages

// The two generated modules declare the same type names; these aliases keep them apart.
public typealias SFFlat = SwiftFrameBenchMessages.Bench_Flat
public typealias PBFlat = SwiftProtobufBenchMessages.Bench_Flat
public typealias SFLogin = SwiftFrameBenchMessages.Bench_LoginRequest
public typealias PBLogin = SwiftProtobufBenchMessages.Bench_login_request
public typealias SFRepeated = SwiftFrameBenchMessages.Bench_RepeatedHeavy
public typealias PBRepeated = SwiftProtobufBenchMessages.Bench_RepeatedHeavy
public typealias SFNode = SwiftFrameBenchMessages.Bench_Node
public typealias PBNode = SwiftProtobufBenchMessages.Bench_Node
public typealias SFLeaf = SwiftFrameBenchMessages.Bench_Leaf
public typealias PBLeaf = SwiftProtobufBenchMessages.Bench_Leaf
public typealias PBMap = SwiftProtobufBenchMessages.Bench_MapHeavy
public typealias SFMap = SwiftFrameBenchMessages.Bench_MapHeavy
// The same messages generated with optimize_for = CODE_SIZE.
public typealias SFCFlat = SwiftFrameCompactBenchMessages.Bench_Flat
public typealias SFCLogin = SwiftFrameCompactBenchMessages.Bench_LoginRequest
public typealias SFCRepeated = SwiftFrameCompactBenchMessages.Bench_RepeatedHeavy
public typealias SFCMap = SwiftFrameCompactBenchMessages.Bench_MapHeavy

/// Plain values, shared by both libraries.
public enum Values {
    public static let flatID: UInt32 = 123_456
    public static let flatTimestamp: Int64 = 1_700_000_000_123
    public static let flatName = "swiftframe-benchmark"
    public static let flatPayload: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    public static let flatSamples: [Int32] = [0, 1, 7, 42, 99, 127, 128, 255, 300, 1000, 4096, 9999, 12345, 16383, 16384, 65535]

    public static let login = (
        nickName: "neo", pwd: "correct horse battery staple", ip: "192.168.100.200", port: Int32(8080),
        deviceName: "iPhone 15 Pro", deviceID: "5D9A3F7E-1C2B-4E8D-9F00-6A7B8C9D0E1F", version: "3.14.2"
    )

    public static let ints: [Int32] = (0..<1000).map { Int32(($0 &* 7919) % 300_000) }
    public static let doubles: [Double] = (0..<1000).map { Double($0) * 1.5 + 0.25 }
    public static let names: [String] = (0..<100).map { "name-\($0)-of-a-hundred" }
    /// Names of the rows that time `repeated`'s fields one at a time (`SF.repeatedParts`).
    public static let repeatedParts = ["repeated: ints only", "repeated: doubles only", "repeated: names only"]

    public static let counts: [String: Int32] = Dictionary(uniqueKeysWithValues: (0..<100).map { ("key-\($0)", Int32($0 &* 37)) })

    /// Leaves of level `level`: 5 per level.
    public static func leaves(_ level: Int) -> [(id: Int32, label: String, weight: Double)] {
        (0..<5).map { (Int32(level * 5 + $0), "leaf-\(level)-\($0)", Double(level) + Double($0) * 0.125) }
    }
}

// MARK: - SwiftFrame values

public enum SF {
    public static let flat = SFFlat(
        id: Values.flatID, timestamp: Values.flatTimestamp, name: Values.flatName,
        payload: Values.flatPayload, samples: Values.flatSamples
    )
    public static let login = SFLogin(
        nickName: Values.login.nickName, pwd: Values.login.pwd, ip: Values.login.ip, port: Values.login.port,
        deviceName: Values.login.deviceName, deviceId: Values.login.deviceID, version: Values.login.version
    )
    public static let repeated = SFRepeated(ints: Values.ints, doubles: Values.doubles, names: Values.names)
    /// `repeated` with one of its three fields each (`Values.repeatedParts`), to see what each costs.
    public static let repeatedParts = [
        SFRepeated(ints: Values.ints), SFRepeated(doubles: Values.doubles), SFRepeated(names: Values.names),
    ]
    public static let map = SFMap(counts: Values.counts)

    /// A chain of `depth` nodes (levels 1...depth), each with 5 leaves.
    public static func node(depth: Int, level: Int = 1) -> SFNode {
        SFNode(
            depth: Int32(level),
            leaves: Values.leaves(level).map { SFLeaf(id: $0.id, label: $0.label, weight: $0.weight) },
            children: level < depth ? [node(depth: depth, level: level + 1)] : []
        )
    }
}

// MARK: - SwiftFrame values, the edition 2023 copies

/// The proto3 messages' edition 2023 copies (Protos/bench_editions.proto), with the same values:
/// the same bytes on the wire.
public enum SFE {
    public typealias Flat = SwiftFrameBenchMessages.Bench_Editions_Flat
    public typealias Login = SwiftFrameBenchMessages.Bench_Editions_LoginRequest
    public typealias Repeated = SwiftFrameBenchMessages.Bench_Editions_RepeatedHeavy
    public typealias Node = SwiftFrameBenchMessages.Bench_Editions_Node
    public typealias Leaf = SwiftFrameBenchMessages.Bench_Editions_Leaf

    public static let flat = Flat(
        id: Values.flatID, timestamp: Values.flatTimestamp, name: Values.flatName,
        payload: Values.flatPayload, samples: Values.flatSamples
    )
    public static let login = Login(
        nickName: Values.login.nickName, pwd: Values.login.pwd, ip: Values.login.ip, port: Values.login.port,
        deviceName: Values.login.deviceName, deviceId: Values.login.deviceID, version: Values.login.version
    )
    public static let repeated = Repeated(ints: Values.ints, doubles: Values.doubles, names: Values.names)

    public static func node(depth: Int, level: Int = 1) -> Node {
        Node(
            depth: Int32(level),
            leaves: Values.leaves(level).map { Leaf(id: $0.id, label: $0.label, weight: $0.weight) },
            children: level < depth ? [node(depth: depth, level: level + 1)] : []
        )
    }
}

// MARK: - SwiftFrame values, CODE_SIZE mode

public enum SFC {
    public static let flat = SFCFlat(
        id: Values.flatID, timestamp: Values.flatTimestamp, name: Values.flatName,
        payload: Values.flatPayload, samples: Values.flatSamples
    )
    public static let login = SFCLogin(
        nickName: Values.login.nickName, pwd: Values.login.pwd, ip: Values.login.ip, port: Values.login.port,
        deviceName: Values.login.deviceName, deviceId: Values.login.deviceID, version: Values.login.version
    )
    public static let repeated = SFCRepeated(ints: Values.ints, doubles: Values.doubles, names: Values.names)
    public static let map = SFCMap(counts: Values.counts)
}

// MARK: - SwiftProtobuf values

public enum PB {
    public static let flat = PBFlat.with {
        $0.id = Values.flatID
        $0.timestamp = Values.flatTimestamp
        $0.name = Values.flatName
        $0.payload = Data(Values.flatPayload)
        $0.samples = Values.flatSamples
    }
    public static let login = PBLogin.with {
        $0.nickName = Values.login.nickName
        $0.pwd = Values.login.pwd
        $0.ip = Values.login.ip
        $0.port = Values.login.port
        $0.deviceName = Values.login.deviceName
        $0.deviceID = Values.login.deviceID
        $0.version = Values.login.version
    }
    public static let repeated = PBRepeated.with {
        $0.ints = Values.ints
        $0.doubles = Values.doubles
        $0.names = Values.names
    }
    public static let repeatedParts = [
        PBRepeated.with { $0.ints = Values.ints }, PBRepeated.with { $0.doubles = Values.doubles },
        PBRepeated.with { $0.names = Values.names },
    ]
    public static let map = PBMap.with { $0.counts = Values.counts }

    public static func node(depth: Int, level: Int = 1) -> PBNode {
        PBNode.with {
            $0.depth = Int32(level)
            $0.leaves = Values.leaves(level).map { leaf in
                PBLeaf.with {
                    $0.id = leaf.id
                    $0.label = leaf.label
                    $0.weight = leaf.weight
                }
            }
            $0.children = level < depth ? [node(depth: depth, level: level + 1)] : []
        }
    }
}
