/// Everything that can be wrong with a framed byte stream (decoding) or with a frame about to
/// be written (encoding). Decoding errors carry the stream offset of the field at fault
/// (counted from the first byte ever fed to the decoder).
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    // MARK: Decoding

    /// The magic field at `offset` holds `found` instead of `expected`.
    case badMagic(offset: Int, found: UInt64, expected: UInt64)
    /// The type field at `offset` holds a value the layout does not list.
    case unknownType(offset: Int, value: UInt64)
    /// The varint length at `offset` is longer than 10 bytes or does not fit in 64 bits.
    case malformedVarint(offset: Int)
    /// The signed length field at `offset` holds a negative value.
    case negativeLength(offset: Int, value: Int64)
    /// The length field at `offset` holds `length`, less than the `minimum` its span allows
    /// (e.g. a whole-frame length smaller than the header).
    case lengthTooSmall(offset: Int, length: UInt64, minimum: UInt64)
    /// The length field at `offset` announces a frame of `size` bytes (header included),
    /// more than the layout's `limit`. Reported as soon as the length is read.
    case frameTooLarge(offset: Int, size: UInt64, limit: Int)
    /// The stream ended inside the frame that starts at `offset`, with `buffered` bytes of it.
    case truncated(offset: Int, buffered: Int)
    /// After the bad header at `offset`, no magic was found within `skipped` bytes (the
    /// resynchronization limit, or the rest of the stream).
    case magicNotFound(offset: Int, skipped: Int)

    // MARK: Encoding

    /// A payload of `size` bytes is more than the layout can carry (`limit`): the length
    /// field is too narrow for it or the frame would exceed the maximum frame size.
    case payloadTooLarge(size: Int, limit: Int)
    /// A payload of `size` bytes is less than a negative length adjustment allows.
    case payloadTooSmall(size: Int, minimum: Int)
    /// The header value for `field` does not fit in its `width` bytes.
    case valueOutOfRange(field: String, value: UInt64, width: Int)
    /// The header has no value for the layout's `field` (`cmd`, `seq`, `type` or an extra's name).
    case missingValue(field: String)
    /// The header's type is not one of the layout's known types.
    case unlistedType(value: UInt64)
    /// The payload's own codec refused to encode it (a SwiftProtobuf message whose `required`
    /// fields are not set, say); swiftframe's messages are written as they are.
    case unencodablePayload(WireError)

    /// The stream offset the error refers to; nil for encoding errors.
    public var offset: Int? {
        switch self {
        case let .badMagic(offset, _, _), let .unknownType(offset, _), let .malformedVarint(offset),
            let .negativeLength(offset, _), let .lengthTooSmall(offset, _, _), let .frameTooLarge(offset, _, _),
            let .truncated(offset, _), let .magicNotFound(offset, _):
            offset
        case .payloadTooLarge, .payloadTooSmall, .valueOutOfRange, .missingValue, .unlistedType, .unencodablePayload:
            nil
        }
    }

    /// What went wrong, without the offset.
    public var reason: String {
        switch self {
        case let .badMagic(_, found, expected):
            "bad magic 0x\(LayoutRules.hex(found)), expected 0x\(LayoutRules.hex(expected))"
        case let .unknownType(_, value):
            "unknown type \(value)"
        case .malformedVarint:
            "malformed varint length"
        case let .negativeLength(_, value):
            "negative length \(value)"
        case let .lengthTooSmall(_, length, minimum):
            "length \(length) is less than the minimum \(minimum)"
        case let .frameTooLarge(_, size, limit):
            "frame of \(size) bytes exceeds the limit of \(limit)"
        case let .truncated(_, buffered):
            "truncated frame: the stream ends after \(buffered) byte\(buffered == 1 ? "" : "s") of it"
        case let .magicNotFound(_, skipped):
            "no magic found within \(skipped) byte\(skipped == 1 ? "" : "s") after a bad header"
        case let .payloadTooLarge(size, limit):
            "payload of \(size) bytes exceeds the limit of \(limit)"
        case let .payloadTooSmall(size, minimum):
            "payload of \(size) bytes is less than the minimum \(minimum)"
        case let .valueOutOfRange(field, value, width):
            "\(field) \(value) does not fit in \(width) byte\(width == 1 ? "" : "s")"
        case let .missingValue(field):
            "the header has no value for the \(field) field"
        case let .unlistedType(value):
            "type \(value) is not one of the layout's known types"
        case let .unencodablePayload(error):
            "the payload cannot be encoded: \(error)"
        }
    }

    public var description: String {
        if let offset { "\(reason) at offset \(offset)" } else { reason }
    }
}

/// A layout that breaks a rule, or layout text that does not parse. For text, `token` is the
/// offending token (or setting) and `line`/`column` (1-based) where it starts.
public struct FrameLayoutError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var token: String?
    public var line: Int?
    public var column: Int?

    public init(_ message: String, token: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.token = token
        self.line = line
        self.column = column
    }

    public var description: String {
        guard let token else { return message }
        var place = ""
        if let line, let column { place = " at line \(line), column \(column)" }
        return "'\(token)'\(place): \(message)"
    }
}
