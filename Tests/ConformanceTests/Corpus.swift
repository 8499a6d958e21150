// A table-driven corpus of binary inputs for TestAllTypesProto3 and TestAllTypesProto2, each
// with what protobuf's C++ runtime answers: the exact canonical bytes it writes back, or a
// parse error. Inputs and expected outputs are assembled here byte by byte. (While it was
// written, every case was also run through protoc's C++ parser, `protoc --decode`, which
// agreed on accept or reject and on the fields, except for map entries, which protoc's
// reflection-based parser keeps as plain repeated messages where generated C++ code keeps
// the last entry of a key and drops unknown fields inside an entry.)

import SwiftFrame
import TestSupport
import Testing

struct WireCase: Sendable, CustomTestStringConvertible {
    enum Expectation: Sendable, Equatable {
        /// Decodes, and encodes again to exactly these bytes.
        case output([UInt8])
        /// Decodes, and encodes again to the same fields as these bytes (same numbers, wire
        /// types and values in the same order), where only the bytes of a tag or varint
        /// differ: protobuf's C++ runtime re-encodes unknown fields canonically, this
        /// runtime keeps them as read.
        case equivalent([UInt8])
        /// Rejected with a parse error; the `WireError` case name when it matters.
        case parseError(String?)
    }

    let syntax: Syntax
    let name: String
    let input: [UInt8]
    let expectation: Expectation

    var testDescription: String { "\(syntax.rawValue): \(name)" }
}

/// Collects the cases of one syntax.
private struct Builder {
    let syntax: Syntax
    var cases: [WireCase] = []

    var isProto3: Bool { syntax == .proto3 }

    mutating func valid(_ name: String, _ input: [UInt8], _ output: [UInt8]) {
        cases.append(WireCase(syntax: syntax, name: name, input: input, expectation: .output(output)))
    }

    /// The input is already canonical: it comes back byte for byte.
    mutating func same(_ name: String, _ input: [UInt8]) { valid(name, input, input) }

    mutating func equivalent(_ name: String, _ input: [UInt8], _ output: [UInt8]) {
        cases.append(WireCase(syntax: syntax, name: name, input: input, expectation: .equivalent(output)))
    }

    mutating func invalid(_ name: String, _ input: [UInt8], _ error: String? = nil) {
        cases.append(WireCase(syntax: syntax, name: name, input: input, expectation: .parseError(error)))
    }
}

// MARK: Scalar types

/// One scalar type of TestAllTypesProto2/3: its four field numbers (the same in both files),
/// how it travels, and sample values as canonical wire values.
struct ScalarKind: Sendable {
    let name: String
    let wire: WT
    let singular: UInt32
    let repeated: UInt32
    let packed: UInt32
    let unpacked: UInt32
    /// Non-zero wire values (a varint's value, or the bits of a fixed-width value).
    let samples: [UInt64]

    func encode(_ value: UInt64) -> [UInt8] {
        switch wire {
        case .fixed32: return le32(UInt32(truncatingIfNeeded: value))
        case .fixed64: return le64(value)
        default: return varint(value)
        }
    }

    /// A value cut short: what a truncated input ends with.
    var partialValue: [UInt8] {
        switch wire {
        case .fixed32: return [1, 2, 3]
        case .fixed64: return [1, 2, 3, 4, 5, 6, 7]
        default: return [0x80, 0x80]
        }
    }

    var width: Int? {
        switch wire {
        case .fixed32: return 4
        case .fixed64: return 8
        default: return nil
        }
    }

    static func s32(_ value: Int32) -> UInt64 { UInt64(bitPattern: Int64(value)) }
    static func s64(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }
    static func bits(_ value: Float) -> UInt64 { UInt64(value.bitPattern) }
    static func bits(_ value: Double) -> UInt64 { value.bitPattern }

    static let all: [ScalarKind] = [
        ScalarKind(
            name: "int32", wire: .varint, singular: 1, repeated: 31, packed: 75, unpacked: 89,
            samples: [1, 150, s32(.max), s32(-1), s32(.min)]),
        ScalarKind(
            name: "int64", wire: .varint, singular: 2, repeated: 32, packed: 76, unpacked: 90,
            samples: [1, s64(.max), s64(-1), s64(.min)]),
        ScalarKind(
            name: "uint32", wire: .varint, singular: 3, repeated: 33, packed: 77, unpacked: 91,
            samples: [1, 300, UInt64(UInt32.max)]),
        ScalarKind(
            name: "uint64", wire: .varint, singular: 4, repeated: 34, packed: 78, unpacked: 92,
            samples: [1, UInt64(UInt32.max) + 1, .max]),
        ScalarKind(
            name: "sint32", wire: .varint, singular: 5, repeated: 35, packed: 79, unpacked: 93,
            samples: [zigzag(-1), zigzag(1), zigzag(Int64(Int32.min)), zigzag(Int64(Int32.max))]),
        ScalarKind(
            name: "sint64", wire: .varint, singular: 6, repeated: 36, packed: 80, unpacked: 94,
            samples: [zigzag(-1), zigzag(.min), zigzag(.max)]),
        ScalarKind(
            name: "fixed32", wire: .fixed32, singular: 7, repeated: 37, packed: 81, unpacked: 95,
            samples: [1, UInt64(UInt32.max)]),
        ScalarKind(
            name: "fixed64", wire: .fixed64, singular: 8, repeated: 38, packed: 82, unpacked: 96,
            samples: [1, .max]),
        ScalarKind(
            name: "sfixed32", wire: .fixed32, singular: 9, repeated: 39, packed: 83, unpacked: 97,
            samples: [UInt64(UInt32(bitPattern: -1)), UInt64(UInt32(bitPattern: .min))]),
        ScalarKind(
            name: "sfixed64", wire: .fixed64, singular: 10, repeated: 40, packed: 84, unpacked: 98,
            samples: [s64(-1), s64(.min), s64(.max)]),
        ScalarKind(
            name: "float", wire: .fixed32, singular: 11, repeated: 41, packed: 85, unpacked: 99,
            samples: [
                bits(Float(1.5)), bits(-Float(0)), bits(Float.infinity), bits(-Float.greatestFiniteMagnitude),
                0x7FC0_0123, bits(Float.leastNonzeroMagnitude),
            ]),
        ScalarKind(
            name: "double", wire: .fixed64, singular: 12, repeated: 42, packed: 86, unpacked: 100,
            samples: [
                bits(-2.25e10), bits(-Double(0)), bits(-Double.infinity), 0x7FF8_0000_0000_0123,
                bits(Double.leastNonzeroMagnitude),
            ]),
        ScalarKind(name: "bool", wire: .varint, singular: 13, repeated: 43, packed: 87, unpacked: 101, samples: [1]),
        // NestedEnum { FOO = 0; BAR = 1; BAZ = 2; NEG = -1 } in both files.
        ScalarKind(
            name: "enum", wire: .varint, singular: 21, repeated: 51, packed: 88, unpacked: 102,
            samples: [1, 2, s32(-1)]),
    ]
}

