/// An open Swift enum for a proto enum: a case per number, `.unrecognized(n)` for the rest.
struct EnumEmitter {
    let enumType: EnumType
    let visibility: String

    func emit(to printer: Printer) {
        if enumType.isClosed {
            emitClosed(to: printer)
            return
        }
        printer.documentation(enumType.comments)
        printer.block("\(visibility)enum \(enumType.swiftName): SwiftFrame.Enum") {
            for enumCase in enumType.cases {
                printer.documentation(enumCase.comments)
                printer.line("case \(enumCase.swiftName) // \(enumCase.protoName) = \(enumCase.number)")
            }
            printer.line("/// A number this version of the enum does not know, kept as it was read.")
            printer.line("case unrecognized(Swift.Int32)")
            if !enumType.aliases.isEmpty { printer.line() }
            for alias in enumType.aliases {
                printer.line("/// \(alias.protoName): another name for `.\(alias.target.swiftName)`.")
                printer.line("\(visibility)static let \(alias.swiftName): Self = .\(alias.target.swiftName)")
            }
            printer.line()
            printer.block("\(visibility)init()") {
                printer.line("self = .\(enumType.defaultCase.swiftName)")
            }
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
            if all.count <= 4 {
                printer.line("\(visibility)static let allCases: [Self] = [\(all.joined(separator: ", "))]")
            } else {
                printer.line("\(visibility)static let allCases: [Self] = [")
                for name in all { printer.line("    \(name),") }
                printer.line("]")
            }
        }
    }

    /// A proto2 enum: a Swift enum with `Int32` raw values and no `unrecognized` case.
    private func emitClosed(to printer: Printer) {
        printer.documentation(enumType.comments)
        printer.block("\(visibility)enum \(enumType.swiftName): Swift.Int32, SwiftFrame.ClosedEnum") {
            for enumCase in enumType.cases {
                printer.documentation(enumCase.comments)
                printer.line("case \(enumCase.swiftName) = \(enumCase.number) // \(enumCase.protoName)")
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
        }
    }
}
