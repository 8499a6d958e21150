// The conformance messages against protoc: payloads encoded by `protoc --encode` from text
// over the conformance protos, decoded by the generated types and compared field by field
// and byte for byte; extensions, MessageSet and unknown groups.

import SwiftFrame
import SwiftFrameConformanceMessages
import TestSupport
import Testing

typealias ForeignEnum3 = ProtobufTestMessages_Proto3_ForeignEnum
typealias ForeignEnum2 = ProtobufTestMessages_Proto2_ForeignEnumProto2
typealias MessageSetCorrect = ProtobufTestMessages_Proto2_TestAllTypesProto2.MessageSetCorrect
typealias Extensions2 = ProtobufTestMessages_Proto2_TestMessagesProto2Extensions

/// Every singular and repeated scalar, one message field of each kind, a oneof and one map
/// entry of a few kinds (a single entry each, so protoc's order is the only order).
let everyFieldText = """
    optional_int32: -5 optional_int64: -9000000000 optional_uint32: 4000000000 optional_uint64: 18000000000000000000
    optional_sint32: -7 optional_sint64: -8000000000 optional_fixed32: 4000000001 optional_fixed64: 18000000000000000001
    optional_sfixed32: -9 optional_sfixed64: -10 optional_float: 1.5 optional_double: -2.75 optional_bool: true
    optional_string: "héllo" optional_bytes: "\\000\\377"
    optional_nested_message { a: 11 corecursive { optional_int32: 12 } }
    optional_foreign_message { c: 13 }
    optional_nested_enum: BAZ optional_foreign_enum: FOREIGN_BAR
    optional_string_piece: "piece" optional_cord: "cord"
    recursive_message { optional_int32: 14 recursive_message { optional_string: "deep" } }
    repeated_int32: [1, -1] repeated_int64: [2, -2] repeated_uint32: [3, 0] repeated_uint64: [4]
    repeated_sint32: [-5, 5] repeated_sint64: [-6] repeated_fixed32: [7, 8] repeated_fixed64: [9]
    repeated_sfixed32: [-10] repeated_sfixed64: [-11] repeated_float: [0.5, -0.5] repeated_double: [1e100]
    repeated_bool: [true, false, true] repeated_string: ["a", "", "c"] repeated_bytes: ["\\001", ""]
    repeated_nested_message { a: 1 } repeated_nested_message {} repeated_foreign_message { c: 2 }
    repeated_nested_enum: [FOO, NEG, BAR] repeated_foreign_enum: [FOREIGN_BAZ]
    repeated_string_piece: "p" repeated_cord: "c"
    packed_int32: [1, -1] packed_sint64: [-2] packed_fixed32: [3] packed_double: [4.5] packed_bool: [false] packed_nested_enum: [BAZ, NEG]
    unpacked_int64: [1, -1] unpacked_uint32: [2] unpacked_sfixed64: [-3] unpacked_float: [4.25] unpacked_nested_enum: [BAR]
    map_int32_int32 { key: -1 value: -2 } map_string_string { key: "k" value: "v" }
    map_string_nested_message { key: "m" value { a: 3 } } map_string_foreign_enum { key: "e" value: FOREIGN_BAZ }
    map_bool_bool { key: true value: false } map_sfixed64_sfixed64 { key: -4 value: 4 }
    oneof_string: "one"
    fieldname1: 1 field_name2: 2 _field_name3: 3 FIELD_NAME11: 11 Field_name18__: 18
    """