private extension Builder {
    mutating func scalars() {
        for kind in ScalarKind.all {
            singular(kind)
            for (label, field) in [("repeated", kind.repeated), ("packed", kind.packed), ("unpacked", kind.unpacked)] {
                repeated(kind, label: "\(label)_\(kind.name)", field: field, packs: packs(kind, field))
            }
            truncatedScalars(kind)
        }
    }

    /// Whether the field is written packed: proto3 packs repeated scalars unless
    /// `[packed = false]`; proto2 packs only `[packed = true]`.
    func packs(_ kind: ScalarKind, _ field: UInt32) -> Bool {
        if field == kind.packed { return true }
        if field == kind.unpacked { return false }
        return isProto3
    }

    mutating func singular(_ kind: ScalarKind) {
        let field = kind.singular
        let one = { (value: UInt64) in tag(field, kind.wire) + kind.encode(value) }
        let name = "optional_\(kind.name)"
        for value in kind.samples {
            same("\(name) = wire value \(value)", one(value))
        }
        // Zero: proto3 does not write a default; proto2 has presence and writes it back.
        valid("\(name) = 0", one(0), isProto3 ? [] : one(0))
        // A field seen twice keeps the last value.
        valid(
            "\(name) last value wins", one(kind.samples[0]) + one(0) + one(kind.samples.last!),
            one(kind.samples.last!))
        // Arriving with another wire type, the field is kept as an unknown field.
        let other: [UInt8] = kind.wire == .fixed64 ? tag(field, .fixed32) + le32(9) : tag(field, .fixed64) + le64(9)
        same("\(name) with a foreign wire type is kept as unknown", other)
        valid(
            "\(name) with a foreign wire type goes after the known fields",
            other + one(kind.samples[0]), one(kind.samples[0]) + other)

        guard kind.wire == .varint else { return }
        // Non-canonical varints come back in canonical form.
        valid("\(name) padded to 10 bytes", tag(field, .varint) + paddedVarint(1, length: 10), one(1))
        valid(
            "\(name) zero padded to 10 bytes", tag(field, .varint) + paddedVarint(0, length: 10),
            isProto3 ? [] : one(0))
        // Values wider than the field are cut to its width, as C++ casts them.
        switch kind.name {
        case "int32":
            valid("int32 from a 64-bit varint (1 << 33)", tag(field, .varint) + varint(1 << 33), isProto3 ? [] : one(0))
            valid(
                "int32 from a 64-bit varint (1 << 33) - 1", tag(field, .varint) + varint((1 << 33) - 1),
                one(ScalarKind.s32(-1)))
            valid("int32 from Int64.min + 1", tag(field, .varint) + varint(signed: .min + 1), one(1))
        case "uint32":
            valid("uint32 from a 64-bit varint", tag(field, .varint) + varint(1 << 32 | 5), one(5))
        case "sint32":
            valid("sint32 from a 64-bit varint", tag(field, .varint) + varint(1 << 32 | 3), one(3))
        case "bool":
            valid("bool from a large varint", tag(field, .varint) + varint(12_345_678), one(1))
            valid("bool from a 10-byte varint", tag(field, .varint) + varint(.max), one(1))
        case "enum":
            valid(
                "enum from Int64.max (NEG after the cut)", tag(field, .varint) + varint(UInt64(Int64.max)),
                one(ScalarKind.s32(-1)))
            valid("enum from Int64.min + 1 (BAR after the cut)", tag(field, .varint) + varint(signed: .min + 1), one(1))
        default:
            break
        }
    }

    mutating func repeated(_ kind: ScalarKind, label: String, field: UInt32, packs: Bool) {
        let values = kind.samples + [0]
        func unpackedBytes(_ values: [UInt64]) -> [UInt8] { values.flatMap { tag(field, kind.wire) + kind.encode($0) } }
        func packedBytes(_ values: [UInt64]) -> [UInt8] { delimited(field, values.flatMap(kind.encode)) }
        func output(_ values: [UInt64]) -> [UInt8] {
            values.isEmpty ? [] : (packs ? packedBytes(values) : unpackedBytes(values))
        }
        let form = packs ? "packed" : "unpacked"
        valid("\(label) packed input, \(form) output", packedBytes(values), output(values))
        valid("\(label) unpacked input, \(form) output", unpackedBytes(values), output(values))
        valid(
            "\(label) mixed packed and unpacked input",
            unpackedBytes([values[0]]) + packedBytes(Array(values.dropFirst())) + unpackedBytes([values[0]]),
            output(values + [values[0]]))
        valid("\(label) two packed runs", packedBytes([values[0]]) + packedBytes(values), output([values[0]] + values))
        valid("\(label) empty packed run", delimited(field, []), [])
        valid("\(label) single zero", unpackedBytes([0]), output([0]))
        if kind.wire == .varint {
            valid(
                "\(label) packed padded varints",
                delimited(field, paddedVarint(1, length: 10) + paddedVarint(0, length: 3)),
                output([1, 0]))
        }
    }

