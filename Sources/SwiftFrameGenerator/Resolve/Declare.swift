import SwiftFrame
import SwiftFrameDescriptors

/// The first stage: every message and enum of every file of the run, declared with its Swift
/// names and its options read into typed values, so that references across files link. The
/// declared top-level types are the first to claim names in the module's namespace; the
/// helpers (`HelperNames`) claim theirs after them.
struct Declarations {
    let files: [FileDeclaration]
    /// Every message and enum of the run, by full name.
    let types: TypeIndex
    /// The files of an edition this generator does not know, by name, each with its
    /// edition as the .proto writes it: their types cannot be generated.
    let unknownEditions: [String: String]
    /// Messages with `message_set_wire_format`, by full name.
    let messageSets: Set<String>
    /// The module's namespace with the declared top-level types' names claimed.
    let topLevel: NameScope
    /// What each top-level Swift name of the declared types names (`message im.Common of
    /// common.proto`), for the errors of a configured table name that collides with one.
    let topLevelOwners: [String: String]

    /// Declares `files` (indexed by `index`), reading every message's integer options of
    /// `integerOptions`.
    init(
        _ files: [SourceFile], index: DescriptorIndex, config: Swiftframe_Config, integerOptions: [Int32],
        messages: GeneratorOptions.Messages = .SwiftFrame
    ) {
        var declarer = Declarer(config: config, integerOptions: integerOptions, messages: messages)
        self.files = declarer.declare(files, index: index)
        types = declarer.types
        unknownEditions = Dictionary(
            files.filter { $0.features == nil }.map { ($0.name, $0.editionName) }, uniquingKeysWith: { _, last in last }
        )
        messageSets = declarer.messageSets
        topLevel = declarer.topLevel
        topLevelOwners = declarer.topLevelOwners
    }
}

/// Declares as it walks: each type is added to `types` as it is named.
private struct Declarer {
    var types = TypeIndex()
    var messageSets: Set<String> = []
    var topLevel = NameScope(reserved: Naming.reservedTypeNames)
    var topLevelOwners: [String: String] = [:]
    let config: Swiftframe_Config
    /// The options every message's integer custom options are read for.
    let integerOptions: [Int32]
    /// Whose messages the types are: protoc-gen-swift's have the names it gives them.
    let messages: GeneratorOptions.Messages

    init(config: Swiftframe_Config, integerOptions: [Int32], messages: GeneratorOptions.Messages) {
        self.config = config
        self.integerOptions = integerOptions
        self.messages = messages
    }

    /// A top-level type's Swift name before it is claimed: protoc-gen-swift's, or swiftframe's.
    private func topLevelName(_ protoName: String, in file: SourceFile, isEnum: Bool) -> String {
        guard messages == .SwiftProtobuf else {
            return Naming.topLevelTypeName(protoName, prefix: Naming.packagePrefix(file.package), isEnum: isEnum)
        }
        let prefix = SwiftProtobufNaming.typePrefix(
            package: file.package, swiftPrefix: file.descriptor.options?.swiftPrefix)
        return isEnum
            ? SwiftProtobufNaming.enumName(prefix + protoName) : SwiftProtobufNaming.messageName(prefix + protoName)
    }

    /// A nested type's Swift name before it is claimed, as `topLevelName`.
    private func nestedName(_ protoName: String, isEnum: Bool) -> String {
        guard messages == .SwiftProtobuf else { return Naming.typeName(protoName) }
        return isEnum ? SwiftProtobufNaming.enumName(protoName) : SwiftProtobufNaming.messageName(protoName)
    }

    /// A type's Swift name and the path of the type it is nested in (nil at the top level).
    private struct SwiftName {
        let name: String
        let parent: String?
        var path: String { parent.map { $0 + "." + name } ?? name }
    }

