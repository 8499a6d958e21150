import SwiftFrame
import SwiftFrameDescriptors

/// Problems found while resolving a request, each naming the file and the element.
public struct GenerationError: Error, CustomStringConvertible, Equatable {
    public var problems: [String]
    public var description: String { problems.joined(separator: "\n") }
}

/// What resolving reports: problems, which fail the run, and warnings, which protoc shows.
struct Diagnostics {
    var problems: [String] = []
    var warnings: [String] = []
}

/// Builds the resolved model from a request: declares every type of every file (so
/// references across files link), then resolves the fields of the files to generate,
/// checking names for collisions and rejecting what this generator does not support.
final class Resolver {
    /// Every message and enum of the run, by full name.
    private var types = TypeIndex()
    /// Every `extend` field of the request.
    private let extensions: ExtensionCatalog
    /// Each file's syntax (`proto2`, `proto3`, `editions`) by name.
    private var syntaxes: [String: String] = [:]
    /// The options every message's integer custom options are read for.
    private let integerOptions: [Int32]
    private var paths: [ObjectIdentifier: [Int32]] = [:]
    /// The module's namespace: top-level types of every file of the run, then the command
    /// tables and extension namespaces of the files to generate.
    private var topLevel = NameScope(reserved: Naming.reservedTypeNames)
    private let config: Swiftframe_Config

    private init(config: Swiftframe_Config, extensions: ExtensionCatalog) {
        self.config = config
        self.extensions = extensions
        self.integerOptions = extensions.integerMessageOptions
    }

    /// The result of resolving a request.
    struct Resolution {
        /// The files to generate, in the order protoc named them.
        let files: [ProtoFile]
        let warnings: [String]
    }

    static func resolve(_ request: CodeGeneratorRequest, options: GeneratorOptions) throws(GenerationError) -> Resolution {
        let malformations = RequestCheck.problems(in: request.protoFile)
        guard malformations.isEmpty else { throw GenerationError(problems: malformations) }
        let resolver = Resolver(config: options.config, extensions: ExtensionCatalog(request.protoFile))
        let files = request.protoFile.map(ProtoFile.init)
        resolver.declare(files)
        let generated = request.fileToGenerate.compactMap { name in files.first { $0.name == name } }
        var diagnostics = Diagnostics()
        for file in generated { resolver.check(file, reporting: &diagnostics) }
        guard diagnostics.problems.isEmpty else { throw GenerationError(problems: diagnostics.problems) }
        // The other files' fields too: whether a message checks required fields depends on
        // every message it can hold, wherever it is declared. Their diagnostics are
        // suppressed, by design: each is reported by the run that generates its file, and a
        // file that is only imported (a proto2 file's group extensions, an editions file) must
        // neither fail nor clutter the run of the files that import it.
        let generatedNames = Set(generated.map(\.name))
        for file in files where !generatedNames.contains(file.name) {
            var suppressed = Diagnostics()
            resolver.check(file, reporting: &suppressed)
        }
        resolver.markInitializationChecks(files.flatMap(\.allMessages))

        var layoutOverride: FrameLayout?
        if let text = options.layout {
            var problems: [String] = []
            layoutOverride = CommandResolver.parseLayout(text, place: "option Layout", problems: &problems)
            guard problems.isEmpty else { throw GenerationError(problems: problems) }
        }
        var commands = CommandResolver(types: resolver.types, extensions: resolver.extensions,
                                       layoutOverride: layoutOverride, config: options.config)
        let resolved = commands.resolve(generated)
        let helpers = resolver.nameHelpers(generated, tables: resolved.map(\.table))
        for (file, commands) in zip(generated, resolved) {
            file.commandTable = helpers.tables[file.name]
            file.extensionsNamespace = helpers.namespaces[file.name] ?? ""
            file.envelopes = commands.envelopes
            file.responsePairs = commands.responsePairs
            file.imports = importedModules(of: file, generatedHere: generatedNames, moduleMap: options.moduleMap)
            file.printsNames = options.textFormat == .Names
            let declared = file.declaresCodeSize ? GeneratorOptions.OptimizeFor.CODE_SIZE : .SPEED
            file.compactCodec = (options.optimizeFor ?? declared) == .CODE_SIZE
        }
        diagnostics.problems += commands.problems
        guard diagnostics.problems.isEmpty else { throw GenerationError(problems: diagnostics.problems) }
        return Resolution(files: generated, warnings: diagnostics.warnings + commands.warnings)
    }

