/// A packet header described as data: the fields in wire order, each with an explicit width,
/// byte order and signedness, plus the largest frame accepted and what to do with a bad header.
///
/// `FrameDecoder` cuts a byte stream into frames with it and `FrameEncoder` writes frames with
/// it, so no hand-written byte shuffling is needed for any header of this shape:
///
///     fixed-width fields (magic, command, sequence, type, extras) and exactly one length
///     field (fixed width or varint), in any order, followed by the payload.
///
/// # Text form
///
/// A layout can also be written as text (`init(description:)`), and `description` prints the
/// canonical text that parses back to an equal layout:
///
///     magic:u8=0x81 seq:u32 type:u8:known=1,2,3,4 length:u16:body max=65543
///     magic:u32=0xFF length:u32:cmd+body cmd:u32 resync=4096
///     length:u32le:body
///
/// The grammar (whitespace is spaces, tabs and line breaks; `#` starts a comment that runs to
/// the end of the line; numbers are decimal or `0x` hexadecimal):
///
///     layout   = item { whitespace item }
///     item     = field | setting
///     field    = role ":" type [ "=" number ] { ":" option }
///     role     = "magic" | "length" | "cmd" | "seq" | "type" | "extra." name
///     name     = ( letter | "_" ) { letter | digit | "_" }
///     type     = ( "u" | "i" ) ( "8" | "16" | "32" | "64" ) [ "be" | "le" ] | "varint"
///     option   = span | "adj=" [ "+" | "-" ] number | "known=" number { "," number }
///     span     = "body" | "cmd+body" | "after" | "frame"
///     setting  = "max=" number | "resync=" number
///
/// - Fields appear in wire order. Big-endian is the default; `le` selects little-endian.
///   `i` (signed) is only allowed for a length; `varint` (protobuf base-128) only for a length.
/// - `magic` needs its value (`magic:u32=0xFF`); no other field takes `=`.
/// - `length` needs exactly one span: what the length counts. `body`: the payload only;
///   `cmd+body`: the command field and the payload; `after`: every byte after the length field;
///   `frame`: the whole frame, header included. `adj=N` (default 0) is added to that count on
///   the wire: `wire value = counted bytes + N`.
/// - `type` may list the values it accepts (`known=1,2,3,4`); any other value is an error.
///   Without `known=` every value is accepted.
/// - `cmd` is 1, 2 or 4 bytes; `extra.NAME` fields are carried in `FrameHeader.extras[NAME]`.
/// - `max=N`: the largest frame in bytes, header included (default 16777216).
/// - `resync=N`: after a bad header, skip at most N bytes looking for the next magic instead
///   of failing for good (needs a magic field).
public struct FrameLayout: Sendable, Hashable, CustomStringConvertible {
    public enum ByteOrder: Sendable, Hashable {
        case bigEndian
        case littleEndian
    }

    /// What a length field counts.
    public enum LengthSpan: Sendable, Hashable {
        /// The payload only.
        case body
        /// The command field and the payload.
        case commandAndBody
        /// Every byte after the length field itself.
        case afterLength
        /// The whole frame, header included.
        case wholeFrame
    }

    public enum FieldKind: Sendable, Hashable {
        /// A constant the decoder checks.
        case magic(UInt64)
        /// The frame's length; the wire value is the counted bytes plus `adjustment`.
        case length(span: LengthSpan, adjustment: Int)
        /// The command id (`FrameHeader.command`).
        case command
        /// A sequence number (`FrameHeader.sequence`).
        case sequence
        /// A message type (`FrameHeader.type`); values outside `known` are rejected, and an
        /// empty `known` accepts any value.
        case type(known: [UInt64])
        /// Any other integer field, carried in `FrameHeader.extras[name]`.
        case extra(name: String)
    }

    /// One header field.
    public struct Field: Sendable, Hashable, CustomStringConvertible {
        public var kind: FieldKind
        /// 1, 2, 4 or 8 bytes; 0 means a varint (length only).
        public var width: Int
        public var byteOrder: ByteOrder
        /// Two's complement (length only); a negative value is an error.
        public var isSigned: Bool

