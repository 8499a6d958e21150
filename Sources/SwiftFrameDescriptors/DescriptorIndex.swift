/// The files of a request or a descriptor set and everything declared in them, walked once:
/// every message and enum in declaration order (each message before the types nested in it),
/// and every named element by full name with its file and SourceCodeInfo path. The generator,
/// the reflection schemas and the command-line tool read descriptors through it instead of
/// walking them again.
package struct DescriptorIndex: Sendable {
    /// A message or an enum, where it is declared.
    package struct Declared<Descriptor: Sendable>: Sendable {
        /// Without the leading dot (`im.Outer.Inner`).
        package let fullName: String
        package let descriptor: Descriptor
        /// Its file's position in `files`.
        package let file: Int
        package let path: SourcePath
        /// The full name of the message it is nested in, or its file's package ("" for none).
        package let scope: String
        /// Its features, resolved (a field's are `features.field(_:in:)`).
        package let features: Features
    }

    package typealias Message = Declared<Google_Protobuf_DescriptorProto>
    package typealias Enum = Declared<Google_Protobuf_EnumDescriptorProto>

    /// What kind of element a full name names.
    package enum Kind: Sendable {
        case message, enumeration, field, oneof, enumValue, extension_
    }

    /// A named element: a type, a field, a oneof, an extension or an enum value.
    package struct Element: Sendable {
        package let kind: Kind
        /// Its file's position in `files`.
        package let file: Int
        package let path: SourcePath
    }

    package let files: [Google_Protobuf_FileDescriptorProto]
    /// Each file's own features (those its extensions resolve from), in the order of `files`.
    package let fileFeatures: [Features]
    /// Every message of every file, map entries included, each before those nested in it.
    package let messages: [Message]
    /// Every enum of every file: each file's top-level ones, then those nested in its messages.
    package let enums: [Enum]
    /// Every element by full name without the leading dot; a field, a oneof or an extension
    /// under its message or package (`im.Box.body`), an enum value under its enum
    /// (`im.Kind.KIND_A`). When two declarations share a name, the first is kept.
    package let elements: [String: Element]
    private let messagesByName: [String: Int]
    private let enumsByName: [String: Int]
    /// Each file's SourceCodeInfo spans by path: line and column, from 1.
    private let spans: [[SourcePath: (line: Int, column: Int)]]

    package init(_ files: [Google_Protobuf_FileDescriptorProto]) {
        self.files = files
        var messages: [Message] = []
        var enums: [Enum] = []
        var elements: [String: Element] = [:]
        func add(_ name: String, _ kind: Kind, file: Int, path: SourcePath) {
            if elements[name] == nil { elements[name] = Element(kind: kind, file: file, path: path) }
        }
        func qualified(_ scope: String, _ name: String?) -> String {
            scope.isEmpty ? name ?? "" : scope + "." + (name ?? "")
        }
        func declare(
            _ enumType: Google_Protobuf_EnumDescriptorProto, scope: String, file: Int, path: SourcePath,
            within features: Features, into nested: inout [Enum]
        ) {
            let fullName = qualified(scope, enumType.name)
            nested.append(
                Enum(
                    fullName: fullName, descriptor: enumType, file: file, path: path, scope: scope,
                    features: features.enumeration(enumType)))
            add(fullName, .enumeration, file: file, path: path)
            for (index, value) in enumType.value.enumerated() {
                add(qualified(fullName, value.name), .enumValue, file: file, path: path.enumValue(index))
            }
        }
        // Nested messages are walked with a list of those still to visit, so that no
        // declaration is too deep to index.
        // A file of an edition the defaults do not cover reads as the newest one they do (the
        // generator refuses to generate it).
        let fileFeatures = files.map(\.nearestFeatures)
        for (fileIndex, file) in files.enumerated() {
            let package = file.package ?? ""
            var nestedEnums: [Enum] = []
            for (index, enumType) in file.enumType.enumerated() {
                declare(
                    enumType, scope: package, file: fileIndex, path: .enumType(index),
                    within: fileFeatures[fileIndex], into: &enums)
            }
            for (index, field) in file.extension_.enumerated() {
                add(qualified(package, field.name), .extension_, file: fileIndex, path: .fileExtension(index))
            }
            var pending = file.messageType.enumerated().reversed().map { index, message in
                (message: message, scope: package, path: SourcePath.message(index), within: fileFeatures[fileIndex])
            }
            while let (message, scope, path, within) = pending.popLast() {
                let fullName = qualified(scope, message.name)
                let features = within.message(message)
                messages.append(
                    Message(
                        fullName: fullName, descriptor: message, file: fileIndex, path: path,
                        scope: scope, features: features))
                add(fullName, .message, file: fileIndex, path: path)
                for (index, field) in message.field.enumerated() {
                    add(qualified(fullName, field.name), .field, file: fileIndex, path: path.field(index))
                }
                for (index, oneof) in message.oneofDecl.enumerated() {
                    add(qualified(fullName, oneof.name), .oneof, file: fileIndex, path: path.oneof(index))
                }
                for (index, field) in message.extension_.enumerated() {
                    add(
                        qualified(fullName, field.name), .extension_, file: fileIndex,
                        path: path.messageExtension(index))
                }
                for (index, enumType) in message.enumType.enumerated() {
                    declare(
                        enumType, scope: fullName, file: fileIndex, path: path.nestedEnum(index),
                        within: features, into: &nestedEnums)
                }
                pending += message.nestedType.enumerated().reversed().map { index, nested in
                    (message: nested, scope: fullName, path: path.nestedMessage(index), within: features)
                }
            }
            enums += nestedEnums
        }
        self.fileFeatures = fileFeatures
        self.messages = messages
        self.enums = enums
        self.elements = elements
        var messagesByName: [String: Int] = [:]
        for (index, message) in messages.enumerated() where messagesByName[message.fullName] == nil {
            messagesByName[message.fullName] = index
        }
        var enumsByName: [String: Int] = [:]
        for (index, enumType) in enums.enumerated() where enumsByName[enumType.fullName] == nil {
            enumsByName[enumType.fullName] = index
        }
        self.messagesByName = messagesByName
        self.enumsByName = enumsByName
        spans = files.map { file in
            var spans: [SourcePath: (line: Int, column: Int)] = [:]
            for location in file.sourceCodeInfo?.location ?? [] where location.span.count >= 3 {
                spans[SourcePath(location.path)] = (Int(location.span[0]) + 1, Int(location.span[1]) + 1)
            }
            return spans
        }
    }

    /// The message named `fullName`, with or without the leading dot descriptors write.
    package func message(_ fullName: String) -> Message? {
        messagesByName[Self.undotted(fullName)].map { messages[$0] }
    }

    /// The enum named `fullName`, with or without the leading dot descriptors write.
    package func enumeration(_ fullName: String) -> Enum? {
        enumsByName[Self.undotted(fullName)].map { enums[$0] }
    }

    /// The position of the file named `name` in `files`.
    package func file(named name: String) -> Int? {
        files.firstIndex { $0.name == name }
    }

    /// Where the element named `fullName` is declared: its line and column (from 1) in the
    /// file named `file`, when that file declares it and carries SourceCodeInfo.
    package func location(of fullName: String, in file: String) -> (line: Int, column: Int)? {
        guard let element = elements[fullName], files[element.file].name == file else { return nil }
        return spans[element.file][element.path]
    }

    private static func undotted(_ name: String) -> String {
        name.hasPrefix(".") ? String(name.dropFirst()) : name
    }
}
