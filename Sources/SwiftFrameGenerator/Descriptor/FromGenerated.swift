import SwiftFrame
import SwiftFrameDescriptors

// The plugin reads its input through the models of descriptor.proto and plugin.proto that it
// generates itself (Generated/, regenerated and golden-checked by `make test`). From them
// it keeps, as the plain values of Descriptors.swift, what generation needs, option messages
// as they are.

/// What the plugin answers on stdout.
public typealias CodeGeneratorResponse = Google_Protobuf_Compiler_CodeGeneratorResponse

extension Google_Protobuf_Compiler_CodeGeneratorResponse {
    /// The `supported_features` bit for proto3 `optional`.
    public static let featureProto3Optional = UInt64(Feature.proto3Optional.rawValue)
}

extension CodeGeneratorRequest {
    /// Decodes a serialized CodeGeneratorRequest.
    public init(serializedBytes bytes: [UInt8]) throws(WireError) {
        self.init(try Google_Protobuf_Compiler_CodeGeneratorRequest(serializedBytes: bytes, partial: true))
    }

    init(_ wire: Google_Protobuf_Compiler_CodeGeneratorRequest) {
        self.init()
        filesToGenerate = wire.fileToGenerate
        parameter = wire.parameter ?? ""
        protoFiles = wire.protoFile.map(FileDescriptor.init)
        compilerVersion = wire.compilerVersion.map { version in
            var result = CompilerVersion()
            result.major = version.major ?? 0
            result.minor = version.minor ?? 0
            result.patch = version.patch ?? 0
            result.suffix = version.suffix ?? ""
            return result
        }
    }
}

/// FileDescriptorSet, as written by `protoc --descriptor_set_out`.
public struct FileDescriptorSet: Sendable, Equatable {
    public var files: [FileDescriptor] = []

    public init(serializedBytes bytes: [UInt8]) throws(WireError) {
        files = try Google_Protobuf_FileDescriptorSet(serializedBytes: bytes, partial: true).file.map(FileDescriptor.init)
    }
}

extension FileDescriptor {
    init(_ wire: Google_Protobuf_FileDescriptorProto) {
        self.init()
        name = wire.name ?? ""
        package = wire.package ?? ""
        dependencies = wire.dependency
        publicDependencies = wire.publicDependency
        messages = wire.messageType.map(MessageDescriptor.init)
        enums = wire.enumType.map(EnumDescriptor.init)
        services = wire.service.map { service in
            var result = ServiceDescriptor()
            result.name = service.name ?? ""
            return result
        }
        extensions = wire.extension_.map(FieldDescriptor.init)
        options = wire.options ?? .init()
        sourceLocations = (wire.sourceCodeInfo?.location ?? []).map { location in
            var result = SourceLocation()
            result.path = location.path
            result.leadingComments = location.leadingComments
            result.trailingComments = location.trailingComments
            return result
        }
        syntax = wire.syntax ?? ""
    }
}

extension MessageDescriptor {
    init(_ wire: Google_Protobuf_DescriptorProto) {
        self.init()
        name = wire.name ?? ""
        fields = wire.field.map(FieldDescriptor.init)
        extensions = wire.extension_.map(FieldDescriptor.init)
        nestedMessages = wire.nestedType.map(MessageDescriptor.init)
        enums = wire.enumType.map(EnumDescriptor.init)
        extensionRanges = wire.extensionRange.map { range in
            let start = range.start ?? 0
            return start...max(start, (range.end ?? start + 1) - 1)
        }
        oneofs = wire.oneofDecl.map { oneof in
            var result = OneofDescriptor()
            result.name = oneof.name ?? ""
            result.options = oneof.options ?? .init()
            return result
        }
        options = wire.options ?? .init()
    }
}

extension FieldDescriptor {
    init(_ wire: Google_Protobuf_FieldDescriptorProto) {
        self.init()
        name = wire.name ?? ""
        number = wire.number ?? 0
        label = wire.label.flatMap { Label(rawValue: $0.rawValue) } ?? .optional
        rawType = wire.type?.rawValue ?? 0
        typeName = wire.typeName ?? ""
        extendee = wire.extendee ?? ""
        defaultValue = wire.defaultValue
        oneofIndex = wire.oneofIndex
        jsonName = wire.jsonName ?? ""
        options = wire.options ?? .init()
        proto3Optional = wire.proto3Optional ?? false
    }
}

extension EnumDescriptor {
    init(_ wire: Google_Protobuf_EnumDescriptorProto) {
        self.init()
        name = wire.name ?? ""
        values = wire.value.map { value in
            var result = EnumValueDescriptor()
            result.name = value.name ?? ""
            result.number = value.number ?? 0
            result.options = value.options ?? .init()
            return result
        }
        options = wire.options ?? .init()
    }
}
