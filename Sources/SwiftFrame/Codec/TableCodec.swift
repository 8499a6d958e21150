/// The one codec of every `CompactMessage`: it walks the message's `FieldTable` and reaches each
/// stored property through its offset in the struct. It is compiled once, here, and not
/// specialised per message, which is the point: a message type adds its table and a few lines,
/// not its own codec. Enum and message fields go through their types' conformances.
///
/// Every offset and stored type was checked against the struct when the table was made
/// (`FieldEntry.init`), so each pointer below is bound to the type it is used as.
@usableFromInline
enum TableCodec {
    // MARK: Decoding

    // The message comes in as a generic value, which is passed by address: taking that address
    // here (inlined `withUnsafe...Pointer`) copies nothing.

    static func decode<M: CompactMessage>(_ message: inout M, from reader: inout ProtoReader) throws(WireError) {
        try withUnsafeMutablePointer(to: &message) { (message) throws(WireError) in
            try decodeFields(message, from: &reader)
        }
    }

    static func decodeFields<M: CompactMessage>(_ message: UnsafeMutablePointer<M>, from reader: inout ProtoReader)
        throws(WireError)
    {
        let table = M.fieldTable
        let base = UnsafeMutableRawPointer(message)
        let unknownFields = (base + table.unknownFieldsOffset).assumingMemoryBound(to: UnknownFields.self)
        while reader.hasRemaining {
            let tag = try reader.readTag()
            if let index = table.index(of: tag >> 3) {
                if try read(table.fields[index], tag: tag, of: message, unknownFields: unknownFields, from: &reader) {
                    continue
                }
            }
            if let offset = table.extensionFieldsOffset,
                table.extensionRanges.contains(where: { $0.contains(Int(tag >> 3)) })
            {
                let extensionFields = (base + offset).assumingMemoryBound(to: UnknownFields.self)
                if tag & 7 == 2, table.stringExtensions.contains(Int32(bitPattern: tag >> 3)) {
                    try reader.keepStringExtension(into: &extensionFields.pointee)
                } else {
                    try reader.skipField(tag: tag, into: &extensionFields.pointee)
                }
                continue
            }
            try reader.skipField(tag: tag, into: &unknownFields.pointee)
        }
    }

    /// Reads one value (or a packed run) of `field` into its storage in `message`; false when
    /// the tag's wire type is not the field's (the field is then kept as an unknown one). A custom
    /// field is the message's own to read.
    @inline(__always)
    static func read<M: CompactMessage>(
        _ field: FieldEntry, tag: UInt32, of message: UnsafeMutablePointer<M>,
        unknownFields: UnsafeMutablePointer<UnknownFields>, from reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        let storage = field.storage
        let pointer = UnsafeMutableRawPointer(message) + field.offset
        switch field.kindCase {
        case .int32: return try readVarint(ProtoInt32.self, tag, storage, pointer, &reader)
        case .int64: return try readVarint(ProtoInt64.self, tag, storage, pointer, &reader)
        case .uint32: return try readVarint(ProtoUInt32.self, tag, storage, pointer, &reader)
        case .uint64: return try readVarint(ProtoUInt64.self, tag, storage, pointer, &reader)
        case .sint32: return try readVarint(ProtoSInt32.self, tag, storage, pointer, &reader)
        case .sint64: return try readVarint(ProtoSInt64.self, tag, storage, pointer, &reader)
        case .bool: return try readVarint(ProtoBool.self, tag, storage, pointer, &reader)
        case .fixed32: return try readFixed(ProtoFixed32.self, tag, storage, pointer, &reader)
        case .sfixed32: return try readFixed(ProtoSFixed32.self, tag, storage, pointer, &reader)
        case .float: return try readFixed(ProtoFloat.self, tag, storage, pointer, &reader)
        case .fixed64: return try readFixed(ProtoFixed64.self, tag, storage, pointer, &reader)
        case .sfixed64: return try readFixed(ProtoSFixed64.self, tag, storage, pointer, &reader)
        case .double: return try readFixed(ProtoDouble.self, tag, storage, pointer, &reader)
        case .string:
            guard tag & 7 == 2 else { return false }
            store(try reader.readString(), storage, pointer)
        case .bytes:
            guard tag & 7 == 2 else { return false }
            store(try reader.readBytes(), storage, pointer)
        case .typed:
            return try readTyped(field, tag, pointer, unknownFields, &reader)
        case .custom:
            return try message.pointee.decodeCustomField(tag: tag, from: &reader)
        }
        return true
    }

