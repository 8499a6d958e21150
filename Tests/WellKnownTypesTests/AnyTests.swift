import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

/// A hand-written message with a proto2-style required field that is never set.
private struct NeedsField: Message {
    static let protoMessageName = "test.NeedsField"
    var unknownFields = UnknownFields()
    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {}
    func computeSize(into cache: inout SizeCache) -> Int { 0 }
    func encodeMessage(to writer: inout ProtoWriter) {}
    func checkInitialized() throws(WireError) {
        throw .missingRequiredField(message: Self.protoMessageName, field: "id")
    }
}

@Suite struct AnyTests {
    typealias AnyMessage = Google_Protobuf_Any
    let duration = Google_Protobuf_Duration(seconds: -3, nanos: -5)

    @Test func packAndUnpack() throws {
        let any = try AnyMessage(packing: duration)
        #expect(any.typeUrl == "type.googleapis.com/google.protobuf.Duration")
        #expect(any.value == (try duration.serializedBytes()))
        #expect(any.typeName == "google.protobuf.Duration")
        #expect(any.isA(Google_Protobuf_Duration.self))
        #expect(!any.isA(Google_Protobuf_Timestamp.self))
        #expect(try any.unpack(as: Google_Protobuf_Duration.self) == duration)
        let inferred: Google_Protobuf_Duration = try any.unpack()
        #expect(inferred == duration)

        // Through the wire and back.
        let decoded = try AnyMessage(serializedBytes: try any.serializedBytes())
        #expect(try decoded.unpack(as: Google_Protobuf_Duration.self) == duration)
    }

    @Test func packingKeepsUnknownFieldsOfTheMessage() throws {
        let withExtra = try Google_Protobuf_Timestamp(serializedBytes: [0x08, 0x02, 0x18, 0x07])
        let unpacked = try AnyMessage(packing: withExtra).unpack(as: Google_Protobuf_Timestamp.self)
        #expect(unpacked == withExtra && unpacked.unknownFields.bytes == [0x18, 0x07])
    }

    @Test func defaultMessagesPackToAnEmptyValue() throws {
        let any = try AnyMessage(packing: Google_Protobuf_Empty())
        #expect(any.typeUrl == "type.googleapis.com/google.protobuf.Empty" && any.value.isEmpty)
        #expect(try any.unpack(as: Google_Protobuf_Empty.self) == Google_Protobuf_Empty())
        let zero = try AnyMessage(packing: Google_Protobuf_Duration())
        #expect(zero.value.isEmpty)
        #expect(try zero.unpack(as: Google_Protobuf_Duration.self) == Google_Protobuf_Duration())
    }

    @Test(arguments: [
        ("example.com/types", "example.com/types/google.protobuf.Duration"),
        ("example.com/types/", "example.com/types/google.protobuf.Duration"),  // no second "/"
        ("type.googleapis.com/", "type.googleapis.com/google.protobuf.Duration"),
        ("", "/google.protobuf.Duration"),
        ("/", "/google.protobuf.Duration"),
    ])
    func typeURLPrefix(prefix: String, url: String) throws {
        let any = try AnyMessage(packing: duration, typeURLPrefix: prefix)
        #expect(any.typeUrl == url)
        // The prefix is not part of the check.
        #expect(any.isA(Google_Protobuf_Duration.self))
        #expect(try any.unpack(as: Google_Protobuf_Duration.self) == duration)
    }

    @Test(arguments: [
        ("type.googleapis.com/google.protobuf.Timestamp", "google.protobuf.Timestamp"),
        ("google.protobuf.Duration", ""),  // protobuf requires a "/"
        ("", ""),
        ("type.googleapis.com/xgoogle.protobuf.Duration", "xgoogle.protobuf.Duration"),
        ("type.googleapis.com/google.protobuf.Duration/", ""),
        ("type.googleapis.com/google.protobuf.duration", "google.protobuf.duration"),  // case matters
        ("a/b/google.protobuf.DurationX", "google.protobuf.DurationX"),
        ("https://ex.com/a/b/google.protobuf.Duration", "google.protobuf.Duration"),
    ])
    func typeNameAndIsA(url: String, name: String) {
        let any = AnyMessage(typeUrl: url, value: [0x08, 0x01])
        #expect(any.typeName == name)
        #expect(any.isA(Google_Protobuf_Duration.self) == (name == "google.protobuf.Duration"))
    }

