import SwiftFrameDescriptors

/// A problem (which fails the run) or a warning (which protoc shows) of one run: what kind it
/// is, the file and the element it is about, where the element is declared, and the message.
/// Printed as protoc prints its own: `p.proto:12:3: error: message`, `p.proto: error: message`
/// when the place has no line, `error: message` when it is the run's (an option).
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    /// The kinds of diagnostic the generator reports.
    public enum Code: String, Sendable {
        /// The request breaks what protoc guarantees (a name declared twice, a field number
        /// out of range, an enum without values).
        case malformedRequest
        /// A plugin option (`--swiftframe_opt`), or a file it names, is wrong.
        case invalidOption
        /// A file of an edition this generator has no feature defaults for (it has proto2 to
        /// UNSTABLE, as protoc 35.1 publishes them).
        case unsupportedEdition
        /// A field, map value or extension names a type, or an extension a message, that no
        /// file of the run declares.
        case unknownType
        /// A type this generator cannot give a field, a map value or an extension.
        case unsupportedType
        /// A field's type comes from a file that cannot be generated.
        case ungeneratableType
        /// A map field's entry message is not what protoc makes.
        case malformedMapEntry
        /// An extension that gets no typed accessor (a group, a MessageSet member).
        case untypedExtension
        /// Two files would be written to one output file.
        case outputCollision
        /// A configured command table name that is no usable Swift type name.
        case invalidTableName
        /// A configured command table name that another top-level type already has.
        case nameCollision
        /// A config file's table that does not fit the files it names.
        case invalidConfigTable
        /// A command table without a usable frame layout.
        case invalidLayout
        /// A command id that does not fit its layout's field or 32 bits.
        case commandIDOutOfRange
        /// Two messages claim the same side of one command id.
        case duplicateCommand
        /// `error_reply` or `heartbeat` given to two commands of one table.
        case duplicateRole
        /// A name that several messages or options match.
        case ambiguousName
        /// An option names a message that no file of the run declares.
        case unknownMessage
        /// A request paired with two different responses.
        case conflictingResponse
        /// A `(swiftframe.selected_by)` envelope that cannot be built.
        case invalidEnvelope
        /// A config table's convention that cannot number a message.
        case invalidConvention
        /// A command id that matches no message.
        case commandWithoutMessage
        /// Something `Messages=SwiftProtobuf` does not generate (an envelope's helpers).
        case notGeneratedForSwiftProtobuf
        /// A message that travels under several command ids.
        case sharedMessage
    }

    public var severity: Severity
    public var code: Code
    /// The .proto file it is about, as protoc names it; empty when it is the run's.
    public var file: String
    /// The full name of the element it is about (`im.Box.body`; an enum value under its enum,
    /// `im.Kind.KIND_A`); nil for the file or the run.
    public var element: String?
    /// Where the element is declared, from 1, when the request carries SourceCodeInfo for it.
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(
        _ severity: Severity, _ code: Code, file: String = "", element: String? = nil, line: Int? = nil,
        column: Int? = nil, message: String
    ) {
        self.severity = severity
        self.code = code
        self.file = file
        self.element = element
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var place = file
        if !file.isEmpty, let line, let column { place += ":\(line):\(column)" }
        return (place.isEmpty ? "" : place + ": ") + severity.rawValue + ": " + message
    }

    /// With its line and column, when `index` knows where its element is declared.
    func located(in index: DescriptorIndex) -> Diagnostic {
        guard line == nil, let element, let location = index.location(of: element, in: file) else { return self }
        var located = self
        located.line = location.line
        located.column = location.column
        return located
    }
}

/// Where a diagnostic points and how its message names the place (`message im.Box: field
/// body`): a site builds its diagnostics from one.
struct Place: CustomStringConvertible {
    var file: String
    var element: String?
    /// How a message names the place; empty for the file itself.
    var description: String

    init(file: String, element: String? = nil, _ description: String = "") {
        self.file = file
        self.element = element
        self.description = description
    }

    /// A place inside this one: `message im.Box` then `field body`.
    func appending(_ label: String, element: String?) -> Place {
        Place(file: file, element: element ?? self.element, description.isEmpty ? label : description + ": " + label)
    }

    func error(_ code: Diagnostic.Code, _ message: String) -> Diagnostic {
        Diagnostic(.error, code, file: file, element: element, message: message)
    }

    func warning(_ code: Diagnostic.Code, _ message: String) -> Diagnostic {
        Diagnostic(.warning, code, file: file, element: element, message: message)
    }
}

/// The problems that fail a run: what `CodeGeneratorResponse.error` carries, one per line.
public struct GenerationError: Error, CustomStringConvertible, Equatable {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// A plugin option (`--swiftframe_opt`) that is wrong.
    static func option(_ message: String) -> GenerationError {
        GenerationError([Diagnostic(.error, .invalidOption, message: message)])
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// What a stage reports: problems, which fail the run, and warnings, which protoc shows.
struct Diagnostics {
    var problems: [Diagnostic] = []
    var warnings: [Diagnostic] = []

    mutating func report(_ diagnostic: Diagnostic) {
        switch diagnostic.severity {
        case .error: problems.append(diagnostic)
        case .warning: warnings.append(diagnostic)
        }
    }

    mutating func formUnion(_ other: Diagnostics) {
        problems += other.problems
        warnings += other.warnings
    }
}