    /// The modules holding the Swift of the types this file's code names (field and extension
    /// types, extended messages, command-table and envelope messages) that are generated
    /// elsewhere. Importing a file is not enough to need its module.
    private static func importedModules(of file: ProtoFile, generatedHere: Set<String>,
                                        moduleMap: [String: String]) -> [String] {
        var named: [String] = []
        func add(_ shape: Field.Shape) {
            if let message = shape.containedMessage { named.append(message.fileName) }
            if let enumType = shape.containedEnum { named.append(enumType.fileName) }
        }
        for message in file.allMessages { message.fields.forEach { add($0.shape) } }
        for field in file.extensions {
            named.append(field.container.fileName)
            add(field.isRepeated ? .repeated(field.kind.value) : .optional(field.kind.value))
        }
        for entry in file.commandTable?.entries ?? [] {
            named += [entry.request?.fileName, entry.response?.fileName].compactMap { $0 }
        }
        for envelope in file.envelopes { named += envelope.choices.compactMap { $0.holds?.fileName } }
        for (request, response) in file.responsePairs { named += [request.fileName, response.fileName] }
        let modules = named.compactMap { generatedHere.contains($0) ? nil : moduleMap[$0] }
        return Set(modules).sorted()
    }

    /// The generator's own top-level types, after every declared one: command tables and
    /// extension namespaces, in file-name order. Builds each file's table with its name.
    private func nameHelpers(_ files: [ProtoFile], tables: [CommandTableDraft?])
        -> (tables: [String: CommandTable], namespaces: [String: String]) {
        enum Helper {
            case table(file: String, CommandTableDraft)
            case namespace(file: String)
        }
        var elements: [(natural: String, protoName: String)] = []
        var helpers: [Helper] = []
        let order = files.indices.sorted { files[$0].name.utf8.lexicographicallyPrecedes(files[$1].name.utf8) }
        for index in order {
            let file = files[index]
            let stem = Naming.typeName(Naming.stem(of: file.name), prefix: Naming.packagePrefix(file.package))
            if let table = tables[index] {
                elements.append((stem + "Commands", file.name + " commands"))
                helpers.append(.table(file: file.name, table))
            }
            if file.extensions.contains(where: { $0.scope == nil }) {
                elements.append((stem + "Extensions", file.name + " extensions"))
                helpers.append(.namespace(file: file.name))
            }
        }
        var result: (tables: [String: CommandTable], namespaces: [String: String]) = ([:], [:])
        for (name, helper) in zip(topLevel.claim(elements), helpers) {
            switch helper {
            case let .table(file, draft): result.tables[file] = CommandTable(swiftName: name, draft: draft)
            case let .namespace(file): result.namespaces[file] = name
            }
        }
        return result
    }

    // MARK: Declaring types

    /// Declares the top-level types of every file of the run, which share the module's
    /// namespace, then everything nested in them.
    private func declare(_ files: [ProtoFile]) {
        for file in files { syntaxes[file.name] = file.descriptor.syntaxName }
        var elements: [(natural: String, protoName: String)] = []
        for file in files {
            let prefix = Naming.packagePrefix(file.package)
            let package = file.package.isEmpty ? "" : file.package + "."
            for descriptor in file.descriptor.messageType where !descriptor.isMapEntry {
                elements.append((Naming.topLevelTypeName(descriptor.protoName, prefix: prefix), package + descriptor.protoName))
            }
            for descriptor in file.descriptor.enumType {
                elements.append((Naming.topLevelTypeName(descriptor.protoName, prefix: prefix, isEnum: true),
                                 package + descriptor.protoName))
            }
        }
        var names = topLevel.claim(elements)[...]
        for file in files {
            let scope = file.package
            for (index, descriptor) in file.descriptor.messageType.enumerated() where !descriptor.isMapEntry {
                file.messages.append(declare(descriptor, scope: scope, swiftName: names.removeFirst(), swiftParent: nil,
                                             path: [4, Int32(index)], file: file))
            }
            for (index, descriptor) in file.descriptor.enumType.enumerated() {
                file.enums.append(declare(descriptor, scope: scope, swiftName: names.removeFirst(), swiftParent: nil,
                                          path: [5, Int32(index)], file: file))
            }
        }
    }

