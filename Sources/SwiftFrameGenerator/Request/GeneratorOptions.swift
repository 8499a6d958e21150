import SwiftFrameDescriptors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options from `--swiftframe_opt=key=value,key2=value2`. Unknown keys are errors.
public struct GeneratorOptions: Equatable, Sendable {
    public enum Visibility: String, Sendable, CaseIterable {
        case `public`, `internal`, `package`

        /// The access modifier, with its trailing space, written before each declaration.
        var modifier: String { self == .internal ? "" : rawValue + " " }
    }

    /// Access level of the generated declarations.
    public var visibility: Visibility = .public
    /// How output files are named from `path/to/x.proto`.
    public enum FileNaming: String, Sendable, CaseIterable {
        /// `path/to/x.swiftframe.swift`
        case FullPath
        /// `path_to_x.swiftframe.swift`
        case PathToUnderscores
        /// `x.swiftframe.swift`
        case DropPath
    }

    public var fileNaming: FileNaming = .FullPath

    /// What generated messages and enums print.
    public enum TextFormat: String, Sendable, CaseIterable {
        /// Protobuf's text format with field and enum value names, as `protoc --decode` prints.
        case Names
        /// Fields by number, as `protoc --decode_raw` prints: no names in the binary.
        case Numbers
    }

    public var textFormat: TextFormat = .Names

    /// Whose messages the generated code carries.
    public enum Messages: String, Sendable, CaseIterable {
        /// swiftframe's own: the messages and enums, with the tables that carry them.
        case SwiftFrame
        /// protoc-gen-swift's, generated beside: only the command tables, request → response
        /// pairs and envelopes, naming its types, and their `SwiftProtobufPayload` conformance.
        case SwiftProtobuf
    }

    public var messages: Messages = .SwiftFrame

    /// protobuf's `optimize_for`, which this option overrides for every file of a run.
    public enum OptimizeFor: String, Sendable, CaseIterable {
        /// Straight-line decode, size and encode code per message (the default).
        case SPEED
        /// A field table per message, read and written by one codec in the runtime.
        case CODE_SIZE
        /// Means SPEED here: the runtime has no lighter variant.
        case LITE_RUNTIME
    }

    /// Set by `OptimizeFor=`; nil leaves each file's own `optimize_for`.
    public var optimizeFor: OptimizeFor?

    /// A frame layout preset for every command table, overriding `(swiftframe.layout)`.
    public var layout: String?
    /// .proto files whose Swift lives in another module (`google/protobuf/any.proto` →
    /// `SwiftFrameWellKnownTypes`): generated code imports that module instead.
    public var moduleMap: [String: String] = GeneratorOptions.wellKnownTypeModules

    /// The well-known types ship generated in `SwiftFrameWellKnownTypes`, descriptor.proto
    /// (which custom options extend) in `SwiftFrameDescriptors`.
    public static let wellKnownTypeModules: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "any", "api", "duration", "empty", "field_mask", "source_context", "struct", "timestamp", "type",
            "wrappers",
        ]
        .map { ("google/protobuf/\($0).proto", "SwiftFrameWellKnownTypes") }
            + [("google/protobuf/descriptor.proto", "SwiftFrameDescriptors")])

    /// The command configuration read from `Config=<path>`: command tables and envelopes
    /// described outside the .proto files (see Protos/swiftframe/config.proto).
    var config = Swiftframe_Config()

    public init() {}

    /// Parses protoc's parameter string.
    public init(parameter: String) throws(GenerationError) {
        for item in parameter.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingWhitespace
            guard parts.count == 2 else {
                throw .option("option '\(item)' needs a value: write \(key)=VALUE")
            }
            let value = parts[1].trimmingWhitespace
            switch key {
            case "Visibility": visibility = try Self.choice(key, value)
            case "FileNaming": fileNaming = try Self.choice(key, value)
            case "TextFormat": textFormat = try Self.choice(key, value)
            case "OptimizeFor": optimizeFor = try Self.choice(key, value) as OptimizeFor
            case "Messages": messages = try Self.choice(key, value)
            case "Layout":
                self.layout = value
            case "LayoutFile":
                self.layout = try Self.readTextFile(value)
            case "ModuleMap":
                try addModuleMap(Self.readTextFile(value), path: value)
            case "Config":
                config = try Self.readConfig(Self.readTextFile(value), path: value)
            default:
                throw .option(
                    "unknown option '\(key)' (known options: Visibility, FileNaming, TextFormat, OptimizeFor, Messages, Layout, LayoutFile, ModuleMap, Config)"
                )
            }
        }
        // protoc-gen-swift's messages of the well-known types are SwiftProtobuf's own.
        if messages == .SwiftProtobuf {
            for (file, module) in Self.wellKnownTypeModules where moduleMap[file] == module {
                moduleMap[file] = "SwiftProtobuf"
            }
        }
    }
}

extension GeneratorOptions {
    /// The case of an enum-valued option spelled `value`; every such option is parsed here.
    static func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, _ value: String) throws(GenerationError)
        -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: value) else {
            let allowed = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw .option("option \(key)=\(value): expected one of \(allowed)")
        }
        return choice
    }

    /// Lines `path/to/file.proto = ModuleName`; `#` starts a comment.
    mutating func addModuleMap(_ text: String, path: String) throws(GenerationError) {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingWhitespace
            guard !line.isEmpty else { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw .option("option ModuleMap=\(path): line \(number + 1): expected file.proto = ModuleName")
            }
            moduleMap[parts[0]] = parts[1]
        }
    }

    /// A `swiftframe.Config` in protobuf text format.
    static func readConfig(_ text: String, path: String) throws(GenerationError) -> Swiftframe_Config {
        do {
            return try Swiftframe_Config(textFormat: text)
        } catch {
            throw .option("option Config=\(path): \(error)")
        }
    }

    /// A small text file (a layout description, a module map), relative to where protoc runs.
    static func readTextFile(_ path: String) throws(GenerationError) -> String {
        guard let file = fopen(path, "r") else {
            throw .option("cannot open \(path)")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
