import SwiftFrame
import SwiftFrameDescriptors

/// The second stage: each declared message's fields and each file's extensions linked to the
/// types they name.
extension Linked {
    /// Links every file of the run, reporting the problems of the files to generate. The
    /// other files' fields are linked too: whether a message checks required fields depends on
    /// every message it can hold, wherever it is declared. Their diagnostics are suppressed,
    /// by design: each is reported by the run that generates its file, and a file that is only
    /// imported (a proto2 file's group extensions, an editions file) must neither fail nor
    /// clutter the run of the files that import it.
    init(_ declarations: Declarations, generated: [FileDeclaration], reporting diagnostics: inout Diagnostics) {
        self.init()
        let linker = Linker(
            types: declarations.types, unknownEditions: declarations.unknownEditions,
            messageSets: declarations.messageSets)
        for file in generated { linker.link(file, into: &self, reporting: &diagnostics) }
        let generatedNames = Set(generated.map(\.source.name))
        for file in declarations.files where !generatedNames.contains(file.source.name) {
            var suppressed = Diagnostics()
            linker.link(file, into: &self, reporting: &suppressed)
        }
    }
}

/// Links against the declared types; changes none of them.
private struct Linker {
    let types: TypeIndex
    let unknownEditions: [String: String]
    let messageSets: Set<String>

    /// Links the fields and extensions of one file's messages.
    func link(_ file: FileDeclaration, into linked: inout Linked, reporting diagnostics: inout Diagnostics) {
        let source = file.source
        guard let features = source.features else {
            diagnostics.report(
                Place(file: source.name).error(
                    .unsupportedEdition,
                    "\(source.editionName) is not supported (swiftframe generates proto2, proto3, editions 2023 and 2024, and UNSTABLE as protoc 35.1 defines it)"
                ))
            return
        }
        var extensions = resolveExtensions(
            source.descriptor.extension_, in: source, scope: nil, within: features, path: SourcePath.fileExtension,
            reporting: &diagnostics)
        for message in file.allMessages {
            extensions += resolveExtensions(
                message.descriptor.extension_, in: source, scope: message.ref, within: message.features,
                path: message.path.messageExtension, reporting: &diagnostics)
            linked.fields[message.fullName] = resolveFields(of: message, in: source, reporting: &diagnostics)
        }
        linked.extensions[source.name] = extensions
    }

    /// Typed accessors for `extend` blocks, custom options (extensions of descriptor.proto's
    /// `*Options`, which `SwiftFrameDescriptors` ships) included.
    private func resolveExtensions(
        _ extensions: [FieldDescriptor], in file: SourceFile, scope: MessageRef?, within scopeFeatures: Features,
        path: (Int) -> SourcePath, reporting diagnostics: inout Diagnostics
    ) -> [ExtensionField] {
        var accepted:
            [(
                index: Int, field: FieldDescriptor, container: MessageRef, kind: Field.Kind, features: Features,
                isGroup: Bool
            )] = []
        for (index, field) in extensions.enumerated() {
            let extendee = field.extendee ?? ""
            let scopeName = scope?.fullName ?? file.package
            let fullName = scopeName.isEmpty ? field.protoName : scopeName + "." + field.protoName
            let place = Place(
                file: file.name, element: fullName,
                "extension \(scope.map { $0.fullName + "." } ?? "")\(field.protoName)")
            guard case let .message(container)? = types[typeName: extendee] else {
                diagnostics.report(place.error(.unknownType, "\(place): unknown message \(extendee)"))
                continue
            }
            let features = scopeFeatures.field(field, in: nil)
            let isGroup = features.delimited && (field.type == .message || field.type == .group)
            guard !(isGroup && field.isRepeated), !messageSets.contains(container.fullName) else {
                // Repeated groups and MessageSet members still round-trip as unknown fields.
                diagnostics.report(
                    place.warning(
                        .untypedExtension,
                        "\(place) of \(container.fullName) gets no typed accessor (repeated groups and MessageSet extensions are kept as unknown fields)"
                    ))
                continue
            }
            guard let kind = valueKind(field, place: place, reporting: &diagnostics) else {
                continue
            }
            accepted.append((index, field, container, kind, features, isGroup))
        }
        // Static members of the declaring message, or of the file's namespace enum.
        var names = NameScope(reserved: Naming.swiftKeywords.union(["protoMessageName", "commandID"]))
        let swiftNames = names.claim(accepted.map { (Naming.fieldName($0.field.protoName), $0.field.protoName) })
        return zip(accepted, swiftNames).map { item, swiftName in
            let field = item.field
            let scopeName = scope?.fullName ?? file.package
            return ExtensionField(
                protoName: field.protoName,
                fullName: scopeName.isEmpty ? field.protoName : scopeName + "." + field.protoName,
                swiftName: swiftName, number: field.fieldNumber, container: item.container, kind: item.kind,
                isRepeated: field.isRepeated, isGroup: item.isGroup,
                isPacked: field.isRepeated && item.kind.isPackable && item.features.packed,
                comments: file.comments[path(item.index)], scope: scope)
        }
    }

