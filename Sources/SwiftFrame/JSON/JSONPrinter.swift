#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

extension Message {
    /// The message in proto3's canonical JSON mapping, on one line: fields by their JSON name
    /// in number order, 64-bit integers as strings, enums by name, bytes in base64, floats
    /// with `"NaN"` and `"Infinity"`, the well-known types in their own forms; unknown fields
    /// are left out. Throws for a message that has no JSON form (a Timestamp out of range...).
    public func jsonString(options: JSONOptions = JSONOptions()) throws(JSONError) -> String {
        try printedJSON(options: options) { $0.string }
    }

    /// The message in JSON, as UTF-8 (see `jsonString(options:)`).
    public func jsonUTF8Bytes(options: JSONOptions = JSONOptions()) throws(JSONError) -> [UInt8] {
        try printedJSON(options: options) { $0.bytes }
    }

    private func printedJSON<Result>(options: JSONOptions, _ result: (borrowing ByteOutput) -> Result) throws(JSONError)
        -> Result
    {
        // The encoding with its maps of scalars already printed (see `JSONMapText`).
        var printedMaps: [[UInt8]] = []
        let bytes = withUnsafeMutablePointer(to: &printedMaps) { printedMaps in
            var writer = ProtoWriter(sizes: SizeCache(printingMapsInto: printedMaps))
            let size = computeSize(into: &writer.sizes)
            var bytes: [UInt8] = []
            append(size: size, by: &writer, to: &bytes)
            return bytes
        }
        // Printed without building the path of every value; a failure (rare) is printed again
        // with paths, so that its error names where it happened.
        var printer = JSONPrinter(options: options, tracksPath: false, capacity: 2 * bytes.count + 16)
        printer.mapsPrinted = true
        if let failure = printer.print(Self.self, bytes) {
            var tracking = JSONPrinter(options: options, tracksPath: true)
            tracking.mapsPrinted = true
            throw tracking.print(Self.self, bytes) ?? failure
        }
        return result(printer.output)
    }
}

/// Prints JSON by walking a message's encoding with its `JSONSchema`, as the text format's
/// printer walks it with the message's `textFormatFields`.
struct JSONPrinter: JSONPathTracking, ~Copyable {
    var output: ByteOutput
    let options: JSONOptions
    /// Whether paths (`$.user.login`) are built for errors; see `jsonUTF8Bytes(options:)`.
    let tracksPath: Bool
    /// Whether the encoding being printed holds maps of scalars as their JSON objects, as
    /// `jsonString()` encodes a message (`JSONMapText`): never inside an Any's value, which
    /// holds bytes as they came.
    var mapsPrinted = false

    init(options: JSONOptions, tracksPath: Bool, capacity: Int = 64) {
        self.options = options
        self.tracksPath = tracksPath
        output = ByteOutput(capacity: capacity)
    }

    /// Prints a message of `type` from its encoding; the error, if it has no JSON form.
    mutating func print(_ type: any Message.Type, _ bytes: [UInt8]) -> JSONError? {
        // withUnsafeBytes rethrows untyped errors: the error comes out as a value.
        bytes.withUnsafeBytes { buffer in
            do throws(JSONError) {
                try message(type, buffer, path: "$")
                return nil
            } catch {
                return error
            }
        }
    }

    /// One value of a field as it lies on the wire.
    enum Raw {
        case varint(UInt64)
        case fixed32(UInt32)
        case fixed64(UInt64)
        case bytes(UnsafeRawBufferPointer)
        /// A repeated field's packed run, whole (only from `FieldValues` asked for runs).
        case packed(UnsafeRawBufferPointer)
    }

    static func fail(_ path: String, _ message: String) -> JSONError {
        JSONError(.unrepresentable, path: path, offset: 0, message)
    }

    static func unparsed(_ path: String, _ error: WireError) -> JSONError {
        fail(path, "the message's encoding does not parse: \(error)")
    }

