import TestSupport
import Testing
import SwiftFrame

/// Whole messages through the `Message` extension API: nesting, merging, slices, buffers.
@Suite struct MessageTests {
    // MARK: Nested messages, by hand

    @Test func nestedMessageBytes() throws {
        var leaf = Node()
        leaf.value = 1
        var one = Node()
        one.child = leaf
        #expect(try one.serializedBytes() == [0x12, 0x02, 0x08, 0x01])

        var middle = Node()
        middle.child = leaf
        middle.name = "a"
        var second = Node()
        second.value = 2
        var root = Node()
        root.value = 5
        root.child = middle
        root.children = [second, Node()]
        let expected: [UInt8] = [
            0x08, 0x05,  // value = 5
            0x12, 0x07, 0x12, 0x02, 0x08, 0x01, 0x22, 0x01, 0x61,  // child { child { value 1 } name "a" }
            0x1A, 0x02, 0x08, 0x02,  // children[0] { value 2 }
            0x1A, 0x00,  // children[1] {}
        ]
        #expect(root.serializedSize() == expected.count)
        #expect(try root.serializedBytes() == expected)
        let decoded = try Node(serializedBytes: expected)
        #expect(decoded == root)
        #expect(decoded.children.count == 2)
        #expect(decoded.child?.child?.value == 1)
    }

    @Test func emptyChildIsPresentAndWritten() throws {
        var node = Node()
        node.child = Node()
        #expect(try node.serializedBytes() == [0x12, 0x00])
        let decoded = try Node(serializedBytes: [0x12, 0x00])
        #expect(decoded.child == Node())
    }

    // MARK: Nested messages, depth 1...50, against an independent reference encoder

    /// Straightforward recursive encoding by concatenation (no size cache), for the fields
    /// the trees below use.
    static func reference(_ node: Node) -> [UInt8] {
        var out: [UInt8] = []
        if node.value != 0 {
            out += [0x08] + varint(UInt64(bitPattern: Int64(node.value)))
        }
        if let child = node.child {
            out += referenceField(tag: 0x12, reference(child))
        }
        for element in node.children {
            out += referenceField(tag: 0x1A, reference(element))
        }
        if !node.name.isEmpty {
            out += referenceField(tag: 0x22, Array(node.name.utf8))
        }
        if !node.data.isEmpty {
            out += referenceField(tag: 0x3A, node.data)
        }
        return out + node.unknownFields.bytes
    }

    /// A chain `depth` levels deep. Every level has a negative or positive value, a leaf in
    /// `children` and a name that grows with depth; the innermost message carries 16,300
    /// bytes, so the lengths along the chain cross the 1-, 2- and 3-byte varint boundaries.
    static func tree(depth: Int) -> Node {
        var current = Node()
        current.value = Int32(depth + 1)
        current.data = (0..<16_300).map { UInt8(truncatingIfNeeded: $0) }
        for level in stride(from: depth, through: 1, by: -1) {
            var leaf = Node()
            leaf.value = Int32(level)
            var parent = Node()
            parent.value = level.isMultiple(of: 2) ? Int32(level) : -Int32(level)
            parent.child = current
            parent.children = [leaf, Node()]
            parent.name = String(repeating: "é", count: level * 3)
            current = parent
        }
        return current
    }

    @Test(arguments: 1...50)
    func nestedChainRoundTrips(depth: Int) throws {
        let tree = Self.tree(depth: depth)
        let expected = Self.reference(tree)
        #expect(tree.serializedSize() == expected.count)
        let bytes = try tree.serializedBytes()
        #expect(bytes == expected)
        let decoded = try Node(serializedBytes: bytes)
        #expect(decoded == tree)

        var levels = 0
        var node = decoded
        while let child = node.child {
            levels += 1
            node = child
        }
        #expect(levels == depth)
    }