    mutating func truncatedScalars(_ kind: ScalarKind) {
        let name = kind.name
        invalid("optional_\(name): input ends after the tag", tag(kind.singular, kind.wire), "truncated")
        invalid(
            "optional_\(name): input ends inside the value", tag(kind.singular, kind.wire) + kind.partialValue,
            "truncated")
        invalid("repeated_\(name): input ends after the tag", tag(kind.repeated, kind.wire), "truncated")
        invalid(
            "repeated_\(name): input ends inside the value",
            tag(kind.repeated, kind.wire) + kind.encode(kind.samples[0]) + tag(kind.repeated, kind.wire)
                + kind.partialValue,
            "truncated")
        invalid(
            "packed_\(name): length past the end",
            tag(kind.packed, .delimited) + varint(UInt64(kind.encode(1).count + 1)) + kind.encode(1), "lengthPastEnd")
        invalid(
            "repeated_\(name): packed length past the end of the input",
            tag(kind.repeated, .delimited) + varint(100) + kind.encode(1), "lengthPastEnd")
        invalid(
            "unpacked_\(name): packed input ends after the length",
            tag(kind.unpacked, .delimited) + varint(4), "lengthPastEnd")
        if let width = kind.width {
            // A packed fixed-width run must be a whole number of elements.
            for length in [1, width - 1, width + 1, 2 * width + 3] {
                invalid(
                    "packed_\(name) with \(length) bytes", delimited(kind.packed, [UInt8](repeating: 1, count: length)),
                    "malformedPackedField")
            }
            invalid(
                "repeated_\(name) packed with \(width + 2) bytes",
                delimited(kind.repeated, [UInt8](repeating: 0, count: width + 2)), "malformedPackedField")
        } else {
            // The last varint of a packed run must end inside the run, not after it.
            invalid(
                "packed_\(name): varint runs past the end of its packed run",
                delimited(kind.packed, [0x01, 0x80]) + [0x01], "truncated")
            invalid(
                "packed_\(name): varint longer than 10 bytes",
                delimited(kind.packed, [UInt8](repeating: 0xFF, count: 10) + [0x01]), "malformedVarint")
        }
        // The same failures in a field number the message does not know, once per wire type.
        if ScalarKind.all.first(where: { $0.wire == kind.wire })?.name == kind.name {
            invalid("unknown \(kind.wire) field: input ends after the tag", tag(1999, kind.wire), "truncated")
            invalid(
                "unknown \(kind.wire) field: input ends inside the value", tag(1999, kind.wire) + kind.partialValue,
                "truncated")
        }
    }
}

// MARK: Length-delimited fields

private extension Builder {
    mutating func delimitedFields() {
        // optional_string, optional_bytes, optional_nested_message, repeated_string,
        // repeated_bytes, repeated_nested_message, map_int32_int32, oneof_string, oneof_bytes.
        for (name, field) in [
            ("optional_string", 14), ("optional_bytes", 15), ("optional_nested_message", 18),
            ("repeated_string", 44), ("repeated_bytes", 45), ("repeated_nested_message", 48),
            ("map_int32_int32", 56), ("oneof_string", 113), ("oneof_nested_message", 112),
            ("unknown field 1999", 1999),
        ] as [(String, UInt32)] {
            invalid("\(name): input ends after the tag", tag(field, .delimited), "truncated")
            invalid("\(name): input ends inside the length", tag(field, .delimited) + [0x80], "truncated")
            invalid("\(name): length 1, no data", tag(field, .delimited) + varint(1), "lengthPastEnd")
            invalid(
                "\(name): length 5, 2 bytes of data", tag(field, .delimited) + varint(5) + [0x08, 0x01], "lengthPastEnd"
            )
            invalid(
                "\(name): length with 64 bits", tag(field, .delimited) + varint(.max) + [0x08, 0x01], "lengthPastEnd")
            invalid(
                "\(name): 11-byte length", tag(field, .delimited) + [UInt8](repeating: 0x80, count: 10) + [0x00],
                "malformedVarint")
        }
        for value in ["abc", "é€𝄞 and NUL \u{0}"] {
            same("optional_string \"\(value)\"".replacingOccurrences(of: "\u{0}", with: "\\0"), delimited(14, value))
            same(
                "repeated_string [\"\(value)\", \"x\"]".replacingOccurrences(of: "\u{0}", with: "\\0"),
                delimited(44, value) + delimited(44, "x"))
        }
        valid("optional_string \"\" is a default in proto3", delimited(14, ""), isProto3 ? [] : delimited(14, ""))
        valid("optional_bytes empty is a default in proto3", delimited(15, []), isProto3 ? [] : delimited(15, []))
        same("optional_bytes with every byte value", delimited(15, (0...255).map { UInt8($0) }))
        same("repeated_bytes with empty and binary values", delimited(45, []) + delimited(45, [0xFF, 0x00, 0xC0]))
        valid(
            "optional_string last value wins", delimited(14, "first") + delimited(14, "second"), delimited(14, "second")
        )

        // A submessage is cut at its own length: reads inside it cannot see the bytes after it.
        invalid("optional_nested_message: submessage ends after a tag", delimited(18, tag(1, .varint)), "truncated")
        invalid(
            "optional_nested_message: submessage value runs past its end",
            delimited(18, tag(1, .varint) + [0x80]) + [0x01], "truncated")
        invalid(
            "optional_nested_message: length inside runs past the submessage",
            delimited(18, tag(2, .delimited) + varint(3) + tag(1, .varint)) + varint(1) + [0x08, 0x01], "lengthPastEnd")
        invalid(
            "optional_nested_message: fixed64 inside runs past the submessage",
            delimited(18, tag(9, .fixed64) + [1, 2, 3]) + [4, 5, 6, 7, 8], "truncated")
        invalid(
            "optional_nested_message: unknown group inside runs past the submessage",
            delimited(18, tag(9, .startGroup)) + tag(9, .endGroup), "truncated")
        invalid(
            "recursive_message: invalid field three levels down",
            delimited(27, delimited(27, delimited(27, tag(1, 7)))), "invalidWireType")

        // Messages: empty ones are still present; a message seen twice is merged.
        same("optional_nested_message empty", delimited(18, []))
        same("optional_foreign_message empty", delimited(19, []))
        same("recursive_message empty", delimited(27, []))
        let a1 = tag(1, .varint) + varint(1)
        let corecursive = delimited(2, tag(1, .varint) + varint(7))
        valid(
            "optional_nested_message seen twice is merged", delimited(18, a1) + delimited(18, corecursive),
            delimited(18, a1 + corecursive))
        valid(
            "optional_nested_message merge: later scalar wins",
            delimited(18, a1 + corecursive) + delimited(18, tag(1, .varint) + varint(2)),
            delimited(18, tag(1, .varint) + varint(2) + corecursive))
        valid(
            "optional_nested_message merge reaches into corecursive",
            delimited(18, delimited(2, tag(1, .varint) + varint(7)))
                + delimited(18, delimited(2, tag(2, .varint) + varint(8))),
            delimited(18, delimited(2, tag(1, .varint) + varint(7) + tag(2, .varint) + varint(8))))
        valid(
            "optional_nested_message fields in reverse order", delimited(18, corecursive + a1),
            delimited(18, a1 + corecursive))
        same(
            "repeated_nested_message keeps each element",
            delimited(48, a1) + delimited(48, []) + delimited(48, corecursive))
        same("repeated_foreign_message", delimited(49, tag(1, .varint) + varint(5)) + delimited(49, []))
    }
}

