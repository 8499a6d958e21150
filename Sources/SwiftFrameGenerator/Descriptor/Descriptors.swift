import SwiftFrame
import SwiftFrameDescriptors

// The parts of descriptor.proto and plugin.proto the generator reads, as plain values.
// Options are descriptor.proto's own option messages: standard options are their fields,
// custom options (swiftframe's and the project's) typed extensions read from them.
// Field numbers are those of google/protobuf/descriptor.proto and
// google/protobuf/compiler/plugin.proto (protobuf 3.21).

/// What protoc sends a plugin on stdin.
public struct CodeGeneratorRequest: Sendable, Equatable {
    public var filesToGenerate: [String] = []
    public var parameter: String = ""
    /// Every file named on the command line and everything they import, dependencies first.
    public var protoFiles: [FileDescriptor] = []
    public var compilerVersion: CompilerVersion?
    public init() {}
}

public struct CompilerVersion: Sendable, Equatable {
    public var major: Int32 = 0
    public var minor: Int32 = 0
    public var patch: Int32 = 0
    public var suffix: String = ""
    public init() {}
}

public struct FileDescriptor: Sendable, Equatable {
    public var name = ""
    public var package = ""
    public var dependencies: [String] = []
    public var publicDependencies: [Int32] = []
    public var messages: [MessageDescriptor] = []
    public var enums: [EnumDescriptor] = []
    public var services: [ServiceDescriptor] = []
    public var extensions: [FieldDescriptor] = []
    public var options = Google_Protobuf_FileOptions()
    public var sourceLocations: [SourceLocation] = []
    /// "proto2" when absent, "proto3", or "editions".
    public var syntax = ""
    public init() {}
}

public struct MessageDescriptor: Sendable, Equatable {
    public var name = ""
    public var fields: [FieldDescriptor] = []
    public var extensions: [FieldDescriptor] = []
    public var nestedMessages: [MessageDescriptor] = []
    public var enums: [EnumDescriptor] = []
    public var extensionRanges: [ClosedRange<Int32>] = []
    public var oneofs: [OneofDescriptor] = []
    public var options = Google_Protobuf_MessageOptions()
    public init() {}

    /// True for the synthetic entry message protoc makes for a `map<K, V>` field.
    public var isMapEntry: Bool { options.mapEntry ?? false }
}

public struct FieldDescriptor: Sendable, Equatable {
    public enum Label: Int32, Sendable { case optional = 1, required = 2, repeated = 3 }

    public enum FieldType: Int32, Sendable {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string
        case group, message, bytes, uint32, `enum`, sfixed32, sfixed64, sint32, sint64
    }

    public var name = ""
    public var number: Int32 = 0
    public var label: Label = .optional
    /// The `type` number as sent; `type` is nil for a number this generator does not know.
    public var rawType: Int32 = 0
    public var type: FieldType? { FieldType(rawValue: rawType) }
    /// Fully qualified with a leading dot (".pkg.Outer.Inner") for messages and enums.
    public var typeName = ""
    public var extendee = ""
    public var defaultValue: String?
    public var oneofIndex: Int32?
    public var jsonName = ""
    public var options = Google_Protobuf_FieldOptions()
    public var proto3Optional = false
    public init() {}

    /// `[packed = ...]` when given.
    public var packedOption: Bool? { options.packed }
}

public struct OneofDescriptor: Sendable, Equatable {
    public var name = ""
    public var options = Google_Protobuf_OneofOptions()
    public init() {}
}

public struct EnumDescriptor: Sendable, Equatable {
    public var name = ""
    public var values: [EnumValueDescriptor] = []
    public var options = Google_Protobuf_EnumOptions()
    public init() {}

    public var allowAlias: Bool { options.allowAlias ?? false }
}

public struct EnumValueDescriptor: Sendable, Equatable {
    public var name = ""
    public var number: Int32 = 0
    public var options = Google_Protobuf_EnumValueOptions()
    public init() {}
}

public struct ServiceDescriptor: Sendable, Equatable {
    public var name = ""
    public init() {}
}

/// One entry of SourceCodeInfo: a path into the file descriptor and its comments.
public struct SourceLocation: Sendable, Equatable {
    public var path: [Int32] = []
    public var leadingComments: String?
    public var trailingComments: String?
    public init() {}
}
