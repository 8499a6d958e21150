// The round-trip check every message test uses: a Swift value against protoc, given the same
// message as text.

import SwiftFrame
import Testing

/// Checks one message against protoc: (a) our bytes equal `protoc --encode`'s and
/// `serializedSize()` agrees; (b) decoding protoc's bytes gives the value back, with no
/// unknown fields, and re-encodes to the same bytes; (c) `protoc --decode` prints the same
/// text for our bytes as for its own.
public func expectRoundTrip<M: Message>(
    _ value: M,
    text: String,
    schema: ProtoSchema,
    expectEmpty: Bool = false,
    same: (M, M) -> Bool = { $0 == $1 },
    compareDescriptions: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let type = M.protoMessageName
    let protocBytes = try schema.encode(text, as: type)
    let ours = try value.serializedBytes()

    // (a)
    #expect(ours == protocBytes,
            "\(type): serializedBytes() differs from protoc --encode\n  ours:   \(hex(ours))\n  protoc: \(hex(protocBytes))",
            sourceLocation: sourceLocation)
    #expect(value.serializedSize() == ours.count, "\(type): serializedSize()", sourceLocation: sourceLocation)
    if expectEmpty {
        #expect(protocBytes.isEmpty, "\(type): protoc wrote \(hex(protocBytes)) for a default message", sourceLocation: sourceLocation)
        #expect(ours.isEmpty, "\(type): we wrote \(hex(ours)) for a default message", sourceLocation: sourceLocation)
    }

    // (b)
    let decoded = try M(serializedBytes: protocBytes)
    #expect(same(decoded, value),
            "\(type): decoding protoc's bytes \(hex(protocBytes))\n  gave:     \(decoded)\n  expected: \(value)",
            sourceLocation: sourceLocation)
    // Generated enums compare by number (`RawRepresentable`'s `==`), so `==` alone would
    // accept `.unrecognized(1)` for a declared value 1; the descriptions name the cases.
    // (Dictionaries print in an order of their own, so values holding maps skip this.)
    #expect(!compareDescriptions || String(describing: decoded) == String(describing: value),
            "\(type): decoded value differs in its enum cases (or floats)\n  gave:     \(decoded)\n  expected: \(value)",
            sourceLocation: sourceLocation)
    #expect(decoded.unknownFields.isEmpty, "\(type): unexpected unknown fields \(hex(decoded.unknownFields.bytes))",
            sourceLocation: sourceLocation)
    let reencoded = try decoded.serializedBytes()
    #expect(reencoded == protocBytes,
            "\(type): decode then encode changed protoc's bytes\n  before: \(hex(protocBytes))\n  after:  \(hex(reencoded))",
            sourceLocation: sourceLocation)

    // (c)
    let texts = try schema.decode(all: [ours, protocBytes], as: type)
    #expect(texts[0] == texts[1], "\(type): protoc --decode of our bytes:\n\(texts[0])\nof protoc's bytes:\n\(texts[1])",
            sourceLocation: sourceLocation)
}

/// One round-trip case for a parameterized test: any message type, its text form, and the
/// .proto files protoc loads.
public struct RoundTripCase: Sendable, CustomTestStringConvertible {
    public let testDescription: String
    public let run: @Sendable () throws -> Void

    public init<M: Message>(
        _ name: String, _ value: M, text: String, schema: ProtoSchema,
        expectEmpty: Bool = false,
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        compareDescriptions: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        testDescription = "\(M.protoMessageName): \(name)"
        run = {
            try expectRoundTrip(value, text: text, schema: schema, expectEmpty: expectEmpty, same: same,
                                compareDescriptions: compareDescriptions, sourceLocation: sourceLocation)
        }
    }

    /// The default message: zero bytes from us and from protoc.
    public static func empty<M: Message>(_: M.Type, schema: ProtoSchema,
                                         sourceLocation: SourceLocation = #_sourceLocation) -> RoundTripCase {
        RoundTripCase("empty", M(), text: "", schema: schema, expectEmpty: true, sourceLocation: sourceLocation)
    }
}