        /// A field. The byte order of a one-byte field or a varint is meaningless and is stored
        /// as `.bigEndian`, so equal fields compare equal.
        public init(kind: FieldKind, width: Int, byteOrder: ByteOrder = .bigEndian, isSigned: Bool = false) {
            self.kind = kind
            self.width = width
            self.byteOrder = width > 1 ? byteOrder : .bigEndian
            self.isSigned = isSigned
        }

        public static func magic(_ value: UInt64, width: Int, byteOrder: ByteOrder = .bigEndian) -> Field {
            Field(kind: .magic(value), width: width, byteOrder: byteOrder)
        }

        public static func length(
            width: Int, span: LengthSpan, adjustment: Int = 0, byteOrder: ByteOrder = .bigEndian, isSigned: Bool = false
        ) -> Field {
            Field(
                kind: .length(span: span, adjustment: adjustment), width: width, byteOrder: byteOrder,
                isSigned: isSigned)
        }

        public static func varintLength(span: LengthSpan, adjustment: Int = 0) -> Field {
            Field(kind: .length(span: span, adjustment: adjustment), width: 0)
        }

        public static func command(width: Int, byteOrder: ByteOrder = .bigEndian) -> Field {
            Field(kind: .command, width: width, byteOrder: byteOrder)
        }

        public static func sequence(width: Int, byteOrder: ByteOrder = .bigEndian) -> Field {
            Field(kind: .sequence, width: width, byteOrder: byteOrder)
        }

        public static func type(width: Int, known: [UInt64] = [], byteOrder: ByteOrder = .bigEndian) -> Field {
            Field(kind: .type(known: known), width: width, byteOrder: byteOrder)
        }

        public static func extra(_ name: String, width: Int, byteOrder: ByteOrder = .bigEndian) -> Field {
            Field(kind: .extra(name: name), width: width, byteOrder: byteOrder)
        }

        /// The field's name in the text form and in `swiftframe inspect` output:
        /// `magic`, `length`, `cmd`, `seq`, `type`, or the extra field's own name.
        public var name: String {
            switch kind {
            case .magic: "magic"
            case .length: "length"
            case .command: "cmd"
            case .sequence: "seq"
            case .type: "type"
            case let .extra(name): name
            }
        }

        /// The field in the text form, e.g. `length:u32le:body`.
        public var description: String { LayoutText.print(self) }
    }

    /// What the decoder does with a bad header (wrong magic, unknown type, impossible length).
    public enum BadHeaderPolicy: Sendable, Hashable {
        /// Throw the error, then keep throwing it: the stream is unusable.
        case fail
        /// Throw the error once, then look for the magic at each following byte, discarding
        /// at most `maxSkip` bytes (the bad header's first byte included), and go on decoding
        /// from there. Finding no magic in that window is an error that ends the stream.
        case resynchronize(maxSkip: Int)
    }

    /// The default largest frame: 16 MiB.
    public static let defaultMaxFrameSize = 16 << 20

    /// The header fields in wire order; the payload follows the last one.
    public var fields: [Field] { didSet { refreshPlan() } }
    /// The largest frame accepted or written, in bytes, header included. The decoder rejects
    /// a larger length as soon as it has read it, before any of the body arrives.
    public var maxFrameSize: Int { didSet { refreshPlan() } }
    public var badHeaderPolicy: BadHeaderPolicy { didSet { refreshPlan() } }

    /// The checked layout compiled for the decoder and encoder (made once, so making an
    /// encoder or decoder costs nothing); nil while the layout breaks a rule.
    @usableFromInline var plan: FramePlan?

    /// A checked layout.
    ///
    /// Rules: exactly one length field; at most one magic, command, sequence and type field;
    /// widths 1, 2, 4 or 8 (varint only for the length); a command is 1, 2 or 4 bytes; only a
    /// length can be signed; a magic value and known type values fit their width; extra names
    /// are identifiers, unique and not one of `magic length cmd seq type payload offset`; a
    /// `cmd+body` length needs a command field; a varint length cannot count the whole frame;
    /// `maxFrameSize` holds at least an empty frame; `.resynchronize` needs a magic field at a
    /// fixed position (no varint before it) and `maxSkip >= 1`.
    ///
    /// The properties stay settable; a layout changed into an invalid one traps when a
    /// decoder or encoder is made from it (`validate()` checks one).
    public init(
        fields: [Field], maxFrameSize: Int = FrameLayout.defaultMaxFrameSize, badHeaderPolicy: BadHeaderPolicy = .fail
    ) throws(FrameLayoutError) {
        self.fields = fields
        self.maxFrameSize = maxFrameSize
        self.badHeaderPolicy = badHeaderPolicy
        try validate()
        plan = FramePlan(self)
    }

