@testable import SwiftFrame
import TestSupport
import Testing

/// The size list keeps eight sizes inline and the rest in storage of its own, which it grows
/// and frees itself.
@Suite struct SizeListTests {
    @Test func sizesPastTheInlineOnesSurviveEveryGrowth() {
        var list = SizeList()
        // 8 inline, then storage of 56, 112 and 224 sizes: three growths, each copying.
        for size in 0..<300 { list.append(size &* 3) }
        #expect(list.count == 300)
        #expect((0..<300).allSatisfy { list[$0] == $0 &* 3 })
        list[5] = -1
        list[250] = -2
        #expect(list[5] == -1 && list[250] == -2 && list[249] == 747 && list[251] == 753)
    }

    @Test func reservingBeforeTheInlineSizesAreFullKeepsThemAll() {
        var list = SizeList()
        list.append(1)
        list.reserve(10)  // storage made while one of the eight inline slots is used
        list.reserve(100)  // and made again: nothing past the inline ones to move yet
        for size in 2...120 { list.append(size) }
        #expect(list.overflowCapacity >= 112)
        #expect((0..<120).allSatisfy { list[$0] == $0 &+ 1 })
    }

    @Test func aMessageWithHundredsOfSizesEncodesAsItsPartsDo() throws {
        // 150 children, each with a packed field: 300 sizes, through three growths of the list.
        var root = Node()
        var expected: [UInt8] = []
        for index in 0..<150 {
            var child = Node()
            child.value = Int32(index)
            child.numbers = Array(repeating: Int32(index) &* 1000, count: index % 7 + 1)
            root.children.append(child)
            let body = try child.serializedBytes()
            expected += [26] + varint(UInt64(body.count)) + body
        }
        let bytes = try root.serializedBytes()
        #expect(bytes == expected)
        #expect(try Node(serializedBytes: bytes) == root)
    }
}