// MARK: Tags, wire types and groups

private extension Builder {
    mutating func tags() {
        // Field number 0, with every wire type, at the top and nested.
        let zero: [(String, [UInt8])] = [
            ("varint", [0x00, 0x01]), ("fixed64", [0x01] + le64(0xDEAD_BEEF)), ("delimited", [0x02, 0x01, 0x01]),
            ("start group", [0x03, 0x04]), ("end group", [0x04]), ("fixed32", [0x05] + le32(0xDEAD)),
        ]
        for (name, bytes) in zero {
            invalid("field number 0, \(name)", bytes, "fieldNumberZero")
            invalid("field number 0, \(name), after a valid field", tag(1, .varint) + [1] + bytes, "fieldNumberZero")
            invalid("field number 0, \(name), in a nested message", delimited(18, bytes), "fieldNumberZero")
        }
        invalid("field number 0 in a padded tag", [0x80, 0x00, 0x01], "fieldNumberZero")
        invalid("field number 0 inside an unknown group", group(1999, [0x00, 0x01]), "fieldNumberZero")
        // Field number 2^29, one above the largest: C++ drops the tag's high bits and reads
        // field 0 or 1 (its known failure of the conformance suite's BadTag_FieldNumberSlightlyTooHigh);
        // upb refuses, as does swiftframe.
        invalid("field number 2^29", [0x80, 0x80, 0x80, 0x80, 0x10, 0x01], "fieldNumberTooLarge")
        invalid(
            "field number 2^29 + 1 after a valid field", tag(1, .varint) + [1, 0x88, 0x80, 0x80, 0x80, 0x10, 0x01],
            "fieldNumberTooLarge")
        invalid(
            "field number 2^29 inside an unknown group", group(1999, [0x80, 0x80, 0x80, 0x80, 0x10, 0x01]),
            "fieldNumberTooLarge")

        // Wire types 6 and 7 do not exist.
        for wireType: UInt32 in [6, 7] {
            invalid(
                "wire type \(wireType) on a known field", tag(1, wireType) + [1, 2, 3, 4, 5, 6, 7, 8], "invalidWireType"
            )
            invalid("wire type \(wireType) on an unknown field", tag(1999, wireType), "invalidWireType")
            invalid("wire type \(wireType) on a repeated field", tag(31, wireType) + [1], "invalidWireType")
            invalid("wire type \(wireType) in a nested message", delimited(18, tag(1, wireType)), "invalidWireType")
            invalid("wire type \(wireType) inside an unknown group", group(1999, tag(2, wireType)), "invalidWireType")
            invalid("wire type \(wireType) at the largest field number", tag(536_870_911, wireType), "invalidWireType")
        }

        invalid("input ends inside a tag", [0x80], "truncated")
        invalid("input ends inside a two-byte tag", tag(1, .varint) + [1, 0xF8], "truncated")
        invalid(
            "varint value longer than 10 bytes", tag(1, .varint) + [UInt8](repeating: 0xFF, count: 10) + [0x01],
            "malformedVarint")
        invalid(
            "unknown varint longer than 10 bytes", tag(1999, .varint) + [UInt8](repeating: 0x80, count: 11) + [0x01],
            "malformedVarint")
        valid("tag padded to 5 bytes", [0x88, 0x80, 0x80, 0x80, 0x00, 0x05], tag(1, .varint) + [5])

        // End-group tags with no start, or closing another group.
        invalid("end group with no start (unknown field)", tag(1999, .endGroup), "unmatchedEndGroup")
        invalid("end group with no start (field 1)", tag(1, .endGroup), "unmatchedEndGroup")
        invalid("end group with no start (field 201)", tag(201, .endGroup), "unmatchedEndGroup")
        invalid("end group after a valid field", tag(1, .varint) + [1] + tag(1, .endGroup), "unmatchedEndGroup")
        invalid("end group inside a nested message", delimited(18, tag(1, .endGroup)), "unmatchedEndGroup")
        invalid(
            "unknown group closed by another field number", tag(1999, .startGroup) + tag(1998, .endGroup),
            "unmatchedEndGroup")
        invalid(
            "nested unknown groups closed in the wrong order",
            tag(1999, .startGroup) + tag(1998, .startGroup) + tag(1999, .endGroup) + tag(1998, .endGroup),
            "unmatchedEndGroup")
        invalid("unterminated unknown group", tag(1999, .startGroup) + tag(1, .varint) + [1], "truncated")
        invalid("unterminated unknown group at the end of the input", tag(1999, .startGroup), "truncated")
        invalid(
            "unterminated unknown group in a nested message",
            delimited(18, tag(1999, .startGroup)) + tag(1999, .endGroup), "truncated")
        invalid("unterminated group at field 201", tag(201, .startGroup) + tag(202, .varint) + [1], "truncated")
        invalid(
            "group at field 201 closed by field 202", tag(201, .startGroup) + tag(202, .endGroup), "unmatchedEndGroup")

        // Unknown groups are kept whole, whatever they hold.
        same("unknown group, empty", group(1999, []))
        same(
            "unknown group holding every wire type",
            group(
                1999,
                tag(1, .varint) + varint(.max) + tag(2, .fixed64) + le64(1) + delimited(3, "x")
                    + tag(4, .fixed32) + le32(2) + group(5, tag(6, .varint) + [1])))
        same("unknown group holding a group of the same number", group(1999, group(1999, group(1999, []))))
        same("unknown group holding bytes that look like its end tag", group(1999, delimited(1, tag(1999, .endGroup))))
        same("unknown group at the largest field number", group(536_870_911, tag(1, .varint) + [1]))
        same("group at field 1 (an int32 field) is kept as unknown", group(1, tag(1, .varint) + [1]))
        same("group at the repeated_int32 field is kept as unknown", group(31, []))
        same(
            "group in a nested message is kept there",
            delimited(18, tag(1, .varint) + [3] + group(1999, tag(1, .varint) + [1])))
    }
}

