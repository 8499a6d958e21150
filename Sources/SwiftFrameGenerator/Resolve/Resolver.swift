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
    /// Messages with `message_set_wire_format`, by full name.
    private var messageSets: Set<String> = []
    /// The module's namespace: top-level types of every file of the run, then the command
    /// tables and extension namespaces of the files to generate.
    private var topLevel = NameScope(reserved: Naming.reservedTypeNames)
    /// What each top-level Swift name of the declared types names (`message im.Common in
    /// common.proto`), for the errors of a configured table name that collides with one.
    private var topLevelOwners: [String: String] = [:]
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
        let files = resolver.declare(request.protoFile.map(SourceFile.init))
        let generated = request.fileToGenerate.compactMap { name in files.first { $0.source.name == name } }
        var diagnostics = Diagnostics()
        var linked = Linked()
        for file in generated { resolver.link(file, into: &linked, reporting: &diagnostics) }
        guard diagnostics.problems.isEmpty else { throw GenerationError(problems: diagnostics.problems) }
        // The other files' fields too: whether a message checks required fields depends on
        // every message it can hold, wherever it is declared. Their diagnostics are
        // suppressed, by design: each is reported by the run that generates its file, and a
        // file that is only imported (a proto2 file's group extensions, an editions file) must
        // neither fail nor clutter the run of the files that import it.
        let generatedNames = Set(generated.map(\.source.name))
        for file in files where !generatedNames.contains(file.source.name) {
            var suppressed = Diagnostics()
            resolver.link(file, into: &linked, reporting: &suppressed)
        }
        let checked = initializationChecks(files.flatMap(\.allMessages), linked: linked)
        let drafts = generated.map { file in
            FileDraft(source: file.source, messages: file.messages.map { build($0, linked: linked, checked: checked) },
                      enums: file.enums)
        }

        var layoutOverride: FrameLayout?
        if let text = options.layout {
            var problems: [String] = []
            layoutOverride = CommandResolver.parseLayout(text, place: "option Layout", problems: &problems)
            guard problems.isEmpty else { throw GenerationError(problems: problems) }
        }
        var commands = CommandResolver(types: resolver.types, extensions: resolver.extensions,
                                       layoutOverride: layoutOverride, config: options.config)
        let resolved = commands.resolve(drafts)
        let helpers = resolver.nameHelpers(drafts, tables: resolved.map(\.table), linked: linked)
        diagnostics.problems += helpers.problems
        let protoFiles = zip(drafts, resolved).map { file, commands in
            let extensions = linked.extensions[file.name] ?? []
            let table = helpers.tables[file.name]
            let declared = file.source.declaresCodeSize ? GeneratorOptions.OptimizeFor.CODE_SIZE : .SPEED
            return ProtoFile(
                name: file.name, isProto2: file.source.isProto2, messages: file.messages, enums: file.enums,
                extensions: extensions, extensionsNamespace: helpers.namespaces[file.name] ?? "",
                commandTable: table, envelopes: commands.envelopes, responsePairs: commands.responsePairs,
                imports: importedModules(of: file, extensions: extensions, table: table, commands: commands,
                                         generatedHere: generatedNames, moduleMap: options.moduleMap),
                printsNames: options.textFormat == .Names,
                compactCodec: (options.optimizeFor ?? declared) == .CODE_SIZE)
        }
        diagnostics.problems += commands.problems
        guard diagnostics.problems.isEmpty else { throw GenerationError(problems: diagnostics.problems) }
        return Resolution(files: protoFiles, warnings: diagnostics.warnings + commands.warnings)
    }

    /// The modules holding the Swift of the types this file's code names (field and extension
    /// types, extended messages, command-table and envelope messages) that are generated
    /// elsewhere. Importing a file is not enough to need its module.
    private static func importedModules(of file: FileDraft, extensions: [ExtensionField], table: CommandTable?,
                                        commands: FileCommands, generatedHere: Set<String>,
                                        moduleMap: [String: String]) -> [String] {
        var named: [String] = []
        func add(_ shape: Field.Shape) {
            if let message = shape.containedMessage { named.append(message.fileName) }
            if let enumType = shape.containedEnum { named.append(enumType.fileName) }
        }
        for message in file.allMessages { message.fields.forEach { add($0.shape) } }
        for field in extensions {
            named.append(field.container.fileName)
            add(field.isRepeated ? .repeated(field.kind.value) : .optional(field.kind.value))
        }
        for entry in table?.entries ?? [] {
            named += [entry.request?.fileName, entry.response?.fileName].compactMap { $0 }
        }
        for envelope in commands.envelopes { named += envelope.choices.compactMap { $0.holds?.fileName } }
        for (request, response) in commands.responsePairs { named += [request.fileName, response.fileName] }
        let modules = named.compactMap { generatedHere.contains($0) ? nil : moduleMap[$0] }
        return Set(modules).sorted()
    }

    /// The generator's own top-level types, after every declared one: command tables and
    /// extension namespaces, in file-name order. Builds each file's table with its name. A name
    /// the config file gives a table (`table_name`) is claimed first, as written, and fails
    /// generation when it is no Swift identifier or another top-level type has it.
    private func nameHelpers(_ files: [FileDraft], tables: [CommandTableDraft?], linked: Linked)
        -> (tables: [String: CommandTable], namespaces: [String: String], problems: [String]) {
        enum Helper {
            case table(file: String, CommandTableDraft)
            case namespace(file: String)
        }
        var elements: [(natural: String, protoName: String)] = []
        var helpers: [Helper] = []
        var owners: [String] = []
        var configured: [(file: String, name: String, draft: CommandTableDraft)] = []
        let order = files.indices.sorted { files[$0].name.utf8.lexicographicallyPrecedes(files[$1].name.utf8) }
        for index in order {
            let file = files[index]
            let stem = Naming.typeName(Naming.stem(of: file.name), prefix: Naming.packagePrefix(file.package))
            if let table = tables[index] {
                if let name = table.configuredName {
                    configured.append((file.name, name, table))
                } else {
                    elements.append((stem + "Commands", file.name + " commands"))
                    helpers.append(.table(file: file.name, table))
                    owners.append("command table of \(file.name)")
                }
            }
            if linked.extensions[file.name]?.contains(where: { $0.scope == nil }) == true {
                elements.append((stem + "Extensions", file.name + " extensions"))
                helpers.append(.namespace(file: file.name))
                owners.append("extensions namespace of \(file.name)")
            }
        }
        var result: (tables: [String: CommandTable], namespaces: [String: String], problems: [String]) = ([:], [:], [])
        let naturalOwners = Dictionary(zip(elements.map(\.natural), owners), uniquingKeysWith: { first, _ in first })
        var claimedBy: [String: String] = [:]
        for (file, name, draft) in configured {
            let place = "\(file): config table: table_name \"\(name)\""
            if let problem = Self.tableNameProblem(name) {
                result.problems.append("\(place) \(problem)")
            } else if let owner = topLevelOwners[name] {
                result.problems.append("\(place) is already the name of \(owner); choose another")
            } else if let other = claimedBy[name] {
                result.problems.append("\(place) is also the table_name of \(other); each table needs a name of its own")
            } else if let owner = naturalOwners[name] {
                result.problems.append("\(place) is the name of the \(owner); choose another")
            } else {
                claimedBy[name] = file
                result.tables[file] = CommandTable(swiftName: topLevel.claim(name), draft: draft)
            }
        }
        for (name, helper) in zip(topLevel.claim(elements), helpers) {
            switch helper {
            case let .table(file, draft): result.tables[file] = CommandTable(swiftName: name, draft: draft)
            case let .namespace(file): result.namespaces[file] = name
            }
        }
        return result
    }

    /// Why a configured table name cannot name a top-level Swift type; nil when it can.
    static func tableNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        guard let first = bytes.first, isLetter(first), bytes.allSatisfy({ isLetter($0) || isDigit($0) }) else {
            return "is not a Swift identifier: use ASCII letters, digits and underscores, not starting with a digit"
        }
        if Naming.swiftKeywords.contains(name) { return "is a Swift keyword" }
        if Naming.reservedTypeNames.contains(name) {
            return "is reserved (Type and Protocol are members of every type; generated code names the modules Swift and SwiftFrame)"
        }
        if Naming.libraryTypeNames.contains(name) {
            return "would hide the standard library's or Foundation's \(name) in every file that imports the module"
        }
        return nil
    }

    // MARK: Declaring types

    /// Declares the top-level types of every file of the run, which share the module's
    /// namespace, then everything nested in them.
    private func declare(_ files: [SourceFile]) -> [FileDeclaration] {
        for file in files { syntaxes[file.name] = file.syntax }
        var elements: [(natural: String, protoName: String)] = []
        var owners: [String] = []
        for file in files {
            let prefix = Naming.packagePrefix(file.package)
            let package = file.package.isEmpty ? "" : file.package + "."
            for descriptor in file.descriptor.messageType where !descriptor.isMapEntry {
                elements.append((Naming.topLevelTypeName(descriptor.protoName, prefix: prefix), package + descriptor.protoName))
                owners.append("message \(package + descriptor.protoName) of \(file.name)")
            }
            for descriptor in file.descriptor.enumType {
                elements.append((Naming.topLevelTypeName(descriptor.protoName, prefix: prefix, isEnum: true),
                                 package + descriptor.protoName))
                owners.append("enum \(package + descriptor.protoName) of \(file.name)")
            }
        }
        let claimed = topLevel.claim(elements)
        for (name, owner) in zip(claimed, owners) { topLevelOwners[name] = owner }
        var names = claimed[...]
        return files.map { file in
            let scope = file.package
            var messages: [MessageDeclaration] = []
            var enums: [EnumType] = []
            for (index, descriptor) in file.descriptor.messageType.enumerated() where !descriptor.isMapEntry {
                messages.append(declare(descriptor, scope: scope, swiftName: names.removeFirst(), swiftParent: nil,
                                        path: [4, Int32(index)], file: file))
            }
            for (index, descriptor) in file.descriptor.enumType.enumerated() {
                enums.append(declare(descriptor, scope: scope, swiftName: names.removeFirst(), swiftParent: nil,
                                     path: [5, Int32(index)], file: file))
            }
            return FileDeclaration(source: file, messages: messages, enums: enums)
        }
    }

    private func declare(_ descriptor: MessageDescriptor, scope: String, swiftName: String, swiftParent: String?,
                         path: [Int32], file: SourceFile) -> MessageDeclaration {
        let fullName = scope.isEmpty ? descriptor.protoName : scope + "." + descriptor.protoName
        let swiftPath = swiftParent.map { $0 + "." + swiftName } ?? swiftName
        let ref = MessageRef(protoName: descriptor.protoName, fullName: fullName, swiftPath: swiftPath,
                             fileName: file.name, package: file.package, needsInitializationCheck: false)
        types.add(.message(ref))
        let options = descriptor.options ?? .init()
        if options.messageSetWireFormat == true { messageSets.insert(fullName) }
        var integerValues: [Int32: UInt64] = [:]
        for number in integerOptions {
            // Read as the varint it is, whatever integer or enum type declares it.
            let option = SwiftFrame.Extension<Google_Protobuf_MessageOptions, SwiftFrame.ProtoUInt64>(
                fieldNumber: Int(number), protoName: String(number))
            if let value = options[extension: option] { integerValues[number] = value }
        }
        let names = nameMembers(of: descriptor, fullName: fullName, path: path, file: file)
        var nested: [MessageDeclaration] = []
        for (index, message) in descriptor.nestedType.enumerated() where !message.isMapEntry {
            nested.append(declare(message, scope: fullName, swiftName: names.nested[message.protoName]!,
                                  swiftParent: swiftPath, path: path + [3, Int32(index)], file: file))
        }
        var enums: [EnumType] = []
        for (index, enumType) in descriptor.enumType.enumerated() {
            enums.append(declare(enumType, scope: fullName, swiftName: names.nested[enumType.protoName]!,
                                 swiftParent: swiftPath, path: path + [4, Int32(index)], file: file))
        }
        return MessageDeclaration(
            descriptor: descriptor, path: path, ref: ref, swiftName: swiftName, comments: file.comments[path],
            names: names, nested: nested, enums: enums,
            extensionRanges: descriptor.extensionRange
                .map { range in
                    let start = Int(range.start ?? 0)
                    return start...max(start, Int(range.end ?? 0) - 1)
                }
                .sorted { $0.lowerBound < $1.lowerBound },
            requestID: options[extension: Swiftframe_OptionsExtensions.requestId],
            responseID: options[extension: Swiftframe_OptionsExtensions.responseId],
            isMessageSet: options.messageSetWireFormat == true, integerOptions: integerValues)
    }

    /// Names everything a message's struct declares: its nested types, oneof enums and
    /// helper types in one scope, its properties and helper methods in another, and each
    /// oneof's cases. Returns the names of the nested messages and enums by proto name.
    private func nameMembers(of descriptor: MessageDescriptor, fullName: String, path: [Int32],
                             file: SourceFile) -> MemberNames {
        let realOneofs = descriptor.oneofDecl.indices.filter { index in
            !descriptor.field.contains { $0.oneofIndex == Int32(index) && $0.isProto3Optional }
        }
        let oneofNames = descriptor.oneofDecl.map(\.protoName)
        let envelopeBodies = descriptor.field.compactMap { field in
            config.selector(of: field, in: fullName).map { (field: field, selector: $0) }
        }

        // Nested types: declared, then the oneofs' enums, then helpers.
        var types = NameScope(reserved: Naming.reservedTypeNames)
        let nested = descriptor.nestedType.filter { !$0.isMapEntry }.map(\.protoName) + descriptor.enumType.map(\.protoName)
        let nestedNames = Dictionary(uniqueKeysWithValues: zip(nested, types.claim(nested.map { (Naming.typeName($0), $0) })))
        let oneofTypes = types.claim(realOneofs.map { (Naming.typeName(oneofNames[$0]), oneofNames[$0]) })
        let envelopeTypes = types.claim(envelopeBodies.map { (Naming.typeName($0.field.protoName), $0.field.protoName) })
        let defaultsName = descriptor.field.contains(where: { $0.defaultValue != nil && $0.oneofIndex == nil })
            ? types.claim("Defaults") : nil

        // Properties: fields outside real oneofs and the oneofs themselves, then helpers.
        var members = NameScope(reserved: Naming.reservedFieldNames.union(["extensionFields"]))
        let inOneof = { (field: FieldDescriptor) in field.oneofIndex.map { realOneofs.contains(Int($0)) } ?? false }
        let properties = descriptor.field.filter { !inOneof($0) }.map(\.protoName) + realOneofs.map { oneofNames[$0] }
        let propertyNames = Dictionary(uniqueKeysWithValues: zip(properties, members.claim(properties.map { (Naming.fieldName($0), $0) })))
        let accessors = members.claim(envelopeTypes.enumerated().map { ("decoded" + $0.element, envelopeBodies[$0.offset].field.protoName) })
        var bodies: [Int32: (selector: String, type: String, accessor: String)] = [:]
        for (index, body) in envelopeBodies.enumerated() {
            bodies[body.field.fieldNumber] = (body.selector, envelopeTypes[index], accessors[index])
        }

        let oneofs = realOneofs.enumerated().map { position, index in
            let name = oneofNames[index]
            var cases = NameScope(reserved: Naming.reservedFieldNames)
            let fields = descriptor.field.filter { $0.oneofIndex == Int32(index) }.map(\.protoName)
            let caseNames = Dictionary(uniqueKeysWithValues: zip(fields, cases.claim(fields.map { (Naming.fieldName($0), $0) })))
            return OneofDeclaration(protoName: name, index: Int32(index), swiftName: propertyNames[name]!,
                                    typeName: oneofTypes[position], comments: file.comments[path + [8, Int32(index)]],
                                    caseNames: caseNames)
        }
        return MemberNames(nested: nestedNames, oneofs: oneofs, properties: propertyNames, envelopeBodies: bodies,
                           defaultsName: defaultsName)
    }

    private func declare(_ descriptor: EnumDescriptor, scope: String, swiftName: String, swiftParent: String?,
                         path: [Int32], file: SourceFile) -> EnumType {
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
            comments: file.comments[path], cases: cases, aliases: aliases,
            spellings: values.indices.filter { !kept.contains($0) }.map { (values[$0].protoName, values[$0].valueNumber) },
            fileName: file.name, isClosed: file.isProto2,
            isCommandTable: descriptor.options?[extension: Swiftframe_OptionsExtensions.commandTable] == true)
        types.add(.enumeration(enumType))
        return enumType
    }

    // MARK: Checking the files to generate

    /// Links the fields and extensions of one file's messages.
    private func link(_ file: FileDeclaration, into linked: inout Linked, reporting diagnostics: inout Diagnostics) {
        let source = file.source
        guard source.syntax == "proto3" || source.isProto2 else {
            diagnostics.problems.append("\(source.name): \(source.syntax) syntax is not supported yet (only proto2 and proto3 files can be generated)")
            return
        }
        var extensions = resolveExtensions(source.descriptor.extension_, in: source, scope: nil, path: [7], reporting: &diagnostics)
        for message in file.allMessages {
            extensions += resolveExtensions(message.descriptor.extension_, in: source, scope: message.ref,
                                            path: message.path + [6], reporting: &diagnostics)
            linked.fields[message.fullName] = resolveFields(of: message, in: source, reporting: &diagnostics)
        }
        linked.extensions[source.name] = extensions
    }

    /// Typed accessors for `extend` blocks, custom options (extensions of descriptor.proto's
    /// `*Options`, which `SwiftFrameDescriptors` ships) included.
    private func resolveExtensions(_ extensions: [FieldDescriptor], in file: SourceFile, scope: MessageRef?,
                                   path: [Int32], reporting diagnostics: inout Diagnostics) -> [ExtensionField] {
        var accepted: [(index: Int, field: FieldDescriptor, container: MessageRef, kind: Field.Kind)] = []
        for (index, field) in extensions.enumerated() {
            let extendee = field.extendee ?? ""
            let place = "\(file.name): extension \(scope.map { $0.fullName + "." } ?? "")\(field.protoName)"
            guard case let .message(container)? = types[typeName: extendee] else {
                diagnostics.problems.append("\(place): unknown message \(extendee)")
                continue
            }
            guard field.type != .group, !messageSets.contains(container.fullName) else {
                // Groups and MessageSet members still round-trip as unknown fields.
                diagnostics.warnings.append("\(place) of \(container.fullName) gets no typed accessor (groups and MessageSet extensions are kept as unknown fields)")
                continue
            }
            guard let kind = valueKind(field, place: place, problem: "unsupported extension type \(field.typeFullName)",
                                       reporting: &diagnostics) else {
                continue
            }
            accepted.append((index, field, container, kind))
        }
        // Static members of the declaring message, or of the file's namespace enum.
        var names = NameScope(reserved: Naming.swiftKeywords.union(["protoMessageName", "commandID"]))
        let swiftNames = names.claim(accepted.map { (Naming.fieldName($0.field.protoName), $0.field.protoName) })
        return zip(accepted, swiftNames).map { item, swiftName in
            let field = item.field
            let scopeName = scope?.fullName ?? file.package
            return ExtensionField(
                protoName: field.protoName, fullName: scopeName.isEmpty ? field.protoName : scopeName + "." + field.protoName,
                swiftName: swiftName, number: field.fieldNumber, container: item.container, kind: item.kind,
                isRepeated: field.isRepeated,
                isPacked: field.isRepeated && item.kind.isPackable && (field.packedOption ?? !file.isProto2),
                comments: file.comments[path + [Int32(item.index)]], scope: scope)
        }
    }

    /// The kind of an extension or a map value: a scalar, an enum or a message of this run.
    private func valueKind(_ field: FieldDescriptor, place: String, problem: String,
                           reporting diagnostics: inout Diagnostics) -> Field.Kind? {
        switch field.type {
        case .message?:
            if case let .message(target)? = types[typeName: field.typeFullName] { return .message(target) }
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

    private func resolveFields(of message: MessageDeclaration, in file: SourceFile,
                               reporting diagnostics: inout Diagnostics) -> [Field] {
        let place = "\(file.name): message \(message.fullName)"
        // Real oneofs (declared with their names); the synthetic oneof of a proto3 `optional`
        // field is just presence.
        let oneofs = Dictionary(uniqueKeysWithValues: message.names.oneofs.map { ($0.index, $0) })
        var fields: [Field] = []
        for (index, field) in message.descriptor.field.enumerated() {
            let oneof = field.oneofIndex.flatMap { oneofs[$0] }
            let swiftName = oneof?.caseNames[field.protoName] ?? message.names.properties[field.protoName]!
            if let resolved = resolve(field, in: message, isProto2: file.isProto2, swiftName: swiftName,
                                      place: "\(place): field \(field.protoName)",
                                      comments: file.comments[message.path + [2, Int32(index)]], oneof: oneof,
                                      reporting: &diagnostics) {
                fields.append(resolved)
            }
        }
        return fields
    }

    private func resolve(_ field: FieldDescriptor, in message: MessageDeclaration, isProto2: Bool, swiftName: String,
                         place: String, comments: String?, oneof: OneofDeclaration?,
                         reporting diagnostics: inout Diagnostics) -> Field? {
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
                             shape: .map(key: key, value: value), comments: comments, declaredDefault: nil,
                             jsonName: Naming.jsonName(field.jsonName, of: field.protoName), oneofIndex: nil)
            }
            guard case let .message(target)? = types[typeName: field.typeFullName] else {
                diagnostics.problems.append("\(place): unknown message type \(field.typeFullName)")
                return nil
            }
            guard isGeneratable(target.fileName, for: field, place: place, reporting: &diagnostics) else { return nil }
            value = type == .group ? .group(target) : .message(target)
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
                     comments: comments, declaredDefault: oneof == nil ? field.defaultValue : nil,
                     jsonName: Naming.jsonName(field.jsonName, of: field.protoName),
                     oneofIndex: oneof.flatMap { oneof in message.names.oneofs.firstIndex { $0.index == oneof.index } })
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

    /// The messages that check required fields after decoding: those with required fields,
    /// and those that can hold them.
    private static func initializationChecks(_ messages: [MessageDeclaration], linked: Linked) -> Set<String> {
        let fields = messages.map { linked.fields[$0.fullName] ?? [] }
        var checked = Set(zip(messages, fields).filter { $0.1.contains(where: \.isRequired) }.map(\.0.fullName))
        var changed = true
        while changed {
            changed = false
            for (message, fields) in zip(messages, fields) where !checked.contains(message.fullName) {
                if fields.contains(where: { $0.shape.containedMessage.map { checked.contains($0.fullName) } == true }) {
                    checked.insert(message.fullName)
                    changed = true
                }
            }
        }
        return checked
    }

    /// A message built complete: its linked fields, each naming messages that know whether
    /// they check required fields, its oneofs with their members, and its nested types.
    private static func build(_ message: MessageDeclaration, linked: Linked, checked: Set<String>) -> MessageType {
        let transform = { (ref: MessageRef) in ref.checked(checked.contains(ref.fullName)) }
        let fields = (linked.fields[message.fullName] ?? []).map { $0.mapMessages(transform) }
        let oneofs = message.names.oneofs.map { oneof in
            Oneof(protoName: oneof.protoName, swiftName: oneof.swiftName, typeName: oneof.typeName, comments: oneof.comments,
                  fields: fields.filter { $0.oneof == oneof.swiftName })
        }
        return MessageType(
            protoName: message.ref.protoName, fullName: message.fullName, swiftName: message.swiftName,
            swiftPath: message.ref.swiftPath, comments: message.comments, fields: fields, oneofs: oneofs,
            needsInitializationCheck: checked.contains(message.fullName),
            messages: message.nested.map { build($0, linked: linked, checked: checked) }, enums: message.enums,
            defaultsName: message.names.defaultsName, envelopeBodies: message.names.envelopeBodies,
            extensionRanges: message.extensionRanges, fileName: message.ref.fileName, package: message.ref.package,
            requestID: message.requestID, responseID: message.responseID, integerOptions: message.integerOptions)
    }

    /// The key and value of a map field's synthetic entry message.
    private func resolveMap(_ entry: MessageDescriptor, in message: MessageDeclaration, place: String,
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
            value = .message(target)
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

    private func mapEntry(_ typeName: String, in message: MessageDeclaration) -> MessageDescriptor? {
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
