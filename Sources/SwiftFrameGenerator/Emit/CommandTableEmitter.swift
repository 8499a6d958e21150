import SwiftFrame

/// A file's command table: the id enum, typed `Inbound` (client side) and `Request`
/// (server side) enums with their decoders, and `CommandMessage` conformances.
struct CommandTableEmitter {
    let table: CommandTable
    let visibility: String

    func emit(to printer: Printer) {
        printer.line("/// The commands of this file, framed as `\(table.layout)`.")
        printer.line("/// Ids travel in the header's \(table.layout.carriesCommandInType ? "type" : "command") field.")
        printer.block("\(visibility)enum \(table.swiftName): SwiftFrame.CommandTable") {
            printer.line(
                "\(visibility)static let layout = SwiftFrame.FrameLayout(checkedDescription: \"\(table.layout)\")")
            if let error = table.errorCommand {
                printer.line("\(visibility)static let errorCommand: Swift.UInt32? = \(error)")
            }
            if let heartbeat = table.heartbeatCommand {
                printer.line("\(visibility)static let heartbeatCommand: Swift.UInt32? = \(heartbeat)")
            }
            printer.line()
            emitIDs(to: printer)
            printer.line()
            emitNames(to: printer)
            printer.line()
            emitEnum("Inbound", "What a client receives: responses and pushes.", table.inbound, to: printer)
            printer.line()
            emitEnum("Request", "What a server receives: requests.", table.requests, to: printer)
            printer.line()
            emitDecode("decode", "Inbound", "Decodes a frame a client received.", table.inbound, to: printer)
            printer.line()
            emitDecode("decodeRequest", "Request", "Decodes a frame a server received.", table.requests, to: printer)
        }
    }

    private func emitIDs(to printer: Printer) {
        printer.line("/// The command ids.")
        printer.block("\(visibility)enum ID: Swift.UInt32, Swift.Sendable, Swift.CaseIterable") {
            for entry in table.entries {
                printer.line("case \(entry.swiftName) = \(entry.id) // \(entry.origin)")
            }
        }
    }

    /// `commandName(_:)`: the names the .proto files (or the configuration) give the ids.
    private func emitNames(to printer: Printer) {
        printer.line("/// The name the .proto files give `command`, for logs and tools.")
        printer.block("\(visibility)static func commandName(_ command: Swift.UInt32) -> Swift.String?") {
            printer.switchBlock("command") {
                for entry in table.entries {
                    printer.line("case \(entry.id): return \"\(entry.origin)\"")
                }
                printer.line("default: return nil")
            }
        }
    }

    private func emitEnum(_ name: String, _ documentation: String, _ cases: [CommandTable.Case], to printer: Printer) {
        printer.line("/// \(documentation)")
        printer.block("\(visibility)enum \(name): Swift.Sendable, Swift.Hashable") {
            for item in cases {
                if let message = item.message {
                    printer.line("case \(item.name)(\(message.swiftPath))")
                } else {
                    printer.line("/// \(item.origin), which carries no typed message.")
                    printer.line("case \(item.name)(payload: [Swift.UInt8])")
                }
            }
            printer.line("/// A command id this table does not know.")
            printer.line("case unknown(command: Swift.UInt32, payload: [Swift.UInt8])")
        }
    }

    private func emitDecode(
        _ function: String, _ type: String, _ documentation: String, _ cases: [CommandTable.Case],
        to printer: Printer
    ) {
        printer.line("/// \(documentation)")
        // From the payload where it lies: `CommandTable` makes the `Frame` variant of it.
        let signature =
            "\(visibility)static func \(function)(_ frame: SwiftFrame.BorrowedFrame) throws(SwiftFrame.WireError) -> \(type)"
        printer.block(signature) {
            printer.line("let command = Self.commandID(of: frame)")
            printer.switchBlock("command") {
                for item in cases {
                    let ids = item.ids.map(String.init).joined(separator: ", ")
                    if let message = item.message {
                        printer.line(
                            "case \(ids): return .\(item.name)(try \(message.swiftPath)(framePayload: frame.payload))")
                    } else {
                        printer.line("case \(ids): return .\(item.name)(payload: Swift.Array(frame.payload))")
                    }
                }
                printer.line("default: return .unknown(command: command, payload: Swift.Array(frame.payload))")
            }
        }
    }

    /// `extension TestReq: SwiftFrame.CommandMessage { ... }` for each message of the table
    /// that travels under exactly one id.
    static func emitConformances(
        _ conformances: [(message: MessageRef, id: UInt32)], visibility: String,
        to printer: Printer
    ) {
        for (message, id) in conformances {
            printer.line()
            printer.block("extension \(message.swiftPath): SwiftFrame.CommandMessage") {
                printer.line("\(visibility)static let commandID: Swift.UInt32 = \(id)")
            }
        }
    }
}