    /// Reads an enum, message or map field.
    static func readTyped(
        _ field: FieldEntry, _ tag: UInt32, _ pointer: UnsafeMutableRawPointer,
        _ unknownFields: UnsafeMutablePointer<UnknownFields>, _ reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        let storage = field.storage
        switch field.kind {
        case let .enumeration(type):
            return try readOpenEnum(type, tag, storage, pointer, &reader)
        case let .closedEnumeration(type):
            return try readClosedEnum(type, tag, storage, pointer, unknownFields, &reader)
        case let .message(type):
            guard tag & 7 == 2 else { return false }
            try readMessage(type, storage, pointer, &reader)
        case let .map(kept):
            guard tag & 7 == 2 else { return false }
            try kept.codec.pointee.read(pointer, unknownFields, &reader)
        default:
            preconditionFailure("not a typed field")
        }
        return true
    }

    /// Stores a value read for a field kept as `storage` (appends it to a repeated field).
    @inline(__always)
    static func store<V>(_ value: V, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer) {
        switch storage {
        case .implicit: pointer.assumingMemoryBound(to: V.self).pointee = value
        case .optional: pointer.assumingMemoryBound(to: V?.self).pointee = value
        case .repeated, .packed: pointer.assumingMemoryBound(to: [V].self).pointee.append(value)
        }
    }

    /// Whether a repeated field of a packable kind has met a packed run (which it accepts
    /// whether it writes packed or not).
    @inline(__always)
    static func isPackedRun(_ tag: UInt32, _ storage: FieldStorage) -> Bool {
        tag & 7 == 2 && (storage == .repeated || storage == .packed)
    }

    static func readVarint<C: VarintCodec>(
        _: C.Type, _ tag: UInt32, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer,
        _ reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        if tag & 7 == 0 {
            store(C.value(try reader.readVarint()), storage, pointer)
        } else if isPackedRun(tag, storage) {
            try reader.readPackedVarint(into: &pointer.assumingMemoryBound(to: [C.Value].self).pointee, C.self)
        } else {
            return false
        }
        return true
    }

    static func readFixed<C: FixedCodec>(
        _: C.Type, _ tag: UInt32, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer,
        _ reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        if tag & 7 == UInt32(C.wireType.rawValue) {
            store(try C.read(from: &reader), storage, pointer)
        } else if isPackedRun(tag, storage) {
            try C.readPacked(into: &pointer.assumingMemoryBound(to: [C.Value].self).pointee, from: &reader)
        } else {
            return false
        }
        return true
    }

    /// A closed enum: a number it does not declare goes to the unknown fields.
    static func readClosedEnum<E: ClosedEnum>(
        _: E.Type, _ tag: UInt32, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer,
        _ unknownFields: UnsafeMutablePointer<UnknownFields>, _ reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        if tag & 7 == 0 {
            if let value = try reader.readClosedEnum(E.self, unknownFields: &unknownFields.pointee) {
                store(value, storage, pointer)
            }
        } else if isPackedRun(tag, storage) {
            try reader.readPackedClosedEnum(
                into: &pointer.assumingMemoryBound(to: [E].self).pointee, E.self, fieldNumber: Int(tag >> 3),
                unknownFields: &unknownFields.pointee)
        } else {
            return false
        }
        return true
    }

    static func readMessage<T: Message>(
        _: T.Type, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer, _ reader: inout ProtoReader
    ) throws(WireError) {
        if storage == .optional {
            try reader.readMessage(into: &pointer.assumingMemoryBound(to: Boxed<T>?.self).pointee)
        } else {
            try reader.readMessage(appendingTo: &pointer.assumingMemoryBound(to: [T].self).pointee)
        }
    }

