import Foundation
@testable import SwiftFrame

/// Checks the field table of every generated message in a folder against the struct the compiler
/// built: the table's stored types, in its layout's order, must be the struct's stored
/// properties' types in declaration order (read through `Mirror`, from the compiler's metadata),
/// one for one. The offsets the table uses are the compiler's own; this checks that each offset
/// is read as the type that is really there.
public enum StoredLayout {
    /// The messages checked, and a line per message whose table does not describe its struct.
    public static func check(folder: String, module: String) throws -> (checked: [String], problems: [String]) {
        let root = Repository.root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        var checked: [String] = [], problems: [String] = []
        for file in files.sorted() where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("extension ")
                && (line.hasSuffix(": SwiftFrame.FieldTableMessage {")
                    || line.hasSuffix(": SwiftFrame.CompactMessage {"))
            {
                let name = line.dropFirst("extension ".count).prefix { $0 != ":" }
                // The mangled name of the struct `module.name` (each part a length and the part;
                // `V`: a struct), which the runtime looks up in the compiler's type metadata.
                let mangled = ([module] + name.split(separator: ".").map(String.init)).enumerated()
                    .map { "\($0.element.utf8.count)\($0.element)\($0.offset == 0 ? "" : "V")" }.joined()
                guard let type = _typeByName(mangled) as? any FieldTableMessage.Type else {
                    problems.append("\(file): \(name) is not a FieldTableMessage of \(module)")
                    continue
                }
                checked.append(String(name))
                if let problem = mismatch(type) { problems.append("\(file): \(name): \(problem)") }
            }
        }
        return (checked, problems)
    }

    private static func mismatch<M: FieldTableMessage>(_: M.Type) -> String? {
        let declared = Mirror(reflecting: M()).children.map { (label: $0.label ?? "?", type: type(of: $0.value)) }
        let described = M.fieldTable.storedTypes
        guard declared.count == described.count else {
            return "\(declared.count) stored properties, the table describes \(described.count)"
        }
        for (property, type) in zip(declared, described) where ObjectIdentifier(property.type) != ObjectIdentifier(type)
        {
            return "\(property.label) is a \(property.type), the table reads a \(type)"
        }
        return nil
    }
}
