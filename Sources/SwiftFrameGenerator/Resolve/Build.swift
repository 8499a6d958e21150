/// The third stage: the messages of the files to generate built complete, each field naming
/// messages that know whether they check required fields.
extension FileDraft {
    static func build(_ generated: [FileDeclaration], all files: [FileDeclaration], linked: Linked) -> [FileDraft] {
        let checked = MessageBuilder.initializationChecks(files.flatMap(\.allMessages), linked: linked)
        let strings = MessageBuilder.stringExtensions(linked)
        return generated.map { file in
            FileDraft(
                source: file.source,
                messages: file.messages.map {
                    MessageBuilder.build($0, linked: linked, checked: checked, stringExtensions: strings)
                },
                enums: file.enums)
        }
    }
}

private enum MessageBuilder {
    /// The messages that check required fields after decoding: those with required fields,
    /// and those that can hold them.
    static func initializationChecks(_ messages: [MessageDeclaration], linked: Linked) -> Set<String> {
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

    /// The string extensions of the run's files (singular or repeated), by the full name of
    /// the message they extend, each message's in number order.
    static func stringExtensions(_ linked: Linked) -> [String: [ExtensionField]] {
        let strings = linked.extensions.values.joined().filter {
            if case .plain(.scalar(.string)) = $0.kind { true } else { false }
        }
        return Dictionary(grouping: strings, by: \.container.fullName).mapValues { $0.sorted { $0.number < $1.number } }
    }

    /// A message built complete: its linked fields, each naming messages that know whether
    /// they check required fields, its oneofs with their members, and its nested types.
    static func build(
        _ message: MessageDeclaration, linked: Linked, checked: Set<String>,
        stringExtensions: [String: [ExtensionField]]
    ) -> MessageType {
        let transform = { (ref: MessageRef) in ref.checked(checked.contains(ref.fullName)) }
        let fields = (linked.fields[message.fullName] ?? []).map { $0.mapMessages(transform) }
        let oneofs = message.names.oneofs.map { oneof in
            Oneof(
                protoName: oneof.protoName, swiftName: oneof.swiftName, typeName: oneof.typeName,
                comments: oneof.comments,
                fields: fields.filter { $0.oneof == oneof.swiftName })
        }
        return MessageType(
            protoName: message.ref.protoName, fullName: message.fullName, swiftName: message.swiftName,
            swiftPath: message.ref.swiftPath, comments: message.comments, fields: fields, oneofs: oneofs,
            needsInitializationCheck: checked.contains(message.fullName),
            messages: message.nested.map {
                build($0, linked: linked, checked: checked, stringExtensions: stringExtensions)
            },
            enums: message.enums,
            defaultsName: message.names.defaultsName, envelopeBodies: message.names.envelopeBodies,
            extensionRanges: message.extensionRanges,
            stringExtensions: message.extensionRanges.isEmpty ? [] : stringExtensions[message.fullName] ?? [],
            reservedNames: message.descriptor.reservedName,
            fileName: message.ref.fileName, package: message.ref.package,
            requestID: message.requestID, responseID: message.responseID, integerOptions: message.integerOptions)
    }
}