    // MARK: Sizing

    @usableFromInline
    static func size<M: CompactMessage>(ofFields message: UnsafePointer<M>, cache: inout SizeCache) -> Int {
        let table = M.fieldTable
        let base = UnsafeRawPointer(message)
        var size = table.unknownFields(in: base).pointee.count
        if let extensionFields = table.extensionFields(in: base) {
            size &+= extensionFields.pointee.count
        }
        for index in table.fields.indices {
            size &+= self.size(table.entry(index), of: message, cache: &cache)
        }
        return size
    }

    /// The bytes `field` takes, tags included; zero when it is not set. A custom field is the
    /// message's own to size: the one switch on the kind's case finds it, where testing for it
    /// first cost every field eight more instructions.
    @inline(__always)
    static func size<M: CompactMessage>(
        _ field: UnsafePointer<FieldEntry>, of message: UnsafePointer<M>, cache: inout SizeCache
    ) -> Int {
        let pointer = UnsafeRawPointer(message) + field.pointee.offset
        switch field.pointee.kindCase {
        case .int32: return varintSize(ProtoInt32.self, field, pointer, &cache)
        case .int64: return varintSize(ProtoInt64.self, field, pointer, &cache)
        case .uint32: return varintSize(ProtoUInt32.self, field, pointer, &cache)
        case .uint64: return varintSize(ProtoUInt64.self, field, pointer, &cache)
        case .sint32: return varintSize(ProtoSInt32.self, field, pointer, &cache)
        case .sint64: return varintSize(ProtoSInt64.self, field, pointer, &cache)
        case .bool: return varintSize(ProtoBool.self, field, pointer, &cache)
        case .fixed32: return fixedSize(ProtoFixed32.self, field, pointer)
        case .sfixed32: return fixedSize(ProtoSFixed32.self, field, pointer)
        case .float: return fixedSize(ProtoFloat.self, field, pointer)
        case .fixed64: return fixedSize(ProtoFixed64.self, field, pointer)
        case .sfixed64: return fixedSize(ProtoSFixed64.self, field, pointer)
        case .double: return fixedSize(ProtoDouble.self, field, pointer)
        case .string: return lengthDelimitedSize(String.self, field, pointer)
        case .bytes: return lengthDelimitedSize([UInt8].self, field, pointer)
        case .typed: return typedSize(field, pointer, &cache)
        case .custom: return message.pointee.customFieldSize(number: field.pointee.number, cache: &cache)
        }
    }

    /// The size of an enum, message or map field.
    static func typedSize(_ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ cache: inout SizeCache)
        -> Int
    {
        switch field.pointee.kind {
        case let .enumeration(type): return openEnumSize(type, field, pointer, &cache)
        case let .closedEnumeration(type): return closedEnumSize(type, field, pointer, &cache)
        case let .message(type): return messageSize(type, field, pointer, &cache)
        case let .map(kept): return kept.codec.pointee.size(pointer, field.pointee.tagSize, &cache)
        default: preconditionFailure("not a typed field")
        }
    }

    static func varintSize<C: VarintCodec>(
        _: C.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ cache: inout SizeCache
    ) -> Int {
        switch field.pointee.storage {
        case .implicit:
            let wire = C.wire(pointer.assumingMemoryBound(to: C.Value.self).pointee)
            return wire == 0 ? 0 : field.pointee.tagSize &+ Wire.varintSize(wire)
        case .optional:
            guard let value = pointer.assumingMemoryBound(to: C.Value?.self).pointee else { return 0 }
            return field.pointee.tagSize &+ C.size(value)
        case .repeated:
            var size = 0
            for value in pointer.assumingMemoryBound(to: [C.Value].self).pointee {
                size &+= field.pointee.tagSize &+ C.size(value)
            }
            return size
        case .packed:
            let values = pointer.assumingMemoryBound(to: [C.Value].self).pointee
            return values.isEmpty ? 0 : field.pointee.tagSize &+ cache.packedVarint(values, C.self)
        }
    }