    /// Only the three public properties count.
    public static func == (lhs: FrameLayout, rhs: FrameLayout) -> Bool {
        lhs.fields == rhs.fields && lhs.maxFrameSize == rhs.maxFrameSize && lhs.badHeaderPolicy == rhs.badHeaderPolicy
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(maxFrameSize)
        hasher.combine(badHeaderPolicy)
    }

    mutating func refreshPlan() {
        plan = LayoutRules.check(self) == nil ? FramePlan(self) : nil
    }

    /// The compiled layout; traps with the broken rule when the properties were changed into
    /// an invalid layout.
    @usableFromInline
    var checkedPlan: FramePlan {
        if let plan { return plan }
        fatalError("invalid frame layout \"\(self)\": \(LayoutRules.check(self)?.message ?? "")")
    }

    /// Parses the text form (see the type's documentation). Errors name the offending token
    /// and its line and column.
    public init(description: String) throws(FrameLayoutError) {
        self = try LayoutText.parse(description)
    }

    /// For text that is known to be valid (e.g. checked when code was generated): traps with
    /// the parse error otherwise.
    public init(checkedDescription: String) {
        do throws(FrameLayoutError) {
            self = try LayoutText.parse(checkedDescription)
        } catch {
            fatalError("invalid frame layout description \"\(checkedDescription)\": \(error)")
        }
    }

    /// Throws the first rule the layout breaks (see `init(fields:maxFrameSize:badHeaderPolicy:)`).
    public func validate() throws(FrameLayoutError) {
        if let problem = LayoutRules.check(self) {
            throw FrameLayoutError(problem.message)
        }
    }

    /// The canonical text form: fields in order, then `max=` when it is not the default and
    /// `resync=` when the policy is `.resynchronize`.
    public var description: String { LayoutText.print(self) }

    /// The header fields of a decoded (or about to be encoded) frame with their wire values,
    /// in header order: `magic` and `length` included, named as in `Field.name`. A field the
    /// header has no value for is left out.
    public func headerFields(of frame: Frame) -> [(name: String, value: UInt64)] {
        let lengthValue = checkedPlan.lengthWireValue(payloadCount: frame.payload.count)
        var result: [(name: String, value: UInt64)] = []
        result.reserveCapacity(fields.count)
        for field in fields {
            let value: UInt64?
            switch field.kind {
            case let .magic(magic): value = magic
            case .length: value = lengthValue.map { UInt64($0) }
            case .command: value = frame.header.command.map { UInt64($0) }
            case .sequence: value = frame.header.sequence
            case .type: value = frame.header.type
            case let .extra(name): value = frame.header.extras[name]
            }
            if let value { result.append((field.name, value)) }
        }
        return result
    }

    /// The header's sequence-number field, if it has one (a client numbers its requests in it
    /// and a server answers with the number it was sent).
    public var sequenceField: Field? {
        fields.first { $0.kind == .sequence }
    }

    /// The bytes of a frame with an empty payload, or nil for a varint length (whose size
    /// depends on the value).
    public var fixedHeaderSize: Int? {
        fields.contains { $0.width == 0 } ? nil : fields.reduce(0) { $0 + $1.width }
    }
}

// MARK: - Presets

extension FrameLayout {
    /// Game backend TCP frames and HTTP response bodies:
    /// `magic u32 = 0xFF | size u32 (command + body) | command u32 | body`.
    public static let gameTCP = preset([
        .magic(0xFF, width: 4), .length(width: 4, span: .commandAndBody), .command(width: 4),
    ])