@Suite("Conformance messages against protoc")
struct MessageTests {
    @Test(
        "Every kind of field, encoded by protoc, decodes and re-encodes to the same bytes", arguments: Syntax.allCases)
    func everyField(_ syntax: Syntax) throws {
        let bytes = try Protoc.encode(everyFieldText, as: syntax.messageType)
        #expect(try syntax.roundTrip(bytes) == bytes)
        switch syntax {
        case .proto3:
            let message = try Proto3(serializedBytes: bytes)
            #expect(message.unknownFields.isEmpty)
            #expect(message.optionalInt32 == -5 && message.optionalUint64 == 18_000_000_000_000_000_000)
            #expect(message.optionalSint64 == -8_000_000_000 && message.optionalSfixed32 == -9)
            #expect(message.optionalFloat == 1.5 && message.optionalDouble == -2.75 && message.optionalBool)
            #expect(message.optionalString == "héllo" && message.optionalBytes == [0, 255])
            #expect(
                message.optionalNestedMessage?.a == 11
                    && message.optionalNestedMessage?.corecursive?.optionalInt32 == 12)
            #expect(message.optionalNestedEnum == .baz && message.optionalForeignEnum == .foreignBar)
            #expect(message.recursiveMessage?.recursiveMessage?.optionalString == "deep")
            #expect(
                message.repeatedInt32 == [1, -1] && message.repeatedUint32 == [3, 0]
                    && message.repeatedBool == [true, false, true])
            #expect(message.repeatedNestedEnum.map(\.rawValue) == [0, -1, 1])
            #expect(message.packedNestedEnum.map(\.rawValue) == [2, -1] && message.unpackedInt64 == [1, -1])
            #expect(message.mapInt32Int32 == [-1: -2] && message.mapStringNestedMessage["m"]?.a == 3)
            #expect(message.mapStringForeignEnum["e"] == .foreignBaz && message.mapBoolBool == [true: false])
            #expect(message.oneofField == .oneofString("one"))
            #expect(
                message.fieldname1 == 1 && message.fieldName3 == 3 && message.fieldName11 == 11
                    && message.fieldName18 == 18)
        case .proto2:
            let message = try Proto2(serializedBytes: bytes)
            #expect(message.unknownFields.isEmpty)
            #expect(message.optionalInt32 == -5 && message.optionalUint64 == 18_000_000_000_000_000_000)
            #expect(message.optionalString == "héllo" && message.optionalBytes == [0, 255])
            #expect(message.optionalNestedEnum == .baz && message.optionalForeignEnum == .foreignBar)
            #expect(message.repeatedNestedEnum == [.foo, .neg, .bar] && message.packedNestedEnum == [.baz, .neg])
            #expect(message.mapStringForeignEnum == ["e": .foreignBaz])
            #expect(message.oneofField == .oneofString("one"))
            #expect(message.optionalNestedMessage?.corecursive?.optionalInt32 == 12)
            // Fields not in the text are absent, not zero.
            #expect(message.defaultInt32 == nil && message.data == nil && message.fieldName4 == nil)
        }
    }

    /// Built with the generated types, encoded by us: protoc reads back the same message.
    @Test("Values built in Swift encode as protoc does", arguments: Syntax.allCases)
    func builtInSwift(_ syntax: Syntax) throws {
        let text = """
            optional_int32: 0 optional_string: "x" optional_nested_enum: NEG repeated_sint32: [-1, 0, 1]
            unpacked_double: [-0.0] oneof_uint32: 0 map_uint32_uint32 { key: 1 value: 0 }
            """
        let ours: [UInt8]
        switch syntax {
        case .proto3:
            var message = Proto3()
            message.optionalInt32 = 0
            message.optionalString = "x"
            message.optionalNestedEnum = .neg
            message.repeatedSint32 = [-1, 0, 1]
            message.unpackedDouble = [-0.0]
            message.oneofField = .oneofUint32(0)
            message.mapUint32Uint32 = [1: 0]
            ours = try message.serializedBytes()
        case .proto2:
            var message = Proto2()
            message.optionalInt32 = 0
            message.optionalString = "x"
            message.optionalNestedEnum = .neg
            message.repeatedSint32 = [-1, 0, 1]
            message.unpackedDouble = [-0.0]
            message.oneofField = .oneofUint32(0)
            message.mapUint32Uint32 = [1: 0]
            ours = try message.serializedBytes()
        }
        #expect(ours == (try Protoc.encode(text, as: syntax.messageType)))
    }

    /// proto2 optional fields set to their defaults (declared or not) are present: written,
    /// and read back as set.
    @Test("proto2 presence: fields set to their defaults are written")
    func proto2Presence() throws {
        let text = """
            optional_int32: 0 optional_uint64: 0 optional_float: 0 optional_bool: false optional_string: ""
            optional_bytes: "" optional_nested_enum: FOO optional_foreign_enum: FOREIGN_FOO optional_nested_message {}
            default_int32: -123456789 default_int64: -9123456789123456789 default_uint32: 2123456789
            default_uint64: 10123456789123456789 default_sint32: -123456789 default_sint64: -9123456789123456789
            default_fixed32: 2123456789 default_fixed64: 10123456789123456789 default_sfixed32: -123456789
            default_sfixed64: -9123456789123456789 default_float: 9e9 default_double: 7e22 default_bool: true
            default_string: "Rosebud" default_bytes: "joshua"
            """
        let bytes = try Protoc.encode(text, as: Syntax.proto2.messageType)
        let message = try Proto2(serializedBytes: bytes)
        #expect(try message.serializedBytes() == bytes)
        #expect(message.optionalInt32 == 0 && message.optionalBool == false && message.optionalString == "")
        #expect(message.optionalNestedEnum == .foo && message.optionalNestedMessage == .init())
        typealias D = Proto2.Defaults
        #expect(message.defaultInt32 == D.defaultInt32 && message.defaultInt64 == D.defaultInt64)
        #expect(message.defaultUint32 == D.defaultUint32 && message.defaultUint64 == D.defaultUint64)
        #expect(message.defaultSint32 == D.defaultSint32 && message.defaultSint64 == D.defaultSint64)
        #expect(message.defaultFixed32 == D.defaultFixed32 && message.defaultFixed64 == D.defaultFixed64)
        #expect(message.defaultSfixed32 == D.defaultSfixed32 && message.defaultSfixed64 == D.defaultSfixed64)
        #expect(message.defaultFloat == D.defaultFloat && message.defaultDouble == D.defaultDouble)
        #expect(message.defaultBool == D.defaultBool && message.defaultString == D.defaultString)
        #expect(message.defaultBytes == D.defaultBytes)

        var built = Proto2()
        built.defaultInt32 = D.defaultInt32
        built.defaultString = D.defaultString
        built.optionalBool = false
        #expect(
            try built.serializedBytes()
                == (try Protoc.encode(
                    "optional_bool: false default_int32: -123456789 default_string: \"Rosebud\"",
                    as: Syntax.proto2.messageType)))
        // And the same values in proto3 are defaults: nothing is written.
        let proto3 = try Protoc.encode(
            "optional_int32: 0 optional_bool: false optional_string: \"\" optional_nested_enum: FOO",
            as: Syntax.proto3.messageType)
        #expect(proto3.isEmpty)
        var zero = Proto3()
        zero.optionalInt32 = 0
        zero.optionalNestedEnum = .foo
        #expect(try zero.serializedBytes().isEmpty)
    }

    /// UnknownToTestAllTypes (fields 1001-1011, a group among them) encoded by protoc: every
    /// field is unknown to TestAllTypesProto2/3, kept, and written back byte for byte.
    @Test("Unknown fields from protoc, a group among them, survive decode and encode", arguments: Syntax.allCases)
    func unknownFromProtoc(_ syntax: Syntax) throws {
        let text = """
            optional_int32: -1 optional_string: "unknown" nested_message { c: 5 }
            OptionalGroup { a: 7 } optional_bool: true repeated_int32: [1, 2, 3]
            """
        let bytes = try Protoc.encode(text, as: "protobuf_test_messages.proto2.UnknownToTestAllTypes")
        let output = try syntax.roundTrip(bytes)
        #expect(output == bytes)
        #expect(try Protoc.decodeRaw(output) == Protoc.decodeRaw(bytes))
        // Known fields first, unknown fields after them.
        let known = tag(1, .varint) + [9]
        #expect(try syntax.roundTrip(bytes + known) == known + bytes)
        switch syntax {
        case .proto2: #expect(try Proto2(serializedBytes: bytes).unknownFields.bytes == bytes)
        case .proto3: #expect(try Proto3(serializedBytes: bytes).unknownFields.bytes == bytes)
        }
    }

    // MARK: Extensions

    /// `extension_int32` (field 120) through the generated typed accessor.
    @Test("extension_int32 via the typed accessor, re-emitted byte for byte")
    func extensionInt32() throws {
        #expect(Extensions2.extensionInt32.fieldNumber == 120)
        #expect(Extensions2.extensionInt32.protoName == "protobuf_test_messages.proto2.extension_int32")
        let bytes = try Protoc.encode(
            "[protobuf_test_messages.proto2.extension_int32]: 120", as: Syntax.proto2.messageType)
        #expect(bytes == tag(120, .varint) + [120])
        let decoded = try Proto2(serializedBytes: bytes)
        #expect(decoded[extension: Extensions2.extensionInt32] == 120)
        #expect(decoded.hasExtension(Extensions2.extensionInt32))
        #expect(try decoded.serializedBytes() == bytes)

        var built = Proto2()
        #expect(built[extension: Extensions2.extensionInt32] == nil && !built.hasExtension(Extensions2.extensionInt32))
        built[extension: Extensions2.extensionInt32] = 120
        #expect(try built.serializedBytes() == bytes)
        built[extension: Extensions2.extensionInt32] = -1
        #expect(
            try built.serializedBytes()
                == (try Protoc.encode(
                    "[protobuf_test_messages.proto2.extension_int32]: -1",
                    as: Syntax.proto2.messageType)))
        built[extension: Extensions2.extensionInt32] = nil
        #expect(try built.serializedBytes().isEmpty)

        // Seen twice, the last value is the extension's; both are re-emitted as read.
        let twice = tag(120, .varint) + [1] + tag(120, .varint) + [2]
        #expect(try Proto2(serializedBytes: twice)[extension: Extensions2.extensionInt32] == 2)
        #expect(try Proto2(serializedBytes: twice).serializedBytes() == twice)
        // Another wire type at 120 is no value of the extension, and is kept.
        let wrongType = tag(120, .fixed32) + le32(5)
        #expect(try Proto2(serializedBytes: wrongType)[extension: Extensions2.extensionInt32] == nil)
        #expect(try Proto2(serializedBytes: wrongType).serializedBytes() == wrongType)
    }

    /// With other fields around it: the extension is written in field-number order, as
    /// protobuf's C++ runtime does, so the bytes are protoc's.
    @Test("extension_int32 among other fields: protoc's bytes")
    func extensionAmongFields() throws {
        let text =
            "optional_int32: 1 [protobuf_test_messages.proto2.extension_int32]: 120 Data { group_int32: 2 } default_int32: 3"
        let protocBytes = try Protoc.encode(text, as: Syntax.proto2.messageType)
        let decoded = try Proto2(serializedBytes: protocBytes)
        #expect(
            decoded[extension: Extensions2.extensionInt32] == 120 && decoded.data?.groupInt32 == 2
                && decoded.defaultInt32 == 3)
        let ours = try decoded.serializedBytes()
        #expect(
            ours == tag(1, .varint) + [1] + tag(120, .varint) + [120] + group(201, tag(202, .varint) + [2])
                + tag(241, .varint) + [3])
        #expect(ours == protocBytes)
        // protoc reads both as the same message (text format prints fields in number order).
        #expect(
            try Protoc.run(
                [
                    "-I", conformanceProtos, "-I", Protoc.include, "test_messages_proto2.proto",
                    "--decode=\(Syntax.proto2.messageType)",
                ], input: ours)
                == Protoc.run(
                    [
                        "-I", conformanceProtos, "-I", Protoc.include, "test_messages_proto2.proto",
                        "--decode=\(Syntax.proto2.messageType)",
                    ], input: protocBytes))
    }

    /// MessageSet wire format: each item is a group 1 holding type_id (2) and message (3).
    /// MessageSetCorrect declares no fields, so the items are unknown fields, kept as read.
    @Test("MessageSet items round-trip as unknown fields")
    func messageSet() throws {
        let text = """
            [protobuf_test_messages.proto2.TestAllTypesProto2.MessageSetCorrectExtension1.message_set_extension] { str: "foo" }
            [protobuf_test_messages.proto2.TestAllTypesProto2.MessageSetCorrectExtension2.message_set_extension] { i: 42 }
            """
        let bytes = try Protoc.encode(text, as: MessageSetCorrect.protoMessageName)
        let item1 = group(1, tag(2, .varint) + varint(1_547_769) + delimited(3, delimited(25, "foo")))
        let item2 = group(1, tag(2, .varint) + varint(4_135_312) + delimited(3, tag(9, .varint) + [42]))
        #expect(bytes == item1 + item2, "protoc wrote \(hex(bytes))")
        let decoded = try MessageSetCorrect(serializedBytes: bytes)
        #expect(decoded.unknownFields.bytes == bytes)
        #expect(try decoded.serializedBytes() == bytes)
        // Items with their fields in another order, or with unknown fields, are kept as read.
        let reordered = group(
            1, delimited(3, tag(9, .varint) + [1]) + tag(2, .varint) + varint(4_135_312) + tag(5, .varint) + [1])
        #expect(try MessageSetCorrect(serializedBytes: reordered).serializedBytes() == reordered)
        // An unterminated item is an error.
        #expect(throws: WireError.self) { try MessageSetCorrect(serializedBytes: Array(bytes.dropLast())) }
        // The items' own messages decode with their generated types.
        let inner = try ProtobufTestMessages_Proto2_TestAllTypesProto2.MessageSetCorrectExtension1(
            serializedBytes: delimited(25, "foo"))
        #expect(inner.str == "foo")
    }

    // MARK: Groups and closed enums

    @Test("The Data group against protoc")
    func dataGroup() throws {
        let bytes = try Protoc.encode(
            "Data { group_int32: -1 group_uint32: 2 } optional_int32: 3", as: Syntax.proto2.messageType)
        #expect(
            bytes == tag(1, .varint) + [3]
                + group(201, tag(202, .varint) + varint(signed: -1) + tag(203, .varint) + [2]))
        let decoded = try Proto2(serializedBytes: bytes)
        #expect(decoded.data == .init(groupInt32: -1, groupUint32: 2))
        #expect(try decoded.serializedBytes() == bytes)
        var built = Proto2()
        built.optionalInt32 = 3
        built.data = .init(groupInt32: -1, groupUint32: 2)
        #expect(try built.serializedBytes() == bytes)
        // Group 201 in proto3 is an unknown field (201 is a message field there).
        let proto3 = try Proto3(serializedBytes: bytes)
        #expect(proto3.optionalBoolWrapper == nil && proto3.optionalInt32 == 3)
        #expect(try proto3.serializedBytes() == bytes)
    }

    @Test("Unknown enum numbers: closed (proto2) to unknown fields, open (proto3) in the field")
    func enumNumbers() throws {
        let bytes = tag(21, .varint) + [5] + delimited(51, [1, 5, 2]) + tag(22, .varint) + varint(signed: -7)
        let proto2 = try Proto2(serializedBytes: bytes)
        #expect(proto2.optionalNestedEnum == nil && proto2.optionalForeignEnum == nil)
        #expect(proto2.repeatedNestedEnum == [.bar, .baz])
        #expect(
            proto2.unknownFields.bytes == tag(21, .varint) + [5] + tag(51, .varint) + [5] + tag(22, .varint)
                + varint(signed: -7))
        #expect(
            try proto2.serializedBytes() == tag(51, .varint) + [1] + tag(51, .varint) + [2] + proto2.unknownFields.bytes
        )

        let proto3 = try Proto3(serializedBytes: bytes)
        #expect(proto3.optionalNestedEnum.rawValue == 5 && proto3.optionalForeignEnum.rawValue == -7)
        #expect(proto3.repeatedNestedEnum.map(\.rawValue) == [1, 5, 2])
        #expect(proto3.unknownFields.isEmpty)
        #expect(
            try proto3.serializedBytes() == tag(21, .varint) + [5] + tag(22, .varint) + varint(signed: -7)
                + delimited(51, [1, 5, 2]))
    }

    /// A closed enum whose first (default) value is not 0: a map entry without a value holds
    /// that default, as a missing value does for any map. (No conformance proto has such an
    /// enum, so the runtime's reader is called directly.)
    @Test("Closed-enum map entry without a value holds the enum's default")
    func closedEnumMapDefault() throws {
        enum StartsAtThree: Int32, ClosedEnum {
            case three = 3, four = 4
            init() { self = .three }
        }
        func read(_ entry: [UInt8]) throws -> ([Int32: StartsAtThree], UnknownFields) {
            let bytes = delimited(1, entry)
            var map: [Int32: StartsAtThree] = [:]
            var unknown = UnknownFields()
            let failure: WireError? = bytes.withUnsafeBytes { buffer in
                var reader = ProtoReader(buffer: buffer)
                do throws(WireError) {
                    _ = try reader.readTag()
                    try reader.readMapEntry(
                        into: &map, ProtoInt32.self, ProtoClosedEnum<StartsAtThree>.self, unknownFields: &unknown)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            return (map, unknown)
        }
        let missing = try read(tag(1, .varint) + [7])
        #expect(missing.0 == [7: .three] && missing.1.isEmpty)
        let known = try read(tag(1, .varint) + [7] + tag(2, .varint) + [4])
        #expect(known.0 == [7: .four] && known.1.isEmpty)
        let zero = try read(tag(1, .varint) + [7] + tag(2, .varint) + [0])
        #expect(zero.0.isEmpty && zero.1.bytes == delimited(1, tag(1, .varint) + [7] + tag(2, .varint) + [0]))
    }

    // MARK: Depth and sizes

    @Test("Messages built 100 deep encode, and decode back; 101 deep do not decode", arguments: Syntax.allCases)
    func deepBuiltMessages(_ syntax: Syntax) throws {
        switch syntax {
        case .proto3:
            var message = Proto3()
            message.optionalInt32 = 1
            for _ in 0..<100 {
                var outer = Proto3()
                outer.recursiveMessage = message
                message = outer
            }
            let bytes = try message.serializedBytes()
            #expect(message.serializedSize() == bytes.count)
            #expect(try Proto3(serializedBytes: bytes) == message)
            var deeper = Proto3()
            deeper.recursiveMessage = message
            #expect(throws: WireError.self) { try Proto3(serializedBytes: try deeper.serializedBytes()) }
        case .proto2:
            var message = Proto2()
            message.data = .init(groupInt32: 1)
            for _ in 0..<99 {
                var outer = Proto2()
                outer.recursiveMessage = message
                message = outer
            }
            let bytes = try message.serializedBytes()
            #expect(try Proto2(serializedBytes: bytes) == message)
            var deeper = Proto2()
            deeper.recursiveMessage = message
            let error = #expect(throws: WireError.self) { try Proto2(serializedBytes: try deeper.serializedBytes()) }
            #expect(error.map(caseName) == "tooDeep")
        }
    }
}

// MARK: proto2 strings and UTF-8

/// protobuf's C++ runtime accepts invalid UTF-8 in proto2 `string` fields (it only logs).
/// This runtime keeps strings as Swift `String`, which cannot hold invalid UTF-8, so it
/// rejects them in proto2 as in proto3. These tests pin that behaviour down.
@Suite("proto2 strings and invalid UTF-8")
struct Proto2UTF8Tests {
    @Test(
        "Invalid UTF-8 in a proto2 string field is a parse error",
        arguments: [
            ("optional_string", delimited(14, [0xFF])),
            ("repeated_string", delimited(44, [0xC0, 0x80])),
            ("oneof_string", delimited(113, [0xED, 0xA0, 0x80])),
            ("map_string_string key", delimited(69, delimited(1, [0xFE]))),
            ("default_string", delimited(254, [0x80])),
            ("nested", delimited(27, delimited(14, [0xF4, 0x90, 0x80, 0x80]))),
        ])
    func rejected(_ name: String, _ input: [UInt8]) throws {
        let error = #expect(throws: WireError.self, "\(name)") { try Proto2(serializedBytes: input) }
        #expect(error.map(caseName) == "invalidUTF8", "\(name): \(String(describing: error))")
        // protoc (C++) accepts the same bytes for proto2.
        #expect(throws: Never.self) {
            _ = try Protoc.run(
                [
                    "-I", conformanceProtos, "-I", Protoc.include, "test_messages_proto2.proto",
                    "--decode=\(Syntax.proto2.messageType)",
                ], input: input)
        }
    }

    @Test("The testee answers parse_error for them", arguments: Testee.bothModes)
    func testee(_ testee: Testee) throws {
        let responses = try testee.exchange([
            Testee.request(delimited(14, [0xFF]), type: Syntax.proto2.messageType),
            Testee.request(delimited(15, [0xFF]), type: Syntax.proto2.messageType),
        ])
        if case .parseError? = responses[0].result {
        } else {
            Issue.record("got \(String(describing: responses[0].result))")
        }
        #expect(responses[1].result == .protobufPayload(delimited(15, [0xFF])))
    }
}

