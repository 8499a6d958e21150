import SwiftFrame

// The plugin's own decoder for the descriptor messages, written against the SwiftFrame
// wire codec. Fields it does not need are skipped; option messages are kept as bytes.

/// A value decoded field by field from the wire.
public protocol WireDecodable {
    init()
    mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError)
}

extension WireDecodable {
    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init()
        while reader.hasRemaining {
            let tag = try reader.readTag()
            try decodeField(tag: tag, from: &reader)
        }
    }

    /// Decodes a complete value from its serialized bytes.
    public init(serializedBytes bytes: [UInt8]) throws(WireError) {
        let result: Result<Self, WireError> = bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            do throws(WireError) {
                return .success(try Self(from: &reader))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }
}

extension ProtoReader {
    /// Reads a length-delimited embedded value.
    mutating func read<T: WireDecodable>(_: T.Type) throws(WireError) -> T {
        try readLengthDelimited { (reader: inout ProtoReader) throws(WireError) in try T(from: &reader) }
    }

    mutating func readOptions() throws(WireError) -> Options {
        Options(bytes: try readBytes())
    }

    mutating func readInt32() throws(WireError) -> Int32 {
        try readVarint(ProtoInt32.self)
    }

    /// A repeated int32 field, packed or not.
    mutating func readInt32s(tag: UInt32, into values: inout [Int32]) throws(WireError) {
        if tag & 7 == WireType.lengthDelimited.rawValue {
            try readPackedVarint(into: &values, ProtoInt32.self)
        } else {
            values.append(try readInt32())
        }
    }
}

extension CodeGeneratorRequest: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: filesToGenerate.append(try reader.readString())
        case 18: parameter = try reader.readString()
        case 26: compilerVersion = try reader.read(CompilerVersion.self)
        case 122: protoFiles.append(try reader.read(FileDescriptor.self))
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension CompilerVersion: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 8: major = try reader.readInt32()
        case 16: minor = try reader.readInt32()
        case 24: patch = try reader.readInt32()
        case 34: suffix = try reader.readString()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension FileDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 18: package = try reader.readString()
        case 26: dependencies.append(try reader.readString())
        case 34: messages.append(try reader.read(MessageDescriptor.self))
        case 42: enums.append(try reader.read(EnumDescriptor.self))
        case 50: services.append(try reader.read(ServiceDescriptor.self))
        case 58: extensions.append(try reader.read(FieldDescriptor.self))
        case 66: options = try reader.readOptions()
        case 74:
            let info = try reader.read(SourceCodeInfo.self)
            sourceLocations.append(contentsOf: info.locations)
        case 80, 82: try reader.readInt32s(tag: tag, into: &publicDependencies)
        case 98: syntax = try reader.readString()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension MessageDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 18: fields.append(try reader.read(FieldDescriptor.self))
        case 26: nestedMessages.append(try reader.read(MessageDescriptor.self))
        case 34: enums.append(try reader.read(EnumDescriptor.self))
        case 42: extensionRanges.append(try reader.read(ExtensionRange.self).range)
        case 50: extensions.append(try reader.read(FieldDescriptor.self))
        case 58: options = try reader.readOptions()
        case 66: oneofs.append(try reader.read(OneofDescriptor.self))
        default: try reader.skipValue(tag: tag)
        }
    }
}

/// DescriptorProto.ExtensionRange: `start` inclusive, `end` exclusive on the wire.
struct ExtensionRange: WireDecodable {
    init() {}
    var start: Int32 = 0
    var end: Int32 = 0
    var range: ClosedRange<Int32> { start...max(start, end - 1) }

    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 8: start = try reader.readInt32()
        case 16: end = try reader.readInt32()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension FieldDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 18: extendee = try reader.readString()
        case 24: number = try reader.readInt32()
        case 32: label = Label(rawValue: try reader.readInt32()) ?? .optional
        case 40: rawType = try reader.readInt32()
        case 50: typeName = try reader.readString()
        case 58: defaultValue = try reader.readString()
        case 66: options = try reader.readOptions()
        case 72: oneofIndex = try reader.readInt32()
        case 82: jsonName = try reader.readString()
        case 136: proto3Optional = try reader.readVarint(ProtoBool.self)
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension OneofDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 18: options = try reader.readOptions()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension EnumDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 18: values.append(try reader.read(EnumValueDescriptor.self))
        case 26: options = try reader.readOptions()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension EnumValueDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        case 16: number = try reader.readInt32()
        case 26: options = try reader.readOptions()
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension ServiceDescriptor: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: name = try reader.readString()
        default: try reader.skipValue(tag: tag)
        }
    }
}

/// SourceCodeInfo: only its locations are kept.
struct SourceCodeInfo: WireDecodable {
    init() {}
    var locations: [SourceLocation] = []

    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: locations.append(try reader.read(SourceLocation.self))
        default: try reader.skipValue(tag: tag)
        }
    }
}

extension SourceLocation: WireDecodable {
    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 8, 10: try reader.readInt32s(tag: tag, into: &path)
        case 26: leadingComments = try reader.readString()
        case 34: trailingComments = try reader.readString()
        default: try reader.skipValue(tag: tag)
        }
    }
}

/// FileDescriptorSet, as written by `protoc --descriptor_set_out`.
public struct FileDescriptorSet: WireDecodable, Sendable, Equatable {
    public var files: [FileDescriptor] = []
    public init() {}

    public mutating func decodeField(tag: UInt32, from reader: inout ProtoReader) throws(WireError) {
        switch tag {
        case 10: files.append(try reader.read(FileDescriptor.self))
        default: try reader.skipValue(tag: tag)
        }
    }
}
