/// Accumulates indented Swift source. Every emitter writes through one printer.
final class Printer {
    /// UTF-8 bytes, not a String: appending bytes is a copy, appending to a String is not.
    private var bytes: [UInt8] = []
    private var depth = 0

    /// Everything printed so far.
    var output: String { String(decoding: bytes, as: UTF8.self) }

    /// One line at the current indentation; an empty string prints an empty line.
    func line(_ text: String = "") {
        if !text.isEmpty {
            for _ in 0..<depth { bytes.append(contentsOf: Self.indent) }
            bytes.append(contentsOf: text.utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    private static let indent: [UInt8] = Array("    ".utf8)

    /// `header {`, the body one level deeper, then `}`.
    func block(_ header: String, _ body: () -> Void) {
        line(header + " {")
        depth += 1
        body()
        depth -= 1
        line("}")
    }

    /// `opening`, the body one level deeper, then `closing`: a wrapped parameter or array
    /// list, or a `case` label's statements.
    func indented(_ opening: String, _ body: () -> Void, closing: String? = nil) {
        line(opening)
        depth += 1
        body()
        depth -= 1
        if let closing { line(closing) }
    }

    /// `declaration[a, b]` on one line for up to `inlineUpTo` items, else one item per line.
    func list(_ declaration: String, _ items: [String], inlineUpTo: Int = 0) {
        if items.count <= inlineUpTo {
            line(declaration + "[" + items.joined(separator: ", ") + "]")
        } else {
            indented(declaration + "[", { items.forEach { line($0 + ",") } }, closing: "]")
        }
    }

    /// `switch subject {` with its `case` lines at the same depth, as Swift style has it.
    func switchBlock(_ subject: String, _ body: () -> Void) {
        line("switch \(subject) {")
        body()
        line("}")
    }

    /// A `///` comment carrying text from the .proto file.
    func documentation(_ text: String?) {
        guard let text else { return }
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { Self.trimmingTrailingWhitespace(Substring($0)) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        for text in lines {
            line(text.isEmpty ? "///" : "///" + (text.first == " " ? "" : " ") + text)
        }
    }

    /// The line without the whitespace at its end, found scalar by scalar from the end (no
    /// grapheme breaking: doc comments are most of what a plugin run prints).
    private static func trimmingTrailingWhitespace(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex {
            let before = scalars.index(before: end)
            guard scalars[before].properties.isWhitespace else { break }
            end = before
        }
        return line[..<end]
    }
}