// MARK: Where protobuf's C++ runtime reads otherwise

/// The differential run (`make differential`) compares every decode with protobuf's C++
/// runtime; these are the differences it reports as intended, each shown against protoc.
@Suite("Intended differences from protobuf's C++ runtime")
struct IntendedDifferenceTests {
    /// A map<bool, bool> entry whose key is written as 2^32 and its value as 2^63.
    static let wideBoolEntry = delimited(68, tag(1, .varint) + varint(1 << 32) + tag(2, .varint) + varint(1 << 63))

    @Test("A bool in a map entry is true when any of its 64 bits is set")
    func wideBoolInMapEntry() throws {
        // Nonzero, so true, as every other bool field is read, and as protobuf's Python runtime
        // and protoc's own decoder (C++ reflection) read it. The C++ code protoc generates reads
        // a map entry's bool from the low 32 bits only (protobuf 3.21), so the same bytes give a
        // generated C++ message `false: false`; the differential run shows it.
        #expect(try Proto2(serializedBytes: Self.wideBoolEntry).mapBoolBool == [true: true])
        #expect(try Proto3(serializedBytes: Self.wideBoolEntry).mapBoolBool == [true: true])
        #expect(try Proto3(serializedBytes: tag(13, .varint) + varint(1 << 32)).optionalBool)
        // The same for a map<int32, bool> entry's value.
        let intToBool = delimited(104, tag(1, .varint) + varint(7) + tag(2, .varint) + varint(1 << 63))
        #expect(try Proto2(serializedBytes: intToBool).mapInt32Bool == [7: true])
        let decoded = String(
            decoding: try Protoc.run(
                [
                    "-I", conformanceProtos, "-I", Protoc.include, "test_messages_proto3.proto",
                    "--decode=\(Syntax.proto3.messageType)",
                ], input: Self.wideBoolEntry),
            as: UTF8.self)
        #expect(decoded.contains("key: true") && decoded.contains("value: true"), "\(decoded)")
    }

