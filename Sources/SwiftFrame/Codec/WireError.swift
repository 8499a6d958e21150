/// Everything that can be wrong with protobuf bytes, each case carrying the byte offset
/// (from the start of the buffer handed to the decoder) where the problem was found.
public enum WireError: Error, Hashable, Sendable {
    /// The input ended inside a value that started at `offset`.
    case truncated(offset: Int)
    /// A varint that does not end within 10 bytes.
    case malformedVarint(offset: Int)
    /// A tag written in more than 5 bytes.
    case invalidTag(offset: Int)
    /// A length prefix written in more than 5 bytes.
    case invalidLength(offset: Int)
    /// A length prefix larger than the bytes that remain in the enclosing message.
    case lengthPastEnd(offset: Int, length: UInt64, remaining: Int)
    /// Wire type 6 or 7, which protobuf does not define.
    case invalidWireType(offset: Int, wireType: UInt8)
    /// A tag with field number 0.
    case fieldNumberZero(offset: Int)
    /// A tag whose field number is above 2^29 - 1, the largest a .proto file can declare.
    case fieldNumberTooLarge(offset: Int)
    /// A `string` field (or a string extension) whose bytes are not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Messages or groups nested deeper than the reader's limit; `offset` is the tag that
    /// opens the first one too deep.
    case tooDeep(offset: Int, limit: Int)
    /// An end-group tag with no matching start-group tag, or with another field number.
    case unmatchedEndGroup(offset: Int)
    /// A packed fixed-width field whose length is not a multiple of the element width.
    case malformedPackedField(offset: Int, length: Int)
    /// A proto2 `required` field is not set (in `message`, or a message nested in it),
    /// found when decoding or encoding without `partial: true`. `field` is empty when the
    /// runtime that found it does not name it (SwiftProtobuf's).
    case missingRequiredField(message: String, field: String)
    /// Another protobuf runtime (SwiftProtobuf, for its messages as frame payloads) refused to
    /// decode or encode `message`, for a reason it gives no offset for (`reason`, its error).
    case rejected(message: String, reason: String)
}

extension WireError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .truncated(offset):
            return "truncated input: a value starting at offset \(offset) runs past the end"
        case let .malformedVarint(offset):
            return "malformed varint at offset \(offset): longer than 10 bytes"
        case let .invalidTag(offset):
            return "invalid tag at offset \(offset): longer than 5 bytes"
        case let .invalidLength(offset):
            return "invalid length at offset \(offset): longer than 5 bytes"
        case let .lengthPastEnd(offset, length, remaining):
            return "length \(length) at offset \(offset) is past the end (\(remaining) bytes remain)"
        case let .invalidWireType(offset, wireType):
            return "invalid wire type \(wireType) at offset \(offset)"
        case let .fieldNumberZero(offset):
            return "field number 0 at offset \(offset)"
        case let .fieldNumberTooLarge(offset):
            return "field number above 536870911 (2^29 - 1) at offset \(offset)"
        case let .invalidUTF8(offset):
            return "invalid UTF-8 in a string field at offset \(offset)"
        case let .tooDeep(offset, limit):
            return "nesting deeper than \(limit) levels at offset \(offset)"
        case let .unmatchedEndGroup(offset):
            return "end-group tag without a matching start-group at offset \(offset)"
        case let .malformedPackedField(offset, length):
            return "packed field at offset \(offset) has length \(length), not a multiple of its element size"
        case let .missingRequiredField(message, field):
            return field.isEmpty
                ? "a required field of \(message) is not set" : "required field \(message).\(field) is not set"
        case let .rejected(message, reason):
            return "\(message) rejected: \(reason)"
        }
    }
}
