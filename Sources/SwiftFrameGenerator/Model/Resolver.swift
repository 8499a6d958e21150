import SwiftFrame

/// Problems found while resolving a request, each naming the file and the element.
public struct GenerationError: Error, CustomStringConvertible, Equatable {
    public var problems: [String]
    public var description: String { problems.joined(separator: "\n") }
}

/// Builds the resolved model from a request: declares every type of every file (so
/// references across files link), then resolves the fields of the files to generate,
/// checking names for collisions and rejecting what this generator does not support.
final class Resolver {
    private var problems: [String] = []
    private var warnings: [String] = []
    private var types: [String: TypeReference] = [:]
    private var paths: [ObjectIdentifier: [Int32]] = [:]

    private enum TypeReference {
        case message(MessageType)
        case enumeration(EnumType)
    }

    /// The result of resolving a request. It owns every file of the request: types refer
    /// to their files without owning them, and dependencies must outlive emission too.
    struct Resolution {
        /// The files to generate, in the order protoc named them.
        let files: [ProtoFile]
        let allFiles: [ProtoFile]
        let warnings: [String]
    }

    static func resolve(_ request: CodeGeneratorRequest, options: GeneratorOptions) throws(GenerationError) -> Resolution {
        let resolver = Resolver()
        let files = request.protoFiles.map(ProtoFile.init)
        for file in files { resolver.declare(file) }
        let generated = request.filesToGenerate.compactMap { name in files.first { $0.name == name } }
        let byName = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for file in generated {
            var seen: Set<String> = []
            var pending = file.descriptor.dependencies
            while let name = pending.popLast() {
                guard seen.insert(name).inserted else { continue }
                pending += byName[name]?.descriptor.dependencies ?? []
            }
            file.dependencyClosure = seen.sorted()
        }
        for file in generated { resolver.check(file) }
        guard resolver.problems.isEmpty else { throw GenerationError(problems: resolver.problems) }

        var layoutOverride: FrameLayout?
        if let text = options.layout {
            var problems: [String] = []
            layoutOverride = CommandResolver.parseLayout(text, place: "option Layout", problems: &problems)
            guard problems.isEmpty else { throw GenerationError(problems: problems) }
        }
        var commands = CommandResolver(allFiles: files, layoutOverride: layoutOverride)
        for file in generated {
            file.commandTable = commands.table(for: file)
            file.envelopes = commands.envelopes(in: file)
        }
        assignCommandIDs(generated.compactMap(\.commandTable), warnings: &commands.warnings)
        // Each request → response pair is written once, in the first generated file that
        // declares it or, failing that, the file of the request.
        for (request, response) in commands.responses.values.sorted(by: { $0.request.fullName < $1.request.fullName }) {
            let home = generated.first { $0 === request.file } ?? generated.first {
                $0.commandTable?.entries.contains { $0.request === request } == true
                    || $0.envelopes.contains { $0.choices.contains { $0.holds === request } }
            }
            home?.responsePairs.append((request, response))
        }
        resolver.problems += commands.problems
        resolver.checkTopLevelNames(files, generated: generated)
        guard resolver.problems.isEmpty else { throw GenerationError(problems: resolver.problems) }
        return Resolution(files: generated, allFiles: files, warnings: resolver.warnings + commands.warnings)
    }

    /// A message that travels under one id in the whole run carries it as `commandID`;
    /// one that travels under several ids is framed with an explicit id instead.
    private static func assignCommandIDs(_ tables: [CommandTable], warnings: inout [String]) {
        var ids: [ObjectIdentifier: Set<UInt32>] = [:]
        for table in tables {
            for entry in table.entries {
                for message in [entry.request, entry.response].compactMap({ $0 }) {
                    ids[ObjectIdentifier(message), default: []].insert(entry.id)
                }
            }
        }
        for table in tables {
            var done: Set<ObjectIdentifier> = []
            for entry in table.entries {
                for message in [entry.request, entry.response].compactMap({ $0 }) {
                    let key = ObjectIdentifier(message)
                    guard done.insert(key).inserted, let all = ids[key] else { continue }
                    if all.count == 1 {
                        table.conformances.append((message, entry.id))
                    } else if ids.removeValue(forKey: key) != nil {
                        let list = all.sorted().map(String.init).joined(separator: ", ")
                        warnings.append("\(message.file.name): \(message.protoName) travels under commands \(list); frame it with encode(_:command:)")
                    }
                }
            }
        }
    }

