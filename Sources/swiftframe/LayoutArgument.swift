import ArgumentParser
import Foundation
import SwiftFrame

/// The layout a `--layout` argument names: a preset by name, else a file holding a layout
/// description.
func layoutNamed(_ name: String) throws -> FrameLayout {
    if let preset = FrameLayout.preset(named: name) { return preset }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory), !isDirectory.boolValue,
        let data = FileManager.default.contents(atPath: name)
    else {
        throw ValidationError(
            "'\(name)' is neither a preset nor a readable layout file. Presets: "
                + FrameLayout.presetNames.joined(separator: ", ")
        )
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw ValidationError("\(name): not UTF-8 text")
    }
    do throws(FrameLayoutError) {
        return try FrameLayout(description: text)
    } catch {
        throw ValidationError("\(name): \(error)")
    }
}
