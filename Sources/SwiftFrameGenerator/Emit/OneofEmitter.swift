/// A oneof's Swift enum: one case per member field.
struct OneofEmitter {
    let oneof: Oneof
    let visibility: String

    /// `enum Choice { case a(Swift.Int32) ... }`; a case whose message contains this
    /// message is `indirect`.
    func emit(to printer: Printer) {
        printer.line("/// The members of oneof `\(oneof.protoName)`: at most one is set.")
        printer.block("\(visibility)enum \(oneof.typeName): Swift.Sendable, Swift.Hashable") {
            for field in oneof.fields {
                printer.documentation(field.comments)
                let indirect = field.isBoxed ? "indirect " : ""
                printer.line("\(indirect)case \(field.swiftName)(\(FieldCode(field: field).baseType))")
            }
        }
    }
}