    private func declare(_ descriptor: MessageDescriptor, scope: String, swiftName: String, swiftParent: String?,
                         path: [Int32], file: ProtoFile) -> MessageType {
        let fullName = scope.isEmpty ? descriptor.protoName : scope + "." + descriptor.protoName
        let message = MessageType(
            descriptor: descriptor, fullName: fullName, swiftName: swiftName,
            swiftPath: swiftParent.map { $0 + "." + swiftName } ?? swiftName,
            comments: file.comments[path], file: file, integerOptions: integerOptions)
        message.extensionRanges = descriptor.extensionRange
            .map { range in
                let start = Int(range.start ?? 0)
                return start...max(start, Int(range.end ?? 0) - 1)
            }
            .sorted { $0.lowerBound < $1.lowerBound }
        types.add(.message(message))
        paths[ObjectIdentifier(message)] = path
        let nestedNames = nameMembers(of: message, path: path, file: file)
        for (index, nested) in descriptor.nestedType.enumerated() where !nested.isMapEntry {
            message.messages.append(declare(nested, scope: fullName, swiftName: nestedNames[nested.protoName]!,
                                            swiftParent: message.swiftPath, path: path + [3, Int32(index)], file: file))
        }
        for (index, nested) in descriptor.enumType.enumerated() {
            message.enums.append(declare(nested, scope: fullName, swiftName: nestedNames[nested.protoName]!,
                                         swiftParent: message.swiftPath, path: path + [4, Int32(index)], file: file))
        }
        return message
    }

    /// Names everything a message's struct declares: its nested types, oneof enums and
    /// helper types in one scope, its properties and helper methods in another, and each
    /// oneof's cases. Returns the names of the nested messages and enums by proto name.
    private func nameMembers(of message: MessageType, path: [Int32], file: ProtoFile) -> [String: String] {
        let descriptor = message.descriptor
        let realOneofs = descriptor.oneofDecl.indices.filter { index in
            !descriptor.field.contains { $0.oneofIndex == Int32(index) && $0.isProto3Optional }
        }
        let oneofNames = descriptor.oneofDecl.map(\.protoName)
        let envelopeBodies = descriptor.field.compactMap { field in
            config.selector(of: field, in: message.fullName).map { (field: field, selector: $0) }
        }

        // Nested types: declared, then the oneofs' enums, then helpers.
        var types = NameScope(reserved: Naming.reservedTypeNames)
        let nested = descriptor.nestedType.filter { !$0.isMapEntry }.map(\.protoName) + descriptor.enumType.map(\.protoName)
        let nestedNames = Dictionary(uniqueKeysWithValues: zip(nested, types.claim(nested.map { (Naming.typeName($0), $0) })))
        let oneofTypes = types.claim(realOneofs.map { (Naming.typeName(oneofNames[$0]), oneofNames[$0]) })
        let envelopeTypes = types.claim(envelopeBodies.map { (Naming.typeName($0.field.protoName), $0.field.protoName) })
        if descriptor.field.contains(where: { $0.defaultValue != nil && $0.oneofIndex == nil }) {
            message.defaultsName = types.claim("Defaults")
        }

        // Properties: fields outside real oneofs and the oneofs themselves, then helpers.
        var members = NameScope(reserved: Naming.reservedFieldNames.union(["extensionFields"]))
        let inOneof = { (field: FieldDescriptor) in field.oneofIndex.map { realOneofs.contains(Int($0)) } ?? false }
        let properties = descriptor.field.filter { !inOneof($0) }.map(\.protoName) + realOneofs.map { oneofNames[$0] }
        let propertyNames = Dictionary(uniqueKeysWithValues: zip(properties, members.claim(properties.map { (Naming.fieldName($0), $0) })))
        let accessors = members.claim(envelopeTypes.enumerated().map { ("decoded" + $0.element, envelopeBodies[$0.offset].field.protoName) })
        for (index, body) in envelopeBodies.enumerated() {
            message.envelopeBodies[body.field.fieldNumber] = (body.selector, envelopeTypes[index], accessors[index])
        }

        for (position, index) in realOneofs.enumerated() {
            let name = oneofNames[index]
            let model = Oneof(protoName: name, index: Int32(index), swiftName: propertyNames[name]!,
                              typeName: oneofTypes[position], comments: file.comments[path + [8, Int32(index)]])
            var cases = NameScope(reserved: Naming.reservedFieldNames)
            let fields = descriptor.field.filter { $0.oneofIndex == Int32(index) }.map(\.protoName)
            for (name, swiftName) in zip(fields, cases.claim(fields.map { (Naming.fieldName($0), $0) })) {
                model.caseNames[name] = swiftName
            }
            message.oneofs.append(model)
        }
        message.propertyNames = propertyNames
        return nestedNames
    }