    /// The kind of an extension or a map value: a scalar, an enum or a message of this run.
    private func valueKind(_ field: FieldDescriptor, place: Place, reporting diagnostics: inout Diagnostics) -> Field
        .Kind?
    {
        switch field.type {
        case .message?, .group?:
            if case let .message(target)? = types[typeName: field.typeFullName] { return .message(target) }
        case .enum_?:
            if case let .enumeration(target)? = types[typeName: field.typeFullName] {
                return .plain(.enumeration(target))
            }
        case let type?:
            if let scalar = ScalarType(type) { return .plain(.scalar(scalar)) }
        case nil:
            break
        }
        diagnostics.report(place.error(.unsupportedType, "\(place): unsupported extension type \(field.typeFullName)"))
        return nil
    }

    private func resolveFields(
        of message: MessageDeclaration, in file: SourceFile,
        reporting diagnostics: inout Diagnostics
    ) -> [Field] {
        let place = Place(file: file.name, element: message.fullName, "message \(message.fullName)")
        // Real oneofs (declared with their names); the synthetic oneof of a proto3 `optional`
        // field is just presence.
        let oneofs = Dictionary(uniqueKeysWithValues: message.names.oneofs.map { ($0.index, $0) })
        var fields: [Field] = []
        for (index, field) in message.descriptor.field.enumerated() {
            let oneof = field.oneofIndex.flatMap { oneofs[$0] }
            if let resolved = resolve(
                field, in: message, features: message.features.field(field, in: message.descriptor),
                swiftName: message.names.fieldNames[index],
                place: place.appending(
                    "field \(field.protoName)",
                    element: message.fullName + "." + field.protoName),
                comments: file.comments[message.path.field(index)], oneof: oneof,
                reporting: &diagnostics)
            {
                fields.append(resolved)
            }
        }
        return fields
    }

