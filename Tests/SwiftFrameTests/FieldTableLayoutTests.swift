import Testing
@testable import SwiftFrame

/// A field table finds its fields at the offsets the compiler gives (`MemoryLayout.offset(of:)`,
/// one per layout line). These check that each line gets its own offset, and that a table whose
/// offsets cannot hold the properties its lines describe traps.
@Suite struct FieldTableLayoutTests {
    /// Properties of every shape, in an order that leaves padding between them.
    struct Mixed {
        var flag = false
        var stamp: Int64 = 0
        var small: Int32 = 0
        var name: String? = nil
        var color = Color()
        var choice: [String: Int32] = [:]
        var numbers: [Int32] = []
        var active: Bool? = nil
        var _child: Boxed<Node>? = nil
        var ratio: Float = 0
        var scores: [UInt32: Node] = [:]
        var unknownFields = UnknownFields()
        var extensionFields = UnknownFields()
    }

    static let layout = """
        1 bool flag
        2 sint64 stamp
        3 sfixed32 small
        4 optional string name
        5 enum color
        custom choice
        7 packed int32 numbers
        8 optional bool active
        9 optional message child
        10 float ratio
        11 map scores
        unknown
        extensions
        """

    static let offsets: [Int] = [
        \Mixed.flag, \.stamp, \.small, \.name, \.color, \.choice, \.numbers, \.active, \._child, \.ratio, \.scores,
        \.unknownFields, \.extensionFields,
    ].map { MemoryLayout<Mixed>.offset(of: $0)! }

    @Test func eachLineTakesItsOffset() throws {
        let table = FieldTable(
            of: Mixed.self, layout: Self.layout, offsets: Self.offsets,
            types: [Color.self, [String: Int32].self, Node.self],
            maps: [.map(ProtoFixed32.self, ProtoMessage<Node>.self)],
            custom: [.init(6, "choice", .map(key: .string, value: .int32))], extensionRanges: [100...200]
        )
        let paths: [Int32: PartialKeyPath<Mixed>] = [
            1: \.flag, 2: \.stamp, 3: \.small, 4: \.name, 5: \.color, 7: \.numbers, 8: \.active, 9: \._child,
            10: \.ratio,
            11: \.scores,
        ]
        #expect(table.fields.map(\.number) == Array(1...11))
        for field in table.fields where field.number != 6 {
            let path = try #require(paths[field.number])
            #expect(field.offset == MemoryLayout<Mixed>.offset(of: path), "field \(field.number)")
        }
        #expect(table.unknownFieldsOffset == MemoryLayout<Mixed>.offset(of: \.unknownFields))
        #expect(table.extensionFieldsOffset == MemoryLayout<Mixed>.offset(of: \.extensionFields))
        #expect(
            table.storedTypes.map(ObjectIdentifier.init)
                == Mirror(reflecting: Mixed()).children.map { ObjectIdentifier(type(of: $0.value)) })
        #expect(
            table.textFormatFields.map(\.name) == [
                "flag", "stamp", "small", "name", "color", "choice", "numbers", "active", "child", "ratio", "scores",
            ])
        guard case .map(key: .fixed32, value: .message) = table.textFormatFields[10].kind else {
            Issue.record("scores: \(table.textFormatFields[10].kind)")
            return
        }
    }

    @Test func labelsAndJSONNamesReachTheTextFormatRows() {
        let table = FieldTable(
            of: Mixed.self, layout: Self.layout, offsets: Self.offsets,
            types: [Color.self, [String: Int32].self, Node.self],
            maps: [.map(ProtoFixed32.self, ProtoMessage<Node>.self)],
            custom: [.init(6, "choice", .map(key: .string, value: .int32), .oneof(2))],
            jsonNames: [2: "when", 6: "pick"],
            extensionRanges: [100...200]
        )
        let rows = table.textFormatFields
        // Storage words give the label: none is implicit, `optional` has presence, `packed` and
        // maps are repeated; a custom field's row gives its own.
        #expect(
            rows.map(\.label) == [
                .implicit, .implicit, .implicit, .optional, .implicit, .oneof(2), .repeated, .optional,
                .optional, .implicit, .repeated,
            ])
        #expect(rows.map(\.jsonName) == [nil, "when", nil, nil, nil, "pick", nil, nil, nil, nil, nil])
    }

    @Test func aLayoutWithoutNamesPrintsByNumber() {
        let table = FieldTable(of: Plain.self, layout: "1 uint32\nunknown", offsets: Plain.offsets)
        #expect(table.fields.map(\.offset) == [Plain.offsets[0]] && table.unknownFieldsOffset == Plain.offsets[1])
        #expect(table.textFormatFields.isEmpty)
    }

    struct Plain {
        var id: UInt32 = 0
        var unknownFields = UnknownFields()
        static let offsets = [MemoryLayout<Self>.offset(of: \.id)!, MemoryLayout<Self>.offset(of: \.unknownFields)!]
    }

    struct Counted {
        var counts: [Int32: Int32] = [:]
        var unknownFields = UnknownFields()
        static let offsets = [
            MemoryLayout<Self>.offset(of: \.counts)!, MemoryLayout<Self>.offset(of: \.unknownFields)!,
        ]
    }

    @Test func aTableThatIsNotTheStructsTraps() async {
        _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: Plain.offsets)
        // A string where the UInt32 is (it runs into the unknown fields), a property at an
        // offset past the struct, one misaligned, an offset too few, an offset too many, a type
        // too many, a map too many, a map line with no map codec, no unknown fields, a word that
        // is not a kind, a number twice.
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 string id\nunknown", offsets: Plain.offsets)
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: [0, 64])
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: [2, 8])
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: [0])
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "unknown", offsets: Plain.offsets)
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: Plain.offsets, types: [Node.self])
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(
                of: Plain.self, layout: "1 uint32 id\nunknown", offsets: Plain.offsets,
                maps: [.map(ProtoInt32.self, ProtoInt32.self)])
        }
        _ = FieldTable(
            of: Counted.self, layout: "1 map counts\nunknown", offsets: Counted.offsets,
            maps: [.map(ProtoInt32.self, ProtoInt32.self)])
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Counted.self, layout: "1 map counts\nunknown", offsets: Counted.offsets)
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nextensions", offsets: Plain.offsets)
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint23 id\nunknown", offsets: Plain.offsets)
        }
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Plain.self, layout: "1 uint32 id\nunknown", offsets: Plain.offsets, custom: [.init(1)])
        }
        // Two lines at one offset.
        await #expect(processExitsWith: .failure) {
            _ = FieldTable(of: Counted.self, layout: "1 uint32 a\n2 uint32 b\nunknown", offsets: [0, 0, 8])
        }
    }
}
