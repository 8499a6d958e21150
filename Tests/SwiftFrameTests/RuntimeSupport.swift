// Shared helpers and hand-written Message conformers for the runtime tests.
//
// The messages below are written exactly as the generator's output calls the runtime:
// a `while reader.hasRemaining { switch tag { ... default: skipField } }` decode loop, a size
// pass through `SizeCache`, and a write pass through `ProtoWriter`.

@testable import SwiftFrame
import TestSupport

// MARK: Reader and writer harnesses

/// Runs `body` on a reader over `bytes` and returns its result; the reader's typed error
/// comes out typed.
func withReader<T>(
    _ bytes: [UInt8],
    maxDepth: Int = ProtoReader.defaultMaxDepth,
    _ body: (inout ProtoReader) throws(WireError) -> T
) throws(WireError) -> T {
    let result: Result<T, WireError> = bytes.withUnsafeBytes { buffer in
        var reader = ProtoReader(buffer: buffer, maxDepth: maxDepth)
        do throws(WireError) {
            return .success(try body(&reader))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}

/// The bytes `body` writes into a zeroed buffer of `capacity` bytes (measured from how far
/// the writer moved, not assumed).
func written(
    capacity: Int = 64,
    sizes: consuming SizeCache = SizeCache(),
    _ body: (inout ProtoWriter) -> Void
) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: capacity)
    var writer = ProtoWriter(sizes: sizes)
    let used = bytes.withUnsafeMutableBytes { buffer in
        writer.retarget(buffer)
        body(&writer)
        return capacity - writer.remaining
    }
    return Array(bytes.prefix(used))
}

/// Decodes `bytes` as `M`, returning the error instead of throwing (for `#expect(==)`).
func decodeError<M: Message>(_: M.Type, _ bytes: [UInt8], maxDepth: Int = ProtoReader.defaultMaxDepth) -> WireError? {
    do throws(WireError) {
        _ = try M(serializedBytes: bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

// MARK: Independent reference encoding (test-side only, never the code under test; `varint`
// and the other builders are TestSupport's)

/// A length-delimited field: one-byte tag, varint length, payload.
func referenceField(tag: UInt8, _ payload: [UInt8]) -> [UInt8] {
    [tag] + varint(UInt64(payload.count)) + payload
}

// MARK: Test enum

/// An open enum as the generator emits it.
enum Color: Enum {
    case unset
    case red
    case green
    case unrecognized(Int32)

    init() { self = .unset }

    init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unset
        case 1: self = .red
        case 2: self = .green
        default: self = .unrecognized(rawValue)
        }
    }

    var rawValue: Int32 {
        switch self {
        case .unset: 0
        case .red: 1
        case .green: 2
        case let .unrecognized(number): number
        }
    }

    static let allCases: [Color] = [.unset, .red, .green]
}

// MARK: Node: a self-recursive message

/// ```proto
/// message Node {
///   int32 value = 1;
///   Node child = 2;
///   repeated Node children = 3;
///   string name = 4;
///   repeated int32 numbers = 5;        // packed
///   repeated fixed32 fixed_numbers = 6; // packed
///   bytes data = 7;
///   repeated sfixed64 wide = 8;        // packed
/// }
/// ```
struct Node: Message {
    static let protoMessageName = "swiftframe.test.Node"

    var value: Int32 = 0
    /// The optional `child`, boxed so the struct can contain itself (as the generator does).
    private var _child: Boxed<Node>? = nil
    var children: [Node] = []
    var name: String = ""
    var numbers: [Int32] = []
    var fixedNumbers: [UInt32] = []
    var data: [UInt8] = []
    var wide: [Int64] = []
    var unknownFields = UnknownFields()

    init() {}

    var child: Node? {
        get { _child?.value }
        set { _child = newValue.map(Boxed.init) }
    }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 8: value = try reader.readVarint(ProtoInt32.self)
            case 18: try reader.readMessage(into: &child)
            case 26: try reader.readMessage(appendingTo: &children)
            case 34: name = try reader.readString()
            case 40: numbers.append(try reader.readVarint(ProtoInt32.self))
            case 42: try reader.readPackedVarint(into: &numbers, ProtoInt32.self)
            case 53: fixedNumbers.append(try reader.readFixed32(ProtoFixed32.self))
            case 50: try reader.readPackedFixed32(into: &fixedNumbers, ProtoFixed32.self)
            case 58: data = try reader.readBytes()
            case 65: wide.append(try reader.readFixed64(ProtoSFixed64.self))
            case 66: try reader.readPackedFixed64(into: &wide, ProtoSFixed64.self)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        var size = 0
        if value != 0 { size += 1 + ProtoInt32.size(value) }
        if let child { size += 1 + cache.message(child) }
        for element in children { size += 1 + cache.message(element) }
        if !name.isEmpty { size += 1 + Wire.lengthDelimitedSize(name.utf8.count) }
        if !numbers.isEmpty { size += 1 + cache.packedVarint(numbers, ProtoInt32.self) }
        if !fixedNumbers.isEmpty { size += 1 + Wire.lengthDelimitedSize(fixedNumbers.count * 4) }
        if !data.isEmpty { size += 1 + Wire.lengthDelimitedSize(data.count) }
        if !wide.isEmpty { size += 1 + Wire.lengthDelimitedSize(wide.count * 8) }
        size += unknownFields.count
        return size
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if value != 0 {
            writer.writeTag(8)
            writer.writeVarint(ProtoInt32.self, value)
        }
        if let child {
            writer.writeTag(18)
            writer.writeMessage(child)
        }
        for element in children {
            writer.writeTag(26)
            writer.writeMessage(element)
        }
        if !name.isEmpty {
            writer.writeTag(34)
            writer.writeString(name)
        }
        if !numbers.isEmpty {
            writer.writeTag(42)
            writer.writePackedVarint(numbers, ProtoInt32.self)
        }
        if !fixedNumbers.isEmpty {
            writer.writeTag(50)
            writer.writePackedFixed32(fixedNumbers, ProtoFixed32.self)
        }
        if !data.isEmpty {
            writer.writeTag(58)
            writer.writeBytes(data)
        }
        if !wide.isEmpty {
            writer.writeTag(66)
            writer.writePackedFixed64(wide, ProtoSFixed64.self)
        }
        writer.writeUnknownFields(unknownFields)
    }
}