    /// Whether an enum is google.protobuf.NullValue, printed as `null`.
    static func isNullValue(_ names: [(number: Int32, name: String)]) -> Bool {
        names.count == 1 && names[0].number == 0 && names[0].name == "NULL_VALUE"
    }

    /// The values of each known field of an encoded message, by index in the schema (for the
    /// well-known types); left out as by `collectInOrder`.
    static func collect(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) -> [Int:
        [Raw]]
    {
        var values: [Int: [Raw]] = [:]
        for (field, raw) in try collectInOrder(schema.fields, buffer, path: path) {
            values[field, default: []].append(raw)
        }
        return values
    }

    /// The values of the known fields of an encoding, one at a time in wire order. Packed runs
    /// are taken apart; values of another wire type, and closed-enum numbers the enum lacks,
    /// are unknown fields: left out.
    /// Where `printFields` takes the values of a message's known fields from, one at a time.
    protocol FieldValueSource {
        mutating func next() throws(JSONError) -> (field: Int, raw: Raw)?
    }

    /// The values `collectInOrder` put in order, with only the last of a singular field (the
    /// one that wins).
    struct CollectedValues: FieldValueSource {
        private let values: [(field: Int, raw: Raw)]
        private let fields: [JSONField]
        private var position = 0

        init(_ values: [(field: Int, raw: Raw)], _ fields: [JSONField]) {
            (self.values, self.fields) = (values, fields)
        }

        mutating func next() -> (field: Int, raw: Raw)? {
            while position < values.count {
                let value = values[position]
                position += 1
                if fields[value.field].isRepeated || position == values.count || values[position].field != value.field {
                    return value
                }
            }
            return nil
        }
    }

    struct FieldValues: FieldValueSource {
        let fields: [JSONField]
        private var reader: ProtoReader
        /// The rest of a packed run, and its field.
        private var run = ProtoReader(buffer: UnsafeRawBufferPointer(start: nil, count: 0))
        private var runField = 0
        private var runWireType = WireType.varint
        private let path: String
        /// Whether a repeated field's packed run is handed over whole (`.packed`), for the
        /// printer to print in one loop, rather than one value at a time.
        private let givesRuns: Bool
        /// The field of the value read last (0 before the first).
        private var lastIndex = 0

        init(_ fields: [JSONField], _ buffer: UnsafeRawBufferPointer, path: String, givesRuns: Bool = false) {
            self.fields = fields
            reader = ProtoReader(buffer: buffer)
            self.path = path
            self.givesRuns = givesRuns
        }

        mutating func next() throws(JSONError) -> (field: Int, raw: Raw)? {
            do throws(WireError) {
                return try read()
            } catch {
                throw JSONPrinter.unparsed(path, error)
            }
        }

        private mutating func read() throws(WireError) -> (field: Int, raw: Raw)? {
            if run.hasRemaining {
                switch runWireType {
                case .varint: return (runField, .varint(try run.readVarint()))
                case .fixed32: return (runField, .fixed32(try run.readFixed32()))
                default: return (runField, .fixed64(try run.readFixed64()))
                }
            }
            while reader.hasRemaining {
                let tag = try reader.readTag()
                let number = Int32(bitPattern: tag >> 3)
                guard let index = index(numbered: number) else {
                    try reader.skipValue(tag: tag)
                    continue
                }
                lastIndex = index
                let expected = fields[index].wireType
                switch UInt8(tag & 7) {
                case expected.rawValue where expected == .varint:
                    let value = try reader.readVarint()
                    if fields[index].isClosedEnumeration, !Self.declares(fields[index].kind, value) { continue }
                    return (index, .varint(value))
                case expected.rawValue where expected == .fixed32:
                    return (index, .fixed32(try reader.readFixed32()))
                case expected.rawValue where expected == .fixed64:
                    return (index, .fixed64(try reader.readFixed64()))
                case expected.rawValue where expected == .lengthDelimited:
                    return (index, .bytes(try reader.readDelimitedBuffer()))
                case expected.rawValue where expected == .startGroup:
                    return (index, .bytes(try reader.readGroupBuffer(fieldNumber: tag >> 3)))
                case WireType.lengthDelimited.rawValue
                where expected != .startGroup && givesRuns && fields[index].isRepeated:
                    let body = try reader.readDelimitedBuffer()
                    if !body.isEmpty { return (index, .packed(body)) }
                case WireType.lengthDelimited.rawValue where expected != .startGroup:
                    run = ProtoReader(buffer: try reader.readDelimitedBuffer())
                    (runField, runWireType) = (index, expected)
                    if let value = try read() { return value }
                default:
                    try reader.skipValue(tag: tag)
                }
            }
            return nil
        }