    static func fixedSize<C: FixedCodec>(_: C.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer)
        -> Int
    {
        // Every fixed-width value is as wide in memory as on the wire (Int32, UInt32, Float: 4).
        let width = MemoryLayout<C.Value>.size
        switch field.pointee.storage {
        case .implicit:
            return C.isZero(pointer.assumingMemoryBound(to: C.Value.self).pointee) ? 0 : field.pointee.tagSize &+ width
        case .optional:
            return pointer.assumingMemoryBound(to: C.Value?.self).pointee == nil ? 0 : field.pointee.tagSize &+ width
        case .repeated:
            return pointer.assumingMemoryBound(to: [C.Value].self).pointee.count &* (field.pointee.tagSize &+ width)
        case .packed:
            let count = pointer.assumingMemoryBound(to: [C.Value].self).pointee.count
            return count == 0 ? 0 : field.pointee.tagSize &+ Wire.lengthDelimitedSize(count &* width)
        }
    }

    /// Strings and bytes. Values are read in place (`pointee` in the expression), not copied
    /// into a local first: a copy is a retain and a release.
    @inline(__always)
    static func lengthDelimitedSize<V: LengthDelimited>(
        _: V.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer
    ) -> Int {
        switch field.pointee.storage {
        case .implicit:
            let count = pointer.assumingMemoryBound(to: V.self).pointee.wireCount
            return count == 0 ? 0 : field.pointee.tagSize &+ Wire.lengthDelimitedSize(count)
        case .optional:
            guard let count = pointer.assumingMemoryBound(to: V?.self).pointee?.wireCount else { return 0 }
            return field.pointee.tagSize &+ Wire.lengthDelimitedSize(count)
        case .repeated, .packed:
            var size = 0
            for value in pointer.assumingMemoryBound(to: [V].self).pointee {
                size &+= field.pointee.tagSize &+ Wire.lengthDelimitedSize(value.wireCount)
            }
            return size
        }
    }

    static func messageSize<T: Message>(
        _: T.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ cache: inout SizeCache
    ) -> Int {
        if field.pointee.storage == .optional {
            guard let box = pointer.assumingMemoryBound(to: Boxed<T>?.self).pointee else { return 0 }
            return field.pointee.tagSize &+ cache.message(box.value)
        }
        return cache.repeatedMessage(pointer.assumingMemoryBound(to: [T].self).pointee, tagSize: field.pointee.tagSize)
    }

    // MARK: Encoding

    @usableFromInline
    static func encode<M: CompactMessage>(fields message: UnsafePointer<M>, to writer: inout ProtoWriter) {
        let table = M.fieldTable
        let base = UnsafeRawPointer(message)
        if let extensionFields = table.extensionFields(in: base) {
            encodeWithExtensions(message, table, extensionFields, to: &writer)
        } else {
            for index in table.fields.indices {
                encode(table.entry(index), of: message, to: &writer)
            }
        }
        writer.writeUnknownFields(table.unknownFields(in: base).pointee)
    }

    /// Writes `field`; a custom field is the message's own to write (see `size(_:of:cache:)`).
    @inline(__always)
    static func encode<M: CompactMessage>(
        _ field: UnsafePointer<FieldEntry>, of message: UnsafePointer<M>, to writer: inout ProtoWriter
    ) {
        let pointer = UnsafeRawPointer(message) + field.pointee.offset
        switch field.pointee.kindCase {
        case .int32: writeVarint(ProtoInt32.self, field, pointer, &writer)
        case .int64: writeVarint(ProtoInt64.self, field, pointer, &writer)
        case .uint32: writeVarint(ProtoUInt32.self, field, pointer, &writer)
        case .uint64: writeVarint(ProtoUInt64.self, field, pointer, &writer)
        case .sint32: writeVarint(ProtoSInt32.self, field, pointer, &writer)
        case .sint64: writeVarint(ProtoSInt64.self, field, pointer, &writer)
        case .bool: writeVarint(ProtoBool.self, field, pointer, &writer)
        case .fixed32: writeFixed(ProtoFixed32.self, field, pointer, &writer)
        case .sfixed32: writeFixed(ProtoSFixed32.self, field, pointer, &writer)
        case .float: writeFixed(ProtoFloat.self, field, pointer, &writer)
        case .fixed64: writeFixed(ProtoFixed64.self, field, pointer, &writer)
        case .sfixed64: writeFixed(ProtoSFixed64.self, field, pointer, &writer)
        case .double: writeFixed(ProtoDouble.self, field, pointer, &writer)
        case .string: writeLengthDelimited(String.self, field, pointer, &writer)
        case .bytes: writeLengthDelimited([UInt8].self, field, pointer, &writer)
        case .typed: writeTyped(field, pointer, &writer)
        case .custom: message.pointee.encodeCustomField(number: field.pointee.number, to: &writer)
        }
    }