// MARK: Scalars: one field of every scalar type

/// ```proto
/// message Scalars {
///   int32 i32 = 1;  int64 i64 = 2;  uint32 u32 = 3;  uint64 u64 = 4;
///   sint32 s32 = 5; sint64 s64 = 6; bool flag = 7;   Color color = 8;
///   fixed32 f32 = 9; sfixed32 sf32 = 10; float float = 11;
///   fixed64 f64 = 12; sfixed64 sf64 = 13; double double = 14;
/// }
/// ```
struct Scalars: Message {
    static let protoMessageName = "swiftframe.test.Scalars"

    var i32: Int32 = 0
    var i64: Int64 = 0
    var u32: UInt32 = 0
    var u64: UInt64 = 0
    var s32: Int32 = 0
    var s64: Int64 = 0
    var flag = false
    var color = Color()
    var f32: UInt32 = 0
    var sf32: Int32 = 0
    var float: Float = 0
    var f64: UInt64 = 0
    var sf64: Int64 = 0
    var double: Double = 0
    var unknownFields = UnknownFields()

    init() {}

    // Synthesized == would compare floats by value (NaN != NaN); compare bits instead.
    static func == (lhs: Scalars, rhs: Scalars) -> Bool {
        lhs.i32 == rhs.i32 && lhs.i64 == rhs.i64 && lhs.u32 == rhs.u32 && lhs.u64 == rhs.u64
            && lhs.s32 == rhs.s32 && lhs.s64 == rhs.s64 && lhs.flag == rhs.flag
            && lhs.color == rhs.color && lhs.f32 == rhs.f32 && lhs.sf32 == rhs.sf32
            && lhs.float.bitPattern == rhs.float.bitPattern && lhs.f64 == rhs.f64
            && lhs.sf64 == rhs.sf64 && lhs.double.bitPattern == rhs.double.bitPattern
            && lhs.unknownFields == rhs.unknownFields
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(i64)
        hasher.combine(float.bitPattern)
        hasher.combine(double.bitPattern)
    }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 8: i32 = try reader.readVarint(ProtoInt32.self)
            case 16: i64 = try reader.readVarint(ProtoInt64.self)
            case 24: u32 = try reader.readVarint(ProtoUInt32.self)
            case 32: u64 = try reader.readVarint(ProtoUInt64.self)
            case 40: s32 = try reader.readVarint(ProtoSInt32.self)
            case 48: s64 = try reader.readVarint(ProtoSInt64.self)
            case 56: flag = try reader.readVarint(ProtoBool.self)
            case 64: color = try reader.readVarint(ProtoEnum<Color>.self)
            case 77: f32 = try reader.readFixed32(ProtoFixed32.self)
            case 85: sf32 = try reader.readFixed32(ProtoSFixed32.self)
            case 93: float = try reader.readFixed32(ProtoFloat.self)
            case 97: f64 = try reader.readFixed64(ProtoFixed64.self)
            case 105: sf64 = try reader.readFixed64(ProtoSFixed64.self)
            case 113: double = try reader.readFixed64(ProtoDouble.self)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        var size = 0
        if i32 != 0 { size += 1 + ProtoInt32.size(i32) }
        if i64 != 0 { size += 1 + ProtoInt64.size(i64) }
        if u32 != 0 { size += 1 + ProtoUInt32.size(u32) }
        if u64 != 0 { size += 1 + ProtoUInt64.size(u64) }
        if s32 != 0 { size += 1 + ProtoSInt32.size(s32) }
        if s64 != 0 { size += 1 + ProtoSInt64.size(s64) }
        if flag { size += 1 + ProtoBool.size(flag) }
        if color.rawValue != 0 { size += 1 + ProtoEnum<Color>.size(color) }
        if f32 != 0 { size += 5 }
        if sf32 != 0 { size += 5 }
        if float.bitPattern != 0 { size += 5 }
        if f64 != 0 { size += 9 }
        if sf64 != 0 { size += 9 }
        if double.bitPattern != 0 { size += 9 }
        size += unknownFields.count
        return size
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if i32 != 0 { writer.writeTag(8); writer.writeVarint(ProtoInt32.self, i32) }
        if i64 != 0 { writer.writeTag(16); writer.writeVarint(ProtoInt64.self, i64) }
        if u32 != 0 { writer.writeTag(24); writer.writeVarint(ProtoUInt32.self, u32) }
        if u64 != 0 { writer.writeTag(32); writer.writeVarint(ProtoUInt64.self, u64) }
        if s32 != 0 { writer.writeTag(40); writer.writeVarint(ProtoSInt32.self, s32) }
        if s64 != 0 { writer.writeTag(48); writer.writeVarint(ProtoSInt64.self, s64) }
        if flag { writer.writeTag(56); writer.writeVarint(ProtoBool.self, flag) }
        if color.rawValue != 0 { writer.writeTag(64); writer.writeVarint(ProtoEnum<Color>.self, color) }
        if f32 != 0 { writer.writeTag(77); writer.writeFixed32(ProtoFixed32.self, f32) }
        if sf32 != 0 { writer.writeTag(85); writer.writeFixed32(ProtoSFixed32.self, sf32) }
        if float.bitPattern != 0 { writer.writeTag(93); writer.writeFixed32(ProtoFloat.self, float) }
        if f64 != 0 { writer.writeTag(97); writer.writeFixed64(ProtoFixed64.self, f64) }
        if sf64 != 0 { writer.writeTag(105); writer.writeFixed64(ProtoSFixed64.self, sf64) }
        if double.bitPattern != 0 { writer.writeTag(113); writer.writeFixed64(ProtoDouble.self, double) }
        writer.writeUnknownFields(unknownFields)
    }
}