        /// The field numbered `number`: the last one found or the one after it (fields come in
        /// order, a repeated field's values together), else by binary search.
        private func index(numbered number: Int32) -> Int? {
            if lastIndex < fields.count && fields[lastIndex].number == number { return lastIndex }
            let next = lastIndex + 1
            if next < fields.count && fields[next].number == number { return next }
            return SwiftFrame.index(numbered: number, in: fields, number: \.number)
        }

        /// Whether a closed enum declares the number `value`.
        private static func declares(_ kind: TextFormatKind, _ value: UInt64) -> Bool {
            guard case .closedEnumeration(let names) = kind else { return true }
            return TextFormatKind.name(of: Int32(truncatingIfNeeded: value), in: names) != nil
        }
    }

    /// The values of the known fields of an encoded message, grouped by field in schema order
    /// and in wire order within a field: one array for the whole message.
    static func collectInOrder(_ fields: [JSONField], _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError)
        -> [(field: Int, raw: Raw)]
    {
        var values: [(field: Int, raw: Raw)] = []
        var inOrder = true
        var reader = FieldValues(fields, buffer, path: path)
        while let value = try reader.next() {
            if let last = values.last, last.field > value.field { inOrder = false }
            values.append(value)
        }
        if !inOrder {
            // Stable: values of one field keep their wire order (the last of a singular field wins).
            let order = values.indices.sorted { (values[$0].field, $0) < (values[$1].field, $1) }
            values = order.map { values[$0] }
        }
        return values
    }

    mutating func message(_ type: any Message.Type, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) {
        if type.fieldNamesLeftOut { throw JSONError.namesLeftOut(type, path: path, offset: 0) }
        let schema = JSONSchema.of(type)
        if try wellKnown(schema, buffer, path: path) { return }
        output.append(UInt8(ascii: "{"))
        var first = true
        try fields(schema, buffer, path: path, first: &first)
        output.append(UInt8(ascii: "}"))
    }

    /// The members of a message's object, without its braces: printed as the encoding gives
    /// them when its fields come in schema order, a field's values together and no singular
    /// field twice (as this runtime writes them); otherwise, or when that turns out not to
    /// hold part way, from the values collected and put in order first.
    mutating func fields(
        _ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String,
        first: inout Bool
    ) throws(JSONError) {
        let all = schema.fields(with: options.registry)
        let (mark, wasFirst) = (output.count, first)
        var inWireOrder = FieldValues(all, buffer, path: path, givesRuns: true)
        if try printFields(all, &inWireOrder, path: path, first: &first) { return }
        output.truncate(to: mark)
        first = wasFirst
        var collected = CollectedValues(try Self.collectInOrder(all, buffer, path: path), all)
        _ = try printFields(all, &collected, path: path, first: &first)  // in order, no singular field twice: all of it
    }