    @Test("A fault inside an extension field is found when the extension is read")
    func faultInsideAnExtensionField() throws {
        // An extension's bytes are kept as read and decoded by the typed Extension that reads
        // them; protobuf's C++ runtime decodes the extensions it knows with the message. Here
        // message_set_correct (500) holds extension 1547769 (a MessageSetCorrectExtension1)
        // whose string field 25 claims 5 bytes and has 1: the message decodes and is written
        // back as read, and protoc refuses the same bytes.
        let faulty = delimited(1_547_769, tag(25, .delimited) + [0x05, 0x41])
        let input = delimited(500, faulty)
        #expect(try Proto2(serializedBytes: input).serializedBytes() == input)
        #expect(throws: ProcessFailure.self) {
            try Protoc.run(
                [
                    "-I", conformanceProtos, "-I", Protoc.include, "test_messages_proto2.proto",
                    "--decode=\(Syntax.proto2.messageType)",
                ], input: input)
        }
        // A string extension is the exception: the generator knows extension_string (133),
        // declared in the same file, and its bytes are checked as the message is decoded, as a
        // string field's are (tag 1066 in two bytes, the length in one: 0xFF at offset 3).
        #expect(throws: WireError.invalidUTF8(offset: 3)) { try Proto2(serializedBytes: delimited(133, [0xFF])) }
        #expect(try Proto2(serializedBytes: delimited(133, [0x41]))[extension: Extensions2.extensionString] == "A")
    }

    @Test("Fields in an extension range that no extension declares are written in number order")
    func undeclaredExtensionFieldsKeepTheirPlace() throws {
        // TestAllTypesProto2 declares `extensions 120 to 200` and an extension at 120 only. A field
        // 121 is kept with the extension fields and written where the range falls among the
        // fields; protobuf's C++ runtime keeps it with the unknown fields, written last. The
        // message is the same: unknown fields are compared by number (MessageDifferencer).
        let unknown = tag(300, .varint) + [0x01]
        let field121 = tag(121, .varint) + [0x02]
        let input = unknown + field121 + tag(253, .varint) + [0x01]
        let message = try Proto2(serializedBytes: input)
        #expect(try message.serializedBytes() == field121 + tag(253, .varint) + [0x01] + unknown)
    }
}

