import ArgumentParser
import Foundation
import SwiftFrameGenerator

/// `swiftframe dissector`: a Wireshark dissector in Lua for a command table.
struct Dissector: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a Wireshark dissector (Lua) for the command table of .proto files.",
        discussion: """
            The dissector cuts the TCP stream on --port into frames with the table's layout, \
            shows the header fields and the command names, and hands each body to Wireshark's \
            protobuf dissector as the message its command carries in that direction (to the \
            port: the request; from it: the response), unwrapping envelopes as inspect does \
            (a reply's response bytes are read as the response of the request it answers on \
            the same connection). Wireshark finds the messages in its "Protobuf search paths" \
            preference: add the folders of the .proto files and of their imports there \
            (swiftframe's Protos folder for swiftframe/options.proto, and the one of \
            google/protobuf). tshark takes them with -o, one folder each, as absolute paths \
            (TRUE: load every .proto file in it); protobuf.preload_protos and \
            protobuf.pbf_as_hf make the message fields display fields (pbf.<message>.<field>) \
            for -T fields and -Y.

              swiftframe dissector --proto game.proto --port 9000 --output game.lua
              wireshark -X lua_script:game.lua capture.pcapng
              tshark -r capture.pcapng -X lua_script:game.lua \\
                  -o "uat:protobuf_search_paths:\\"$PWD\\",\\"TRUE\\"" \\
                  -o 'uat:protobuf_search_paths:"/path/to/swiftframe/Protos","FALSE"' \\
                  -o 'uat:protobuf_search_paths:"/usr/include","FALSE"' \\
                  -o protobuf.preload_protos:TRUE -o protobuf.pbf_as_hf:TRUE -V
            """
    )

    @OptionGroup var protocolOptions: ProtocolOptions

    @Option(name: .long, help: "The TCP port the server listens on.")
    var port: Int

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With several command tables, the .proto file of the one to dissect.", valueName: "file"))
    var table: String?

    @Option(name: .long, help: "The protocol's name in Wireshark's display filters (default: swiftframe_<file>).")
    var name: String?

    @Option(name: .long, help: "Where to write the dissector (default: standard output).")
    var output: String?

    func validate() throws {
        guard !protocolOptions.isEmpty else {
            throw ValidationError("give the .proto files (--proto) or --descriptor-set")
        }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1 through 65535") }
    }

    func run() throws {
        try reportingFailures {
            let loaded = try protocolOptions.load()
            let tables = loaded.description.tables.filter { table in
                self.table.map { table.file == $0 || $0.hasSuffix("/" + table.file) } ?? true
            }
            guard tables.count == 1, let chosen = tables.first else {
                let files = loaded.description.tables.map(\.file).joined(separator: ", ")
                throw ToolFailure(
                    status: .usage,
                    message: tables.isEmpty
                        ? "no command table\(self.table.map { " in \($0)" } ?? "") (tables: \(files.isEmpty ? "none" : files))"
                        : "several command tables (\(files)): choose one with --table")
            }
            let lua = DissectorEmitter(description: loaded.description, table: chosen, port: port, name: name).emit()
            if let output {
                try lua.write(toFile: output, atomically: true, encoding: .utf8)
            } else {
                FileHandle.standardOutput.write(Data(lua.utf8))
            }
        }
    }
}
