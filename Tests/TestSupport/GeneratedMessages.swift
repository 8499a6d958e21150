import Foundation
import SwiftFrame

/// Every message of one module of checked-in generated code, found through the module's
/// sources: each `extension Name: SwiftFrame.FieldTableMessage` (or `CompactMessage`) line names
/// a message, which the runtime's type metadata then gives by its mangled name. The test process
/// links every test target's modules, so any of them can be looked up here.
public enum GeneratedMessages {
    public struct Found: Sendable {
        /// The Swift name in the module (`Everything.Level1`).
        public let name: String
        /// The source file, relative to the folder.
        public let file: String
        public let type: any FieldTableMessage.Type
    }

    /// The messages in `folder` (relative to the repository), and a line for each one the module
    /// does not hold.
    public static func find(folder: String, module: String) throws -> (found: [Found], missing: [String]) {
        let root = Repository.root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        var found: [Found] = [], missing: [String] = []
        for file in files.sorted() where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("extension ")
                && (line.hasSuffix(": SwiftFrame.FieldTableMessage {")
                    || line.hasSuffix(": SwiftFrame.CompactMessage {"))
            {
                let name = String(line.dropFirst("extension ".count).prefix { $0 != ":" })
                // The mangled name of the struct `module.name` (each part a length and the part;
                // `V`: a struct), which the runtime looks up in the compiler's type metadata.
                let mangled = ([module] + name.split(separator: ".").map(String.init)).enumerated()
                    .map { "\($0.element.utf8.count)\($0.element)\($0.offset == 0 ? "" : "V")" }.joined()
                if let type = _typeByName(mangled) as? any FieldTableMessage.Type {
                    found.append(Found(name: name, file: file, type: type))
                } else {
                    missing.append("\(file): \(name) is not a FieldTableMessage of \(module)")
                }
            }
        }
        return (found, missing)
    }
}
