extension Message {
    /// The message in proto3's canonical JSON mapping, on one line: fields by their JSON name
    /// in number order, 64-bit integers as strings, enums by name, bytes in base64, floats
    /// with `"NaN"` and `"Infinity"`, the well-known types in their own forms; unknown fields
    /// are left out. Throws for a message that has no JSON form (a Timestamp out of range...).
    public func jsonString(options: JSONOptions = JSONOptions()) throws(JSONError) -> String {
        String(decoding: try jsonUTF8Bytes(options: options), as: UTF8.self)
    }

    /// The message in JSON, as UTF-8 (see `jsonString(options:)`).
    public func jsonUTF8Bytes(options: JSONOptions = JSONOptions()) throws(JSONError) -> [UInt8] {
        let bytes = (try? serializedBytes(partial: true)) ?? []
        var printer = JSONPrinter(options: options)
        // withUnsafeBytes rethrows untyped errors: the error comes out as a value.
        let failure: JSONError? = bytes.withUnsafeBytes { buffer in
            do throws(JSONError) {
                try printer.message(Self.self, buffer, path: "$")
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return printer.output
    }
}

/// Prints JSON by walking a message's encoding with its `JSONSchema`, as the text format's
/// printer walks it with the message's `textFormatFields`.
struct JSONPrinter {
    var output: [UInt8] = []
    let options: JSONOptions

    init(options: JSONOptions) { self.options = options }

    /// One value of a field as it lies on the wire.
    enum Raw {
        case varint(UInt64)
        case fixed32(UInt32)
        case fixed64(UInt64)
        case bytes(UnsafeRawBufferPointer)
    }

    static func fail(_ path: String, _ message: String) -> JSONError {
        JSONError(.unrepresentable, path: path, offset: 0, message)
    }

    /// Whether an enum is google.protobuf.NullValue, printed as `null`.
    static func isNullValue(_ names: [(number: Int32, name: String)]) -> Bool {
        names.count == 1 && names[0].number == 0 && names[0].name == "NULL_VALUE"
    }

    /// The values of each known field of an encoded message, by index in the schema; fields
    /// with another wire type and closed-enum numbers the enum lacks are unknown, left out.
    static func collect(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) -> [Int: [Raw]] {
        try collect(schema.fields, buffer, path: path)
    }

    static func collect(_ fields: [JSONField], _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) -> [Int: [Raw]] {
        var values: [Int: [Raw]] = [:]
        var reader = ProtoReader(buffer: buffer)
        do throws(WireError) {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                let number = Int32(bitPattern: tag >> 3)
                let wireType = UInt8(tag & 7)
                guard let index = Self.index(of: number, in: fields) else {
                    try reader.skipValue(tag: tag)
                    continue
                }
                let field = fields[index]
                let expected = field.kind.wireType
                switch wireType {
                case expected.rawValue where expected == .varint:
                    let value = try reader.readVarint()
                    if case .closedEnumeration(let names) = field.kind,
                       TextFormatKind.name(of: Int32(truncatingIfNeeded: value), in: names) == nil { continue }
                    values[index, default: []].append(.varint(value))
                case expected.rawValue where expected == .fixed32:
                    values[index, default: []].append(.fixed32(try reader.readFixed32()))
                case expected.rawValue where expected == .fixed64:
                    values[index, default: []].append(.fixed64(try reader.readFixed64()))
                case expected.rawValue where expected == .lengthDelimited:
                    values[index, default: []].append(.bytes(try reader.readDelimitedBuffer()))
                case expected.rawValue where expected == .startGroup:
                    values[index, default: []].append(.bytes(try reader.readGroupBuffer(fieldNumber: tag >> 3)))
                case WireType.lengthDelimited.rawValue where expected != .startGroup:
                    var run = ProtoReader(buffer: try reader.readDelimitedBuffer())
                    while run.hasRemaining {
                        switch expected {
                        case .varint: values[index, default: []].append(.varint(try run.readVarint()))
                        case .fixed32: values[index, default: []].append(.fixed32(try run.readFixed32()))
                        default: values[index, default: []].append(.fixed64(try run.readFixed64()))
                        }
                    }
                default:
                    try reader.skipValue(tag: tag)
                }
            }
        } catch {
            throw fail(path, "the message's encoding does not parse: \(error)")
        }
        return values
    }

    /// The index of the field numbered `number` in `fields` (in number order).
    static func index(of number: Int32, in fields: [JSONField]) -> Int? {
        var low = 0
        var high = fields.count
        while low < high {
            let middle = (low + high) / 2
            if fields[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low < fields.count && fields[low].number == number ? low : nil
    }

    mutating func message(_ type: any Message.Type, _ buffer: UnsafeRawBufferPointer, path: String) throws(JSONError) {
        let schema = JSONSchema.of(type)
        if try wellKnown(schema, buffer, path: path) { return }
        output.append(UInt8(ascii: "{"))
        var first = true
        try fields(schema, buffer, path: path, first: &first)
        output.append(UInt8(ascii: "}"))
    }

    /// The members of a message's object, without its braces.
    mutating func fields(_ schema: JSONSchema, _ buffer: UnsafeRawBufferPointer, path: String,
                         first: inout Bool) throws(JSONError) {
        let all = schema.fields(with: options.registry)
        let values = try Self.collect(all, buffer, path: path)
        for (index, field) in all.enumerated() {
            let name = options.useProtoFieldNames ? field.protoName : field.jsonName
            let fieldPath = path + "." + name
            guard let raws = values[index] else {
                guard options.emitDefaultValues, !field.hasPresence else { continue }
                key(name, first: &first)
                if case .map = field.kind {
                    output += Array("{}".utf8)
                } else if field.isRepeated {
                    output += Array("[]".utf8)
                } else {
                    try value(field.kind, Self.zero(field.kind), path: fieldPath)
                }
                continue
            }
            key(name, first: &first)
            if case let .map(keyKind, valueKind) = field.kind {
                try printMap(raws, key: keyKind, value: valueKind, path: fieldPath)
            } else if field.isRepeated {
                output.append(UInt8(ascii: "["))
                for (position, raw) in raws.enumerated() {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    try value(field.kind, raw, path: fieldPath + "[\(position)]")
                }
                output.append(UInt8(ascii: "]"))
            } else {
                try value(field.kind, raws[raws.count - 1], path: fieldPath)
            }
        }
    }

    mutating func key(_ name: String, first: inout Bool) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        output.append(UInt8(ascii: ":"))
    }

    static func zero(_ kind: TextFormatKind) -> Raw {
        switch kind.wireType {
        case .fixed32: return .fixed32(0)
        case .fixed64: return .fixed64(0)
        case .lengthDelimited: return .bytes(UnsafeRawBufferPointer(start: nil, count: 0))
        default: return .varint(0)
        }
    }

    mutating func printMap(_ raws: [Raw], key keyKind: TextFormatKind, value valueKind: TextFormatKind,
                              path: String) throws(JSONError) {
        // Entries in wire order; a later entry of the same key replaces an earlier one.
        var entries: [(key: String, value: Raw)] = []
        var positions: [String: Int] = [:]
        let entrySchema = [TextFormatField(1, "key", keyKind), TextFormatField(2, "value", valueKind)]
        for raw in raws {
            guard case let .bytes(body) = raw else { continue }
            var key = Self.zero(keyKind)
            var value = Self.zero(valueKind)
            var reader = ProtoReader(buffer: body)
            do throws(WireError) {
                while reader.hasRemaining {
                    let tag = try reader.readTag()
                    let field = entrySchema.first { tag == UInt32($0.number) << 3 | UInt32($0.kind.wireType.rawValue) }
                    switch field?.kind.wireType {
                    case .varint?: (field!.number == 1 ? { key = .varint($0) } : { value = .varint($0) })(try reader.readVarint())
                    case .fixed32?: (field!.number == 1 ? { key = .fixed32($0) } : { value = .fixed32($0) })(try reader.readFixed32())
                    case .fixed64?: (field!.number == 1 ? { key = .fixed64($0) } : { value = .fixed64($0) })(try reader.readFixed64())
                    case .lengthDelimited?: (field!.number == 1 ? { key = .bytes($0) } : { value = .bytes($0) })(try reader.readDelimitedBuffer())
                    default: try reader.skipValue(tag: tag)
                    }
                }
            } catch {
                throw Self.fail(path, "a map entry's encoding does not parse: \(error)")
            }
            let text = Self.keyText(keyKind, key)
            if let position = positions[text] {
                entries[position].value = value
            } else {
                positions[text] = entries.count
                entries.append((text, value))
            }
        }
        output.append(UInt8(ascii: "{"))
        for (position, entry) in entries.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            string(entry.key)
            output.append(UInt8(ascii: ":"))
            try value(valueKind, entry.value, path: path + "[\"" + entry.key + "\"]")
        }
        output.append(UInt8(ascii: "}"))
    }

    /// A map key as its JSON member name.
    private static func keyText(_ kind: TextFormatKind, _ raw: Raw) -> String {
        switch (kind, raw) {
        case (.bool, .varint(let value)): return value != 0 ? "true" : "false"
        case (.string, .bytes(let bytes)): return String(decoding: bytes, as: UTF8.self)
        default: return scalarText(kind, raw, quoted64: false)
        }
    }

    /// A number's JSON text (64-bit integers quoted when `quoted64`).
    static func scalarText(_ kind: TextFormatKind, _ raw: Raw, quoted64: Bool = true) -> String {
        func quote(_ text: String) -> String { quoted64 ? "\"" + text + "\"" : text }
        switch (kind, raw) {
        case (.int32, .varint(let value)): return String(Int32(truncatingIfNeeded: value))
        case (.int64, .varint(let value)): return quote(String(Int64(bitPattern: value)))
        case (.uint32, .varint(let value)): return String(UInt32(truncatingIfNeeded: value))
        case (.uint64, .varint(let value)): return quote(String(value))
        case (.sint32, .varint(let value)): return String(Wire.unZigZag(UInt32(truncatingIfNeeded: value)))
        case (.sint64, .varint(let value)): return quote(String(Wire.unZigZag(value)))
        case (.fixed32, .fixed32(let value)): return String(value)
        case (.sfixed32, .fixed32(let value)): return String(Int32(bitPattern: value))
        case (.fixed64, .fixed64(let value)): return quote(String(value))
        case (.sfixed64, .fixed64(let value)): return quote(String(Int64(bitPattern: value)))
        case (.float, .fixed32(let value)): return floatText(Double(Float(bitPattern: value)), Float(bitPattern: value).description)
        case (.double, .fixed64(let value)): return floatText(Double(bitPattern: value), Double(bitPattern: value).description)
        case (.bool, .varint(let value)): return value != 0 ? "true" : "false"
        default: return "0"
        }
    }

    private static func floatText(_ value: Double, _ shortest: String) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest
    }

    mutating func value(_ kind: TextFormatKind, _ raw: Raw, path: String) throws(JSONError) {
        switch (kind, raw) {
        case (.string, .bytes(let bytes)):
            string(String(decoding: bytes, as: UTF8.self))
        case (.bytes, .bytes(let bytes)):
            string(Base64.encode(bytes))
        case (.enumeration(let names), .varint(let value)), (.closedEnumeration(let names), .varint(let value)):
            let number = Int32(truncatingIfNeeded: value)
            if Self.isNullValue(names) {
                output += Array("null".utf8)
            } else if let name = TextFormatKind.name(of: number, in: names) {
                string(name)
            } else {
                output += Array(String(number).utf8)
            }
        case (.message(let type), .bytes(let body)), (.group(let type), .bytes(let body)):
            try message(type, body, path: path)
        case (.schemaMessage, _), (.schemaGroup, _):
            throw Self.fail(path, "a message whose schema is data has no JSON form here")
        default:
            output += Array(Self.scalarText(kind, raw).utf8)
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n` or `\u00XX`.
    mutating func string(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [0x5C, UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case 0x08: output += [0x5C, UInt8(ascii: "b")]
            case 0x0C: output += [0x5C, UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
