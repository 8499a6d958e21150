/// Typed wrap and unwrap for a bytes field whose content an enum field selects.
struct EnvelopeEmitter {
    let envelope: Envelope
    let visibility: String

    func emit(to printer: Printer) {
        let body = envelope.body
        let selector = envelope.selector
        let typeName = envelope.typeName
        let held = envelope.choices.filter { $0.holds != nil }
        let otherName = envelope.otherCase
        printer.line()
        printer.block("extension \(envelope.message.swiftPath)") {
            printer.line("/// What `\(body.swiftName)` holds, selected by `\(selector.swiftName)`.")
            printer.block("\(visibility)enum \(typeName): Swift.Sendable, Swift.Hashable") {
                for choice in held {
                    printer.line("case \(choice.enumCase.swiftName)(\(choice.holds!.swiftPath))")
                }
                printer.line("/// A `\(selector.swiftName)` that holds no declared message; the bytes as they are.")
                printer.line(
                    "case \(otherName)(\(selector.swiftName): \(envelope.selectorType.swiftPath), bytes: [Swift.UInt8])"
                )
            }
            printer.line()
            printer.line(
                "/// A `\(envelope.message.protoName)` whose `\(selector.swiftName)` and `\(body.swiftName)` carry `content`."
            )
            printer.block("\(visibility)init(_ content: \(typeName)) throws(SwiftFrame.WireError)") {
                printer.line("self.init()")
                printer.switchBlock("content") {
                    for choice in held {
                        printer.indented("case let .\(choice.enumCase.swiftName)(message):") {
                            printer.line("self.\(selector.swiftName) = .\(choice.enumCase.swiftName)")
                            printer.line("self.\(body.swiftName) = try message.serializedBytes()")
                        }
                    }
                    printer.indented("case let .\(otherName)(selector, bytes):") {
                        printer.line("self.\(selector.swiftName) = selector")
                        printer.line("self.\(body.swiftName) = bytes")
                    }
                }
            }
            printer.line()
            let accessor = envelope.accessor
            printer.line("/// Decodes what `\(body.swiftName)` holds, as `\(selector.swiftName)` says.")
            printer.block("\(visibility)func \(accessor)() throws(SwiftFrame.WireError) -> \(typeName)") {
                printer.switchBlock("self.\(selector.swiftName)") {
                    for choice in held {
                        printer.line(
                            "case .\(choice.enumCase.swiftName): return .\(choice.enumCase.swiftName)(try \(choice.holds!.swiftPath)(serializedBytes: self.\(body.swiftName)))"
                        )
                    }
                    printer.line(
                        "default: return .\(otherName)(\(selector.swiftName): self.\(selector.swiftName), bytes: self.\(body.swiftName))"
                    )
                }
            }
        }
    }
}
