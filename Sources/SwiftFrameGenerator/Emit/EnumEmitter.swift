/// A Swift enum for a proto enum. proto3 enums are open: a case per number and
/// `.unrecognized(n)` for the rest. proto2 enums are closed: `Int32` raw values, and
/// unknown numbers never reach the field.
struct EnumEmitter {
    let enumType: EnumType
    let visibility: String
    /// The file prints proto names in the text format (`TextFormat=Names`).
    let printsNames: Bool

    func emit(to printer: Printer) {
        printer.documentation(enumType.comments)
        let conformance = enumType.isClosed ? "Swift.Int32, SwiftFrame.ClosedEnum" : "SwiftFrame.Enum"
        printer.block("\(visibility)enum \(enumType.swiftName): \(conformance)") {
            for enumCase in enumType.cases {
                printer.documentation(enumCase.comments)
                // A closed enum's case carries its number as its raw value; an open one's in a comment.
                let declaration =
                    enumType.isClosed
                    ? "case \(enumCase.swiftName) = \(enumCase.number) // \(enumCase.protoName)"
                    : "case \(enumCase.swiftName) // \(enumCase.protoName) = \(enumCase.number)"
                printer.line(declaration)
            }
            if !enumType.isClosed {
                printer.line("/// A number this version of the enum does not know, kept as it was read.")
                printer.line("case unrecognized(Swift.Int32)")
            }
            if !enumType.aliases.isEmpty { printer.line() }
            for alias in enumType.aliases {
                printer.line("/// \(alias.protoName): another name for `.\(alias.target.swiftName)`.")
                printer.line("\(visibility)static let \(alias.swiftName): Self = .\(alias.target.swiftName)")
            }
            printer.line()
            printer.block("\(visibility)init()") {
                printer.line("self = .\(enumType.defaultCase.swiftName)")
            }
            if !enumType.isClosed { emitOpenMembers(to: printer) }
            if printsNames { emitNames(to: printer) }
        }
    }

    /// `protoNames`, which the text format and JSON print and read values with: every name,
    /// aliases after the first name of their number.
    private func emitNames(to printer: Printer) {
        let names =
            enumType.cases.map { ($0.number, $0.protoName) } + enumType.aliases.map { ($0.target.number, $0.protoName) }
            + enumType.spellings.map { ($0.number, $0.protoName) }
        printer.line()
        // One string for the names, read when first used: a literal per name is far slower to
        // compile (see `SwiftFrame.protoNames(lines:)`).
        printer.indented(
            "\(visibility)static let protoNames: [(number: Swift.Int32, name: Swift.String)] = SwiftFrame.protoNames(lines: \"\"\"",
            {
                names.forEach { printer.line("\($0.0) \($0.1)") }
                printer.line("\"\"\")")
            })
    }

    /// `init(rawValue:)`, `rawValue` and `allCases`, which a raw-value enum gets for free.
    private func emitOpenMembers(to printer: Printer) {
        emitSwitch(
            "init(rawValue: Swift.Int32)", over: "rawValue", { "case \($0.number): self = .\($0.swiftName)" },
            otherwise: "default: self = .unrecognized(rawValue)", to: printer)
        emitSwitch(
            "var rawValue: Swift.Int32", over: "self", { "case .\($0.swiftName): return \($0.number)" },
            otherwise: "case let .unrecognized(number): return number", to: printer)
        printer.line()
        let all = enumType.cases.map { "." + $0.swiftName }
        printer.list("\(visibility)static let allCases: [Self] = ", all, inlineUpTo: 4)
    }

    /// A member after an empty line: `declaration { switch subject { a line per case; otherwise } }`.
    private func emitSwitch(
        _ declaration: String, over subject: String, _ caseLine: (EnumType.Case) -> String,
        otherwise: String, to printer: Printer
    ) {
        printer.line()
        printer.block(visibility + declaration) {
            printer.switchBlock(subject) {
                enumType.cases.forEach { printer.line(caseLine($0)) }
                printer.line(otherwise)
            }
        }
    }
}