    /// Writes an enum, message or map field.
    static func writeTyped(_ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter)
    {
        switch field.pointee.kind {
        case let .enumeration(type): writeOpenEnum(type, field, pointer, &writer)
        case let .closedEnumeration(type): writeClosedEnum(type, field, pointer, &writer)
        case let .message(type): writeMessage(type, field, pointer, &writer)
        case let .map(kept): kept.codec.pointee.write(pointer, field.pointee.tag, &writer)
        default: preconditionFailure("not a typed field")
        }
    }

    /// `encode` for an extensible message: the extension fields are written where their ranges
    /// fall in field-number order, then any outside every range.
    static func encodeWithExtensions<M: CompactMessage>(
        _ message: UnsafePointer<M>, _ table: FieldTable, _ extensionFields: UnsafePointer<UnknownFields>,
        to writer: inout ProtoWriter
    ) {
        var nextRange = 0
        for index in table.fields.indices {
            let field = table.entry(index)
            while nextRange < table.extensionRanges.count
                && table.extensionRanges[nextRange].lowerBound < field.pointee.number
            {
                writer.writeExtensions(extensionFields.pointee, in: table.extensionRanges[nextRange])
                nextRange += 1
            }
            encode(field, of: message, to: &writer)
        }
        for range in table.extensionRanges[nextRange...] {
            writer.writeExtensions(extensionFields.pointee, in: range)
        }
        writer.writeExtensionLeftovers(extensionFields.pointee, ranges: Array(table.extensionRanges))
    }

    static func writeVarint<C: VarintCodec>(
        _: C.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        switch field.pointee.storage {
        case .implicit:
            let value = pointer.assumingMemoryBound(to: C.Value.self).pointee
            guard C.wire(value) != 0 else { return }
            writer.storeVarintField(C.wire(value), tag: field.pointee.tag)
        case .optional:
            guard let value = pointer.assumingMemoryBound(to: C.Value?.self).pointee else { return }
            writer.storeVarintField(C.wire(value), tag: field.pointee.tag)
        case .repeated:
            for value in pointer.assumingMemoryBound(to: [C.Value].self).pointee {
                writer.storeVarintField(C.wire(value), tag: field.pointee.tag)
            }
        case .packed:
            let values = pointer.assumingMemoryBound(to: [C.Value].self).pointee
            guard !values.isEmpty else { return }
            writer.writeTag(field.pointee.tag)
            writer.writePackedVarint(values, C.self)
        }
    }

    static func writeFixed<C: FixedCodec>(
        _: C.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        switch field.pointee.storage {
        case .implicit:
            let value = pointer.assumingMemoryBound(to: C.Value.self).pointee
            guard !C.isZero(value) else { return }
            C.write(value, tag: field.pointee.tag, to: &writer)
        case .optional:
            guard let value = pointer.assumingMemoryBound(to: C.Value?.self).pointee else { return }
            C.write(value, tag: field.pointee.tag, to: &writer)
        case .repeated:
            for value in pointer.assumingMemoryBound(to: [C.Value].self).pointee {
                C.write(value, tag: field.pointee.tag, to: &writer)
            }
        case .packed:
            let values = pointer.assumingMemoryBound(to: [C.Value].self).pointee
            guard !values.isEmpty else { return }
            writer.writeTag(field.pointee.tag)
            C.writePacked(values, to: &writer)
        }
    }