// MARK: Unknown fields and canonical order

private extension Builder {
    mutating func unknownFields() {
        let numbers: [UInt32] = isProto3 ? [555, 1999, 536_870_911] : [150, 1999, 536_870_911]
        for number in numbers {
            same("unknown varint \(number)", tag(number, .varint) + varint(.max))
            same("unknown fixed64 \(number)", tag(number, .fixed64) + le64(0x0102_0304_0506_0708))
            same("unknown fixed32 \(number)", tag(number, .fixed32) + le32(0x0102_0304))
            same("unknown delimited \(number)", delimited(number, [0xFF, 0xFE, 0x00]))
            same("unknown empty delimited \(number)", delimited(number, []))
            same("unknown group \(number)", group(number, tag(1, .varint) + [1]))
        }
        if isProto3 {
            same("reserved field 501 is kept", tag(501, .varint) + [1])
        } else {
            same("reserved field 1000 is kept", tag(1000, .varint) + [1])
        }

        let unknowns =
            tag(1999, .varint) + [0x96, 0x01] + tag(1998, .fixed32) + le32(7) + delimited(1999, "u")
            + tag(1999, .fixed64) + le64(3) + group(1997, [])
        same("unknown fields keep their order, one number with several wire types", unknowns)
        let known = tag(1, .varint) + [1] + delimited(14, "s") + delimited(18, tag(1, .varint) + [2])
        same("known fields then unknown fields", known + unknowns)
        valid("unknown fields before known fields are written after them", unknowns + known, known + unknowns)
        valid(
            "unknown fields between known fields are written after them",
            tag(1, .varint) + [1] + tag(1999, .varint) + [5] + delimited(14, "s") + tag(1998, .varint) + [6],
            tag(1, .varint) + [1] + delimited(14, "s") + tag(1999, .varint) + [5] + tag(1998, .varint) + [6])
        same(
            "unknown fields in a nested message stay there",
            delimited(18, tag(1, .varint) + [1] + tag(99, .varint) + [2] + delimited(98, [1, 2])))
        same(
            "unknown fields two levels down stay there",
            delimited(18, delimited(2, tag(1, .varint) + [1] + tag(1999, .fixed32) + le32(1))))
        same(
            "unknown fields in repeated messages stay with each element",
            delimited(48, tag(99, .varint) + [1]) + delimited(48, tag(98, .varint) + [2]))
        same("unknown delimited field with invalid UTF-8 is not checked", delimited(1999, [0xFF, 0xC0]))
        equivalent("unknown field with a padded tag", [0xB8, 0xBE, 0x80, 0x80, 0x00, 0x01], tag(999, .varint) + [1])
        equivalent(
            "unknown field with a padded varint", tag(1999, .varint) + paddedVarint(1, length: 10),
            tag(1999, .varint) + [1])

        // Canonical order: fields by number, whatever the input order.
        let fields: [(UInt32, [UInt8])] = [
            (1, tag(1, .varint) + [1]), (7, tag(7, .fixed32) + le32(2)), (12, tag(12, .fixed64) + le64(3)),
            (14, delimited(14, "z")), (18, delimited(18, [])), (21, tag(21, .varint) + [2]),
            (31, isProto3 ? delimited(31, [4]) : tag(31, .varint) + [4]),
            (43, isProto3 ? delimited(43, [1]) : tag(43, .varint) + [1]),
            (111, tag(111, .varint) + [9]),
        ]
        valid(
            "fields in reverse order come back in number order",
            fields.reversed().flatMap(\.1), fields.flatMap(\.1))
        valid(
            "repeated elements split around other fields are written together",
            tag(31, .varint) + [1] + tag(1, .varint) + [5] + tag(31, .varint) + [2],
            tag(1, .varint) + [5]
                + (isProto3 ? delimited(31, [1, 2]) : tag(31, .varint) + [1] + tag(31, .varint) + [2]))

        // Every singular scalar at its default: proto3 writes nothing, proto2 writes each.
        var defaults: [(UInt32, [UInt8])] = ScalarKind.all.map {
            ($0.singular, tag($0.singular, $0.wire) + $0.encode(0))
        }
        defaults += [
            (14, delimited(14, "")), (15, delimited(15, [])), (22, tag(22, .varint) + [0]),
            (24, delimited(24, "")), (25, delimited(25, "")),
        ]
        let inOrder = defaults.sorted { $0.0 < $1.0 }.flatMap(\.1)
        valid("every singular field at its default", defaults.flatMap(\.1), isProto3 ? [] : inOrder)
        if isProto3 {
            same(
                "-0.0 is not a default (float and double)",
                tag(11, .fixed32) + le32(0x8000_0000) + tag(12, .fixed64) + le64(1 << 63))
            same("optional_aliased_enum", tag(23, .varint) + [2])
            valid("optional_aliased_enum default", tag(23, .varint) + [0], [])
        }
        same("optional_foreign_enum", tag(22, .varint) + [2])
        same("optional_string_piece and optional_cord", delimited(24, "piece") + delimited(25, "cord"))
    }
}

// MARK: Oneof