    // MARK: Declaring types

    private func declare(_ file: ProtoFile) {
        let scope = file.descriptor.package
        let prefix = Naming.packagePrefix(scope)
        for (index, descriptor) in file.descriptor.messages.enumerated() where !descriptor.isMapEntry {
            file.messages.append(declare(descriptor, scope: scope, swiftParent: nil, prefix: prefix,
                                         path: [4, Int32(index)], file: file))
        }
        for (index, descriptor) in file.descriptor.enums.enumerated() {
            file.enums.append(declare(descriptor, scope: scope, swiftParent: nil, prefix: prefix,
                                      path: [5, Int32(index)], file: file))
        }
    }

    private func declare(_ descriptor: MessageDescriptor, scope: String, swiftParent: String?, prefix: String,
                         path: [Int32], file: ProtoFile) -> MessageType {
        let fullName = scope.isEmpty ? descriptor.name : scope + "." + descriptor.name
        let swiftName = Naming.typeName(descriptor.name, prefix: prefix)
        let message = MessageType(
            descriptor: descriptor, fullName: fullName, swiftName: swiftName,
            swiftPath: swiftParent.map { $0 + "." + swiftName } ?? swiftName,
            comments: file.comments[path], file: file)
        types["." + fullName] = .message(message)
        paths[ObjectIdentifier(message)] = path
        for (index, nested) in descriptor.nestedMessages.enumerated() where !nested.isMapEntry {
            message.messages.append(declare(nested, scope: fullName, swiftParent: message.swiftPath, prefix: "",
                                            path: path + [3, Int32(index)], file: file))
        }
        for (index, nested) in descriptor.enums.enumerated() {
            message.enums.append(declare(nested, scope: fullName, swiftParent: message.swiftPath, prefix: "",
                                         path: path + [4, Int32(index)], file: file))
        }
        return message
    }

    private func declare(_ descriptor: EnumDescriptor, scope: String, swiftParent: String?, prefix: String,
                         path: [Int32], file: ProtoFile) -> EnumType {
        let fullName = scope.isEmpty ? descriptor.name : scope + "." + descriptor.name
        let swiftName = Naming.typeName(descriptor.name, prefix: prefix)
        let enumType = EnumType(
            protoName: descriptor.name, fullName: fullName, swiftName: swiftName,
            swiftPath: swiftParent.map { $0 + "." + swiftName } ?? swiftName,
            comments: file.comments[path], file: file, options: descriptor.options)
        types["." + fullName] = .enumeration(enumType)

        // Drop the enum's name from its values unless that makes two names collide.
        var names = descriptor.values.map { Naming.caseName($0.name, enumName: descriptor.name) }
        if Set(names).count != names.count {
            names = descriptor.values.map { Naming.unstrippedCaseName($0.name) }
        }
        var byNumber: [Int32: EnumType.Case] = [:]
        var numberBySwiftName: [String: Int32] = [:]
        for (index, value) in descriptor.values.enumerated() {
            let comments = file.comments[path + [2, Int32(index)]]
            // An alias spelled like another name of the same number (MOO, moo) means the same.
            if numberBySwiftName[names[index]] == value.number { continue }
            numberBySwiftName[names[index]] = numberBySwiftName[names[index]] ?? value.number
            if let target = byNumber[value.number] {
                enumType.aliases.append(.init(protoName: value.name, swiftName: names[index], target: target))
            } else {
                let enumCase = EnumType.Case(protoName: value.name, number: value.number,
                                             swiftName: names[index], comments: comments, options: value.options)
                byNumber[value.number] = enumCase
                enumType.cases.append(enumCase)
            }
        }
        let kept = enumType.cases.map { ($0.protoName, $0.swiftName) } + enumType.aliases.map { ($0.protoName, $0.swiftName) }
        reportCollisions(kept.map(\.0), swiftNames: kept.map(\.1), in: "\(file.name): enum \(fullName)", what: "values")
        return enumType
    }

    // MARK: Checking the files to generate