// MARK: Where protobuf's upb runtime reads otherwise

/// The editions differential run (`make differential-editions`) compares every decode of the
/// editions test messages with protobuf's upb runtime (Python 7.35.1); these are the
/// differences it reports as intended. In each, swiftframe reads as protobuf's C++ runtime does.
@Suite("Intended differences from protobuf's upb runtime")
struct UpbDifferenceTests {
    typealias EditionsProto2 = ProtobufTestMessages_Editions_Proto2_TestAllTypesProto2

    @Test("a string field without UTF-8 validation holding invalid UTF-8")
    func unvalidatedString() {
        // The proto2 copy sets features.utf8_validation = NONE: upb keeps the bytes, as C++
        // keeps them for proto2; a Swift String cannot hold them (Proto2UTF8Tests).
        let error = #expect(throws: WireError.self) { try EditionsProto2(serializedBytes: delimited(14, [0xFF])) }
        #expect(error.map(caseName) == "invalidUTF8")
    }

    @Test("a field number 0 inside an unknown group")
    func fieldNumberZeroInAnUnknownGroup() throws {
        // Group 900, which the message does not declare, holding tag 0 with the value 0: upb
        // skips the group without reading its numbers; C++ (protoc --decode_raw) refuses it.
        let input = tag(900, .startGroup) + [0x00, 0x00] + tag(900, .endGroup)
        let error = #expect(throws: WireError.self) { try EditionsProto2(serializedBytes: input) }
        #expect(error.map(caseName) == "fieldNumberZero")
        #expect(throws: ProcessFailure.self) { try Protoc.run(["--decode_raw"], input: input) }
    }