private extension Builder {
    mutating func oneofs() {
        let u32 = tag(111, .varint) + [5]
        let message = delimited(112, tag(1, .varint) + [1])
        let string = delimited(113, "x")
        let bytes = delimited(114, [0])
        let bool = tag(115, .varint) + [1]
        let u64 = tag(116, .varint) + [6]
        let float = tag(117, .fixed32) + le32(0x3FC0_0000)
        let double = tag(118, .fixed64) + le64(0x3FF8_0000_0000_0000)
        let enumeration = tag(119, .varint) + [2]
        let members = [
            ("uint32", u32), ("nested_message", message), ("string", string), ("bytes", bytes), ("bool", bool),
            ("uint64", u64), ("float", float), ("double", double), ("enum", enumeration),
        ]
        for (name, member) in members {
            same("oneof_\(name) alone", member)
        }
        for index in members.indices {
            let (name, member) = members[index]
            let (otherName, other) = members[(index + 1) % members.count]
            valid("oneof: \(otherName) then \(name), the last one wins", other + member, member)
        }
        valid("oneof: every member in turn, the last one wins", members.flatMap(\.1), enumeration)
        // Defaults are written in a oneof (it has presence), in proto3 too.
        for (name, member) in [
            ("uint32", tag(111, .varint) + [0]), ("string", delimited(113, "")), ("bytes", delimited(114, [])),
            ("bool", tag(115, .varint) + [0]), ("uint64", tag(116, .varint) + [0]),
            ("float", tag(117, .fixed32) + le32(0)), ("double", tag(118, .fixed64) + le64(0)),
            ("enum", tag(119, .varint) + [0]), ("nested_message", delimited(112, [])),
        ] {
            same("oneof_\(name) at its default is written", member)
        }
        valid("oneof: same member twice, the last value wins", u32 + tag(111, .varint) + [7], tag(111, .varint) + [7])
        valid(
            "oneof_nested_message twice is merged",
            delimited(112, tag(1, .varint) + [1]) + delimited(112, delimited(2, [])),
            delimited(112, tag(1, .varint) + [1] + delimited(2, [])))
        valid(
            "oneof_nested_message, another member, nested_message: no merge across the switch",
            delimited(112, tag(1, .varint) + [1]) + u32 + delimited(112, delimited(2, [])),
            delimited(112, delimited(2, [])))
        valid(
            "oneof member before other fields comes back in number order",
            string + tag(1, .varint) + [1] + tag(401, .varint) + [3],
            tag(1, .varint) + [1] + string + tag(401, .varint) + [3])
        if isProto3 {
            same("oneof_null_value", tag(120, .varint) + [0])
            valid(
                "oneof_enum with an unknown number stays in the oneof (open enum)", u32 + tag(119, .varint) + [99],
                tag(119, .varint) + [99])
        } else {
            // Closed enum: an unknown number goes to unknown fields, the oneof keeps its value.
            valid(
                "oneof_enum with an unknown number keeps the previous member", u32 + tag(119, .varint) + [99],
                u32 + tag(119, .varint) + [99])
        }
    }
}

// MARK: Maps

private extension Builder {
    mutating func maps() {
        let key = { (value: UInt64) in tag(1, .varint) + varint(value) }
        let value = { (value: UInt64) in tag(2, .varint) + varint(value) }
        let entry = { (k: UInt64, v: UInt64) in delimited(56, key(k) + value(v)) }
        same("map_int32_int32 entry", entry(1, 2))
        same("map_int32_int32 entries in key order", entry(1, 2) + entry(3, 4))
        valid("map_int32_int32 entry with the value first", delimited(56, value(2) + key(1)), entry(1, 2))
        valid("map_int32_int32 entry missing its key", delimited(56, value(5)), entry(0, 5))
        valid("map_int32_int32 entry missing its value", delimited(56, key(3)), entry(3, 0))
        valid("map_int32_int32 empty entry", delimited(56, []), entry(0, 0))
        valid("map_int32_int32 duplicate key: the last entry wins", entry(1, 2) + entry(1, 3), entry(1, 3))
        valid(
            "map_int32_int32 key twice in one entry: the last key", delimited(56, key(1) + key(2) + value(9)),
            entry(2, 9))
        valid(
            "map_int32_int32 value twice in one entry: the last value", delimited(56, key(1) + value(8) + value(9)),
            entry(1, 9))
        valid(
            "map_int32_int32 unknown field in an entry is dropped",
            delimited(56, key(1) + tag(3, .varint) + [7] + value(2) + delimited(4, "x")), entry(1, 2))
        valid(
            "map_int32_int32 key padded", delimited(56, tag(1, .varint) + paddedVarint(1, length: 4) + value(2)),
            entry(1, 2))
        same(
            "map_int32_int32 negative key and value",
            delimited(56, tag(1, .varint) + varint(signed: -1) + tag(2, .varint) + varint(signed: -2)))
        invalid("map_int32_int32 entry truncated inside", delimited(56, key(1) + tag(2, .varint)), "truncated")
        invalid(
            "map_int32_int32 entry with a length past the entry",
            delimited(56, key(1) + tag(3, .delimited) + varint(2)) + [0, 0], "lengthPastEnd")
        invalid(
            "map_int32_int32 entry with an end group", delimited(56, key(1) + tag(3, .endGroup)), "unmatchedEndGroup")

        let sKey = { (text: String) in delimited(1, text) }
        let sValue = { (text: String) in delimited(2, text) }
        same("map_string_string entry", delimited(69, sKey("k") + sValue("v")))
        valid(
            "map_string_string entry missing its key", delimited(69, sValue("v")), delimited(69, sKey("") + sValue("v"))
        )
        valid(
            "map_string_string entry missing its value", delimited(69, sKey("k")), delimited(69, sKey("k") + sValue(""))
        )
        same("map_string_bytes entry", delimited(70, sKey("k") + delimited(2, [0xFF])))
        same("map_bool_bool entries", delimited(68, key(0) + value(1)) + delimited(68, key(1) + value(0)))
        valid(
            "map_bool_bool key from a large varint", delimited(68, key(300) + value(1)),
            delimited(68, key(1) + value(1)))
        same("map_fixed64_fixed64 entry", delimited(63, tag(1, .fixed64) + le64(1) + tag(2, .fixed64) + le64(2)))
        same("map_int32_double entry", delimited(67, key(1) + tag(2, .fixed64) + le64(0x3FF0_0000_0000_0000)))
        same("map_sint64_sint64 entry", delimited(61, key(zigzag(-5)) + value(zigzag(.min))))

        let nested = tag(1, .varint) + [7]
        same("map_string_nested_message entry", delimited(71, sKey("k") + delimited(2, nested)))
        valid(
            "map_string_nested_message entry missing its value: an empty message",
            delimited(71, sKey("k")), delimited(71, sKey("k") + delimited(2, [])))
        valid(
            "map_string_nested_message value twice in one entry is merged",
            delimited(71, sKey("k") + delimited(2, nested) + delimited(2, delimited(2, []))),
            delimited(71, sKey("k") + delimited(2, nested + delimited(2, []))))
        valid(
            "map_string_nested_message duplicate key replaces, does not merge",
            delimited(71, sKey("k") + delimited(2, nested)) + delimited(71, sKey("k") + delimited(2, delimited(2, []))),
            delimited(71, sKey("k") + delimited(2, delimited(2, []))))
        same(
            "map_string_nested_message value keeps its unknown fields",
            delimited(71, sKey("k") + delimited(2, tag(1999, .varint) + [1])))
        same("map_string_foreign_message entry", delimited(72, sKey("k") + delimited(2, tag(1, .varint) + [1])))
        invalid(
            "map_string_nested_message value truncated", delimited(71, sKey("k") + delimited(2, tag(1, .varint))),
            "truncated")

        let enumEntry = { (number: Int64) in delimited(73, sKey("e") + tag(2, .varint) + varint(signed: number)) }
        same("map_string_nested_enum entry", enumEntry(2))
        same("map_string_nested_enum entry with NEG", enumEntry(-1))
        if isProto3 {
            same("map_string_nested_enum unknown value stays in the map (open enum)", enumEntry(9))
        } else {
            // Closed enum: the whole entry goes to unknown fields, after the known fields.
            same("map_string_nested_enum unknown value: the entry is kept as an unknown field", enumEntry(9))
            valid(
                "map_string_nested_enum unknown value goes after the known fields",
                enumEntry(9) + tag(1, .varint) + [1] + enumEntry(2),
                tag(1, .varint) + [1] + enumEntry(2) + enumEntry(9))
            valid(
                "map_string_nested_enum: a known entry then an unknown one with the same key",
                enumEntry(2) + enumEntry(9), enumEntry(2) + enumEntry(9))
            same(
                "map_string_foreign_enum unknown value kept as an unknown field",
                delimited(74, sKey("f") + tag(2, .varint) + [5]))
        }
    }
}

