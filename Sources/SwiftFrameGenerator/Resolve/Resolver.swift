import SwiftFrame
import SwiftFrameDescriptors

/// Builds the resolved model from a request in stages, each a function from the value the
/// one before produced to the next:
///
/// 1. check: the request against what protoc guarantees (`RequestCheck`);
/// 2. declare: every type of every file, named (`Declarations`);
/// 3. link: fields and extensions to the types they name (`Linked`);
/// 4. build: the messages of the files to generate (`FileDraft`);
/// 5. resolve tables: command tables, envelopes, request → response pairs (`CommandResolver`);
/// 6. name the helpers: command tables and extension namespaces (`HelperNames`).
///
/// The module's top-level names are claimed in that order: every declared type of every file
/// (in the order protoc sent the files), then the helpers' configured names, then theirs.
enum Resolver {
    /// The result of resolving a request.
    struct Resolution {
        /// The files to generate, in the order protoc named them.
        let files: [ProtoFile]
        let warnings: [Diagnostic]
        /// Every file of the request, indexed.
        let index: DescriptorIndex
    }

    /// `index` indexes `request.protoFile`; without one, they are indexed here.
    static func resolve(
        _ request: CodeGeneratorRequest, options: GeneratorOptions,
        index: DescriptorIndex? = nil
    ) throws(GenerationError) -> Resolution {
        let index = index ?? DescriptorIndex(request.protoFile)
        func failure(_ problems: [Diagnostic]) -> GenerationError {
            GenerationError(problems.map { $0.located(in: index) })
        }
        let malformations = RequestCheck.problems(in: index)
        guard malformations.isEmpty else { throw failure(malformations) }
        var layoutOverride: FrameLayout?
        if let text = options.layout {
            var problems: [Diagnostic] = []
            layoutOverride = CommandResolver.parseLayout(
                text, place: Place(file: "", "option Layout"), problems: &problems)
            guard problems.isEmpty else { throw failure(problems) }
        }

        let extensions = ExtensionCatalog(index)
        let declarations = Declarations(
            request.protoFile.map(SourceFile.init), index: index, config: options.config,
            integerOptions: extensions.integerMessageOptions, messages: options.messages)
        let generated = request.fileToGenerate.compactMap { name in declarations.files.first { $0.source.name == name }
        }
        let generatedNames = Set(generated.map(\.source.name))
        var diagnostics = Diagnostics()
        let linked = Linked(declarations, generated: generated, reporting: &diagnostics)
        guard diagnostics.problems.isEmpty else { throw failure(diagnostics.problems) }
        let drafts = FileDraft.build(generated, all: declarations.files, linked: linked)

        var commands = CommandResolver(
            types: declarations.types, extensions: extensions,
            layoutOverride: layoutOverride, config: options.config)
        let resolved = commands.resolve(drafts)
        var topLevel = declarations.topLevel
        let helpers = HelperNames(
            drafts, tables: resolved.map(\.table), linked: linked, claimingIn: &topLevel,
            owners: declarations.topLevelOwners)
        let problems = diagnostics.problems + helpers.problems + commands.problems
        guard problems.isEmpty else { throw failure(problems) }
        let swiftProtobuf = options.messages == .SwiftProtobuf
        var notGenerated: [Diagnostic] = []
        if swiftProtobuf {
            for (file, fileCommands) in zip(drafts, resolved) {
                for envelope in fileCommands.envelopes {
                    notGenerated.append(
                        Place(file: file.name, element: envelope.message.fullName).warning(
                            .notGeneratedForSwiftProtobuf,
                            "\(envelope.message.fullName) gets no envelope helpers with Messages=SwiftProtobuf: "
                                + "set `\(envelope.selector.protoName)` and `\(envelope.body.protoName)` yourself"))
                }
            }
        }

        let protoFiles = zip(drafts, resolved).map { file, commands in
            let extensions = linked.extensions[file.name] ?? []
            let envelopes = swiftProtobuf ? [] : commands.envelopes
            let table = helpers.tables[file.name]
            let declared = file.source.declaresCodeSize ? GeneratorOptions.OptimizeFor.CODE_SIZE : .SPEED
            return ProtoFile(
                name: file.name, messages: file.messages, enums: file.enums,
                extensions: extensions, extensionsNamespace: helpers.namespaces[file.name] ?? "",
                commandTable: table, envelopes: envelopes, responsePairs: commands.responsePairs,
                imports: importedModules(
                    of: file, extensions: extensions, table: table, envelopes: envelopes,
                    responsePairs: commands.responsePairs,
                    generatedHere: generatedNames, moduleMap: options.moduleMap),
                printsNames: options.textFormat == .Names,
                compactCodec: (options.optimizeFor ?? declared) == .CODE_SIZE, swiftProtobufMessages: swiftProtobuf)
        }
        return Resolution(
            files: protoFiles,
            warnings: (diagnostics.warnings + commands.warnings + notGenerated).map { $0.located(in: index) },
            index: index)
    }

    /// The modules holding the Swift of the types this file's code names (field and extension
    /// types, extended messages, command-table and envelope messages) that are generated
    /// elsewhere. Importing a file is not enough to need its module.
    private static func importedModules(
        of file: FileDraft, extensions: [ExtensionField], table: CommandTable?, envelopes: [Envelope],
        responsePairs: [(request: MessageRef, response: MessageRef)], generatedHere: Set<String>,
        moduleMap: [String: String]
    ) -> [String] {
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
        for envelope in envelopes { named += envelope.choices.compactMap { $0.holds?.fileName } }
        for (request, response) in responsePairs { named += [request.fileName, response.fileName] }
        let modules = named.compactMap { generatedHere.contains($0) ? nil : moduleMap[$0] }
        return Set(modules).sorted()
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