    @Test("a map entry holding an unknown field (upb keeps the entry whole, as an unknown field)")
    func mapEntryWithAnUnknownField() throws {
        // map_int32_int32 (56): key 1, value 2, and field 3, which the entry does not declare.
        // The entry is read and field 3 dropped, as C++ reads it; upb keeps all of it unknown.
        let entry = tag(1, .varint) + [1] + tag(2, .varint) + [2] + tag(3, .varint) + [3]
        let message = try EditionsProto2(serializedBytes: delimited(56, entry))
        #expect(message.mapInt32Int32 == [1: 2])
        #expect(message.unknownFields.isEmpty)
    }

    @Test("a closed enum's undeclared number past 32 bits (upb cuts it in a packed run)")
    func closedEnumNumberPast32Bits() throws {
        // packed_nested_enum (88) holding FOO (0), 2^33 + 1 and 2^33 + 7. An enum number is
        // its low 32 bits, as for C++: the first is BAR (1); the second, 7, NestedEnum does not
        // declare, and it is kept as an unknown varint as it was read, all 34 bits.
        let bar: [UInt8] = [0x81, 0x80, 0x80, 0x80, 0x20]
        let undeclared: [UInt8] = [0x87, 0x80, 0x80, 0x80, 0x20]
        let message = try EditionsProto2(serializedBytes: delimited(88, [0x00] + bar + undeclared))
        #expect(message.packedNestedEnum == [.foo, .bar])
        #expect(message.unknownFields.bytes == tag(88, .varint) + undeclared)
    }
}
