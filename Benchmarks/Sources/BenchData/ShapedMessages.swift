// Message shapes taken from real apps' protocols (Protos/bench_chat.proto, bench_units.proto,
// bench_kinds.proto), filled with varied values: strings of several lengths, some not ASCII,
// integers of every magnitude and sign. The SwiftFrame values are built here; SwiftProtobuf's
// are SwiftFrame's bytes decoded, so both sides hold the same content by construction.
import SwiftFrame
import SwiftFrameBenchMessages
import SwiftFrameCompactBenchMessages
import SwiftProtobuf
import SwiftProtobufBenchMessages

public typealias SFChat = SwiftFrameBenchMessages.Bench_ChatMessage
public typealias PBChat = SwiftProtobufBenchMessages.Bench_ChatMessage
public typealias SFUnits = SwiftFrameBenchMessages.Bench_UnitList
public typealias PBUnits = SwiftProtobufBenchMessages.Bench_UnitList
public typealias SFKinds = SwiftFrameBenchMessages.Bench_Kinds
public typealias PBKinds = SwiftProtobufBenchMessages.Bench_Kinds
public typealias SFCChat = SwiftFrameCompactBenchMessages.Bench_ChatMessage
public typealias SFCUnits = SwiftFrameCompactBenchMessages.Bench_UnitList
public typealias SFCKinds = SwiftFrameCompactBenchMessages.Bench_Kinds

/// The same values, made again for each message type from one seed.
struct Varied {
    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    /// The next 64 random bits (xorshift64*).
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// An integer of a random magnitude: 1 to 64 bits, negative half the time when `signed`.
    mutating func magnitude(signed: Bool) -> Int64 {
        let bits = 1 + below(63)
        let value = Int64(next() >> UInt64(64 - bits))
        return signed && next() & 1 == 0 ? -value : value
    }

    mutating func int32(signed: Bool = true) -> Int32 { Int32(truncatingIfNeeded: magnitude(signed: signed) >> 32) }

    private static let words = [
        "ok", "gg", "player", "guild", "副本", "今晚", "组队", "über", "café", "привет", "🎮", "boss",
        "potion", "raid", "ready", "好的", "さくら", "level", "wait", "✓",
    ]

