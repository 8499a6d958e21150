/// Prints a message in protobuf's text format by walking its encoding with the message's
/// `textFormatFields`: the output is what `protoc --decode` prints for the same bytes.
/// Generated messages and messages whose schema is data (`DynamicMessageSchema`) print
/// through this one printer: a field of a generated message type finds its fields in the
/// type's `textFormatFields`, one of a schema read from data in the printer's `schemas`.
/// Fields come in the order they are encoded (by number, unknown fields last); a field the
/// table does not list prints by number as `protoc --decode_raw` prints it.
struct TextFormatPrinter {
    private var output = ""
    private let multiline: Bool
    /// Whether fields the table does not list are printed (by number).
    private var printUnknown = true
    private var indent = 0
    /// The schemas `.schemaMessage` and `.schemaGroup` fields refer to (nil for a generated message).
    private let schemas: TextFormatSchemaSet?
    /// The extensions printed by name.
    private let registry: MessageTypeRegistry?
    /// The first error that stopped the printing of some fields (noted in the output).
    private var firstError: WireError?

    /// How deep unknown length-delimited fields are tried as messages (protobuf's limit).
    private static let unknownRecursionBudget = 10

    private init(multiline: Bool, schemas: TextFormatSchemaSet?, registry: MessageTypeRegistry? = nil) {
        self.multiline = multiline
        self.schemas = schemas
        self.registry = registry
    }

    static func print<M: Message>(
        _ message: M, multiline: Bool, printUnknownFields: Bool = true, registry: MessageTypeRegistry? = nil
    ) -> String {
        var printer = TextFormatPrinter(multiline: multiline, schemas: nil, registry: registry)
        printer.printUnknown = printUnknownFields
        // Printing never fails for want of required fields: they are simply not printed.
        let bytes = (try? message.serializedBytes(partial: true)) ?? []
        let fields = TextFormatTable(M.self, registry: registry).fields
        bytes.withUnsafeBytes { buffer in
            printer.printFields(buffer, of: fields, budget: unknownRecursionBudget)
        }
        return printer.output
    }

    /// Prints `buffer` as the message at `index` of `schemas`; the error is the first that
    /// stopped the printing of some fields (at bytes that do not parse), which the text notes
    /// where it happened (`<unreadable: ...>`).
    static func print(
        _ buffer: UnsafeRawBufferPointer, message index: Int, of schemas: TextFormatSchemaSet,
        multiline: Bool
    ) -> (text: String, error: WireError?) {
        var printer = TextFormatPrinter(multiline: multiline, schemas: schemas)
        printer.printFields(buffer, of: schemas.messages[index].fields, budget: unknownRecursionBudget)
        return (printer.output, printer.firstError)
    }

    /// The fields of a message or group kind: a generated type's table, or a schema's, with
    /// the registry's extensions.
    private func fields(of kind: TextFormatKind) -> [TextFormatField] {
        TextFormatTable(kind: kind, schemas: schemas, registry: registry).fields
    }

    // MARK: Layout

    /// `name: value`
    private mutating func scalar(_ name: String, _ value: String) {
        start()
        output += name
        output += ": "
        output += value
        end()
    }

    /// `name {`, the body, `}`
    private mutating func nested(_ name: String, _ body: (inout TextFormatPrinter) -> Void) {
        start()
        output += name
        output += " {"
        end()
        indent += 1
        body(&self)
        indent -= 1
        start()
        output += "}"
        end()
    }

    private mutating func start() {
        if multiline {
            output += String(repeating: "  ", count: indent)
        } else if !output.isEmpty {
            output += " "
        }
    }

    private mutating func end() {
        if multiline { output += "\n" }
    }

    // MARK: Fields