    private func declare(_ descriptor: EnumDescriptor, scope: String, swiftName: String, swiftParent: String?,
                         path: [Int32], file: ProtoFile) -> EnumType {
        let fullName = scope.isEmpty ? descriptor.protoName : scope + "." + descriptor.protoName
        // Drop the enum's name from its values unless that makes two names collide.
        let values = descriptor.value
        var natural = values.map { Naming.caseName($0.protoName, enumName: descriptor.protoName) }
        if Set(natural).count != natural.count {
            natural = values.map { Naming.unstrippedCaseName($0.protoName) }
        }
        // An alias spelled like another name of the same number (MOO, moo) means the same.
        var firstNumber: [String: Int32] = [:]
        let kept = values.indices.filter { index in
            let number = values[index].valueNumber
            if firstNumber[natural[index]] == number { return false }
            firstNumber[natural[index]] = firstNumber[natural[index]] ?? number
            return true
        }
        var scope = NameScope(reserved: Naming.reservedCaseNames)
        let names = scope.claim(kept.map { (natural[$0], values[$0].protoName) })
        var byNumber: [Int32: EnumType.Case] = [:]
        var cases: [EnumType.Case] = [], aliases: [EnumType.Alias] = []
        for (index, swiftName) in zip(kept, names) {
            let value = values[index]
            if let target = byNumber[value.valueNumber] {
                aliases.append(.init(protoName: value.protoName, swiftName: swiftName, target: target))
            } else {
                let enumCase = EnumType.Case(protoName: value.protoName, number: value.valueNumber, swiftName: swiftName,
                                             comments: file.comments[path + [2, Int32(index)]], options: .init(value.options))
                byNumber[value.valueNumber] = enumCase
                cases.append(enumCase)
            }
        }
        let enumType = EnumType(
            protoName: descriptor.protoName, fullName: fullName, swiftName: swiftName,
            swiftPath: swiftParent.map { $0 + "." + swiftName } ?? swiftName,
            comments: file.comments[path], cases: cases, aliases: aliases, file: file, options: descriptor.options)
        types.add(.enumeration(enumType))
        return enumType
    }

    // MARK: Checking the files to generate

    private func check(_ file: ProtoFile, reporting diagnostics: inout Diagnostics) {
        let descriptor = file.descriptor
        guard descriptor.syntaxName == "proto3" || file.isProto2 else {
            diagnostics.problems.append("\(file.name): \(descriptor.syntaxName) syntax is not supported yet (only proto2 and proto3 files can be generated)")
            return
        }
        resolveExtensions(descriptor.extension_, in: file, scope: nil, path: [7], reporting: &diagnostics)
        for message in file.allMessages { resolveFields(of: message, in: file, reporting: &diagnostics) }
    }

    /// Typed accessors for `extend` blocks, custom options (extensions of descriptor.proto's
    /// `*Options`, which `SwiftFrameDescriptors` ships) included.
    private func resolveExtensions(_ extensions: [FieldDescriptor], in file: ProtoFile, scope: MessageRef?,
                                   path: [Int32], reporting diagnostics: inout Diagnostics) {
        var accepted: [(index: Int, field: FieldDescriptor, container: MessageRef, kind: Field.Kind)] = []
        for (index, field) in extensions.enumerated() {
            let extendee = field.extendee ?? ""
            let place = "\(file.name): extension \(scope.map { $0.fullName + "." } ?? "")\(field.protoName)"
            guard case let .message(container)? = types[typeName: extendee] else {
                diagnostics.problems.append("\(place): unknown message \(extendee)")
                continue
            }
            guard field.type != .group, !container.isMessageSet else {
                // Groups and MessageSet members still round-trip as unknown fields.
                diagnostics.warnings.append("\(place) of \(container.fullName) gets no typed accessor (groups and MessageSet extensions are kept as unknown fields)")
                continue
            }
            guard let kind = valueKind(field, place: place, problem: "unsupported extension type \(field.typeFullName)",
                                       reporting: &diagnostics) else {
                continue
            }
            accepted.append((index, field, MessageRef(container), kind))
        }
        // Static members of the declaring message, or of the file's namespace enum.
        var names = NameScope(reserved: Naming.swiftKeywords.union(["protoMessageName", "commandID"]))
        let swiftNames = names.claim(accepted.map { (Naming.fieldName($0.field.protoName), $0.field.protoName) })
        for (item, swiftName) in zip(accepted, swiftNames) {
            let field = item.field
            let scopeName = scope?.fullName ?? file.package
            file.extensions.append(ExtensionField(
                protoName: field.protoName, fullName: scopeName.isEmpty ? field.protoName : scopeName + "." + field.protoName,
                swiftName: swiftName, number: field.fieldNumber, container: item.container, kind: item.kind,
                isRepeated: field.isRepeated,
                isPacked: field.isRepeated && item.kind.isPackable && (field.packedOption ?? !file.isProto2),
                comments: file.comments[path + [Int32(item.index)]], scope: scope))
        }
    }

