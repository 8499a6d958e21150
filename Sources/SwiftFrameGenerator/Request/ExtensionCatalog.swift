import SwiftFrameDescriptors

/// Every `extend` field of a request, read once from its descriptors: what a config file's
/// `message_option` names (a project's own `MsgID`) is looked up here, and the values of the
/// integer options of `google.protobuf.MessageOptions` are read from every message with it.
struct ExtensionCatalog {
    struct Declared {
        /// The extended message, fully qualified with a leading dot.
        let extendee: String
        let type: FieldDescriptor.Type_?
        let number: Int32
    }

    /// By full name without the leading dot (`game.MsgID`).
    let byName: [String: Declared]

    init(_ index: DescriptorIndex) {
        var extensions: [String: Declared] = [:]
        func add(_ fields: [FieldDescriptor], scope: String) {
            for field in fields {
                extensions[scope.isEmpty ? field.protoName : scope + "." + field.protoName] =
                    Declared(extendee: field.extendee ?? "", type: field.type, number: field.fieldNumber)
            }
        }
        for file in index.files { add(file.extension_, scope: file.packageName) }
        for message in index.messages { add(message.descriptor.extension_, scope: message.fullName) }
        byName = extensions
    }

    /// The integer and enum options a message can carry: a command id may be one.
    static let integerTypes: [FieldDescriptor.Type_] = [.int32, .uint32, .int64, .uint64, .enum_]

    /// Field numbers of the integer and enum extensions of `MessageOptions`, in order.
    var integerMessageOptions: [Int32] {
        Set(
            byName.values.filter {
                $0.extendee == ".google.protobuf.MessageOptions" && Self.integerTypes.contains($0.type ?? .group)
            }
            .map(\.number)
        ).sorted()
    }
}
