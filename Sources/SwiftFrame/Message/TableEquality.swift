/// `==` and `hash(into:)` of a generated message, through its field table: one generic
/// comparison in the runtime instead of one the compiler synthesizes per message (see
/// `FieldTableMessage`). Both read every stored property: the table's fields by offset, the
/// unknown and extension fields, and what the table leaves to generated code
/// (`customFieldsEqual`, `hashCustomFields`).
extension FieldTableMessage {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let fieldsEqual = withUnsafePointer(to: lhs) { lhs in
            withUnsafePointer(to: rhs) { rhs in TableEquality.equal(fieldTable, lhs, rhs) }
        }
        return fieldsEqual && lhs.customFieldsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafePointer(to: self) { TableEquality.hash(Self.fieldTable, $0, into: &hasher) }
        hashCustomFields(into: &hasher)
    }

    public func customFieldsEqual(_ other: Self) -> Bool { true }

    public func hashCustomFields(into hasher: inout Hasher) {}
}

/// Something done to a stored property once its Swift type is known: compared, hashed,
/// checked for a value (a required field), or (when a table is made) measured.
protocol StoredPropertyVisitor {
    mutating func visit<V: Hashable & Sendable>(_: V.Type)
    /// An optional property, `W?` (`Boxed<M>?` for a message).
    mutating func visitOptional<W: Hashable & Sendable>(_: W.Type)
}

extension StoredPropertyVisitor {
    mutating func visitOptional<W: Hashable & Sendable>(_: W.Type) {
        visit(W?.self)
    }
}

extension FieldEntry {
    /// Calls `visitor` with the Swift type of the stored property for a field of `kind` kept as
    /// `storage` (`Int32`, `Int32?`, `[Int32]`, `Boxed<M>?`, `[String: Int32]`); false for a
    /// custom field, whose property the table does not know.
    static func visitStoredType(_ kind: FieldKind, _ storage: FieldStorage, _ visitor: inout some StoredPropertyVisitor)
        -> Bool
    {
        func shaped<V: Hashable & Sendable>(_: V.Type) {
            switch storage {
            case .implicit: visitor.visit(V.self)
            case .optional: visitor.visitOptional(V.self)
            case .repeated, .packed: visitor.visit([V].self)
            }
        }
        func message<M: Message>(_: M.Type) {
            if storage == .optional { visitor.visitOptional(Boxed<M>.self) } else { shaped(M.self) }
        }
        switch kind {
        case .int32, .sint32, .sfixed32: shaped(Int32.self)
        case .int64, .sint64, .sfixed64: shaped(Int64.self)
        case .uint32, .fixed32: shaped(UInt32.self)
        case .uint64, .fixed64: shaped(UInt64.self)
        case .float: shaped(Float.self)
        case .double: shaped(Double.self)
        case .bool: shaped(Bool.self)
        case .string: shaped(String.self)
        case .bytes: shaped([UInt8].self)
        case let .enumeration(type): shaped(type)
        case let .closedEnumeration(type): shaped(type)
        case let .message(type): message(type)
        case let .map(kept): kept.entries.visitStoredType(&visitor)
        case .custom: return false
        }
        return true
    }
}

enum TableEquality {
    /// Whether the table's fields, unknown fields and extension fields of two messages are equal.
    static func equal(_ table: FieldTable, _ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer) -> Bool {
        guard table.unknownFields(in: lhs).pointee == table.unknownFields(in: rhs).pointee,
            table.extensionFields(in: lhs)?.pointee == table.extensionFields(in: rhs)?.pointee
        else { return false }
        for index in table.fields.indices {
            let field = table.entry(index).pointee
            var visitor = Equal(lhs: lhs + field.offset, rhs: rhs + field.offset)
            if FieldEntry.visitStoredType(field.kind, field.storage, &visitor), !visitor.equal { return false }
        }
        return true
    }

    /// Feeds what `equal` compares into `hasher`.
    static func hash(_ table: FieldTable, _ message: UnsafeRawPointer, into hasher: inout Hasher) {
        hasher.combine(table.unknownFields(in: message).pointee)
        if let extensionFields = table.extensionFields(in: message) { hasher.combine(extensionFields.pointee) }
        withUnsafeMutablePointer(to: &hasher) { hasher in
            for index in table.fields.indices {
                let field = table.entry(index).pointee
                var visitor = Combine(value: message + field.offset, hasher: hasher)
                _ = FieldEntry.visitStoredType(field.kind, field.storage, &visitor)
            }
        }
    }

    private struct Equal: StoredPropertyVisitor {
        let lhs: UnsafeRawPointer, rhs: UnsafeRawPointer
        var equal = true

        mutating func visit<V: Hashable & Sendable>(_: V.Type) {
            equal = lhs.assumingMemoryBound(to: V.self).pointee == rhs.assumingMemoryBound(to: V.self).pointee
        }
    }

    private struct Combine: StoredPropertyVisitor {
        let value: UnsafeRawPointer
        let hasher: UnsafeMutablePointer<Hasher>

        mutating func visit<V: Hashable & Sendable>(_: V.Type) {
            hasher.pointee.combine(value.assumingMemoryBound(to: V.self).pointee)
        }
    }
}