    private func check(_ file: ProtoFile) {
        let descriptor = file.descriptor
        guard descriptor.syntax == "proto3" || file.isProto2 else {
            problems.append("\(file.name): \(descriptor.syntax) syntax is not supported yet (only proto2 and proto3 files can be generated)")
            return
        }
        file.extensionsNamespace = Naming.typeName(Self.stem(of: file.name),
                                                   prefix: Naming.packagePrefix(descriptor.package)) + "Extensions"
        resolveExtensions(descriptor.extensions, in: file, scope: nil, path: [7])
        for message in file.messages { resolveFields(of: message) }
        markInitializationChecks(file.messages)
    }

    /// `user.proto` → `user`, `a/b/c.proto` → `c`.
    static func stem(of fileName: String) -> String {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        return base.hasSuffix(".proto") ? String(base.dropLast(6)) : base
    }

    /// Typed accessors for `extend` blocks. Custom options (extensions of descriptor.proto's
    /// *Options) need none: the generator reads them from option bytes.
    private func resolveExtensions(_ extensions: [FieldDescriptor], in file: ProtoFile, scope: MessageType?,
                                   path: [Int32]) {
        for (index, field) in extensions.enumerated() {
            let extendee = field.extendee
            if extendee.hasPrefix(".google.protobuf.") && extendee.hasSuffix("Options") { continue }
            let place = "\(file.name): extension \(scope.map { $0.fullName + "." } ?? "")\(field.name)"
            guard case let .message(container)? = types[extendee] else {
                problems.append("\(place): unknown message \(extendee)")
                continue
            }
            guard field.type != .group, container.descriptor.options.bool(field: 1) != true else {
                // Groups and MessageSet members still round-trip as unknown fields.
                warnings.append("\(place) of \(container.fullName) gets no typed accessor (groups and MessageSet extensions are kept as unknown fields)")
                continue
            }
            guard let kind = extensionKind(field, place: place) else { continue }
            let scopeName = scope?.fullName ?? file.descriptor.package
            file.extensions.append(ExtensionField(
                protoName: field.name, fullName: scopeName.isEmpty ? field.name : scopeName + "." + field.name,
                swiftName: Naming.fieldName(field.name), number: field.number, container: container, kind: kind,
                isRepeated: field.label == .repeated,
                isPacked: field.label == .repeated && kind.isPackable && (field.packedOption ?? !file.isProto2),
                comments: file.comments[path + [Int32(index)]], scope: scope))
        }
    }

    private func extensionKind(_ field: FieldDescriptor, place: String) -> Field.Kind? {
        switch field.type {
        case .message?:
            if case let .message(target)? = types[field.typeName] { return .message(target) }
        case .enum?:
            if case let .enumeration(target)? = types[field.typeName] { return .enumeration(target) }
        case let type?:
            if let scalar = ScalarType(type) { return .scalar(scalar) }
        case nil:
            break
        }
        problems.append("\(place): unsupported extension type \(field.rawType) \(field.typeName)")
        return nil
    }

    private func resolveFields(of message: MessageType) {
        let place = "\(message.file.name): message \(message.fullName)"
        let descriptor = message.descriptor
        let path = paths[ObjectIdentifier(message)] ?? []
        resolveExtensions(descriptor.extensions, in: message.file, scope: message, path: path + [6])
        // Real oneofs; the synthetic oneof of a proto3 `optional` field is just presence.
        var oneofs: [Int32: Oneof] = [:]
        for (index, oneof) in descriptor.oneofs.enumerated() {
            let members = descriptor.fields.filter { $0.oneofIndex == Int32(index) }
            guard !members.contains(where: \.proto3Optional) else { continue }
            let model = Oneof(protoName: oneof.name, swiftName: Naming.fieldName(oneof.name),
                              typeName: Naming.typeName(oneof.name),
                              comments: message.file.comments[path + [8, Int32(index)]])
            oneofs[Int32(index)] = model
            message.oneofs.append(model)
        }
        for (index, field) in descriptor.fields.enumerated() {
            let oneof = field.oneofIndex.flatMap { oneofs[$0] }
            if let resolved = resolve(field, in: message, place: "\(place): field \(field.name)",
                                      comments: message.file.comments[path + [2, Int32(index)]], oneof: oneof) {
                message.fields.append(resolved)
                oneof?.fields.append(resolved)
            }
        }
        let members = message.members
        reportCollisions(members.map(\.protoName), swiftNames: members.map(\.swiftName), in: place, what: "fields")
        for oneof in message.oneofs {
            reportCollisions(oneof.fields.map(\.protoName), swiftNames: oneof.fields.map(\.swiftName),
                             in: "\(place): oneof \(oneof.protoName)", what: "members")
        }
        let nested = message.messages.map { ($0.protoName, $0.swiftName) } + message.enums.map { ($0.protoName, $0.swiftName) }
            + message.oneofs.map { ("oneof " + $0.protoName, $0.typeName) }
        reportCollisions(nested.map(\.0), swiftNames: nested.map(\.1), in: place, what: "nested types")
        for nested in message.messages { resolveFields(of: nested) }
    }

