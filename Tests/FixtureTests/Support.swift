// The fixture tests' view of TestSupport: protoc and the round-trip check over the fixture
// protos, and NaN-aware equality for the message that holds every field type.

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

extension Protoc {
    /// `protoc --encode=<type>` of a fixture file.
    static func encode(_ text: String, as type: String, file: String) throws -> [UInt8] {
        try ProtoSchema.fixture(file).encode(text, as: type)
    }

    /// `protoc --decode=<type>` of a fixture file.
    static func decode(_ bytes: [UInt8], as type: String, file: String) throws -> String {
        try ProtoSchema.fixture(file).decode(bytes, as: type)
    }

    /// Decodes several inputs, running protoc once per distinct input.
    static func decode(all inputs: [[UInt8]], as type: String, file: String) throws -> [String] {
        try ProtoSchema.fixture(file).decode(all: inputs, as: type)
    }
}

/// The round-trip check of TestSupport, for a message of a fixture file.
func expectRoundTrip<M: Message>(
    _ value: M, text: String, file: String, expectEmpty: Bool = false,
    same: (M, M) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try expectRoundTrip(
        value, text: text, schema: .fixture(file), expectEmpty: expectEmpty, same: same,
        sourceLocation: sourceLocation)
}

extension RoundTripCase {
    init<M: Message>(
        _ name: String, _ value: M, file: String, text: String, expectEmpty: Bool = false,
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.init(
            name, value, text: text, schema: .fixture(file), expectEmpty: expectEmpty, same: same,
            sourceLocation: sourceLocation)
    }

    static func empty<M: Message>(_: M.Type, file: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> RoundTripCase
    {
        empty(M.self, schema: .fixture(file), sourceLocation: sourceLocation)
    }
}

// MARK: NaN-aware equality

extension Everything {
    /// `==` compares floating-point fields with IEEE rules (NaN != NaN, -0 == 0). This
    /// compares them by bit pattern and everything else with `==`.
    static func bitwiseEqual(_ lhs: Everything, _ rhs: Everything) -> Bool {
        lhs.fDouble.bitPattern == rhs.fDouble.bitPattern
            && lhs.fFloat.bitPattern == rhs.fFloat.bitPattern
            && lhs.rDouble.map(\.bitPattern) == rhs.rDouble.map(\.bitPattern)
            && lhs.rFloat.map(\.bitPattern) == rhs.rFloat.map(\.bitPattern)
            && lhs.oDouble.map(\.bitPattern) == rhs.oDouble.map(\.bitPattern)
            && lhs.withoutFloatingPoint == rhs.withoutFloatingPoint
    }

    /// A copy with the floating-point fields cleared (presence of `oDouble` kept).
    var withoutFloatingPoint: Everything {
        var copy = self
        copy.fDouble = 0
        copy.fFloat = 0
        copy.rDouble = rDouble.map { _ in 0 }
        copy.rFloat = rFloat.map { _ in 0 }
        copy.oDouble = oDouble.map { _ in 0 }
        return copy
    }
}