    /// Declares the top-level types of every file of the run, which share the module's
    /// namespace; then, walking the index's messages (each before those nested in it), names
    /// each one's members and nested types; then declares every type, the nested ones first,
    /// so that each message is made with its nested declarations.
    mutating func declare(_ files: [SourceFile], index: DescriptorIndex) -> [FileDeclaration] {
        var elements: [(natural: String, protoName: String)] = []
        var owners: [String] = []
        var topLevelNames: [String] = []
        for file in files {
            let package = file.package.isEmpty ? "" : file.package + "."
            for descriptor in file.descriptor.messageType where !descriptor.isMapEntry {
                elements.append(
                    (topLevelName(descriptor.protoName, in: file, isEnum: false), package + descriptor.protoName))
                owners.append("message \(package + descriptor.protoName) of \(file.name)")
                topLevelNames.append(package + descriptor.protoName)
            }
            for descriptor in file.descriptor.enumType {
                elements.append(
                    (topLevelName(descriptor.protoName, in: file, isEnum: true), package + descriptor.protoName))
                owners.append("enum \(package + descriptor.protoName) of \(file.name)")
                topLevelNames.append(package + descriptor.protoName)
            }
        }
        // protoc-gen-swift's names are as it gives them: claimed, so that no helper takes one,
        // but never renumbered.
        let numbered = topLevel.claim(elements)
        let claimed = messages == .SwiftProtobuf ? elements.map(\.natural) : numbered
        for (name, owner) in zip(claimed, owners) { topLevelOwners[name] = owner }

        // Swift names by full name: the top-level ones claimed above, each nested one given
        // by its parent's member names (a parent comes before what it nests).
        var swiftNames: [String: SwiftName] = [:]
        for (fullName, name) in zip(topLevelNames, claimed) where swiftNames[fullName] == nil {
            swiftNames[fullName] = SwiftName(name: name, parent: nil)
        }
        var memberNames: [String: MemberNames] = [:]
        for message in index.messages where !message.descriptor.isMapEntry {
            guard let swiftName = swiftNames[message.fullName], memberNames[message.fullName] == nil else { continue }
            let descriptor = message.descriptor
            let names = nameMembers(
                of: descriptor, fullName: message.fullName, path: message.path, file: files[message.file])
            memberNames[message.fullName] = names
            let nested = descriptor.nestedType.filter { !$0.isMapEntry }.map(\.protoName)
            for (protoName, name) in zip(nested, names.nestedMessages) {
                swiftNames[message.fullName + "." + protoName] = SwiftName(name: name, parent: swiftName.path)
            }
            for (enumType, name) in zip(descriptor.enumType, names.nestedEnums) {
                swiftNames[message.fullName + "." + enumType.protoName] = SwiftName(
                    name: name, parent: swiftName.path)
            }
        }

        var enums: [String: EnumType] = [:]
        for enumType in index.enums {
            guard let swiftName = swiftNames[enumType.fullName], enums[enumType.fullName] == nil else { continue }
            enums[enumType.fullName] = declare(
                enumType.descriptor, fullName: enumType.fullName, swiftName: swiftName, path: enumType.path,
                file: files[enumType.file], isClosed: enumType.features.closedEnums)
        }
        var messages: [String: MessageDeclaration] = [:]
        for message in index.messages.reversed() where !message.descriptor.isMapEntry {
            guard let swiftName = swiftNames[message.fullName], let names = memberNames[message.fullName],
                messages[message.fullName] == nil
            else { continue }
            let descriptor = message.descriptor
            let nested = descriptor.nestedType.filter { !$0.isMapEntry }.compactMap {
                messages[message.fullName + "." + $0.protoName]
            }
            let nestedEnums = descriptor.enumType.compactMap { enums[message.fullName + "." + $0.protoName] }
            messages[message.fullName] = declare(
                descriptor, fullName: message.fullName, swiftName: swiftName, path: message.path,
                features: message.features, file: files[message.file], names: names, nested: nested,
                enums: nestedEnums)
        }

        return files.map { file in
            let package = file.package.isEmpty ? "" : file.package + "."
            return FileDeclaration(
                source: file,
                messages: file.descriptor.messageType.filter { !$0.isMapEntry }.compactMap {
                    messages[package + $0.protoName]
                },
                enums: file.descriptor.enumType.compactMap { enums[package + $0.protoName] })
        }
    }

