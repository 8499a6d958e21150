// The round-trip check every message test uses: a Swift value against protoc, given the same
// message as text.

import SwiftFrame
import Testing

/// Checks one message against protoc: (a) our bytes equal `protoc --encode`'s and
/// `serializedSize()` agrees; (b) decoding protoc's bytes gives the value back, with no
/// unknown fields, and re-encodes to the same bytes; (c) `protoc --decode` prints the same
/// text for our bytes as for its own; (d) the message prints that text itself.
public func expectRoundTrip<M: Message>(
    _ value: M,
    text: String,
    schema: ProtoSchema,
    expectEmpty: Bool = false,
    same: (M, M) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let type = M.protoMessageName
    let protocBytes = try schema.encode(text, as: type)
    let ours = try value.serializedBytes()

    // (a)
    #expect(
        ours == protocBytes,
        "\(type): serializedBytes() differs from protoc --encode\n  ours:   \(hex(ours))\n  protoc: \(hex(protocBytes))",
        sourceLocation: sourceLocation)
    #expect(value.serializedSize() == ours.count, "\(type): serializedSize()", sourceLocation: sourceLocation)
    if expectEmpty {
        #expect(
            protocBytes.isEmpty, "\(type): protoc wrote \(hex(protocBytes)) for a default message",
            sourceLocation: sourceLocation)
        #expect(ours.isEmpty, "\(type): we wrote \(hex(ours)) for a default message", sourceLocation: sourceLocation)
    }

    // (b)
    let decoded = try M(serializedBytes: protocBytes)
    #expect(
        same(decoded, value),
        "\(type): decoding protoc's bytes \(hex(protocBytes))\n  gave:     \(decoded)\n  expected: \(value)",
        sourceLocation: sourceLocation)
    // Generated enums compare by number (`RawRepresentable`'s `==`), so `==` alone would
    // accept `.unrecognized(1)` for a declared value 1; the structures tell the cases apart.
    #expect(
        structure(of: decoded) == structure(of: value),
        "\(type): decoded value differs in its enum cases (or floats)\n  gave:     \(decoded)\n  expected: \(value)",
        sourceLocation: sourceLocation)
    #expect(
        decoded.unknownFields.isEmpty, "\(type): unexpected unknown fields \(hex(decoded.unknownFields.bytes))",
        sourceLocation: sourceLocation)
    let reencoded = try decoded.serializedBytes()
    #expect(
        reencoded == protocBytes,
        "\(type): decode then encode changed protoc's bytes\n  before: \(hex(protocBytes))\n  after:  \(hex(reencoded))",
        sourceLocation: sourceLocation)

    // (c)
    let texts = try schema.decode(all: [ours, protocBytes], as: type)
    #expect(
        texts[0] == texts[1], "\(type): protoc --decode of our bytes:\n\(texts[0])\nof protoc's bytes:\n\(texts[1])",
        sourceLocation: sourceLocation)

    // (d)
    expectTextFormat(value, protocText: texts[0], sourceLocation: sourceLocation)
}

/// The message prints as `protoc --decode` printed its bytes (`protocText`): line for line in
/// `textFormatString()`, and on one line (protobuf's short form) in `print(message)`.
public func expectTextFormat<M: Message>(
    _ value: M, protocText: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let type = M.protoMessageName
    #expect(
        value.textFormatString() == protocText,
        "\(type): textFormatString()\n\(value.textFormatString())\nprotoc --decode:\n\(protocText)",
        sourceLocation: sourceLocation)
    let oneLine = protocText.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
    #expect(
        String(describing: value) == oneLine,
        "\(type): print(message)\n\(value)\nprotoc --decode on one line:\n\(oneLine)", sourceLocation: sourceLocation)
}

/// Whether an open enum's value is `.unrecognized(n)`, its one case with a payload.
public func isUnrecognized<E: SwiftFrame.Enum>(_ value: E) -> Bool {
    Mirror(reflecting: value).children.first?.label == "unrecognized"
}

/// A value's structure as `Mirror` sees it, for telling apart values that `==` calls equal:
/// open enums show whether they are `.unrecognized`, floating-point numbers their bits, and
/// dictionaries their entries sorted.
public func structure(of value: Any) -> String {
    if let value = value as? any SwiftFrame.Enum {
        return (isUnrecognized(value) ? "unrecognized(" : "case(") + "\(value.rawValue))"
    }
    if let value = value as? Double { return "double(\(value.bitPattern))" }
    if let value = value as? Float { return "float(\(value.bitPattern))" }
    let mirror = Mirror(reflecting: value)
    guard !mirror.children.isEmpty else { return String(describing: value) }
    var parts = mirror.children.map { "\($0.label ?? "")=\(structure(of: $0.value))" }
    if mirror.displayStyle == .dictionary || mirror.displayStyle == .set { parts.sort() }
    return "\(type(of: value))(" + parts.joined(separator: ", ") + ")"
}

/// One round-trip case for a parameterized test: any message type, its text form, and the
/// .proto files protoc loads.
public struct RoundTripCase: Sendable, CustomTestStringConvertible {
    public let testDescription: String
    public let run: @Sendable () throws -> Void
    /// The full name of the case's message, and the value's encoding (what `CodeModes` compares
    /// the two code modes on).
    public let messageName: String
    public let bytes: [UInt8]

    public init<M: Message>(
        _ name: String, _ value: M, text: String, schema: ProtoSchema,
        expectEmpty: Bool = false,
        same: @escaping @Sendable (M, M) -> Bool = { $0 == $1 },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        testDescription = "\(M.protoMessageName): \(name)"
        messageName = M.protoMessageName
        bytes = (try? value.serializedBytes(partial: true)) ?? []
        run = {
            try expectRoundTrip(
                value, text: text, schema: schema, expectEmpty: expectEmpty, same: same,
                sourceLocation: sourceLocation)
        }
    }

    /// The default message: zero bytes from us and from protoc.
    public static func empty<M: Message>(
        _: M.Type, schema: ProtoSchema,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RoundTripCase {
        RoundTripCase("empty", M(), text: "", schema: schema, expectEmpty: true, sourceLocation: sourceLocation)
    }
}