    /// Game backend HTTP request bodies:
    /// `magic u32 = 0xFF | playerId u64 | sessionId u64 | size u32 (command + body) | command u32 | body`.
    public static let gameHTTPRequest = preset([
        .magic(0xFF, width: 4), .extra("playerId", width: 8), .extra("sessionId", width: 8),
        .length(width: 4, span: .commandAndBody), .command(width: 4),
    ])

    /// Erlang `{packet,4}`: `length u32 (bytes after itself) | protocol u16 | body`.
    public static let erlang = preset([.length(width: 4, span: .afterLength), .command(width: 2)])

    /// Erlang servers whose length counts the whole frame: `length u32 (frame) | protocol u16 | body`.
    public static let erlangTotal = preset([.length(width: 4, span: .wholeFrame), .command(width: 2)])

    /// IM system: `magic u8 = 0x81 | seq u32 | type u8 (1...4) | length u16 (body) | body`.
    /// The body takes 0...65535 bytes, so the largest frame is 8 + 65535 bytes.
    public static let im = preset(
        [
            .magic(0x81, width: 1), .sequence(width: 4), .type(width: 1, known: [1, 2, 3, 4]),
            .length(width: 2, span: .body),
        ],
        maxFrameSize: 8 + 65535
    )

    /// Plain little-endian length prefix: `length u32 LE | data`.
    public static let u32le = preset([.length(width: 4, span: .body, byteOrder: .littleEndian)])

    /// Protobuf delimited streams (Java `writeDelimitedTo`): `varint length | message`.
    public static let varint = preset([.varintLength(span: .body)])

    /// gRPC message prefix: `compressed u8 | length u32 | message`.
    public static let grpc = preset([.extra("compressed", width: 1), .length(width: 4, span: .body)])

    /// Go game servers: `length u16 (body) | id u16 | body`, big-endian.
    public static let u16u16 = preset([.length(width: 2, span: .body), .command(width: 2)])

    /// Go game servers: `length u16 (body) | id u16 | body`, little-endian.
    public static let u16u16LE = preset([
        .length(width: 2, span: .body, byteOrder: .littleEndian), .command(width: 2, byteOrder: .littleEndian),
    ])

    /// Go game servers: `id u32 | length u32 (body) | body`.
    public static let u32idU32len = preset([.command(width: 4), .length(width: 4, span: .body)])

    /// The preset names, in the order of `preset(named:)`'s documentation.
    public static let presetNames: [String] = [
        "game-tcp", "game-http-request", "erlang", "erlang-total", "im", "u32le", "varint", "grpc",
        "u16-u16", "u16-u16-le", "u32id-u32len",
    ]

    /// A preset by name: `game-tcp`, `game-http-request`, `erlang`, `erlang-total`, `im`,
    /// `u32le`, `varint`, `grpc`, `u16-u16`, `u16-u16-le`, `u32id-u32len`.
    public static func preset(named name: String) -> FrameLayout? {
        switch name {
        case "game-tcp": gameTCP
        case "game-http-request": gameHTTPRequest
        case "erlang": erlang
        case "erlang-total": erlangTotal
        case "im": im
        case "u32le": u32le
        case "varint": varint
        case "grpc": grpc
        case "u16-u16": u16u16
        case "u16-u16-le": u16u16LE
        case "u32id-u32len": u32idU32len
        default: nil
        }
    }

    private static func preset(_ fields: [Field], maxFrameSize: Int = defaultMaxFrameSize) -> FrameLayout {
        do throws(FrameLayoutError) {
            return try FrameLayout(fields: fields, maxFrameSize: maxFrameSize)
        } catch {
            fatalError("invalid preset: \(error)")
        }
    }
}

// MARK: - Rules

/// The checks behind `FrameLayout.validate()`, reporting which field or setting breaks a rule
/// so the text parser can name its token.
enum LayoutRules {
    enum Culprit: Equatable {
        case field(Int)
        case maxSetting
        case resyncSetting
    }

    struct Problem {
        var message: String
        var culprit: Culprit?
    }

    static let reservedNames: Set<String> = ["magic", "length", "cmd", "seq", "type", "payload", "offset"]
    static let adjustmentLimit = Int(Int32.max)

