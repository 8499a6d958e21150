/// A Swift enum for a proto enum. proto3 enums are open: a case per number and
/// `.unrecognized(n)` for the rest. proto2 enums are closed: `Int32` raw values, and
/// unknown numbers never reach the field.
struct EnumEmitter {
    let enumType: EnumType
    let visibility: String

    func emit(to printer: Printer) {
        printer.documentation(enumType.comments)
        let conformance = enumType.isClosed ? "Swift.Int32, SwiftFrame.ClosedEnum" : "SwiftFrame.Enum"
        printer.block("\(visibility)enum \(enumType.swiftName): \(conformance)") {
            for enumCase in enumType.cases {
                printer.documentation(enumCase.comments)
                // A closed enum's case carries its number as its raw value; an open one's in a comment.
                let declaration = enumType.isClosed
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
            if enumType.file.printsNames { emitNames(to: printer) }
        }
    }

    /// `protoName(forNumber:)`, which the text format prints values with.
    private func emitNames(to printer: Printer) {
        printer.line()
        printer.block("\(visibility)static func protoName(forNumber number: Swift.Int32) -> Swift.String?") {
            printer.switchBlock("number") {
                for enumCase in enumType.cases {
                    printer.line("case \(enumCase.number): return \"\(enumCase.protoName)\"")
                }
                printer.line("default: return nil")
            }
        }
    }

    /// `init(rawValue:)`, `rawValue` and `allCases`, which a raw-value enum gets for free.
    private func emitOpenMembers(to printer: Printer) {
        printer.line()
        printer.block("\(visibility)init(rawValue: Swift.Int32)") {
            printer.switchBlock("rawValue") {
                for enumCase in enumType.cases {
                    printer.line("case \(enumCase.number): self = .\(enumCase.swiftName)")
                }
                printer.line("default: self = .unrecognized(rawValue)")
            }
        }
        printer.line()
        printer.block("\(visibility)var rawValue: Swift.Int32") {
            printer.switchBlock("self") {
                for enumCase in enumType.cases {
                    printer.line("case .\(enumCase.swiftName): return \(enumCase.number)")
                }
                printer.line("case let .unrecognized(number): return number")
            }
        }
        printer.line()
        let all = enumType.cases.map { "." + $0.swiftName }
        printer.list("\(visibility)static let allCases: [Self] = ", all, inlineUpTo: 4)
    }
}
