import TestSupport
import Testing
import SwiftFrame

/// `ProtoReader.readLengthDelimited` (nested reads for hand-written decoders) and `Boxed`
/// (storage for self-containing message fields).
@Suite struct NestedReadTests {
    // MARK: readLengthDelimited

    @Test func bodySeesOnlyItsBytesAndTheRestIsSkipped() throws {
        // Field 1 (length 3: 08 01 02), then 2A after it.
        let bytes: [UInt8] = [0x0A, 0x03, 0x08, 0x01, 0x02, 0x2A]
        let (value, innerEnd, outerOffset, outerHasMore) = try withReader(bytes) { reader throws(WireError) in
            _ = try reader.readTag()
            var innerEnd = 0
            let value = try reader.readLengthDelimited { (inner: inout ProtoReader) throws(WireError) in
                _ = try inner.readTag()
                let value = try inner.readVarint()
                // One byte (02) left that the body does not read.
                innerEnd = inner.offset
                return value
            }
            return (value, innerEnd, reader.offset, reader.hasRemaining)
        }
        #expect(value == 1)
        #expect(innerEnd == 4)
        #expect(outerOffset == 5)
        #expect(outerHasMore)
    }

    @Test func bodyCannotReadPastItsLength() {
        // Length 3 holds 80 80 80; the 01 after it must not complete the varint.
        #expect(throws: WireError.truncated(offset: 1)) {
            try withReader([0x03, 0x80, 0x80, 0x80, 0x01]) { reader throws(WireError) in
                try reader.readLengthDelimited { (inner: inout ProtoReader) throws(WireError) in
                    try inner.readVarint()
                }
            }
        }
        #expect(throws: WireError.lengthPastEnd(offset: 0, length: 5, remaining: 1)) {
            try withReader([0x05, 0x01]) { reader throws(WireError) in
                try reader.readLengthDelimited { (inner: inout ProtoReader) throws(WireError) in
                    inner.hasRemaining
                }
            }
        }
    }

    @Test func nestingCountsAgainstMaxDepth() throws {
        func nestedTwice(_ reader: inout ProtoReader) throws(WireError) -> Bool {
            try reader.readLengthDelimited { (inner: inout ProtoReader) throws(WireError) in
                try inner.readLengthDelimited { (innermost: inout ProtoReader) throws(WireError) in
                    innermost.hasRemaining
                }
            }
        }
        // Outer length 2 (00 00); inner length 0 read at offset 1: its body would start at 2.
        #expect(throws: WireError.tooDeep(offset: 0, limit: 1)) {
            try withReader([0x02, 0x00, 0x00], maxDepth: 1) { reader throws(WireError) in try nestedTwice(&reader) }
        }
        #expect(
            try withReader([0x02, 0x00, 0x00], maxDepth: 2) { reader throws(WireError) in
                try nestedTwice(&reader)
            } == false)
        // Depth is given back: two in a row at maxDepth 1.
        let offset = try withReader([0x01, 0x07, 0x01, 0x08], maxDepth: 1) { reader throws(WireError) in
            for _ in 0..<2 {
                _ = try reader.readLengthDelimited { (inner: inout ProtoReader) throws(WireError) in
                    try inner.readVarint()
                }
            }
            return reader.offset
        }
        #expect(offset == 4)
    }

    // MARK: Boxed

    @Test func boxesCompareAndHashByValue() {
        #expect(Boxed(1) == Boxed(1))
        #expect(Boxed(1) != Boxed(2))
        #expect(Set([Boxed("a"), Boxed("a"), Boxed("b")]).count == 2)
        #expect(Boxed(42).hashValue == Boxed(42).hashValue)
        // The identity shortcut: a box equals itself even when its value does not.
        let nan = Boxed(Double.nan)
        #expect(nan == nan)
        #expect(Boxed(Double.nan) != Boxed(Double.nan))
    }

    @Test func boxedChildKeepsValueSemantics() throws {
        var leaf = Node()
        leaf.value = 1
        var original = Node()
        original.child = leaf
        var copy = original
        copy.child?.value = 2
        #expect(original.child?.value == 1)
        #expect(copy.child?.value == 2)
        #expect(original != copy)
        copy.child?.value = 1
        #expect(original == copy)
        copy.child = nil
        #expect(copy.child == nil)
        #expect(try copy.serializedBytes() == [])
        #expect(try original.serializedBytes() == [0x12, 0x02, 0x08, 0x01])
    }
}
