import SwiftFrame

/// What a plugin answers on stdout. A full `Message`, so tests can decode the plugin's output.
public struct CodeGeneratorResponse: Message {
    public static let protoMessageName = "google.protobuf.compiler.CodeGeneratorResponse"

    /// Bits of `supported_features`.
    public static let featureProto3Optional: UInt64 = 1

    public struct File: Message {
        public static let protoMessageName = "google.protobuf.compiler.CodeGeneratorResponse.File"
        public var name: String?
        public var content: String?
        public var unknownFields = UnknownFields()

        public init() {}
        public init(name: String, content: String) {
            self.name = name
            self.content = content
        }

        public mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
            while reader.hasRemaining {
                let tag = try reader.readTag()
                switch tag {
                case 10: name = try reader.readString()
                case 122: content = try reader.readString()
                default: try reader.skipField(tag: tag, into: &unknownFields)
                }
            }
        }

        public func computeSize(into cache: inout SizeCache) -> Int {
            var size = unknownFields.count
            if let name { size += 1 + Wire.lengthDelimitedSize(name.utf8.count) }
            if let content { size += 1 + Wire.lengthDelimitedSize(content.utf8.count) }
            return size
        }

        public func encodeMessage(to writer: inout ProtoWriter) {
            if let name {
                writer.writeTag(10)
                writer.writeString(name)
            }
            if let content {
                writer.writeTag(122)
                writer.writeString(content)
            }
            writer.writeUnknownFields(unknownFields)
        }
    }

    /// Set when generation failed; protoc prints it and exits non-zero.
    public var error: String?
    public var supportedFeatures: UInt64?
    public var files: [File] = []
    public var unknownFields = UnknownFields()

    public init() {}

    public mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 10: error = try reader.readString()
            case 16: supportedFeatures = try reader.readVarint(ProtoUInt64.self)
            case 122: try reader.readMessage(appendingTo: &files)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    public func computeSize(into cache: inout SizeCache) -> Int {
        var size = unknownFields.count
        if let error { size += 1 + Wire.lengthDelimitedSize(error.utf8.count) }
        if let supportedFeatures { size += 1 + ProtoUInt64.size(supportedFeatures) }
        for file in files { size += 1 + cache.message(file) }
        return size
    }

    public func encodeMessage(to writer: inout ProtoWriter) {
        if let error {
            writer.writeTag(10)
            writer.writeString(error)
        }
        if let supportedFeatures {
            writer.writeTag(16)
            writer.writeVarint(ProtoUInt64.self, supportedFeatures)
        }
        for file in files {
            writer.writeTag(122)
            writer.writeMessage(file)
        }
        writer.writeUnknownFields(unknownFields)
    }
}