    static func check(_ layout: FrameLayout) -> Problem? {
        var seen: Set<String> = []
        var lengthIndex: Int?
        var hasCommand = false
        for (index, field) in layout.fields.enumerated() {
            func problem(_ message: String) -> Problem { Problem(message: message, culprit: .field(index)) }
            guard [0, 1, 2, 4, 8].contains(field.width) else {
                return problem("width \(field.width) is not 1, 2, 4 or 8 bytes")
            }
            var isLength = false
            if case .length = field.kind { isLength = true }
            if field.width == 0 && !isLength { return problem("only a length can be a varint") }
            if field.isSigned && !isLength { return problem("only a length can be signed") }
            if field.isSigned && field.width == 0 { return problem("a varint length cannot be signed") }
            let key: String
            switch field.kind {
            case let .magic(value):
                key = "magic"
                if !fits(value, width: field.width) {
                    return problem(
                        "magic 0x\(hex(value)) does not fit in \(field.width) byte\(field.width == 1 ? "" : "s")")
                }
            case let .length(span, adjustment):
                key = "length"
                lengthIndex = lengthIndex ?? index
                if span == .wholeFrame && field.width == 0 {
                    return problem("a varint length cannot count the whole frame (its own size depends on its value)")
                }
                if abs(adjustment) > adjustmentLimit {
                    return problem("adjustment \(adjustment) is out of range (at most \(adjustmentLimit) either way)")
                }
            case .command:
                key = "cmd"
                hasCommand = true
                guard [1, 2, 4].contains(field.width) else {
                    return problem("a command is 1, 2 or 4 bytes wide (it is a UInt32)")
                }
            case .sequence:
                key = "seq"
            case let .type(known):
                key = "type"
                var values: Set<UInt64> = []
                for value in known {
                    if !fits(value, width: field.width) {
                        return problem(
                            "known type \(value) does not fit in \(field.width) byte\(field.width == 1 ? "" : "s")")
                    }
                    if !values.insert(value).inserted { return problem("known type \(value) is listed twice") }
                }
            case let .extra(name):
                key = name
                if !isIdentifier(name) {
                    return problem(
                        "extra field name '\(name)' is not an identifier (letters, digits, _; not starting with a digit)"
                    )
                }
                if reservedNames.contains(name) {
                    return problem(
                        "extra field name '\(name)' is reserved (magic, length, cmd, seq, type, payload, offset)")
                }
            }
            if !seen.insert(key).inserted {
                return problem("a second \(key) field")
            }
        }
        guard let lengthIndex else {
            return Problem(message: "a layout needs exactly one length field", culprit: nil)
        }
        if case .length(.commandAndBody, _) = layout.fields[lengthIndex].kind, !hasCommand {
            return Problem(message: "a cmd+body length needs a cmd field", culprit: .field(lengthIndex))
        }
        let minimumFrame = layout.fields.reduce(0) { $0 + max($1.width, 1) }
        if layout.maxFrameSize < minimumFrame {
            return Problem(
                message: "max frame size \(layout.maxFrameSize) is smaller than an empty frame (\(minimumFrame) bytes)",
                culprit: .maxSetting
            )
        }
        if case let .resynchronize(maxSkip) = layout.badHeaderPolicy {
            if maxSkip < 1 {
                return Problem(
                    message: "resynchronizing needs a skip limit of at least 1 byte", culprit: .resyncSetting)
            }
            guard let magicIndex = layout.fields.firstIndex(where: { if case .magic = $0.kind { true } else { false } })
            else {
                return Problem(message: "resynchronizing needs a magic field to look for", culprit: .resyncSetting)
            }
            if layout.fields[..<magicIndex].contains(where: { $0.width == 0 }) {
                return Problem(
                    message: "resynchronizing needs the magic at a fixed position, not after a varint",
                    culprit: .resyncSetting
                )
            }
        }
        return nil
    }

    static func fits(_ value: UInt64, width: Int) -> Bool {
        width >= 8 || value >> UInt64(8 * width) == 0
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }

    static func hex(_ value: UInt64) -> String {
        String(value, radix: 16, uppercase: true)
    }
}
