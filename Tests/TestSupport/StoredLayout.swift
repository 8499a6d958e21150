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
        let (found, missing) = try GeneratedMessages.find(folder: folder, module: module)
        let problems = found.compactMap { message in
            mismatch(message.type).map { "\(message.file): \(message.name): \($0)" }
        }
        return (found.map(\.name), missing + problems)
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