    /// The fields printed as `values` gives them; false, with part of them printed, when a
    /// field comes out of schema order, a repeated field's values are not together, or a
    /// singular field comes twice.
    private mutating func printFields(
        _ all: [JSONField], _ values: inout some FieldValueSource, path: String,
        first: inout Bool
    ) throws(JSONError) -> Bool {
        var current = -1
        var count = 0  // values of the current field printed (or, for a map, collected)
        var isMap = false, isRepeated = false, kind = TextFormatKind.bool  // of the current field
        var entries: [Raw] = []
        while let (index, raw) = try values.next() {
            if index != current {
                guard index > current else { return false }
                try end(current, count: count, entries: &entries, all, path: path, first: &first)
                for skipped in (current + 1)..<index { try absent(all[skipped], path: path, first: &first) }
                (current, count) = (index, 0)
                kind = all[index].kind
                if case .map = kind { isMap = true } else { isMap = false }
                isRepeated = all[index].isRepeated
                if !isMap {
                    member(options.useProtoFieldNames ? all[index].protoMember : all[index].jsonMember, first: &first)
                }
                if isRepeated && !isMap { output.append(UInt8(ascii: "[")) }
            } else if !isRepeated {
                return false  // a singular field twice: the last wins
            }
            if isMap {
                entries.append(raw)
            } else if case let .packed(run) = raw {
                count = try packed(run, all[index], after: count, path: path)
                continue
            } else if isRepeated {
                if count > 0 { output.append(UInt8(ascii: ",")) }
                try value(kind, raw, path: self.path(path, "." + name(of: all[index]) + "[\(count)]"))
            } else {
                try value(kind, raw, path: self.path(path, "." + name(of: all[index])))
            }
            count += 1
        }
        try end(current, count: count, entries: &entries, all, path: path, first: &first)
        for skipped in (current + 1)..<all.count { try absent(all[skipped], path: path, first: &first) }
        return true
    }

    /// The values of a packed run of `field`, after the `count` printed before them; the count
    /// with them. The most common kinds have a loop of their own.
    private mutating func packed(
        _ run: UnsafeRawBufferPointer, _ field: JSONField, after count: Int,
        path: String
    ) throws(JSONError) -> Int {
        var reader = ProtoReader(buffer: run)
        var count = count
        do throws(WireError) {
            switch field.kind {
            case .int32:
                while reader.hasRemaining {
                    if count > 0 { output.append(UInt8(ascii: ",")) }
                    decimal(Int64(Int32(truncatingIfNeeded: try reader.readVarint())))
                    count += 1
                }
                return count
            case .double where field.wireType == .fixed64:
                while reader.hasRemaining {
                    if count > 0 { output.append(UInt8(ascii: ",")) }
                    double(Double(bitPattern: try reader.readFixed64()))
                    count += 1
                }
                return count
            default:
                break
            }
        } catch {
            throw Self.unparsed(path, error)
        }
        while reader.hasRemaining {
            let raw: Raw
            do throws(WireError) {
                raw = try Self.read(field.wireType, from: &reader)
            } catch {
                throw Self.unparsed(path, error)
            }
            if count > 0 { output.append(UInt8(ascii: ",")) }
            try value(field.kind, raw, path: self.path(path, "." + name(of: field) + "[\(count)]"))
            count += 1
        }
        return count
    }

    /// Closes the field at `index` (none when -1) after `count` values.
    private mutating func end(
        _ index: Int, count: Int, entries: inout [Raw], _ all: [JSONField], path: String,
        first: inout Bool
    ) throws(JSONError) {
        guard index >= 0 else { return }
        let field = all[index]
        if case let .map(keyKind, valueKind) = field.kind {
            member(options.useProtoFieldNames ? field.protoMember : field.jsonMember, first: &first)
            try printMap(entries, key: keyKind, value: valueKind, path: self.path(path, "." + name(of: field)))
            entries.removeAll(keepingCapacity: true)
        } else if field.isRepeated {
            output.append(UInt8(ascii: "]"))
        }
    }

    /// A field the encoding does not hold: its default value when the options ask for them.
    private mutating func absent(_ field: JSONField, path: String, first: inout Bool) throws(JSONError) {
        guard options.emitDefaultValues, !field.hasPresence else { return }
        member(options.useProtoFieldNames ? field.protoMember : field.jsonMember, first: &first)
        if case .map = field.kind {
            append("{}")
        } else if field.isRepeated {
            append("[]")
        } else {
            try value(field.kind, Self.zero(field.kind), path: self.path(path, "." + name(of: field)))
        }
    }

