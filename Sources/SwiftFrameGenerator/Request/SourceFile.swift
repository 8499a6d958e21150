import SwiftFrame
import SwiftFrameDescriptors

/// One .proto file of the request as the resolver reads it: its descriptor, its comments by
/// SourceCodeInfo path, and swiftframe's file options read once into typed values.
struct SourceFile {
    let descriptor: FileDescriptor
    let name: String
    /// The proto package (`im.user`), empty when the file declares none.
    let package: String
    /// "proto2", "proto3" or "editions".
    let syntax: String
    /// The file's own features (its edition's defaults and its `option features`); nil for an
    /// edition this generator does not know.
    let features: Features?
    /// The syntax, or the edition of an editions file, as the .proto writes it ("proto3",
    /// "edition 2023").
    var editionName: String {
        guard syntax == "editions" else { return syntax }
        let number = descriptor.edition?.rawValue
        let name = Google_Protobuf_Edition.protoNames.first { $0.number == number }?.name
        return name.map { "edition " + $0.dropFirst("EDITION_".count) } ?? "an edition without a name"
    }
    /// Comments by SourceCodeInfo path.
    let comments: [SourcePath: String]
    /// `option (swiftframe.layout)`: the frame layout of the file's command table.
    let layoutOption: String?
    /// `option (swiftframe.request_prefix)` and `(swiftframe.response_prefix)`: messages named
    /// the prefix and an id are commands.
    let requestPrefix: String?
    let responsePrefix: String?
    /// `option optimize_for = CODE_SIZE`.
    let declaresCodeSize: Bool

    init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
        var comments: [SourcePath: String] = [:]
        for location in descriptor.sourceCodeInfo?.location ?? [] {
            let text = [location.leadingComments, location.trailingComments]
                .compactMap { $0 }
                .filter { !$0.allSatisfy(\.isWhitespace) }
                .joined(separator: "\n")
            if !text.isEmpty { comments[SourcePath(location.path)] = text }
        }
        self.comments = comments
        self.name = descriptor.name ?? ""
        self.package = descriptor.packageName
        self.syntax = descriptor.syntaxName
        self.features = descriptor.resolvedFeatures
        let options = descriptor.options
        self.layoutOption = options?[extension: Swiftframe_OptionsExtensions.layout]
        self.requestPrefix = options?[extension: Swiftframe_OptionsExtensions.requestPrefix]
        self.responsePrefix = options?[extension: Swiftframe_OptionsExtensions.responsePrefix]
        self.declaresCodeSize = options?.optimizeFor == .codeSize
    }
}

extension EnumType.ValueOptions {
    /// swiftframe's options on an enum value, read from its option message.
    init(_ options: Google_Protobuf_EnumValueOptions?) {
        self.init(
            request: options?[extension: Swiftframe_OptionsExtensions.request],
            response: options?[extension: Swiftframe_OptionsExtensions.response],
            holds: options?[extension: Swiftframe_OptionsExtensions.holds],
            isErrorReply: options?[extension: Swiftframe_OptionsExtensions.errorReply] == true,
            isHeartbeat: options?[extension: Swiftframe_OptionsExtensions.heartbeat] == true)
    }
}

extension ScalarType {
    init?(_ type: FieldDescriptor.Type_) {
        switch type {
        case .double: self = .double
        case .float: self = .float
        case .int64: self = .int64
        case .uint64: self = .uint64
        case .int32: self = .int32
        case .fixed64: self = .fixed64
        case .fixed32: self = .fixed32
        case .bool: self = .bool
        case .string: self = .string
        case .bytes: self = .bytes
        case .uint32: self = .uint32
        case .sfixed32: self = .sfixed32
        case .sfixed64: self = .sfixed64
        case .sint32: self = .sint32
        case .sint64: self = .sint64
        case .group, .message, .enum_: return nil
        }
    }
}
