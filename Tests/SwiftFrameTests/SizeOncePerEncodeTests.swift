import SwiftFrame
import TestSupport
import Testing

/// Counts computeSize calls; only the test below touches it.
nonisolated(unsafe) private var sizeCalls = 0

/// A chain of messages, written by hand the way the generator writes message fields.
private struct Link: Message {
    static let protoMessageName = "test.Link"
    var payload: UInt32 = 0
    var next: [Link] = []  // at most one element; an array keeps the struct finite
    var unknownFields = UnknownFields()

    init() {}

    init(depth: Int) {
        payload = UInt32(depth)
        if depth > 1 { next = [Link(depth: depth - 1)] }
    }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 8: payload = try reader.readVarint(ProtoUInt32.self)
            case 18: try reader.readMessage(appendingTo: &next)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        sizeCalls += 1
        var size = unknownFields.count
        if payload != 0 { size += 1 + ProtoUInt32.size(payload) }
        for value in next { size += 1 + cache.message(value) }
        return size
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if payload != 0 {
            writer.writeTag(8)
            writer.writeVarint(ProtoUInt32.self, payload)
        }
        for value in next {
            writer.writeTag(18)
            writer.writeMessage(value)
        }
        writer.writeUnknownFields(unknownFields)
    }
}

@Suite struct SizeOncePerEncodeTests {
    /// Encoding sizes every nested message exactly once, however deep: 32 calls for a
    /// chain of 32 links, where re-sizing at every level would take 32 + 31 + ... + 1 = 528.
    @Test func nestedMessagesAreSizedOnce() throws {
        let root = Link(depth: 32)
        sizeCalls = 0
        let bytes = try root.serializedBytes()
        #expect(sizeCalls == 32)
        #expect(try Link(serializedBytes: bytes) == root)
        // Innermost link: payload 1 only (08 01); its parent wraps it as 12 02 08 01.
        #expect(bytes.suffix(6) == [0x08, 0x02, 0x12, 0x02, 0x08, 0x01])
    }
}