    @Test func typeMismatch() throws {
        let any = try AnyMessage(packing: duration)
        #expect(
            throws: AnyUnpackError.typeMismatch(
                expected: "google.protobuf.Timestamp", found: "type.googleapis.com/google.protobuf.Duration"
            )
        ) {
            try any.unpack(as: Google_Protobuf_Timestamp.self)
        }
        let noSlash = AnyMessage(typeUrl: "google.protobuf.Duration", value: any.value)
        #expect(
            throws: AnyUnpackError.typeMismatch(expected: "google.protobuf.Duration", found: "google.protobuf.Duration")
        ) {
            try noSlash.unpack(as: Google_Protobuf_Duration.self)
        }
        // Same bytes would decode fine as a Timestamp: the type URL alone decides.
        #expect(!any.isA(Google_Protobuf_Timestamp.self))
        let error = AnyUnpackError.typeMismatch(expected: "google.protobuf.Timestamp", found: "x/y")
        #expect(error.description == "Any holds type URL \"x/y\", not a google.protobuf.Timestamp")
    }

    @Test func malformedValue() throws {
        let truncated: [UInt8] = [0x08]  // a seconds tag with no varint after it
        var wireError: WireError?
        do { _ = try Google_Protobuf_Duration(serializedBytes: truncated) } catch { wireError = error }
        let expected = try #require(wireError)
        let any = AnyMessage(typeUrl: "type.googleapis.com/google.protobuf.Duration", value: truncated)
        #expect(throws: AnyUnpackError.decodingFailed(expected)) {
            try any.unpack(as: Google_Protobuf_Duration.self)
        }
        let badUTF8 = AnyMessage(typeUrl: "type.googleapis.com/google.protobuf.StringValue", value: [0x0A, 0x01, 0xFF])
        #expect(throws: AnyUnpackError.decodingFailed(.invalidUTF8(offset: 2))) {
            try badUTF8.unpack(as: Google_Protobuf_StringValue.self)
        }
    }

    @Test func packingAMessageMissingARequiredFieldThrows() {
        #expect(throws: WireError.missingRequiredField(message: "test.NeedsField", field: "id")) {
            try AnyMessage(packing: NeedsField())
        }
    }

    @Test func nestedAnyUnpacksStepByStep() throws {
        let inner = try AnyMessage(packing: Google_Protobuf_StringValue(value: "deep"))
        let outer = try AnyMessage(packing: inner)
        #expect(outer.typeUrl == "type.googleapis.com/google.protobuf.Any")
        let back = try outer.unpack(as: AnyMessage.self)
        #expect(try back.unpack(as: Google_Protobuf_StringValue.self).value == "deep")
    }

    /// protoc writes the expanded `[type_url] { ... }` text form the same way. (protoc 3.21
    /// resolves that form only for type.googleapis.com.)
    @Test func matchesProtocsExpandedForm() throws {
        try expectMatchesProtoc(
            try AnyMessage(packing: duration),
            "[type.googleapis.com/google.protobuf.Duration] { seconds: -3 nanos: -5 }",
            files: ["any", "duration"])
    }

    /// With another prefix, protoc gets the raw fields; `value` is protoc's own encoding of
    /// the Duration.
    @Test(arguments: ["example.com/types", "example.com/types/", "", "a/b/c"])
    func matchesProtocWithAnotherPrefix(prefix: String) throws {
        let value = try Protoc.encode("seconds: -3 nanos: -5", as: "google.protobuf.Duration", files: ["duration"])
        let url = (prefix.hasSuffix("/") ? prefix : prefix + "/") + "google.protobuf.Duration"
        try expectMatchesProtoc(
            try AnyMessage(packing: duration, typeURLPrefix: prefix),
            "type_url: \"\(url)\" value: \"\(octalEscaped(value))\"", files: ["any"])
    }
}