    private func name(of field: JSONField) -> String {
        options.useProtoFieldNames ? field.protoName : field.jsonName
    }

    /// Appends ASCII text that needs no escaping.
    mutating func append(_ text: StaticString) {
        output.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A field's name before its value, as worked out once per field (`JSONField.jsonMember`).
    mutating func member(_ printed: [UInt8], first: inout Bool) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        printed.withUnsafeBufferPointer { output.append($0) }
    }

    /// `name` as a member's name: quoted, escaped, then `:`.
    static func member(_ name: String) -> [UInt8] {
        var printer = JSONPrinter(options: JSONOptions(), tracksPath: false)
        var first = true
        printer.key(name, first: &first)
        return printer.output.bytes
    }

    mutating func key(_ name: String, first: inout Bool) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        output.append(UInt8(ascii: ":"))
    }

    static func zero(_ kind: TextFormatKind) -> Raw {
        zero(kind.wireType)
    }

    static func zero(_ wireType: WireType) -> Raw {
        switch wireType {
        case .fixed32: return .fixed32(0)
        case .fixed64: return .fixed64(0)
        case .lengthDelimited: return .bytes(UnsafeRawBufferPointer(start: nil, count: 0))
        default: return .varint(0)
        }
    }

    /// A map's entries as one object: printed as they come while each key is greater than the
    /// one before (as this runtime writes maps, so no key repeats); otherwise again from the
    /// start, a later entry of a key replacing an earlier one in its place.
    mutating func printMap(
        _ raws: some Collection<Raw>, key keyKind: TextFormatKind, value valueKind: TextFormatKind,
        path: String
    ) throws(JSONError) {
        if mapsPrinted, raws.count == 1, case let .bytes(object)? = raws.first, object.first == UInt8(ascii: "{") {
            // A map entry's encoding starts with a tag, never with this byte.
            output.append(object.bindMemory(to: UInt8.self))
            return
        }
        let wire = (key: keyKind.wireType, value: valueKind.wireType)
        let mark = output.count
        output.append(UInt8(ascii: "{"))
        var previous: Raw?
        var increasing = true
        for raw in raws {
            guard case let .bytes(body) = raw else { continue }
            let entry = try Self.entry(body, wire, path: path)
            if let previous, !Self.ascending(previous, entry.key) {
                increasing = false
                break
            }
            try printEntry(entry, first: previous == nil, key: keyKind, value: valueKind, path: path)
            previous = entry.key
        }
        if increasing {
            output.append(UInt8(ascii: "}"))
            return
        }
        output.truncate(to: mark)
        var entries: [(key: Raw, value: Raw)] = []
        entries.reserveCapacity(raws.count)
        for raw in raws {
            guard case let .bytes(body) = raw else { continue }
            entries.append(try Self.entry(body, wire, path: path))
        }
        output.append(UInt8(ascii: "{"))
        for (position, entry) in lastOfEachKey(entries, keyKind).enumerated() {
            try printEntry(entry, first: position == 0, key: keyKind, value: valueKind, path: path)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// A map entry's key and value, each its type's zero when the entry leaves it out.
    private static func entry(
        _ body: UnsafeRawBufferPointer, _ wire: (key: WireType, value: WireType),
        path: String
    ) throws(JSONError) -> (key: Raw, value: Raw) {
        let keyTag = 1 << 3 | UInt32(wire.key.rawValue)
        let valueTag = 2 << 3 | UInt32(wire.value.rawValue)
        var reader = ProtoReader(buffer: body)
        do throws(WireError) {
            // As written here and by protobuf's runtimes: the key, then the value, and no more.
            var quick = reader
            if quick.hasRemaining, try quick.readTag() == keyTag {
                let key = try read(wire.key, from: &quick)
                if quick.hasRemaining, try quick.readTag() == valueTag {
                    let value = try read(wire.value, from: &quick)
                    if !quick.hasRemaining { return (key, value) }
                }
            }
        } catch {
            // Read again below, which names the error.
        }
        var key = zero(wire.key)
        var value = zero(wire.value)
        do throws(WireError) {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                if tag == keyTag {
                    key = try read(wire.key, from: &reader)
                } else if tag == valueTag {
                    value = try read(wire.value, from: &reader)
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
        } catch {
            throw fail(path, "a map entry's encoding does not parse: \(error)")
        }
        return (key, value)
    }

    private mutating func printEntry(
        _ entry: (key: Raw, value: Raw), first: Bool, key keyKind: TextFormatKind,
        value valueKind: TextFormatKind, path: String
    ) throws(JSONError) {
        if !first { output.append(UInt8(ascii: ",")) }
        if case let .bytes(bytes) = entry.key {
            string(bytes)
        } else {
            output.append(UInt8(ascii: "\""))
            if case let .varint(flag) = entry.key, case .bool = keyKind {
                flag != 0 ? append("true") : append("false")
            } else {
                integer(keyKind, entry.key)
            }
            output.append(UInt8(ascii: "\""))
        }
        output.append(UInt8(ascii: ":"))
        try value(valueKind, entry.value, path: self.path(path, "[\"" + keyText(keyKind, entry.key) + "\"]"))
    }

    /// One value of a wire type.
    private static func read(_ wireType: WireType, from reader: inout ProtoReader) throws(WireError) -> Raw {
        switch wireType {
        case .varint: return .varint(try reader.readVarint())
        case .fixed32: return .fixed32(try reader.readFixed32())
        case .fixed64: return .fixed64(try reader.readFixed64())
        default: return .bytes(try reader.readDelimitedBuffer())
        }
    }

    /// Whether key `b` is greater than key `a` (bytes compared as bytes, numbers as their wire
    /// value): in a run of such keys none repeats.
    private static func ascending(_ a: Raw, _ b: Raw) -> Bool {
        switch (a, b) {
        case let (.varint(a), .varint(b)), let (.fixed64(a), .fixed64(b)):
            return a < b
        case let (.fixed32(a), .fixed32(b)):
            return a < b
        case let (.bytes(a), .bytes(b)):
            let common = Swift.min(a.count, b.count)
            let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
            return order < 0 || (order == 0 && a.count < b.count)
        default:
            return false
        }
    }

    /// The entries with the last value of each key, at the place the key first appeared.
    private func lastOfEachKey(_ entries: [(key: Raw, value: Raw)], _ keyKind: TextFormatKind) -> [(
        key: Raw, value: Raw
    )] {
        var kept: [(key: Raw, value: Raw)] = []
        var positions: [String: Int] = [:]
        for entry in entries {
            let text = keyText(keyKind, entry.key)
            if let position = positions[text] {
                kept[position].value = entry.value
            } else {
                positions[text] = kept.count
                kept.append(entry)
            }
        }
        return kept
    }

    /// A map key as its JSON member name: the key's value, a number unquoted.
    private func keyText(_ kind: TextFormatKind, _ raw: Raw) -> String {
        var scratch = JSONPrinter(options: options, tracksPath: false)
        switch (kind, raw) {
        case (.bool, .varint(let flag)): return flag != 0 ? "true" : "false"
        case (.string, .bytes(let bytes)): return String(decoding: bytes, as: UTF8.self)
        default: scratch.integer(kind, raw)
        }
        return scratch.output.string
    }

    mutating func value(_ kind: TextFormatKind, _ raw: Raw, path: String) throws(JSONError) {
        switch (kind, raw) {
        case (.string, .bytes(let bytes)):
            string(bytes)
        case (.bytes, .bytes(let bytes)):
            base64(bytes)
        case (.enumeration(let names), .varint(let value)), (.closedEnumeration(let names), .varint(let value)):
            let number = Int32(truncatingIfNeeded: value)
            if Self.isNullValue(names) {
                append("null")
            } else if let name = TextFormatKind.name(of: number, in: names) {
                string(name)
            } else {
                decimal(Int64(number))
            }
        case (.message(let type), .bytes(let body)), (.group(let type), .bytes(let body)):
            try message(type, body, path: path)
        case (.schemaMessage, _), (.schemaGroup, _):
            throw Self.fail(path, "a message whose schema is data has no JSON form here")
        case (.int64, _), (.uint64, _), (.sint64, _), (.fixed64, _), (.sfixed64, _):
            output.append(UInt8(ascii: "\""))
            integer(kind, raw)
            output.append(UInt8(ascii: "\""))
        case (.int32, _), (.uint32, _), (.sint32, _), (.fixed32, _), (.sfixed32, _):
            integer(kind, raw)
        case (.bool, .varint(let value)): value != 0 ? append("true") : append("false")
        case (.float, .fixed32(let value)):
            float(Float(bitPattern: value))
        case (.double, .fixed64(let value)):
            double(Double(bitPattern: value))
        default:
            output.append(UInt8(ascii: "0"))
        }
    }

    /// Bytes as a JSON string in base64.
    mutating func base64(_ bytes: UnsafeRawBufferPointer) {
        output.append(UInt8(ascii: "\""))
        let count = Base64.encodedCount(bytes.count)
        Base64.encode(bytes, to: output.room(count))
        output.advance(by: count)
        output.append(UInt8(ascii: "\""))
    }

    /// An integer kind's value, unquoted (`0` for a value of another wire type, which the
    /// collecting left out).
    mutating func integer(_ kind: TextFormatKind, _ raw: Raw) {
        switch (kind, raw) {
        case (.int32, .varint(let value)): decimal(Int64(Int32(truncatingIfNeeded: value)))
        case (.int64, .varint(let value)): decimal(Int64(bitPattern: value))
        case (.uint32, .varint(let value)): decimal(UInt64(UInt32(truncatingIfNeeded: value)))
        case (.uint64, .varint(let value)): decimal(value)
        case (.sint32, .varint(let value)): decimal(Int64(Wire.unZigZag(UInt32(truncatingIfNeeded: value))))
        case (.sint64, .varint(let value)): decimal(Wire.unZigZag(value))
        case (.fixed32, .fixed32(let value)): decimal(UInt64(value))
        case (.sfixed32, .fixed32(let value)): decimal(Int64(Int32(bitPattern: value)))
        case (.fixed64, .fixed64(let value)): decimal(value)
        case (.sfixed64, .fixed64(let value)): decimal(Int64(bitPattern: value))
        default: output.append(UInt8(ascii: "0"))
        }
    }

    mutating func decimal(_ value: Int64) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    /// Digits written straight into the output (no String made on the way), two at a time.
    mutating func decimal(_ value: UInt64) {
        if value < 10 {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        let digits = Self.digitCount(value)
        let target = output.room(digits)
        let pairs = Self.digitPairs.utf8Start
        var rest = value
        var index = digits
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index -= 2
            target[index] = pairs[pair]
            target[index + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) &* 2
            target[0] = pairs[pair]
            target[1] = pairs[pair + 1]
        } else {
            target[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        output.advance(by: digits)
    }

    /// How many decimal digits `value` has: the count its bit length suggests (log10 2 is
    /// about 1233 / 4096), one more when it reaches the next power of ten.
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        let guess = ((64 &- value.leadingZeroBitCount) &* 1233) &>> 12
        return value >= powerOfTen(guess) ? guess &+ 1 : Swift.max(guess, 1)
    }

    /// 10^exponent, for exponent 0...19 (a switch the compiler makes a table of).
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }

    /// "00" to "99", for `decimal`.
    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """

    /// A double in its shortest form, as `floating` prints it: by `ShortDecimal` when it has
    /// few digits after its point, otherwise by the standard library.
    mutating func double(_ value: Double) {
        guard let (digits, fractionDigits) = ShortDecimal.digits(of: value) else { return floating(value) }
        let count = Self.digitCount(digits)
        // "0" before the point when every digit comes after it.
        let integerDigits = Swift.max(count - fractionDigits, 1)
        let length = (value < 0 ? 1 : 0) + integerDigits + (fractionDigits > 0 ? 1 + fractionDigits : 0)
        let target = output.room(length)
        if value < 0 { target[0] = UInt8(ascii: "-") }
        // From the last digit back; the digits run out into the zeros after the point.
        var index = length
        var rest = digits
        if fractionDigits > 0 {
            for _ in 0..<fractionDigits {
                index -= 1
                target[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            index -= 1
            target[index] = UInt8(ascii: ".")
        }
        repeat {
            index -= 1
            target[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        output.advance(by: length)
    }

    mutating func float(_ value: Float) {
        floating(value)
    }

    /// A float in its shortest form (`description`) without a trailing `.0`; NaN and the
    /// infinities as strings.
    private mutating func floating<Value: BinaryFloatingPoint & TextOutputStreamable & CustomStringConvertible>(
        _ value: Value
    ) {
        if value.isNaN { return append("\"NaN\"") }
        if value.isInfinite { return value < 0 ? append("\"-Infinity\"") : append("\"Infinity\"") }
        // The text `description` gives, written into the output without a String made for it.
        var text = ASCIIText(into: output.room(ASCIIText.capacity))
        value.write(to: &text)
        guard !text.overflowed else {
            var shortest = value.description
            return shortest.withUTF8 { output.append($0) }
        }
        let count = text.count
        let integral =
            count >= 2 && text.target[count - 2] == UInt8(ascii: ".") && text.target[count - 1] == UInt8(ascii: "0")
        output.advance(by: integral ? count - 2 : count)
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\n` or `\u00XX`.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if !copiedPlain(utf8) { escaped(utf8) }
        }
    }

    /// A string field's bytes from the wire as a JSON string. Bytes that are not UTF-8 (a
    /// message inside an Any's value is not checked when it is set) print as U+FFFD, as
    /// `String(decoding:as:)` repairs them.
    mutating func string(_ bytes: UnsafeRawBufferPointer) {
        let utf8 = bytes.bindMemory(to: UInt8.self)
        if copiedPlain(utf8) { return }
        if utf8.allSatisfy({ $0 < 0x80 }) {
            escaped(utf8)
        } else {
            string(String(decoding: utf8, as: UTF8.self))
        }
    }

    /// Most strings are printable ASCII with no quote or backslash: copied whole, in quotes.
    /// False, with nothing written, for any other.
    private mutating func copiedPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        // Checked and copied in one pass; counted as written only when all of it is plain.
        let target = output.room(utf8.count + 2)
        target[0] = UInt8(ascii: "\"")
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte &- 0x20 < 0x60, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
            target[index &+ 1] = byte
        }
        target[utf8.count + 1] = UInt8(ascii: "\"")
        output.advance(by: utf8.count + 2)
        return true
    }

    /// UTF-8 in quotes: runs of bytes that need no escape are copied whole.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                let hex: StaticString = "0123456789abcdef"
                append("\\u00")
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 15)])
            }
        }
        output.append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
        output.append(UInt8(ascii: "\""))
    }
}

/// Where a float writes its text (`write(to:)` hands its ASCII over as it is, where
/// `description` makes a String of it): memory `JSONPrinter.floating` reserved in its output.
private struct ASCIIText: TextOutputStream {
    /// More than the longest text of a Double (24 characters).
    static let capacity = 40
    let target: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var overflowed = false

    init(into target: UnsafeMutablePointer<UInt8>) {
        self.target = target
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard count + buffer.count <= Self.capacity else {
            overflowed = true
            return
        }
        for index in buffer.indices { target[count + index] = buffer[index] }
        count += buffer.count
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }
}
