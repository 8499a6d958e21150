// The well-known-type tests' view of TestSupport: protoc and the round-trip check over
// google/protobuf/*.proto.

import SwiftFrame
import TestSupport
import Testing

extension Protoc {
    /// `protoc --encode=<type>` with google/protobuf files named by stem (`"timestamp"`); list
    /// every file whose types the text names (an expanded Any names the packed type).
    static func encode(_ text: String, as type: String, files: [String]) throws -> [UInt8] {
        try ProtoSchema.wellKnown(files).encode(text, as: type)
    }
}

/// The round-trip check of TestSupport for well-known types. Descriptions are not compared:
/// `Struct` holds dictionaries, which print in an order of their own.
func expectMatchesProtoc<M: Message>(
    _ value: M, _ text: String, files: [String],
    same: (M, M) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try expectRoundTrip(
        value, text: text, schema: .wellKnown(files), same: same,
        sourceLocation: sourceLocation)
}

extension RoundTripCase {
    init<M: Message>(
        _ name: String, _ value: M, _ text: String, files: [String],
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.init(
            name, value, text: text, schema: .wellKnown(files), same: same,
            sourceLocation: sourceLocation)
    }

    /// The default message: zero bytes from us and from protoc.
    static func empty<M: Message>(_: M.Type, file: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> RoundTripCase
    {
        empty(M.self, schema: .wellKnown([file]), sourceLocation: sourceLocation)
    }
}