// MARK: Enums

private extension Builder {
    mutating func enums() {
        let optional = { (number: Int64) in tag(21, .varint) + varint(signed: number) }
        let repeated = { (number: Int64) in tag(51, .varint) + varint(signed: number) }
        if isProto3 {
            // Open enums keep unknown numbers in the field, in place.
            same("optional_nested_enum unknown number", optional(7) + tag(22, .varint) + [9])
            same("optional_nested_enum unknown negative number", optional(-5))
            same(
                "repeated_nested_enum unknown numbers stay in the packed run",
                delimited(51, [1] + varint(signed: 7) + [2]))
            valid(
                "repeated_nested_enum unknown numbers, unpacked input",
                repeated(1) + repeated(7) + repeated(-9), delimited(51, [1, 7] + varint(signed: -9)))
            same("packed_nested_enum unknown number", delimited(88, [1, 99, 2]))
            same("unpacked_nested_enum unknown number", tag(102, .varint) + [99] + tag(102, .varint) + [1])
        } else {
            // Closed enums: unknown numbers go to unknown fields (after the known fields).
            same("optional_nested_enum unknown number is kept as an unknown field", optional(7))
            same("optional_nested_enum unknown negative number is kept", optional(-5))
            valid(
                "optional_nested_enum unknown number goes after the known fields",
                optional(7) + tag(1, .varint) + [1], tag(1, .varint) + [1] + optional(7))
            valid(
                "optional_nested_enum known then unknown: the field keeps the known value",
                optional(1) + optional(7), optional(1) + optional(7))
            valid("optional_nested_enum unknown then known", optional(7) + optional(1), optional(1) + optional(7))
            same("optional_foreign_enum unknown number is kept", tag(22, .varint) + [3])
            valid(
                "repeated_nested_enum: unknown numbers leave the list",
                repeated(1) + repeated(7) + repeated(2) + repeated(-9),
                repeated(1) + repeated(2) + repeated(7) + repeated(-9))
            valid(
                "repeated_nested_enum packed input with unknown numbers",
                delimited(51, [1, 7, 2]), repeated(1) + repeated(2) + repeated(7))
            valid(
                "packed_nested_enum: unknown numbers become unpacked unknown fields",
                delimited(88, [1, 99] + varint(signed: -1) + [2]),
                delimited(88, [1] + varint(signed: -1) + [2]) + tag(88, .varint) + [99])
            valid(
                "packed_nested_enum unpacked input with an unknown number",
                tag(88, .varint) + [5] + tag(88, .varint) + [1], delimited(88, [1]) + tag(88, .varint) + [5])
            valid(
                "unpacked_nested_enum packed input with an unknown number",
                delimited(102, [3, 1]), tag(102, .varint) + [1] + tag(102, .varint) + [3])
            valid(
                "repeated_foreign_enum unknown number", tag(52, .varint) + [1] + tag(52, .varint) + [3],
                tag(52, .varint) + [1] + tag(52, .varint) + [3])
            valid(
                "packed_nested_enum: only unknown numbers", delimited(88, [5, 6]),
                tag(88, .varint) + [5] + tag(88, .varint) + [6])
        }
    }
}

// MARK: Groups (proto2)