    private mutating func declare(
        _ descriptor: MessageDescriptor, fullName: String, swiftName: SwiftName, path: SourcePath,
        features: Features, file: SourceFile, names: MemberNames, nested: [MessageDeclaration], enums: [EnumType]
    ) -> MessageDeclaration {
        let ref = MessageRef(
            protoName: descriptor.protoName, fullName: fullName, swiftPath: swiftName.path,
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
        return MessageDeclaration(
            descriptor: descriptor, features: features, path: path, ref: ref, swiftName: swiftName.name,
            comments: file.comments[path],
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
    private func nameMembers(
        of descriptor: MessageDescriptor, fullName: String, path: SourcePath,
        file: SourceFile
    ) -> MemberNames {
        let realOneofs = descriptor.oneofDecl.indices.filter { index in
            !descriptor.field.contains { $0.oneofIndex == Int32(index) && $0.isProto3Optional }
        }
        let oneofNames = descriptor.oneofDecl.map(\.protoName)
        let envelopeBodies = descriptor.field.compactMap { field in
            config.selector(of: field, in: fullName).map { (field: field, selector: $0) }
        }

        // Nested types: declared, then the oneofs' enums, then helpers.
        var types = NameScope(reserved: Naming.reservedTypeNames)
        let nestedMessages = descriptor.nestedType.filter { !$0.isMapEntry }.map(\.protoName)
        let nestedEnums = descriptor.enumType.map(\.protoName)
        let naturalNested =
            nestedMessages.map { (nestedName($0, isEnum: false), $0) }
            + nestedEnums.map { (nestedName($0, isEnum: true), $0) }
        let numberedNested = types.claim(naturalNested)
        let nestedNames = messages == .SwiftProtobuf ? naturalNested.map(\.0) : numberedNested
        let oneofTypes = types.claim(realOneofs.map { (Naming.typeName(oneofNames[$0]), oneofNames[$0]) })
        let envelopeTypes = types.claim(
            envelopeBodies.map { (Naming.typeName($0.field.protoName), $0.field.protoName) })
        let defaultsName =
            descriptor.field.contains(where: { $0.defaultValue != nil && $0.oneofIndex == nil })
            ? types.claim("Defaults") : nil

        // Properties: fields outside real oneofs and the oneofs themselves, then helpers.
        var members = NameScope(reserved: Naming.reservedFieldNames.union(["extensionFields"]))
        let inOneof = { (field: FieldDescriptor) in field.oneofIndex.map { realOneofs.contains(Int($0)) } ?? false }
        let plainFields = descriptor.field.filter { !inOneof($0) }.map(\.protoName)
        let properties = plainFields + realOneofs.map { oneofNames[$0] }
        let propertyNames = members.claim(properties.map { (Naming.fieldName($0), $0) })
        let fieldProperties = Dictionary(uniqueKeysWithValues: zip(plainFields, propertyNames))
        let oneofProperties = Array(propertyNames.dropFirst(plainFields.count))
        let accessors = members.claim(
            envelopeTypes.enumerated().map { ("decoded" + $0.element, envelopeBodies[$0.offset].field.protoName) })
        var bodies: [Int32: (selector: String, type: String, accessor: String)] = [:]
        for (index, body) in envelopeBodies.enumerated() {
            bodies[body.field.fieldNumber] = (body.selector, envelopeTypes[index], accessors[index])
        }

        let oneofs = realOneofs.enumerated().map { position, index in
            let name = oneofNames[index]
            var cases = NameScope(reserved: Naming.reservedFieldNames)
            let fields = descriptor.field.filter { $0.oneofIndex == Int32(index) }.map(\.protoName)
            let caseNames = Dictionary(
                uniqueKeysWithValues: zip(fields, cases.claim(fields.map { (Naming.fieldName($0), $0) })))
            return OneofDeclaration(
                protoName: name, index: Int32(index), swiftName: oneofProperties[position],
                typeName: oneofTypes[position], comments: file.comments[path.oneof(index)],
                caseNames: caseNames)
        }
        // Each field's name: its oneof's case, or its property.
        let fieldNames = descriptor.field.map { field in
            field.oneofIndex.flatMap { index in oneofs.first { $0.index == index }?.caseNames[field.protoName] }
                ?? fieldProperties[field.protoName] ?? Naming.fieldName(field.protoName)
        }
        return MemberNames(
            nestedMessages: Array(nestedNames.prefix(nestedMessages.count)),
            nestedEnums: Array(nestedNames.dropFirst(nestedMessages.count)), oneofs: oneofs,
            fieldNames: fieldNames, envelopeBodies: bodies, defaultsName: defaultsName)
    }

    private mutating func declare(
        _ descriptor: EnumDescriptor, fullName: String, swiftName: SwiftName, path: SourcePath, file: SourceFile,
        isClosed: Bool
    ) -> EnumType {
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
                let enumCase = EnumType.Case(
                    protoName: value.protoName, number: value.valueNumber, swiftName: swiftName,
                    comments: file.comments[path.enumValue(index)], options: .init(value.options))
                byNumber[value.valueNumber] = enumCase
                cases.append(enumCase)
            }
        }
        let enumType = EnumType(
            protoName: descriptor.protoName, fullName: fullName, swiftName: swiftName.name,
            swiftPath: swiftName.path,
            comments: file.comments[path], cases: cases, aliases: aliases,
            spellings: values.indices.filter { !kept.contains($0) }.map {
                (values[$0].protoName, values[$0].valueNumber)
            },
            fileName: file.name, isClosed: isClosed,
            isCommandTable: descriptor.options?[extension: Swiftframe_OptionsExtensions.commandTable] == true)
        types.add(.enumeration(enumType))
        return enumType
    }

}
