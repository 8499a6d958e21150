// Reading what only proto2 has: closed enums, whose unknown numbers go to unknown fields,
// and groups, which are delimited by start and end tags instead of a length.

extension ProtoReader {
    /// A closed enum value; nil when the number is unknown, in which case the field (tag
    /// and value, as read) is kept in `unknownFields`.
    @inlinable
    public mutating func readClosedEnum<E: ClosedEnum>(
        _: E.Type, unknownFields: inout UnknownFields
    ) throws(WireError) -> E? {
        let start = tagStart
        let raw = try readVarint()
        if let value = E(rawValue: Int32(truncatingIfNeeded: raw)) { return value }
        unknownFields.append(UnsafeRawBufferPointer(start: base + start, count: position - start))
        return nil
    }

    /// A packed run of closed enum values; unknown numbers are kept in `unknownFields` as
    /// unpacked varint fields of `fieldNumber`.
    @inlinable
    public mutating func readPackedClosedEnum<E: ClosedEnum>(
        into values: inout [E], _: E.Type, fieldNumber: Int, unknownFields: inout UnknownFields
    ) throws(WireError) {
        let length = try readLength()
        let outerLimit = limit
        limit = position + length
        while position < limit {
            let raw = try readVarint()
            if let value = E(rawValue: Int32(truncatingIfNeeded: raw)) {
                values.append(value)
            } else {
                unknownFields.appendVarint(Wire.tag(fieldNumber: fieldNumber, wireType: .varint), raw)
            }
        }
        limit = outerLimit
    }

    /// One entry of a map whose values are a closed enum. An entry with an unknown value is
    /// kept whole in `unknownFields`, as protobuf's C++ runtime does; an entry without a
    /// value has the enum's default (its first declared value).
    @inlinable
    public mutating func readMapEntry<K: MapKeyCodec, E: ClosedEnum>(
        into map: inout [K.Value: E], _: K.Type, _: ProtoClosedEnum<E>.Type, unknownFields: inout UnknownFields
    ) throws(WireError) {
        let start = tagStart
        let keyTag = Wire.tag(fieldNumber: 1, wireType: K.wireType)
        // Kept outside the closure, not returned as a generic pair (see `readMapEntry(into:_:_:)`).
        var key = K.defaultValue
        var raw = UInt64(bitPattern: Int64(E().rawValue))
        try readLengthDelimited { (reader: inout ProtoReader) throws(WireError) in
            while reader.hasRemaining {
                let tag = try reader.readTag()
                if tag == keyTag {
                    key = try K.read(from: &reader)
                } else if tag == 16 {
                    raw = try reader.readVarint()
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
        }
        if let value = E(rawValue: Int32(truncatingIfNeeded: raw)) {
            map[key] = value
        } else {
            unknownFields.append(UnsafeRawBufferPointer(start: base + start, count: position - start))
        }
    }

    /// Reads a group whose start tag was just read and merges it into `message`: its fields
    /// run until the end tag with the same field number.
    @inlinable
    public mutating func readGroup<M: Message>(fieldNumber: Int, merging message: inout M) throws(WireError) {
        // Find the end first (checking nesting and depth), then decode the fields before it.
        let bodyStart = position
        let end = try findGroupEnd(fieldNumber: UInt32(truncatingIfNeeded: fieldNumber))
        let afterEnd = position
        position = bodyStart
        let outerLimit = limit
        limit = end
        depthRemaining -= 1
        try message.decodeMessage(from: &self)
        depthRemaining += 1
        limit = outerLimit
        position = afterEnd
    }

    @inlinable
    public mutating func readGroup<M: Message>(fieldNumber: Int, into value: inout M?) throws(WireError) {
        var message = value ?? M()
        value = nil
        try readGroup(fieldNumber: fieldNumber, merging: &message)
        value = message
    }

    @inlinable
    public mutating func readGroup<M: Message>(fieldNumber: Int, appendingTo values: inout [M]) throws(WireError) {
        var message = M()
        try readGroup(fieldNumber: fieldNumber, merging: &message)
        values.append(message)
    }

    /// Skips to just past the end tag of the group that starts here; returns where that
    /// end tag starts.
    @usableFromInline
    mutating func findGroupEnd(fieldNumber: UInt32) throws(WireError) -> Int {
        let start = tagStart
        guard depthRemaining > 0 else { throw .tooDeep(offset: start, limit: maxDepth) }
        depthRemaining -= 1
        defer { depthRemaining += 1 }
        while true {
            guard position < limit else { throw .truncated(offset: start) }
            let tag = try readTag()
            if tag & 7 == 4 {
                guard tag >> 3 == fieldNumber else { throw .unmatchedEndGroup(offset: tagStart) }
                return tagStart
            }
            try skipValue(tag: tag)
        }
    }
}

extension SizeCache {
    /// Bytes of a group's fields (its tags are counted by the caller); nested sizes recorded.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func group<M: Message>(_ message: M) -> Int {
        message.computeSize(into: &self)
    }
}

extension ProtoWriter {
    /// A group: start tag, the message's fields, end tag.
    @inlinable @inline(never)  // specialised per message type, but not copied into every field
    public mutating func writeGroup<M: Message>(_ message: M, fieldNumber: Int) {
        writeTag(Wire.tag(fieldNumber: fieldNumber, wireType: .startGroup))
        message.encodeMessage(to: &self)
        writeTag(Wire.tag(fieldNumber: fieldNumber, wireType: .endGroup))
    }
}

extension UnknownFields {
    /// Appends a varint field.
    @usableFromInline
    mutating func appendVarint(_ tag: UInt32, _ value: UInt64) {
        // A tag (at most 5 bytes) and a varint (at most 10), stored by the writer's own encoder.
        withUnsafeTemporaryAllocation(byteCount: 15, alignment: 1) { scratch in
            let start = scratch.baseAddress!
            let end = ProtoWriter.storeVarint(value, at: ProtoWriter.storeVarint(UInt64(tag), at: start))
            append(UnsafeRawBufferPointer(start: start, count: end - start))
        }
    }
}