    /// Words of `words` up to `limit` characters.
    mutating func text(_ limit: Int) -> String {
        var text = Self.words[below(Self.words.count)]
        while true {
            let word = Self.words[below(Self.words.count)]
            if text.count + 1 + word.count > limit { return text }
            text += " " + word
        }
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

extension Values {
    /// A chat message: five required strings of 5 to 40 characters.
    public static let chat = SFChat(
        msgId: "m-8f3a2c1d-00042", sender: "player_4711", receiver: "组队频道-华南-07",
        content: "今晚八点一起打副本吗？bring potions 🧪", clientTag: "ios-3.14.2",
        sentAt: 1_733_000_000_123, kind: 2, flags: 5
    )

    /// 100 units, each with its position and 12 stats and 6 buffs of varied magnitudes.
    public static let units: SFUnits = {
        var random = Varied(seed: 0x5eed_0001)
        let units = (0..<100).map { index in
            SwiftFrameBenchMessages.Bench_Unit(
                id: 1_000_000_000 + Int64(index) * 7919, kind: Int32(random.below(40)), name: random.text(16),
                position: .init(x: random.int32(), y: random.int32(), z: Int32(random.below(64))),
                stats: (0..<12).map { _ in random.magnitude(signed: true) }, level: UInt32(random.below(120)),
                buffs: (0..<6).map { _ in random.magnitude(signed: false) }, alive: random.below(4) != 0
            )
        }
        return SFUnits(units: units, version: 88_123)
    }()

    /// Every kind of field: the top message with 60 values in each repeated field, 30 entries in
    /// each map and 20 children, each child with its own scalars, short repeated fields and a
    /// grandchild.
    public static let kinds: SFKinds = {
        var random = Varied(seed: 0x5eed_0002)
        func filled(repeats: Int, children: Int, depth: Int) -> SFKinds {
            var m = SFKinds()
            m.fInt32 = random.int32()
            m.fInt64 = random.magnitude(signed: true)
            m.fUint32 = UInt32(truncatingIfNeeded: random.magnitude(signed: false) >> 32)
            m.fUint64 = UInt64(random.magnitude(signed: false))
            m.fSint32 = random.int32()
            m.fSint64 = random.magnitude(signed: true)
            m.fFixed32 = UInt32(truncatingIfNeeded: random.next())
            m.fFixed64 = random.next()
            m.fSfixed32 = random.int32()
            m.fSfixed64 = random.magnitude(signed: true)
            m.fFloat = Float(random.int32()) / 1024
            m.fDouble = Double(random.magnitude(signed: true)) / 1e6
            m.fBool = random.below(2) == 0
            m.fString = random.text(40)
            m.fBytes = random.bytes(random.below(48))
            m.fColor = SwiftFrameBenchMessages.Bench_Color(rawValue: Int32(random.below(4)))
            m.rInt32 = (0..<repeats).map { _ in random.int32() }
            m.rInt64 = (0..<repeats).map { _ in random.magnitude(signed: true) }
            m.rUint32 = (0..<repeats).map { _ in UInt32(truncatingIfNeeded: random.magnitude(signed: false) >> 32) }
            m.rUint64 = (0..<repeats).map { _ in UInt64(random.magnitude(signed: false)) }
            m.rSint32 = (0..<repeats).map { _ in random.int32() }
            m.rSint64 = (0..<repeats).map { _ in random.magnitude(signed: true) }
            m.rFixed32 = (0..<repeats).map { _ in UInt32(truncatingIfNeeded: random.next()) }
            m.rFixed64 = (0..<repeats).map { _ in random.next() }
            m.rSfixed32 = (0..<repeats).map { _ in random.int32() }
            m.rSfixed64 = (0..<repeats).map { _ in random.magnitude(signed: true) }
            m.rFloat = (0..<repeats).map { _ in Float(random.int32()) / 64 }
            m.rDouble = (0..<repeats).map { _ in Double(random.magnitude(signed: true)) / 1e3 }
            m.rBool = (0..<repeats).map { _ in random.below(2) == 0 }
            m.rString = (0..<repeats / 4).map { _ in random.text(5 + random.below(36)) }
            m.rBytes = (0..<repeats / 8).map { _ in random.bytes(random.below(32)) }
            m.rColor = (0..<repeats / 2).map { _ in SwiftFrameBenchMessages.Bench_Color(rawValue: Int32(random.below(4))) }
            m.choice = [.oUint32(UInt32(random.below(1 << 20))), .oString(random.text(24))][random.below(2)]
            if depth > 0 {
                m.fChild = filled(repeats: 2, children: 0, depth: depth - 1)
                m.rChild = (0..<children).map { _ in filled(repeats: 6, children: 0, depth: depth - 1) }
            }
            return m
        }
        var top = filled(repeats: 60, children: 20, depth: 2)
        for index in 0..<30 {
            top.mStringInt64["key-\(index)-\(random.text(10))"] = random.magnitude(signed: true)
            top.mInt32String[random.int32()] = random.text(30)
        }
        for index in 0..<10 { top.mStringKinds["child-\(index)"] = filled(repeats: 4, children: 0, depth: 0) }
        return top
    }()
}

extension SF {
    public static var chat: SFChat { Values.chat }
    public static var units: SFUnits { Values.units }
    public static var kinds: SFKinds { Values.kinds }
}

extension SFC {
    public static let chat = try! SFCChat(serializedBytes: Values.chat.serializedBytes())
    public static let units = try! SFCUnits(serializedBytes: Values.units.serializedBytes())
    public static let kinds = try! SFCKinds(serializedBytes: Values.kinds.serializedBytes())
}

extension PB {
    public static let chat = try! PBChat(serializedBytes: Values.chat.serializedBytes())
    public static let units = try! PBUnits(serializedBytes: Values.units.serializedBytes())
    public static let kinds = try! PBKinds(serializedBytes: Values.kinds.serializedBytes())
}
