/// Typed accessors for a file's proto2 extensions.
struct ExtensionEmitter {
    let file: ProtoFile
    let visibility: String

    /// `SwiftFrame.Extension` values: top-level ones in the file's namespace enum, nested
    /// ones as static members of the message that declares them.
    func emit(to printer: Printer) {
        let topLevel = file.extensions.filter { $0.scope == nil }
        if !topLevel.isEmpty {
            printer.line()
            printer.line("/// The extensions declared at the top level of \(file.name).")
            printer.block("\(visibility)enum \(file.extensionsNamespace)") {
                for field in topLevel { emit(field, visibility: visibility, to: printer) }
            }
        }
        for field in file.extensions {
            guard let scope = field.scope else { continue }
            printer.line()
            printer.block("extension \(scope.swiftPath)") { emit(field, visibility: visibility, to: printer) }
        }
    }

    private func emit(_ field: ExtensionField, visibility: String, to printer: Printer) {
        printer.documentation(field.comments)
        let codec = FieldCode.codec(field.kind)
        let container = field.container.swiftPath
        let name = "protoName: \"\(field.fullName)\""
        if field.isGroup, case let .message(target) = field.kind {
            printer.line(
                "\(visibility)static let \(field.swiftName) = SwiftFrame.GroupExtension<\(container), \(target.swiftPath)>(fieldNumber: \(field.number), \(name))"
            )
        } else if field.isRepeated {
            printer.line(
                "\(visibility)static let \(field.swiftName) = SwiftFrame.RepeatedExtension<\(container), \(codec)>(fieldNumber: \(field.number), \(name), isPacked: \(field.isPacked))"
            )
        } else {
            printer.line(
                "\(visibility)static let \(field.swiftName) = SwiftFrame.Extension<\(container), \(codec)>(fieldNumber: \(field.number), \(name))"
            )
        }
    }
}