    @inline(__always)
    static func writeLengthDelimited<V: LengthDelimited>(
        _: V.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        switch field.pointee.storage {
        case .implicit:
            V.writeUnlessEmpty(pointer.assumingMemoryBound(to: V.self).pointee, tag: field.pointee.tag, to: &writer)
        case .optional:
            guard let value = pointer.assumingMemoryBound(to: V?.self).pointee else { return }
            V.write(value, tag: field.pointee.tag, to: &writer)
        case .repeated, .packed:
            V.writeRepeated(pointer.assumingMemoryBound(to: [V].self).pointee, tag: field.pointee.tag, to: &writer)
        }
    }

    static func writeMessage<T: Message>(
        _: T.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        if field.pointee.storage == .optional {
            guard let box = pointer.assumingMemoryBound(to: Boxed<T>?.self).pointee else { return }
            writer.writeTag(field.pointee.tag)
            writer.writeMessage(box.value)
            return
        }
        writer.writeRepeatedMessage(pointer.assumingMemoryBound(to: [T].self).pointee, tag: field.pointee.tag)
    }
}

/// Strings and bytes, seen alike by the table codec.
protocol LengthDelimited {
    /// Bytes on the wire, without the length prefix.
    var wireCount: Int { get }
    /// The value after `tag`.
    static func write(_ value: Self, tag: UInt32, to writer: inout ProtoWriter)
    /// As `write`, and nothing when empty (a proto3 field without presence).
    static func writeUnlessEmpty(_ value: Self, tag: UInt32, to writer: inout ProtoWriter)
    static func writeRepeated(_ values: [Self], tag: UInt32, to writer: inout ProtoWriter)
}

extension String: LengthDelimited {
    var wireCount: Int { utf8.count }
    static func write(_ value: String, tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeString(value, tag: tag)
    }
    static func writeUnlessEmpty(_ value: String, tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeStringUnlessEmpty(value, tag: tag)
    }
    static func writeRepeated(_ values: [String], tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeRepeatedString(values, tag: tag)
    }
}

extension [UInt8]: LengthDelimited {
    var wireCount: Int { count }
    static func write(_ value: [UInt8], tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeBytes(value, tag: tag)
    }
    static func writeUnlessEmpty(_ value: [UInt8], tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeBytesUnlessEmpty(value, tag: tag)
    }
    static func writeRepeated(_ values: [[UInt8]], tag: UInt32, to writer: inout ProtoWriter) {
        writer.writeRepeatedBytes(values, tag: tag)
    }
}

/// Fixed-width codecs, 4 or 8 bytes, seen alike by the table codec (which reads and writes
/// one value with `MapCodec.read` and `write`).
protocol FixedCodec: MapCodec {
    /// True for the value a proto3 field leaves unwritten (for floats, +0.0 but not -0.0).
    static func isZero(_ value: Value) -> Bool
    static func readPacked(into values: inout [Value], from reader: inout ProtoReader) throws(WireError)
    static func writePacked(_ values: [Value], to writer: inout ProtoWriter)
    /// The value after `tag`.
    static func write(_ value: Value, tag: UInt32, to writer: inout ProtoWriter)
}

extension FixedCodec where Self: Fixed32Codec {
    static func isZero(_ value: Value) -> Bool { wire(value) == 0 }
    static func readPacked(into values: inout [Value], from reader: inout ProtoReader) throws(WireError) {
        try reader.readPackedFixed32(into: &values, Self.self)
    }
    static func writePacked(_ values: [Value], to writer: inout ProtoWriter) {
        writer.writePackedFixed32(values, Self.self)
    }
    static func write(_ value: Value, tag: UInt32, to writer: inout ProtoWriter) {
        writer.storeFixed(wire(value), tag: tag)
    }
}

extension FixedCodec where Self: Fixed64Codec {
    static func isZero(_ value: Value) -> Bool { wire(value) == 0 }
    static func readPacked(into values: inout [Value], from reader: inout ProtoReader) throws(WireError) {
        try reader.readPackedFixed64(into: &values, Self.self)
    }
    static func writePacked(_ values: [Value], to writer: inout ProtoWriter) {
        writer.writePackedFixed64(values, Self.self)
    }
    static func write(_ value: Value, tag: UInt32, to writer: inout ProtoWriter) {
        writer.storeFixed(wire(value), tag: tag)
    }
}