    /// Prints every field encoded in `buffer`; stops with a note at bytes it cannot read
    /// (only possible for `UnknownFields` built by hand from arbitrary bytes).
    private mutating func printFields(_ buffer: UnsafeRawBufferPointer, of fields: [TextFormatField], budget: Int) {
        var reader = ProtoReader(buffer: buffer)
        do throws(WireError) {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                let number = Int32(bitPattern: tag >> 3)
                if let field = Self.field(number, in: fields) {
                    if try printKnown(field, tag: tag, from: &reader, budget: budget) { continue }
                }
                if printUnknown {
                    try printUnknown(number, tag: tag, from: &reader, budget: budget)
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
        } catch {
            if firstError == nil { firstError = error }
            start()
            output += "<unreadable: \(error)>"
            end()
        }
    }

    private static func field(_ number: Int32, in fields: [TextFormatField]) -> TextFormatField? {
        element(numbered: number, in: fields, number: \.number)
    }

    /// Prints a field the table lists; false (having read nothing) when its wire type is not
    /// the field's, so that it prints as the unknown field it was decoded as.
    private mutating func printKnown(
        _ field: TextFormatField, tag: UInt32, from reader: inout ProtoReader,
        budget: Int
    ) throws(WireError) -> Bool {
        let wireType = UInt8(tag & 7)
        switch field.kind {
        case .map(let key, let value):
            guard wireType == WireType.lengthDelimited.rawValue, !Self.holdsUndeclaredValue(reader, entryOf: value)
            else { return false }
            try printMap(field.name, key: key, value: value, tag: tag, from: &reader)
        case .message, .schemaMessage:
            guard wireType == WireType.lengthDelimited.rawValue else { return false }
            let body = try reader.readDelimitedBuffer()
            let fields = fields(of: field.kind)
            nested(field.name) { $0.printFields(body, of: fields, budget: budget) }
        case .group, .schemaGroup:
            guard wireType == WireType.startGroup.rawValue else { return false }
            let body = try reader.readGroupBuffer(fieldNumber: tag >> 3)
            let fields = fields(of: field.kind)
            nested(field.name) { $0.printFields(body, of: fields, budget: budget) }
        case .string, .bytes:
            guard wireType == WireType.lengthDelimited.rawValue else { return false }
            scalar(field.name, TextFormatEscapes.quoted(try reader.readDelimitedBuffer()))
        case .closedEnumeration(let names) where wireType == WireType.varint.rawValue:
            var copy = reader
            let number = Int32(truncatingIfNeeded: try copy.readVarint())
            guard let name = TextFormatKind.name(of: number, in: names) else { return false }
            reader = copy
            scalar(field.name, name)
        default:
            if wireType == field.kind.wireType.rawValue {
                scalar(field.name, try Self.value(of: field.kind, from: &reader))
            } else if wireType == WireType.lengthDelimited.rawValue, field.label == .repeated {
                // A packed run: one line per element. (A singular field is never packed: such
                // bytes were kept as an unknown field and print as one.)
                var run = ProtoReader(buffer: try reader.readDelimitedBuffer())
                while run.hasRemaining { scalar(field.name, try Self.value(of: field.kind, from: &run)) }
            } else {
                return false
            }
        }
        return true
    }

    /// Whether the map entry at the reader holds a closed-enum value its enum does not
    /// declare: decoding kept the whole entry as an unknown field (as protobuf's C++ runtime
    /// does), so it prints as one.
    private static func holdsUndeclaredValue(_ reader: ProtoReader, entryOf value: TextFormatKind) -> Bool {
        guard case .closedEnumeration(let names) = value else { return false }
        var copy = reader
        guard let body = try? copy.readDelimitedBuffer() else { return false }
        var entry = ProtoReader(buffer: body)
        var last: UInt64?  // the value decoding kept: the last one
        while entry.hasRemaining, let tag = try? entry.readTag() {
            if tag == UInt32(2 << 3) {
                guard let number = try? entry.readVarint() else { return false }
                last = number
            } else {
                guard (try? entry.skipValue(tag: tag)) != nil else { return false }
            }
        }
        return last.map { TextFormatKind.name(of: Int32(truncatingIfNeeded: $0), in: names) == nil } ?? false
    }

    /// Whether the entry after the reader (at its tag, `tag`) is one `holdsUndeclaredValue`
    /// describes: an unknown field, which may follow the map's last entry on the wire.
    private static func nextEntryHoldsUndeclaredValue(
        _ reader: ProtoReader, tag: UInt32,
        entryOf value: TextFormatKind
    ) -> Bool {
        var copy = reader
        guard (try? copy.readTag()) == tag else { return false }
        return holdsUndeclaredValue(copy, entryOf: value)
    }

    /// The entries of a map field that follow one another on the wire, each read once and
    /// sorted by key as protobuf prints them; an entry missing its key or value shows the default.
    private mutating func printMap(
        _ name: String, key: TextFormatKind, value: TextFormatKind, tag: UInt32,
        from reader: inout ProtoReader
    ) throws(WireError) {
        typealias Entry = (key: MapKey, value: String?, message: UnsafeRawBufferPointer?)
        var entries: [Entry] = []
        repeat {
            if !entries.isEmpty { _ = try reader.readTag() }
            var fields = ProtoReader(buffer: try reader.readDelimitedBuffer())
            var entry: Entry = (MapKey.defaultValue(of: key), nil, nil)
            while fields.hasRemaining {
                let entryTag = try fields.readTag()
                switch entryTag {
                case UInt32(1 << 3) | UInt32(key.wireType.rawValue):
                    entry.key = try MapKey.read(key, from: &fields)
                case UInt32(2 << 3) | UInt32(value.wireType.rawValue):
                    if value.isMessage {  // a map's value is never a group
                        entry.message = try fields.readDelimitedBuffer()
                    } else {
                        entry.value = try Self.text(of: value, from: &fields)
                    }
                default:
                    try fields.skipValue(tag: entryTag)
                }
            }
            entries.append(entry)
        } while reader.nextTagIs(tag) && !Self.nextEntryHoldsUndeclaredValue(reader, tag: tag, entryOf: value)
        entries.sort { $0.key < $1.key }
        let valueFields = value.isMessage ? fields(of: value) : []
        for entry in entries {
            nested(name) { printer in
                printer.scalar("key", entry.key.text)
                if value.isMessage {
                    let body = entry.message ?? UnsafeRawBufferPointer(start: nil, count: 0)
                    printer.nested("value") {
                        $0.printFields(body, of: valueFields, budget: Self.unknownRecursionBudget)
                    }
                } else {
                    printer.scalar("value", entry.value ?? Self.defaultText(value))
                }
            }
        }
    }

    /// A field the table does not list, as `protoc --decode_raw` prints it.
    private mutating func printUnknown(
        _ number: Int32, tag: UInt32, from reader: inout ProtoReader,
        budget: Int
    ) throws(WireError) {
        let name = String(UInt32(bitPattern: number))
        switch WireType(rawValue: UInt8(tag & 7)) {
        case .varint:
            scalar(name, String(try reader.readVarint()))
        case .fixed32:
            scalar(name, "0x" + Self.hex(UInt64(try reader.readFixed32()), digits: 8))
        case .fixed64:
            scalar(name, "0x" + Self.hex(try reader.readFixed64(), digits: 16))
        case .lengthDelimited:
            // Bytes that parse as fields are shown as a message, as protobuf guesses.
            let body = try reader.readDelimitedBuffer()
            if budget > 0, body.count > 0, Self.parsesAsFields(body) {
                nested(name) { $0.printFields(body, of: [], budget: budget - 1) }
            } else {
                scalar(name, TextFormatEscapes.quoted(body))
            }
        case .startGroup:
            let body = try reader.readGroupBuffer(fieldNumber: tag >> 3)
            nested(name) { $0.printFields(body, of: [], budget: budget - 1) }
        case .endGroup, .none:
            throw .unmatchedEndGroup(offset: reader.offset)
        }
    }

    private static func parsesAsFields(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var reader = ProtoReader(buffer: buffer)
        do throws(WireError) {
            while reader.hasRemaining { try reader.skipValue(tag: try reader.readTag()) }
            return true
        } catch {
            return false
        }
    }

    // MARK: Values

    private static func text(of kind: TextFormatKind, from reader: inout ProtoReader) throws(WireError) -> String {
        switch kind {
        case .string, .bytes: return TextFormatEscapes.quoted(try reader.readDelimitedBuffer())
        default: return try value(of: kind, from: &reader)
        }
    }

    /// A varint or fixed-width value, as protobuf prints it.
    private static func value(of kind: TextFormatKind, from reader: inout ProtoReader) throws(WireError) -> String {
        switch kind {
        case .int32: return String(Int32(truncatingIfNeeded: try reader.readVarint()))
        case .int64: return String(Int64(bitPattern: try reader.readVarint()))
        case .uint32: return String(UInt32(truncatingIfNeeded: try reader.readVarint()))
        case .uint64: return String(try reader.readVarint())
        case .sint32: return String(Wire.unZigZag(UInt32(truncatingIfNeeded: try reader.readVarint())))
        case .sint64: return String(Wire.unZigZag(try reader.readVarint()))
        case .bool: return try reader.readVarint() != 0 ? "true" : "false"
        case .enumeration(let names), .closedEnumeration(let names):
            let number = Int32(truncatingIfNeeded: try reader.readVarint())
            return TextFormatKind.name(of: number, in: names) ?? String(number)
        case .fixed32: return String(try reader.readFixed32())
        case .sfixed32: return String(Int32(bitPattern: try reader.readFixed32()))
        case .float: return TextFormatNumbers.format(Float(bitPattern: try reader.readFixed32()))
        case .fixed64: return String(try reader.readFixed64())
        case .sfixed64: return String(Int64(bitPattern: try reader.readFixed64()))
        case .double: return TextFormatNumbers.format(Double(bitPattern: try reader.readFixed64()))
        case .string, .bytes, .message, .group, .schemaMessage, .schemaGroup, .map: return ""  // never called for these
        }
    }

    /// What a map entry without its key or value shows.
    private static func defaultText(_ kind: TextFormatKind) -> String {
        switch kind {
        case .string, .bytes: return "\"\""
        case .bool: return "false"
        case .enumeration(let names), .closedEnumeration(let names): return TextFormatKind.name(of: 0, in: names) ?? "0"
        default: return "0"
        }
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// A map entry's key, ordered as protobuf orders keys when printing: numbers by value,
/// strings by their bytes, false before true.
private enum MapKey: Comparable {
    case signed(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case bytes([UInt8])

    /// The key as protobuf prints it.
    var text: String {
        switch self {
        case .signed(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .bytes(let bytes): return bytes.withUnsafeBytes { TextFormatEscapes.quoted($0) }
        }
    }

    static func defaultValue(of kind: TextFormatKind) -> MapKey {
        switch kind {
        case .int32, .int64, .sint32, .sint64, .sfixed32, .sfixed64: return .signed(0)
        case .string: return .bytes([])
        case .bool: return .bool(false)
        default: return .unsigned(0)
        }
    }

    static func read(_ kind: TextFormatKind, from reader: inout ProtoReader) throws(WireError) -> MapKey {
        switch kind {
        case .int32: return .signed(Int64(Int32(truncatingIfNeeded: try reader.readVarint())))
        case .int64: return .signed(Int64(bitPattern: try reader.readVarint()))
        case .sint32: return .signed(Int64(Wire.unZigZag(UInt32(truncatingIfNeeded: try reader.readVarint()))))
        case .sint64: return .signed(Wire.unZigZag(try reader.readVarint()))
        case .sfixed32: return .signed(Int64(Int32(bitPattern: try reader.readFixed32())))
        case .sfixed64: return .signed(Int64(bitPattern: try reader.readFixed64()))
        case .uint32: return .unsigned(UInt64(UInt32(truncatingIfNeeded: try reader.readVarint())))
        case .bool: return .bool(try reader.readVarint() != 0)
        case .fixed32: return .unsigned(UInt64(try reader.readFixed32()))
        case .fixed64: return .unsigned(try reader.readFixed64())
        case .string: return .bytes(Array(try reader.readDelimitedBuffer()))
        default: return .unsigned(try reader.readVarint())  // uint64
        }
    }

    static func < (lhs: MapKey, rhs: MapKey) -> Bool {
        switch (lhs, rhs) {
        case let (.signed(a), .signed(b)): return a < b
        case let (.unsigned(a), .unsigned(b)): return a < b
        case let (.bool(a), .bool(b)): return !a && b
        case let (.bytes(a), .bytes(b)): return a.lexicographicallyPrecedes(b)
        default: return false  // keys of one map are all of one kind
        }
    }
}

extension ProtoReader {
    /// The bytes of the length-delimited value whose tag was just read.
    mutating func readDelimitedBuffer() throws(WireError) -> UnsafeRawBufferPointer {
        let length = try readLength()
        defer { position += length }
        return UnsafeRawBufferPointer(start: base + position, count: length)
    }

    /// The bytes between the start tag just read and its end tag.
    mutating func readGroupBuffer(fieldNumber: UInt32) throws(WireError) -> UnsafeRawBufferPointer {
        let start = position
        try skipGroup(fieldNumber: fieldNumber)
        return UnsafeRawBufferPointer(start: base + start, count: tagStart - start)
    }

    /// Whether the next bytes are `tag`, without reading them.
    func nextTagIs(_ tag: UInt32) -> Bool {
        var copy = self
        return copy.hasRemaining && (try? copy.readTag()) == tag
    }
}

/// The element of `elements` (sorted by number) whose number is `number`, by binary search.
func element<Element>(numbered number: Int32, in elements: [Element], number key: (Element) -> Int32) -> Element? {
    index(numbered: number, in: elements, number: key).map { elements[$0] }
}

/// Where the element numbered `number` is in `elements` (sorted by number), by binary search.
func index<Element>(numbered number: Int32, in elements: [Element], number key: (Element) -> Int32) -> Int? {
    var low = 0
    var high = elements.count
    while low < high {
        let middle = (low + high) / 2
        if key(elements[middle]) < number { low = middle + 1 } else { high = middle }
    }
    return low < elements.count && key(elements[low]) == number ? low : nil
}