    private func resolve(_ field: FieldDescriptor, in message: MessageType, place: String,
                         comments: String?, oneof: Oneof?) -> Field? {
        guard let type = field.type else {
            problems.append("\(place): unknown field type \(field.rawType)")
            return nil
        }
        let kind: Field.Kind
        var isGroup = false
        switch type {
        case .group, .message:
            isGroup = type == .group
            if let entry = mapEntry(field.typeName, in: message), entry.isMapEntry {
                guard let mapKind = resolveMap(entry, in: message, place: place) else { return nil }
                return Field(protoName: field.name, number: field.number, swiftName: Naming.fieldName(field.name),
                             kind: mapKind, presence: .map, comments: comments)
            }
            guard case let .message(target)? = types[field.typeName] else {
                problems.append("\(place): unknown message type \(field.typeName)")
                return nil
            }
            guard isGeneratable(target.file, for: field, place: place) else { return nil }
            kind = .message(target)
        case .enum:
            guard case let .enumeration(target)? = types[field.typeName] else {
                problems.append("\(place): unknown enum type \(field.typeName)")
                return nil
            }
            guard isGeneratable(target.file, for: field, place: place) else { return nil }
            kind = .enumeration(target)
        default:
            kind = .scalar(ScalarType(type)!)
        }
        if let oneof {
            let member = Field(protoName: field.name, number: field.number, swiftName: Naming.fieldName(field.name),
                               kind: kind, presence: .oneof, comments: comments)
            member.oneof = oneof
            member.isGroup = isGroup
            return member
        }
        let isProto2 = message.file.isProto2
        let presence: Field.Presence
        switch field.label {
        case .required:
            presence = .explicit
        case .repeated:
            // proto3 packs by default, proto2 only with [packed = true].
            presence = .repeated(packed: kind.isPackable && (field.packedOption ?? !isProto2))
        case .optional:
            if case .message = kind {
                presence = .explicit
            } else {
                presence = isProto2 || field.proto3Optional ? .explicit : .implicit
            }
        }
        let resolved = Field(protoName: field.name, number: field.number, swiftName: Naming.fieldName(field.name),
                             kind: kind, presence: presence, comments: comments)
        resolved.isRequired = field.label == .required
        resolved.isGroup = isGroup
        resolved.declaredDefault = field.defaultValue
        return resolved
    }

    /// A type from a file this generator cannot generate (proto2, editions) would be a
    /// reference to Swift that never exists.
    private func isGeneratable(_ file: ProtoFile, for field: FieldDescriptor, place: String) -> Bool {
        guard file.descriptor.syntax != "proto3" && !file.isProto2 else { return true }
        problems.append("\(place): type \(field.typeName.dropFirst()) comes from \(file.name), a \(file.descriptor.syntax) file, which cannot be generated yet")
        return false
    }

    /// Messages with required fields, and messages that can hold them, check after decoding.
    private func markInitializationChecks(_ roots: [MessageType]) {
        func all(_ message: MessageType) -> [MessageType] { [message] + message.messages.flatMap(all) }
        let messages = roots.flatMap(all)
        for message in messages where message.fields.contains(where: \.isRequired) {
            message.needsInitializationCheck = true
        }
        var changed = true
        while changed {
            changed = false
            for message in messages where !message.needsInitializationCheck {
                if message.fields.contains(where: { $0.kind.containedMessage?.needsInitializationCheck == true }) {
                    message.needsInitializationCheck = true
                    changed = true
                }
            }
        }
    }

