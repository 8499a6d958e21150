/// A SourceCodeInfo path: from a `FileDescriptorProto` down to one element, a field number
/// of descriptor.proto then an index, per level (`[4, 0, 2, 1]`: the second field of the
/// first message). Built from named steps, never from bare numbers.
package struct SourcePath: Hashable, Sendable {
    package let components: [Int32]

    package init(_ components: [Int32]) { self.components = components }

    /// descriptor.proto's field numbers that SourceCodeInfo paths go through.
    package enum FileField {
        package static let messageType: Int32 = 4
        package static let enumType: Int32 = 5
        package static let extension_: Int32 = 7
    }

    package enum MessageField {
        package static let field: Int32 = 2
        package static let nestedType: Int32 = 3
        package static let enumType: Int32 = 4
        package static let extension_: Int32 = 6
        package static let oneofDecl: Int32 = 8
    }

    package enum EnumField {
        package static let value: Int32 = 2
    }

    private func appending(_ field: Int32, _ index: Int) -> SourcePath {
        SourcePath(components + [field, Int32(index)])
    }

    // A file's top-level elements.

    package static func message(_ index: Int) -> SourcePath { SourcePath([]).appending(FileField.messageType, index) }
    package static func enumType(_ index: Int) -> SourcePath { SourcePath([]).appending(FileField.enumType, index) }
    package static func fileExtension(_ index: Int) -> SourcePath {
        SourcePath([]).appending(FileField.extension_, index)
    }

    // What a message's path leads on to.

    package func field(_ index: Int) -> SourcePath { appending(MessageField.field, index) }
    package func nestedMessage(_ index: Int) -> SourcePath { appending(MessageField.nestedType, index) }
    package func nestedEnum(_ index: Int) -> SourcePath { appending(MessageField.enumType, index) }
    package func messageExtension(_ index: Int) -> SourcePath { appending(MessageField.extension_, index) }
    package func oneof(_ index: Int) -> SourcePath { appending(MessageField.oneofDecl, index) }

    // What an enum's path leads on to.

    package func enumValue(_ index: Int) -> SourcePath { appending(EnumField.value, index) }
}