    /// The kind of an extension or a map value: a scalar, an enum or a message of this run.
    private func valueKind(_ field: FieldDescriptor, place: String, problem: String,
                           reporting diagnostics: inout Diagnostics) -> Field.Kind? {
        switch field.type {
        case .message?:
            if case let .message(target)? = types[typeName: field.typeFullName] { return .message(MessageRef(target)) }
        case .enum_?:
            if case let .enumeration(target)? = types[typeName: field.typeFullName] { return .plain(.enumeration(target)) }
        case let type?:
            if let scalar = ScalarType(type) { return .plain(.scalar(scalar)) }
        case nil:
            break
        }
        diagnostics.problems.append("\(place): \(problem)")
        return nil
    }

    private func resolveFields(of message: MessageType, in file: ProtoFile, reporting diagnostics: inout Diagnostics) {
        let place = "\(file.name): message \(message.fullName)"
        let descriptor = message.descriptor
        let path = paths[ObjectIdentifier(message)] ?? []
        resolveExtensions(descriptor.extension_, in: file, scope: MessageRef(message), path: path + [6], reporting: &diagnostics)
        // Real oneofs (declared with their names); the synthetic oneof of a proto3 `optional`
        // field is just presence.
        let oneofs = Dictionary(uniqueKeysWithValues: message.oneofs.map { ($0.index, $0) })
        for (index, field) in descriptor.field.enumerated() {
            let oneof = field.oneofIndex.flatMap { oneofs[$0] }
            let swiftName = oneof?.caseNames[field.protoName] ?? message.propertyNames[field.protoName]!
            if let resolved = resolve(field, in: message, swiftName: swiftName, place: "\(place): field \(field.protoName)",
                                      comments: file.comments[path + [2, Int32(index)]], oneof: oneof,
                                      reporting: &diagnostics) {
                message.fields.append(resolved)
                oneof?.fields.append(resolved)
            }
        }
    }

    private func resolve(_ field: FieldDescriptor, in message: MessageType, swiftName: String, place: String,
                         comments: String?, oneof: Oneof?, reporting diagnostics: inout Diagnostics) -> Field? {
        guard let type = field.type else {
            diagnostics.problems.append("\(place): unknown field type")
            return nil
        }
        let value: Field.Value
        switch type {
        case .group, .message:
            if let entry = mapEntry(field.typeFullName, in: message), entry.isMapEntry {
                guard let (key, value) = resolveMap(entry, in: message, place: place, reporting: &diagnostics) else { return nil }
                return Field(protoName: field.protoName, number: field.fieldNumber, swiftName: swiftName,
                             shape: .map(key: key, value: value), comments: comments, declaredDefault: nil)
            }
            guard case let .message(target)? = types[typeName: field.typeFullName] else {
                diagnostics.problems.append("\(place): unknown message type \(field.typeFullName)")
                return nil
            }
            guard isGeneratable(target.fileName, for: field, place: place, reporting: &diagnostics) else { return nil }
            value = type == .group ? .group(MessageRef(target)) : .message(MessageRef(target))
        case .enum_:
            guard case let .enumeration(target)? = types[typeName: field.typeFullName] else {
                diagnostics.problems.append("\(place): unknown enum type \(field.typeFullName)")
                return nil
            }
            guard isGeneratable(target.fileName, for: field, place: place, reporting: &diagnostics) else { return nil }
            value = .plain(.enumeration(target))
        default:
            guard let scalar = ScalarType(type) else {
                diagnostics.problems.append("\(place): unknown field type")
                return nil
            }
            value = .plain(.scalar(scalar))
        }
        let shape: Field.Shape
        if let oneof {
            shape = .oneofMember(value, oneof: oneof.swiftName)
        } else {
            let isProto2 = message.isProto2
            switch (field.label ?? .optional, value) {
            case (.required, _):
                shape = .required(value)
            case let (.repeated, .plain(plain)):
                // proto3 packs by default, proto2 only with [packed = true].
                if let packable = Field.Packable(plain), field.packedOption ?? !isProto2 {
                    shape = .packed(packable)
                } else {
                    shape = .repeated(value)
                }
            case (.repeated, _):
                shape = .repeated(value)
            case let (.optional, .plain(plain)) where !isProto2 && !field.isProto3Optional:
                shape = .implicit(plain)
            case (.optional, _):
                shape = .optional(value)
            }
        }
        return Field(protoName: field.protoName, number: field.fieldNumber, swiftName: swiftName, shape: shape,
                     comments: comments, declaredDefault: oneof == nil ? field.defaultValue : nil)
    }

