import SwiftFrame
import SwiftFrameDescriptors

// The plugin reads protoc's request through the models of descriptor.proto and plugin.proto
// that it generates itself (SwiftFrameDescriptors, and Generated/ here; both regenerated and
// golden-checked by `make test`). The resolver reads these values as they are: there is no
// second, hand-written copy of the descriptors. Options are descriptor.proto's option
// messages: standard options are their fields, custom options (swiftframe's and the
// project's) typed extensions read from them.

/// What protoc sends a plugin on stdin.
public typealias CodeGeneratorRequest = Google_Protobuf_Compiler_CodeGeneratorRequest
/// What the plugin answers on stdout.
public typealias CodeGeneratorResponse = Google_Protobuf_Compiler_CodeGeneratorResponse

typealias FileDescriptor = Google_Protobuf_FileDescriptorProto
typealias MessageDescriptor = Google_Protobuf_DescriptorProto
typealias FieldDescriptor = Google_Protobuf_FieldDescriptorProto
typealias EnumDescriptor = Google_Protobuf_EnumDescriptorProto

extension Google_Protobuf_Compiler_CodeGeneratorResponse {
    /// The `supported_features` bit for proto3 `optional`.
    public static let featureProto3Optional = UInt64(Feature.proto3Optional.rawValue)
    /// The `supported_features` bit for editions, which `minimum_edition` and
    /// `maximum_edition` bound.
    public static let featureSupportsEditions = UInt64(Feature.supportsEditions.rawValue)
}

// protoc sets every name, number, label and type it sends; proto2 gives the strings of an
// unset field "" and the flags false, which is what these read.

extension Google_Protobuf_FileDescriptorProto {
    /// "proto2" (also when absent), "proto3" or "editions".
    var syntaxName: String { syntax.flatMap(\.nonEmpty) ?? "proto2" }
    var packageName: String { package ?? "" }
}

/// A descriptor with a name: a message, field, oneof, enum or enum value.
protocol NamedDescriptor {
    var name: String? { get }
}

extension NamedDescriptor {
    var protoName: String { name ?? "" }
}

extension Google_Protobuf_DescriptorProto: NamedDescriptor {
    /// True for the synthetic entry message protoc makes for a `map<K, V>` field.
    var isMapEntry: Bool { options?.mapEntry == true }
}

extension Google_Protobuf_FieldDescriptorProto: NamedDescriptor {
    var fieldNumber: Int32 { number ?? 0 }
    /// Fully qualified with a leading dot (".pkg.Outer.Inner") for messages and enums.
    var typeFullName: String { typeName ?? "" }
    var isRepeated: Bool { label == .repeated }
    var isRequired: Bool { label == .required }
    var isProto3Optional: Bool { proto3Optional == true }
}

extension Google_Protobuf_EnumDescriptorProto: NamedDescriptor {}

extension Google_Protobuf_EnumValueDescriptorProto: NamedDescriptor {
    var valueNumber: Int32 { number ?? 0 }
}

extension Google_Protobuf_OneofDescriptorProto: NamedDescriptor {}