    private func resolve(
        _ field: FieldDescriptor, in message: MessageDeclaration, features: Features, swiftName: String,
        place: Place, comments: String?, oneof: OneofDeclaration?,
        reporting diagnostics: inout Diagnostics
    ) -> Field? {
        guard let type = field.type else {
            diagnostics.report(place.error(.unknownType, "\(place): unknown field type"))
            return nil
        }
        let value: Field.Value
        switch type {
        case .group, .message:
            if let entry = mapEntry(field.typeFullName, in: message), entry.isMapEntry {
                guard let (key, value) = resolveMap(entry, in: message, place: place, reporting: &diagnostics) else {
                    return nil
                }
                return Field(
                    protoName: field.protoName, textName: field.protoName, number: field.fieldNumber,
                    swiftName: swiftName,
                    shape: .map(key: key, value: value), comments: comments, declaredDefault: nil,
                    jsonName: Naming.jsonName(field.jsonName, of: field.protoName), oneofIndex: nil)
            }
            guard case let .message(target)? = types[typeName: field.typeFullName] else {
                diagnostics.report(place.error(.unknownType, "\(place): unknown message type \(field.typeFullName)"))
                return nil
            }
            guard isGeneratable(target.fileName, for: field, place: place, reporting: &diagnostics) else { return nil }
            // A group, or a message field of `message_encoding = DELIMITED`: between start and
            // end tags on the wire.
            value = features.delimited ? .group(target) : .message(target)
        case .enum_:
            guard case let .enumeration(target)? = types[typeName: field.typeFullName] else {
                diagnostics.report(place.error(.unknownType, "\(place): unknown enum type \(field.typeFullName)"))
                return nil
            }
            guard isGeneratable(target.fileName, for: field, place: place, reporting: &diagnostics) else { return nil }
            value = .plain(.enumeration(target))
        default:
            guard let scalar = ScalarType(type) else {
                diagnostics.report(place.error(.unknownType, "\(place): unknown field type"))
                return nil
            }
            value = .plain(.scalar(scalar))
        }
        let shape: Field.Shape
        if let oneof {
            shape = .oneofMember(value, oneof: oneof.swiftName)
        } else if field.isRepeated {
            // Packed by `repeated_field_encoding` (proto3's default; proto2's `[packed = true]`).
            if case let .plain(plain) = value, let packable = Field.Packable(plain), features.packed {
                shape = .packed(packable)
            } else {
                shape = .repeated(value)
            }
        } else {
            switch (features.presence, value) {
            case (.legacyRequired, _):
                shape = .required(value)
            case let (.implicit, .plain(plain)):
                shape = .implicit(plain)
            case (.explicit, _), (.implicit, _):
                shape = .optional(value)
            }
        }
        let isGroup: Bool
        if case .group = value { isGroup = true } else { isGroup = false }
        return Field(
            protoName: field.protoName, textName: field.textFormatName(isDelimited: isGroup, scope: message.fullName),
            number: field.fieldNumber, swiftName: swiftName, shape: shape, comments: comments,
            declaredDefault: oneof == nil ? field.defaultValue : nil,
            jsonName: Naming.jsonName(field.jsonName, of: field.protoName),
            oneofIndex: oneof.flatMap { oneof in message.names.oneofs.firstIndex { $0.index == oneof.index } })
    }

    /// A type from a file this generator cannot generate (of an edition it does not know)
    /// would be a reference to Swift that never exists.
    private func isGeneratable(
        _ fileName: String, for field: FieldDescriptor, place: Place,
        reporting diagnostics: inout Diagnostics
    ) -> Bool {
        guard let edition = unknownEditions[fileName] else { return true }
        diagnostics.report(
            place.error(
                .ungeneratableType,
                "\(place): type \(field.typeFullName.dropFirst()) comes from \(fileName) (\(edition)), which cannot be generated"
            ))
        return false
    }

    /// The key and value of a map field's synthetic entry message.
    private func resolveMap(
        _ entry: MessageDescriptor, in message: MessageDeclaration, place: Place,
        reporting diagnostics: inout Diagnostics
    ) -> (ScalarType, Field.Kind)? {
        guard let keyField = entry.field.first(where: { $0.number == 1 }),
            let valueField = entry.field.first(where: { $0.number == 2 }),
            let keyType = keyField.type.flatMap(ScalarType.init)
        else {
            diagnostics.report(place.error(.malformedMapEntry, "\(place): malformed map entry \(entry.protoName)"))
            return nil
        }
        let value: Field.Kind
        switch valueField.type {
        case .message?:
            guard case let .message(target)? = types[typeName: valueField.typeFullName] else {
                diagnostics.report(
                    place.error(.unknownType, "\(place): unknown message type \(valueField.typeFullName)"))
                return nil
            }
            guard isGeneratable(target.fileName, for: valueField, place: place, reporting: &diagnostics) else {
                return nil
            }
            value = .message(target)
        case .enum_?:
            guard case let .enumeration(target)? = types[typeName: valueField.typeFullName] else {
                diagnostics.report(place.error(.unknownType, "\(place): unknown enum type \(valueField.typeFullName)"))
                return nil
            }
            value = .plain(.enumeration(target))
        case let type?:
            guard let scalar = ScalarType(type) else {
                diagnostics.report(place.error(.unsupportedType, "\(place): unsupported map value type"))
                return nil
            }
            value = .plain(.scalar(scalar))
        case nil:
            diagnostics.report(place.error(.unknownType, "\(place): unknown map value type"))
            return nil
        }
        return (keyType, value)
    }

    private func mapEntry(_ typeName: String, in message: MessageDeclaration) -> MessageDescriptor? {
        message.descriptor.nestedType.first { "." + message.fullName + "." + $0.protoName == typeName }
    }
}