    /// A type from a file this generator cannot generate (proto2, editions) would be a
    /// reference to Swift that never exists.
    private func isGeneratable(_ fileName: String, for field: FieldDescriptor, place: String,
                               reporting diagnostics: inout Diagnostics) -> Bool {
        let syntax = syntaxes[fileName] ?? ""
        guard syntax != "proto3" && syntax != "proto2" else { return true }
        diagnostics.problems.append("\(place): type \(field.typeFullName.dropFirst()) comes from \(fileName), a \(syntax) file, which cannot be generated yet")
        return false
    }

    /// Messages with required fields, and messages that can hold them, check after decoding;
    /// then every field's reference to a message says whether it does.
    private func markInitializationChecks(_ messages: [MessageType]) {
        var checked = Set(messages.filter { $0.fields.contains(where: \.isRequired) }.map(\.fullName))
        var changed = true
        while changed {
            changed = false
            for message in messages where !checked.contains(message.fullName) {
                if message.fields.contains(where: { $0.shape.containedMessage.map { checked.contains($0.fullName) } == true }) {
                    checked.insert(message.fullName)
                    changed = true
                }
            }
        }
        let transform = { (ref: MessageRef) in ref.checked(checked.contains(ref.fullName)) }
        for message in messages {
            message.needsInitializationCheck = checked.contains(message.fullName)
            message.fields = message.fields.map { $0.mapMessages(transform) }
            for oneof in message.oneofs { oneof.fields = oneof.fields.map { $0.mapMessages(transform) } }
        }
    }

    /// The key and value of a map field's synthetic entry message.
    private func resolveMap(_ entry: MessageDescriptor, in message: MessageType, place: String,
                            reporting diagnostics: inout Diagnostics) -> (ScalarType, Field.Kind)? {
        guard let keyField = entry.field.first(where: { $0.number == 1 }),
              let valueField = entry.field.first(where: { $0.number == 2 }),
              let keyType = keyField.type.flatMap(ScalarType.init) else {
            diagnostics.problems.append("\(place): malformed map entry \(entry.protoName)")
            return nil
        }
        let value: Field.Kind
        switch valueField.type {
        case .message?:
            guard case let .message(target)? = types[typeName: valueField.typeFullName] else {
                diagnostics.problems.append("\(place): unknown message type \(valueField.typeFullName)")
                return nil
            }
            guard isGeneratable(target.fileName, for: valueField, place: place, reporting: &diagnostics) else { return nil }
            value = .message(MessageRef(target))
        case .enum_?:
            guard case let .enumeration(target)? = types[typeName: valueField.typeFullName] else {
                diagnostics.problems.append("\(place): unknown enum type \(valueField.typeFullName)")
                return nil
            }
            value = .plain(.enumeration(target))
        case let type?:
            guard let scalar = ScalarType(type) else {
                diagnostics.problems.append("\(place): unsupported map value type")
                return nil
            }
            value = .plain(.scalar(scalar))
        case nil:
            diagnostics.problems.append("\(place): unknown map value type")
            return nil
        }
        return (keyType, value)
    }

    private func mapEntry(_ typeName: String, in message: MessageType) -> MessageDescriptor? {
        message.descriptor.nestedType.first { "." + message.fullName + "." + $0.protoName == typeName }
    }
}

extension Field.Kind {
    /// Numbers, bools and enums can be packed.
    var isPackable: Bool {
        if case let .plain(plain) = self { return Field.Packable(plain) != nil }
        return false
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