private extension Builder {
    mutating func groups() {
        let int32 = tag(202, .varint) + [5]
        let uint32 = tag(203, .varint) + [7]
        if isProto3 {
            // Field 201 is optional_bool_wrapper (a message): a group there is an unknown field.
            same("group at field 201 is an unknown field in proto3", group(201, int32 + uint32))
            valid(
                "optional_bool_wrapper message at 201", delimited(201, tag(1, .varint) + [1]),
                delimited(201, tag(1, .varint) + [1]))
            return
        }
        same("Data group", group(201, int32 + uint32))
        same("Data group, empty (present)", group(201, []))
        valid("Data group fields in reverse order", group(201, uint32 + int32), group(201, int32 + uint32))
        valid("Data group seen twice is merged", group(201, int32) + group(201, uint32), group(201, int32 + uint32))
        valid(
            "Data group merge: the later value wins", group(201, int32 + uint32) + group(201, tag(202, .varint) + [9]),
            group(201, tag(202, .varint) + [9] + uint32))
        same("Data group keeps its unknown fields", group(201, int32 + tag(1999, .varint) + [1] + group(7, [])))
        same("Data group holding an unknown group of its own number", group(201, group(201, [])))
        same(
            "Data group holding bytes that look like its end tag",
            group(201, int32 + delimited(300, tag(201, .endGroup))))
        valid(
            "Data group before other fields comes back in number order",
            group(201, int32) + tag(1, .varint) + [1] + tag(241, .varint) + [2],
            tag(1, .varint) + [1] + group(201, int32) + tag(241, .varint) + [2])
        same("Data as a delimited field is an unknown field", delimited(201, int32))
        invalid("Data group with a truncated field", tag(201, .startGroup) + tag(202, .varint) + [0x80], "truncated")
        invalid("Data group with a field of wire type 6", group(201, tag(202, 6)), "invalidWireType")
        invalid("Data group with field number 0", group(201, [0x00, 0x01]), "fieldNumberZero")
        invalid(
            "Data group with a length past the end",
            tag(201, .startGroup) + tag(300, .delimited) + varint(50) + tag(201, .endGroup),
            "lengthPastEnd")
        invalid(
            "Data group in a nested message, unterminated",
            delimited(27, tag(201, .startGroup) + int32) + tag(201, .endGroup), "truncated")
        same("Data group in recursive_message", delimited(27, group(201, int32)))
    }
}

// MARK: UTF-8

private extension Builder {
    mutating func utf8() {
        let bad: [(String, [UInt8])] = [
            ("0xFF", [0xFF]), ("lone continuation byte", [0x80]), ("overlong NUL", [0xC0, 0x80]),
            ("overlong slash", [0xE0, 0x80, 0xAF]), ("UTF-16 surrogate", [0xED, 0xA0, 0x80]),
            ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
            ("sequence cut at the end", Array("abc".utf8) + [0xE2, 0x82]),
            ("sequence cut by ASCII", [0xE2, 0x41, 0x41]), ("0xF5 lead byte", [0xF5, 0x80, 0x80, 0x80]),
            ("invalid after 8 ASCII bytes", Array("12345678".utf8) + [0xFE]),
        ]
        let places: [(String, ([UInt8]) -> [UInt8])] = [
            ("optional_string", { delimited(14, $0) }),
            ("repeated_string", { delimited(44, "ok") + delimited(44, $0) }),
            ("optional_string_piece", { delimited(24, $0) }),
            ("optional_cord", { delimited(25, $0) }),
            ("oneof_string", { delimited(113, $0) }),
            ("map_string_string key", { delimited(69, delimited(1, $0) + delimited(2, "v")) }),
            ("map_string_string value", { delimited(69, delimited(1, "k") + delimited(2, $0)) }),
            ("map_string_nested_message key", { delimited(71, delimited(1, $0) + delimited(2, [])) }),
            ("recursive_message.optional_string", { delimited(27, delimited(14, $0)) }),
        ]
        guard isProto3 else { return }  // proto2: see Proto2UTF8Tests
        for (placeName, place) in places {
            for (badName, bytes) in bad
            where placeName == "optional_string" || badName == "0xFF" || badName == "UTF-16 surrogate" {
                invalid("invalid UTF-8 (\(badName)) in \(placeName)", place(bytes), "invalidUTF8")
            }
            same("valid UTF-8 in \(placeName)", place(Array("é€𝄞\u{10FFFF}\u{7F}".utf8)))
        }
        same("optional_bytes with invalid UTF-8 is fine", delimited(15, [0xFF, 0xC0, 0x80]))
    }
}

// MARK: Nesting depth

private extension Builder {
    mutating func depth() {
        func nested(_ levels: Int, _ innermost: [UInt8] = tag(1, .varint) + [1]) -> [UInt8] {
            var bytes = innermost
            for _ in 0..<levels { bytes = delimited(27, bytes) }
            return bytes
        }
        same("recursive_message nested 100 deep", nested(100))
        invalid("recursive_message nested 101 deep", nested(101), "tooDeep")
        invalid("recursive_message nested 2000 deep", nested(2000), "tooDeep")
        // optional_nested_message.corecursive.optional_nested_message...: two levels per step.
        func corecursive(_ steps: Int) -> [UInt8] {
            var bytes = tag(1, .varint) + [1]
            for _ in 0..<steps { bytes = delimited(18, delimited(2, bytes)) }
            return bytes
        }
        same("corecursive messages 100 deep", corecursive(50))
        invalid("corecursive messages 102 deep", corecursive(51), "tooDeep")
        func groups(_ levels: Int) -> [UInt8] {
            (0..<levels).flatMap { _ in tag(1999, .startGroup) }
                + (0..<levels).flatMap { _ in tag(1999, .endGroup) }
        }
        same("unknown groups nested 100 deep", groups(100))
        invalid("unknown groups nested 101 deep", groups(101), "tooDeep")
        invalid("unknown groups nested 5000 deep", groups(5000), "tooDeep")
        same("unknown group 99 messages down", nested(99, group(1999, [])))
        invalid("unknown group 100 messages down", nested(100, group(1999, [])), "tooDeep")
        if !isProto3 {
            same("Data group 99 messages down", nested(99, group(201, [])))
            invalid("Data group 100 messages down", nested(100, group(201, [])), "tooDeep")
        }
        // Deep unknown length-delimited data is not parsed, so not limited.
        same(
            "unknown delimited field nested 200 deep (opaque)",
            (0..<200).reduce(tag(1, .varint) + [1]) { bytes, _ in delimited(1999, bytes) })
        // Nesting counts per path, not in total: many siblings at depth 100 are fine.
        same("two chains 100 deep", nested(99) + delimited(48, delimited(2, nested(98))))
    }
}

// MARK: The corpus

enum Corpus {
    static let all: [WireCase] = Syntax.allCases.flatMap { syntax -> [WireCase] in
        var builder = Builder(syntax: syntax)
        builder.scalars()
        builder.delimitedFields()
        builder.tags()
        builder.unknownFields()
        builder.oneofs()
        builder.maps()
        builder.enums()
        builder.groups()
        builder.utf8()
        builder.depth()
        return builder.cases
    }
}
