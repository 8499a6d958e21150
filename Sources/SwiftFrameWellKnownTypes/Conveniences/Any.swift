// Conveniences for google.protobuf.Any: packing a message, checking and unpacking its type.

import SwiftFrame

/// Why `Google_Protobuf_Any.unpack(as:)` failed.
public enum AnyUnpackError: Error, Hashable, Sendable {
    /// The Any holds another type: `expected` is the full name of the requested message
    /// (e.g. `google.protobuf.Duration`), `found` the Any's `typeUrl` as it is.
    case typeMismatch(expected: String, found: String)
    /// The type matches, but `value` is not a valid encoding of it.
    case decodingFailed(WireError)
}

extension AnyUnpackError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .typeMismatch(expected, found):
            return "Any holds type URL \"\(found)\", not a \(expected)"
        case let .decodingFailed(error):
            return "Any value does not decode: \(error)"
        }
    }
}

extension Google_Protobuf_Any {
    /// An Any holding `message`: its bytes, and the type URL `typeURLPrefix/<full name>`,
    /// e.g. `type.googleapis.com/google.protobuf.Duration`. A prefix that already ends in
    /// "/" gets no second one.
    /// - Throws: `WireError.missingRequiredField` when a proto2 `required` field is not set.
    public init(packing message: some Message, typeURLPrefix: String = "type.googleapis.com") throws(WireError) {
        let separator = typeURLPrefix.hasSuffix("/") ? "" : "/"
        self.init(
            typeUrl: typeURLPrefix + separator + type(of: message).protoMessageName,
            value: try message.serializedBytes())
    }

    /// The full name of the message held: the part of `typeUrl` after its last "/", or ""
    /// when there is no "/" (protobuf requires one).
    public var typeName: String {
        guard let slash = typeUrl.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(typeUrl[typeUrl.utf8.index(after: slash)...])
    }

    /// Whether this Any holds an `M`, judged by the last path component of `typeUrl`. The
    /// prefix (the host part) is not checked.
    public func isA<M: Message>(_: M.Type) -> Bool {
        typeName == M.protoMessageName
    }

    /// The message held, decoded as an `M`.
    /// - Throws: `AnyUnpackError.typeMismatch` when `isA(M.self)` is false;
    ///   `.decodingFailed` when `value` does not decode as an `M`.
    public func unpack<M: Message>(as _: M.Type = M.self) throws(AnyUnpackError) -> M {
        guard isA(M.self) else {
            throw .typeMismatch(expected: M.protoMessageName, found: typeUrl)
        }
        do throws(WireError) {
            return try M(serializedBytes: value)
        } catch {
            throw .decodingFailed(error)
        }
    }
}