extension ProtoFixed32: FixedCodec {}
extension ProtoSFixed32: FixedCodec {}
extension ProtoFloat: FixedCodec {}
extension ProtoFixed64: FixedCodec {}
extension ProtoSFixed64: FixedCodec {}
extension ProtoDouble: FixedCodec {}

// Enum fields: the table holds the enum's metatype; these open it for the varint codec.
extension TableCodec {
    static func readOpenEnum<E: Enum>(
        _: E.Type, _ tag: UInt32, _ storage: FieldStorage, _ pointer: UnsafeMutableRawPointer,
        _ reader: inout ProtoReader
    ) throws(WireError) -> Bool {
        try readVarint(ProtoEnum<E>.self, tag, storage, pointer, &reader)
    }

    static func openEnumSize<E: Enum>(
        _: E.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ cache: inout SizeCache
    ) -> Int {
        varintSize(ProtoEnum<E>.self, field, pointer, &cache)
    }

    static func closedEnumSize<E: ClosedEnum>(
        _: E.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ cache: inout SizeCache
    ) -> Int {
        varintSize(ProtoClosedEnum<E>.self, field, pointer, &cache)
    }

    static func writeOpenEnum<E: Enum>(
        _: E.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        writeVarint(ProtoEnum<E>.self, field, pointer, &writer)
    }

    static func writeClosedEnum<E: ClosedEnum>(
        _: E.Type, _ field: UnsafePointer<FieldEntry>, _ pointer: UnsafeRawPointer, _ writer: inout ProtoWriter
    ) {
        writeVarint(ProtoClosedEnum<E>.self, field, pointer, &writer)
    }
}

// MARK: Initialization

extension TableCodec {
    /// The first `required` field that is not set, or the first error of a message in a
    /// `checked` field; nil when there is none.
    static func checkFields(_ table: FieldTable, _ base: UnsafeRawPointer, message: String) -> WireError? {
        for index in table.fields.indices {
            let field = table.entry(index).pointee
            let pointer = base + field.offset
            if field.isRequired {
                var visitor = IsSet(pointer: pointer)
                _ = FieldEntry.visitStoredType(field.kind, field.storage, &visitor)
                if !visitor.isSet {
                    // The text-format list is in number order, as the fields are (empty when
                    // the message prints its fields by number).
                    let names = table.textFormatFields
                    return .missingRequiredField(
                        message: message, field: names.isEmpty ? "\(field.number)" : names[index].name)
                }
            }
            if field.checksValues, let error = checkValues(field.kind, field.storage, pointer) {
                return error
            }
        }
        return nil
    }

    /// The first error of the messages in a `checked` message or map field.
    static func checkValues(_ kind: FieldKind, _ storage: FieldStorage, _ pointer: UnsafeRawPointer) -> WireError? {
        func check<M: Message>(_: M.Type) -> WireError? {
            do throws(WireError) {
                if storage == .optional {
                    try pointer.assumingMemoryBound(to: Boxed<M>?.self).pointee?.value.checkInitialized()
                } else {
                    for value in pointer.assumingMemoryBound(to: [M].self).pointee {
                        try value.checkInitialized()
                    }
                }
            } catch {
                return error
            }
            return nil
        }
        switch kind {
        case let .message(type): return check(type)
        case let .map(kept): return kept.entries.checkValues(at: pointer)
        default: return nil
        }
    }

    /// Whether the optional stored property of a `required` field holds a value.
    struct IsSet: StoredPropertyVisitor {
        let pointer: UnsafeRawPointer
        var isSet = true

        mutating func visit<V: Hashable & Sendable>(_: V.Type) {}

        mutating func visitOptional<W: Hashable & Sendable>(_: W.Type) {
            isSet = pointer.assumingMemoryBound(to: W?.self).pointee != nil
        }
    }
}
