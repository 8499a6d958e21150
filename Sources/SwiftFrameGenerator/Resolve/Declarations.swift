import SwiftFrameDescriptors

// What the resolver works on between reading the request and building the model: each
// message as declared (its names and options decided, its fields not yet linked), and the
// fields and extensions linked from them. None of it reaches the model.

/// A oneof as declared: its names and its members' case names.
struct OneofDeclaration {
    let protoName: String
    /// Its index in the message's descriptor.
    let index: Int32
    let swiftName: String
    let typeName: String
    let comments: String?
    /// Each member's case name, by proto name.
    let caseNames: [String: String]
}

/// Every name a message's struct declares, decided before its fields are linked.
struct MemberNames {
    /// The nested messages (map entries left out) and the nested enums, in declaration order.
    let nestedMessages: [String]
    let nestedEnums: [String]
    let oneofs: [OneofDeclaration]
    /// Each field's property, or its case when it is in a oneof, in declaration order.
    let fieldNames: [String]
    /// Each envelope body's selecting field (proto name), enum type and decoding method, by
    /// field number.
    let envelopeBodies: [Int32: (selector: String, type: String, accessor: String)]
    /// The nested enum of `[default = ...]` values.
    let defaultsName: String?
}

/// A message as declared.
struct MessageDeclaration {
    let descriptor: MessageDescriptor
    /// Its features, resolved (what its fields resolve theirs from).
    let features: Features
    /// Its SourceCodeInfo path.
    let path: SourcePath
    /// How fields name it, before it is known whether it checks required fields.
    let ref: MessageRef
    let swiftName: String
    let comments: String?
    let names: MemberNames
    let nested: [MessageDeclaration]
    let enums: [EnumType]
    let extensionRanges: [ClosedRange<Int>]
    let requestID: UInt32?
    let responseID: UInt32?
    let isMessageSet: Bool
    let integerOptions: [Int32: UInt64]

    var fullName: String { ref.fullName }
}

/// A file as declared: its messages and enums.
struct FileDeclaration: DeclaresMessages {
    let source: SourceFile
    let messages: [MessageDeclaration]
    let enums: [EnumType]
}

/// Fields and extensions as linked, by message full name and by file name.
struct Linked {
    var fields: [String: [Field]] = [:]
    var extensions: [String: [ExtensionField]] = [:]
}

/// A file whose messages are built, on its way to a `ProtoFile`: what `CommandResolver` reads.
struct FileDraft: DeclaresMessages {
    let source: SourceFile
    let messages: [MessageType]
    let enums: [EnumType]
    var name: String { source.name }
    var package: String { source.package }
}

// MARK: The one walk over nested declarations

/// A declaration with messages nested in it.
protocol NestsMessages {
    var nestedMessages: [Self] { get }
    var enums: [EnumType] { get }
}

extension NestsMessages {
    /// It, then everything nested in it, in declaration order.
    var selfAndNested: [Self] { [self] + nestedMessages.flatMap(\.selfAndNested) }
}

extension MessageDeclaration: NestsMessages {
    var nestedMessages: [MessageDeclaration] { nested }
}

extension MessageType: NestsMessages {
    var nestedMessages: [MessageType] { messages }
}

/// A file's top-level messages and enums.
protocol DeclaresMessages {
    associatedtype Message: NestsMessages
    var messages: [Message] { get }
    var enums: [EnumType] { get }
}

extension DeclaresMessages {
    /// Every message of the file, each before the messages nested in it, in declaration order.
    var allMessages: [Message] { messages.flatMap(\.selfAndNested) }

    /// Every enum of the file: top-level ones, then those nested in `allMessages`.
    var allEnums: [EnumType] { enums + allMessages.flatMap(\.enums) }
}

extension ProtoFile: DeclaresMessages {}
