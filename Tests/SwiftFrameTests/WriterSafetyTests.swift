import TestSupport
import Testing
import SwiftFrame

/// A message whose size pass under-reports what its write pass writes (a generator bug).
struct UndersizedMessage: Message {
    static let protoMessageName = "swiftframe.test.Undersized"
    var unknownFields = UnknownFields()
    init() {}
    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {}
    func computeSize(into cache: inout SizeCache) -> Int { 2 }
    func encodeMessage(to writer: inout ProtoWriter) {
        writer.writeTag(8)
        writer.writeVarint(300)  // three bytes in all
    }
}

/// A message whose size pass over-reports what its write pass writes.
struct OversizedMessage: Message {
    static let protoMessageName = "swiftframe.test.Oversized"
    var unknownFields = UnknownFields()
    init() {}
    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {}
    func computeSize(into cache: inout SizeCache) -> Int { 5 }
    func encodeMessage(to writer: inout ProtoWriter) {
        writer.writeTag(8)
        writer.writeVarint(1)  // two bytes in all
    }
}

/// The writer is bounds-checked: a size pass that disagrees with the write pass stops the
/// process instead of writing past the buffer or returning short output.
@Suite struct WriterSafetyTests {
    @Test func remainingCountsDown() {
        var bytes = [UInt8](repeating: 0, count: 12)
        bytes.withUnsafeMutableBytes { buffer in
            var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
            #expect(writer.remaining == 12)
            writer.writeFixed32(1)
            #expect(writer.remaining == 8)
            writer.writeFixed64(2)
            #expect(writer.remaining == 0)
        }
        #expect(bytes == [0x01, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func undersizedMessageTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = try? UndersizedMessage().serializedBytes()
        }
    }

    @Test func oversizedMessageTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = try? OversizedMessage().serializedBytes()
        }
    }

    /// A string or bytes field checks the room for its tag, length and bytes at once, before
    /// storing any of them.
    @Test func stringFieldOneByteShortTraps() async {
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 8)  // tag, length and 7 bytes need 9
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeString("swiftfr", tag: 10)
            }
        }
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 3)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeBytesUnlessEmpty([1, 2], tag: 130)  // a two-byte tag: 5 bytes
            }
        }
    }

    /// A scalar field with its tag: the check covers both (here one byte short of each).
    @Test func scalarFieldOneByteShortTraps() async {
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 1)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeVarint(ProtoInt32.self, 1, tag: 8)
            }
        }
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 2)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeVarint(ProtoInt32.self, 300, tag: 8)
            }
        }
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 8)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeFixed64(ProtoDouble.self, 1.5, tag: 9)
            }
        }
    }

    @Test func writingPastTheBufferTraps() async {
        await #expect(processExitsWith: .failure) {
            var bytes = [UInt8](repeating: 0, count: 4)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = ProtoWriter(buffer: buffer, sizes: SizeCache())
                writer.writeFixed64(1)
            }
        }
    }
}