    @Test func chainOfTwoByHand() throws {
        // Innermost: 08 03, 3A AC 7F + 16,300 bytes: 16,305 bytes (= B1 7F).
        // Level 2: 08 02 | 12 B1 7F + 16,305 | 1A 02 08 02, 1A 00 | 22 0C + 12: 16,330 bytes (= CA 7F).
        // Root: value -1 in ten bytes, then 12 CA 7F + level 2.
        let bytes = try Self.tree(depth: 2).serializedBytes()
        #expect(Array(bytes.prefix(11)) == [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(Array(bytes[11..<14]) == [0x12, 0xCA, 0x7F])
        #expect(Array(bytes[14..<19]) == [0x08, 0x02, 0x12, 0xB1, 0x7F])
        #expect(Array(bytes[19..<24]) == [0x08, 0x03, 0x3A, 0xAC, 0x7F])
        // After the innermost body: level 2's children and name, then the root's.
        let tail = Array(bytes[(24 + 16_300)...])
        #expect(Array(tail.prefix(8)) == [0x1A, 0x02, 0x08, 0x02, 0x1A, 0x00, 0x22, 0x0C])
        #expect(
            Array(tail.suffix(14)) == [0x1A, 0x02, 0x08, 0x01, 0x1A, 0x00, 0x22, 0x06]
                + [0xC3, 0xA9, 0xC3, 0xA9, 0xC3, 0xA9])
        #expect(bytes.count == 11 + 3 + 16_330 + 6 + 8)
    }

    /// (data bytes in the child, the child's length prefix, the data's length prefix):
    /// the child's body is 1 + data prefix + data = 127, 128, 16,383 and 16,384 bytes.
    static let childSizes: [(Int, [UInt8], [UInt8])] = [
        (125, [0x7F], [0x7D]),
        (126, [0x80, 0x01], [0x7E]),
        (16_380, [0xFF, 0x7F], [0xFC, 0x7F]),
        (16_381, [0x80, 0x80, 0x01], [0xFD, 0x7F]),
    ]

    @Test(arguments: childSizes)
    func childLengthPrefixAtVarintBoundaries(count: Int, childPrefix: [UInt8], dataPrefix: [UInt8]) throws {
        var child = Node()
        child.data = [UInt8](repeating: 0x5A, count: count)
        var node = Node()
        node.child = child
        let bytes = try node.serializedBytes()
        let head: [UInt8] = [0x12] + childPrefix + [0x3A] + dataPrefix
        #expect(Array(bytes.prefix(head.count)) == head)
        #expect(bytes.count == head.count + count)
        #expect(node.serializedSize() == bytes.count)
        #expect(try Node(serializedBytes: bytes) == node)
    }

    // MARK: Merge semantics

    @Test func singularMessageSeenTwiceIsMerged() throws {
        // child { value 5 }, then child { name "x" }.
        let node = try Node(serializedBytes: [0x12, 0x02, 0x08, 0x05, 0x12, 0x03, 0x22, 0x01, 0x78])
        #expect(node.child?.value == 5)
        #expect(node.child?.name == "x")
        #expect(try node.serializedBytes() == [0x12, 0x05, 0x08, 0x05, 0x22, 0x01, 0x78])
    }

    @Test func mergeRecursesAndScalarsTakeTheLastValue() throws {
        let bytes: [UInt8] = [
            0x08, 0x01,  // value 1
            0x12, 0x06, 0x12, 0x02, 0x08, 0x01, 0x28, 0x0A,  // child { child { value 1 } numbers 10 }
            0x08, 0x02,  // value 2
            0x12, 0x07, 0x12, 0x03, 0x22, 0x01, 0x79, 0x28, 0x0B,  // child { child { name "y" } numbers 11 }
            0x1A, 0x02, 0x08, 0x01,  // children { value 1 }
            0x1A, 0x02, 0x08, 0x02,  // children { value 2 }: appended, not merged
        ]
        let node = try Node(serializedBytes: bytes)
        #expect(node.value == 2)
        #expect(node.child?.child?.value == 1)
        #expect(node.child?.child?.name == "y")
        #expect(node.child?.numbers == [10, 11])
        #expect(node.children.map(\.value) == [1, 2])
    }

    @Test func mergeIntoAnExistingMessage() throws {
        var node = Node()
        node.value = 1
        node.numbers = [1]
        var child = Node()
        child.value = 3
        node.child = child
        try node.merge(serializedBytes: [0x2A, 0x01, 0x02, 0x12, 0x03, 0x22, 0x01, 0x7A])
        #expect(node.value == 1)
        #expect(node.numbers == [1, 2])
        #expect(node.child?.value == 3)
        #expect(node.child?.name == "z")
    }

    // MARK: Entry points

    /// Appending message after message to one array grows it geometrically, as `append` does,
    /// not by each message's size (which reallocated on nearly every call: 1,353 times for
    /// 10,000 small messages).
    @Test func serializeAppendingGrowsTheArrayGeometrically() throws {
        var node = Node()
        node.value = 150
        node.name = String(repeating: "n", count: 100)
        var out: [UInt8] = []
        var reallocations = 0
        var capacity = out.capacity
        for _ in 0..<10_000 {
            try node.serialize(appendingTo: &out)
            if out.capacity != capacity {
                reallocations += 1
                capacity = out.capacity
            }
        }
        #expect(out.count == 10_000 * (try node.serializedBytes()).count)
        #expect(reallocations <= 32, "\(reallocations) reallocations")
    }

    @Test func serializeAppendsAfterExistingBytes() throws {
        var node = Node()
        node.value = 150
        var out: [UInt8] = [0xAA, 0xBB]
        try node.serialize(appendingTo: &out)
        #expect(out == [0xAA, 0xBB, 0x08, 0x96, 0x01])
        try node.serialize(appendingTo: &out)
        #expect(out == [0xAA, 0xBB, 0x08, 0x96, 0x01, 0x08, 0x96, 0x01])
        try Node().serialize(appendingTo: &out)
        #expect(out.count == 8)

        var fresh: [UInt8] = []
        try node.serialize(appendingTo: &fresh)
        #expect(fresh == [0x08, 0x96, 0x01])

        // A nested message appended after a prefix: size cache and offsets still line up.
        var nested = Node()
        nested.child = node
        nested.children = [node]
        var framed: [UInt8] = [0x01, 0x02, 0x03]
        try nested.serialize(appendingTo: &framed)
        #expect(framed == [0x01, 0x02, 0x03, 0x12, 0x03, 0x08, 0x96, 0x01, 0x1A, 0x03, 0x08, 0x96, 0x01])
    }

    @Test func decodesFromASlice() throws {
        let frame: [UInt8] = [0xFF, 0xFF, 0x08, 0x96, 0x01, 0xFF]
        let node = try Node(serializedBytes: frame[2..<5])
        #expect(node.value == 150)
        // Offsets are from the start of the slice, and the slice's end is a hard end: the
        // 0x08 after it must not complete the varint.
        let cut: [UInt8] = [0xFF, 0x08, 0x80, 0x08]
        #expect(throws: WireError.truncated(offset: 1)) {
            try Node(serializedBytes: cut[1..<3])
        }
    }

    @Test func decodesFromABuffer() throws {
        let bytes: [UInt8] = [0x08, 0x96, 0x01, 0x22, 0x02, 0x68, 0x69]
        let node = try bytes.withUnsafeBytes { buffer in try Node(buffer: buffer) }
        #expect(node.value == 150)
        #expect(node.name == "hi")
        #expect(throws: WireError.lengthPastEnd(offset: 4, length: 2, remaining: 1)) {
            try bytes.withUnsafeBytes { buffer in
                try Node(buffer: UnsafeRawBufferPointer(rebasing: buffer[0..<6]))
            }
        }
        #expect(throws: WireError.tooDeep(offset: 0, limit: 0)) {
            try [UInt8]([0x12, 0x00]).withUnsafeBytes { buffer in try Node(buffer: buffer, maxDepth: 0) }
        }
    }

    @Test func emptyInputDecodesToTheDefault() throws {
        #expect(try Node(serializedBytes: []) == Node())
        #expect(try Scalars(serializedBytes: []) == Scalars())
        let frame: [UInt8] = [0x08, 0x01, 0x02]
        #expect(try Node(serializedBytes: frame[1..<1]) == Node())
        #expect(try Node(serializedBytes: [UInt8]()[...]) == Node())
        #expect(try Node(buffer: UnsafeRawBufferPointer(start: nil, count: 0)) == Node())
        var node = Node()
        node.value = 9
        try node.merge(serializedBytes: [])
        #expect(node.value == 9)
    }

    @Test func emptyReader() {
        let reader = ProtoReader(buffer: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(!reader.hasRemaining)
        #expect(reader.offset == 0)
        #expect(throws: WireError.truncated(offset: 0)) {
            var copy = reader
            _ = try copy.readFixed32()
        }
        #expect(throws: WireError.truncated(offset: 0)) {
            var copy = reader
            _ = try copy.readTag()
        }
    }

    @Test func defaultMessageSerializesToNothing() throws {
        #expect(Node().serializedSize() == 0)
        #expect(try Node().serializedBytes() == [])
        #expect(try Scalars().serializedBytes() == [])
    }

    @Test func messageName() {
        #expect(Node.protoMessageName == "swiftframe.test.Node")
    }
}