    /// The key and value of a map field's synthetic entry message.
    private func resolveMap(_ entry: MessageDescriptor, in message: MessageType, place: String) -> Field.Kind? {
        guard let keyField = entry.fields.first(where: { $0.number == 1 }),
              let valueField = entry.fields.first(where: { $0.number == 2 }),
              let keyType = keyField.type.flatMap(ScalarType.init) else {
            problems.append("\(place): malformed map entry \(entry.name)")
            return nil
        }
        let value: Field.Kind
        switch valueField.type {
        case .message?:
            guard case let .message(target)? = types[valueField.typeName] else {
                problems.append("\(place): unknown message type \(valueField.typeName)")
                return nil
            }
            guard isGeneratable(target.file, for: valueField, place: place) else { return nil }
            value = .message(target)
        case .enum?:
            guard case let .enumeration(target)? = types[valueField.typeName] else {
                problems.append("\(place): unknown enum type \(valueField.typeName)")
                return nil
            }
            value = .enumeration(target)
        case let type?:
            guard let scalar = ScalarType(type) else {
                problems.append("\(place): unsupported map value type")
                return nil
            }
            value = .scalar(scalar)
        case nil:
            problems.append("\(place): unknown map value type \(valueField.rawType)")
            return nil
        }
        return .map(key: keyType, value: value)
    }

    private func mapEntry(_ typeName: String, in message: MessageType) -> MessageDescriptor? {
        message.descriptor.nestedMessages.first { "." + message.fullName + "." + $0.name == typeName }
    }

    // MARK: Names

    private func reportCollisions(_ protoNames: [String], swiftNames: [String], in place: String, what: String) {
        var firstBySwiftName: [String: String] = [:]
        for (protoName, swiftName) in zip(protoNames, swiftNames) {
            if let other = firstBySwiftName[swiftName] {
                problems.append("\(place): \(what) \(other) and \(protoName) both map to the Swift name \(swiftName)")
            } else {
                firstBySwiftName[swiftName] = protoName
            }
        }
    }

    /// All top-level types of a run share one Swift module namespace.
    private func checkTopLevelNames(_ files: [ProtoFile], generated: [ProtoFile]) {
        let generatedNames = Set(generated.map(\.name))
        var seen: [String: (fullName: String, file: String)] = [:]
        for file in files {
            let declared = file.messages.map { ($0.swiftName, $0.fullName) } + file.enums.map { ($0.swiftName, $0.fullName) }
                + (file.commandTable.map { [($0.swiftName, "the command table of \(file.name)")] } ?? [])
                + (file.extensions.contains { $0.scope == nil } ? [(file.extensionsNamespace, "the extensions of \(file.name)")] : [])
            for (swiftName, fullName) in declared {
                if let other = seen[swiftName], other.fullName != fullName,
                   generatedNames.contains(file.name) || generatedNames.contains(other.file) {
                    problems.append("\(file.name): \(fullName) and \(other.fullName) (\(other.file)) both map to the Swift name \(swiftName)")
                } else {
                    seen[swiftName] = (fullName, file.name)
                }
            }
        }
    }
}

extension Field.Kind {
    /// Numeric, bool and enum fields can be packed.
    var isPackable: Bool {
        switch self {
        case let .scalar(scalar): return scalar != .string && scalar != .bytes
        case .enumeration: return true
        case .message, .map: return false
        }
    }
}

extension Field.Kind {
    /// The message a field of this kind holds (directly, in a list, or as a map value).
    var containedMessage: MessageType? {
        switch self {
        case let .message(message): return message
        case let .map(_, value): return value.containedMessage
        case .scalar, .enumeration: return nil
        }
    }
}

extension MessageType.Member {
    var protoName: String {
        switch self {
        case let .field(field): return field.protoName
        case let .oneof(oneof): return "oneof " + oneof.protoName
        }
    }

    var swiftName: String {
        switch self {
        case let .field(field): return field.swiftName
        case let .oneof(oneof): return oneof.swiftName
        }
    }
}
