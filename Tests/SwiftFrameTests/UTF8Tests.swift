import TestSupport
import Testing
@testable import SwiftFrame

/// `UTF8Validation.firstInvalidIndex`, checked against Unicode table 3-7 by hand and against
/// the standard library's own strict validator.
@Suite struct UTF8Tests {
    static func firstInvalid(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { UTF8Validation.firstInvalidIndex($0) }
    }

    // MARK: Valid sequences at every boundary

    static let validCases: [[UInt8]] = [
        [],
        [0x00],
        [0x7F],
        [0xC2, 0x80],  // U+0080
        [0xDF, 0xBF],  // U+07FF
        [0xE0, 0xA0, 0x80],  // U+0800
        [0xED, 0x9F, 0xBF],  // U+D7FF, last before the surrogates
        [0xEE, 0x80, 0x80],  // U+E000, first after the surrogates
        [0xEF, 0xBF, 0xBD],  // U+FFFD
        [0xEF, 0xBF, 0xBF],  // U+FFFF
        [0xF0, 0x90, 0x80, 0x80],  // U+10000
        [0xF3, 0xBF, 0xBF, 0xBF],  // U+FFFFF
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF
        Array("hello, world".utf8),
        Array("aé€😀 — ok".utf8),
    ]

    @Test(arguments: validCases)
    func valid(bytes: [UInt8]) {
        #expect(Self.firstInvalid(bytes) == nil)
        // After seven ASCII bytes the sequence straddles the eight-byte fast path.
        #expect(Self.firstInvalid(Array("1234567".utf8) + bytes) == nil)
        #expect(Self.firstInvalid(Array("12345678".utf8) + bytes + Array("12345678".utf8)) == nil)
    }

    // MARK: Invalid sequences: index of the byte that starts the bad sequence

    static let invalidCases: [([UInt8], Int)] = [
        ([0xC0, 0x80], 0),  // overlong U+0000
        ([0xC1, 0xBF], 0),  // overlong U+007F
        ([0xE0, 0x80, 0x80], 0),  // overlong U+0000
        ([0xE0, 0x9F, 0xBF], 0),  // overlong U+07FF
        ([0xED, 0xA0, 0x80], 0),  // surrogate U+D800
        ([0xED, 0xBF, 0xBF], 0),  // surrogate U+DFFF
        ([0xF0, 0x80, 0x80, 0x80], 0),  // overlong U+0000
        ([0xF0, 0x8F, 0xBF, 0xBF], 0),  // overlong U+FFFF
        ([0xF4, 0x90, 0x80, 0x80], 0),  // U+110000
        ([0xF5, 0x80, 0x80, 0x80], 0),
        ([0xF8, 0x88, 0x80, 0x80, 0x80], 0),
        ([0xFE], 0),
        ([0xFF], 0),
        ([0xC3], 0),  // truncated two-byte
        ([0xE2, 0x82], 0),  // truncated three-byte
        ([0xF0, 0x9F, 0x98], 0),  // truncated four-byte
        ([0x61, 0x62, 0xF0, 0x9F, 0x98], 2),
        ([0x80], 0),  // lone continuation
        ([0xBF], 0),
        ([0x61, 0x80], 1),
        ([0xC3, 0xA9, 0xA9], 2),  // continuation after a complete sequence
        ([0xE2, 0x41], 0),  // bad second byte
        ([0xE2, 0x82, 0x41], 0),  // bad third byte
        ([0xF0, 0x9F, 0x98, 0x41], 0),  // bad fourth byte
        ([0xC3, 0xC3, 0xA9], 0),  // lead where a continuation belongs
        ([0xE2, 0x82, 0xAC, 0x61, 0xFF], 4),
        ([0x61, 0x62, 0x63, 0xC0, 0x80], 3),
        ([0x61, 0x62, 0xED, 0xA0, 0x80], 2),
    ]

    @Test(arguments: invalidCases)
    func invalid(bytes: [UInt8], index: Int) {
        #expect(Self.firstInvalid(bytes) == index)
        // Behind sixteen ASCII bytes the fast path runs first; the index moves with them.
        #expect(Self.firstInvalid(Array("0123456789abcdef".utf8) + bytes) == index + 16)
    }

    // MARK: Strings made by the reader

    /// `ProtoReader.string`, which asks the standard library's String whether it replaced
    /// anything, against the validator: the same verdict and index for every case, as a small
    /// string (up to 15 bytes) and behind 16 ASCII bytes as a large one. A truncated four-byte
    /// sequence is replaced by U+FFFD, three bytes for three, so the lengths alone cannot tell.
    static func madeString(_ bytes: [UInt8]) -> Result<String, WireError> {
        bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try ProtoReader.string(raw, at: 100) } }
    }

    @Test(arguments: validCases)
    func readerKeepsValidText(bytes: [UInt8]) throws {
        for text in [bytes, Array("0123456789abcdef".utf8) + bytes] {
            #expect(try Array(Self.madeString(text).get().utf8) == text)
        }
    }

    @Test(arguments: invalidCases)
    func readerRefusesInvalidText(bytes: [UInt8], index: Int) {
        #expect(throws: WireError.invalidUTF8(offset: 100 + index)) { try Self.madeString(bytes).get() }
        #expect(throws: WireError.invalidUTF8(offset: 116 + index)) {
            try Self.madeString(Array("0123456789abcdef".utf8) + bytes).get()
        }
    }

    // MARK: The eight-byte ASCII fast path

    @Test(arguments: [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100])
    func oneBadByteInAnASCIIRun(length: Int) {
        for position in 0..<length {
            for bad: UInt8 in [0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xF0, 0xFF] {
                var bytes = [UInt8](repeating: 0x61, count: length)
                bytes[position] = bad
                #expect(Self.firstInvalid(bytes) == position, "length \(length), \(bad) at \(position)")
            }
        }
    }

    @Test(arguments: [1, 7, 8, 9, 16, 17, 40])
    func multiByteCharactersAnywhereInAnASCIIRun(length: Int) {
        for position in 0...length {
            for scalar in ["é", "€", "😀", "\u{10FFFF}"] {
                var bytes = [UInt8](repeating: 0x61, count: length)
                bytes.insert(contentsOf: Array(scalar.utf8), at: position)
                #expect(Self.firstInvalid(bytes) == nil, "\(scalar) at \(position) of \(length)")
                // And a stray continuation byte right after it.
                let bad = position + scalar.utf8.count
                bytes.insert(0x80, at: bad)
                #expect(Self.firstInvalid(bytes) == bad, "\(scalar) at \(position) of \(length)")
            }
        }
    }

    /// `isASCII` reads words, an overlapping last word, and 4-, 2-, 1-byte pieces under eight
    /// bytes: a high bit must be seen at every position of every length up to three words.
    @Test func isASCIISeesAHighBitAtEveryPosition() {
        for length in 0...25 {
            var bytes = [UInt8](repeating: 0x7F, count: length)
            #expect(bytes.withUnsafeBytes { UTF8Validation.isASCII($0) }, "length \(length)")
            for position in 0..<length {
                bytes[position] = 0x80
                #expect(!bytes.withUnsafeBytes { UTF8Validation.isASCII($0) }, "length \(length), at \(position)")
                bytes[position] = 0x7F
            }
        }
    }

    @Test func longValidTextWithOneBadByteAtTheEnd() {
        var bytes = Array(String(repeating: "The quick brown fox — ünïcödé 😀 ", count: 200).utf8)
        #expect(Self.firstInvalid(bytes) == nil)
        bytes.append(0xFF)
        #expect(Self.firstInvalid(bytes) == bytes.count - 1)
    }

    // MARK: Differential check against the standard library

    @Test func agreesWithTheStandardLibrary() {
        // Bytes around every boundary of table 3-7, so random strings hit the edge cases.
        let palette: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
            0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        var random = SeededGenerator(seed: 0x5EED)  // fixed: reproducible
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...20, using: &random)
            let bytes = (0..<count).map { _ in palette.randomElement(using: &random)! }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            let index = Self.firstInvalid(bytes)
            #expect((index == nil) == valid, "\(bytes)")
            guard let index else { continue }
            // Everything before the index is valid, and no valid scalar starts at it.
            #expect(String(validating: bytes[..<index], as: UTF8.self) != nil, "\(bytes)")
            for length in 1...4 where index + length <= bytes.count {
                #expect(String(validating: bytes[index..<(index + length)], as: UTF8.self) == nil, "\(bytes)")
            }
        }
    }

    // MARK: Through the reader

    /// Strings short enough to be stored inline and long ones, ASCII and not, come back as sent.
    @Test(arguments: [
        "", "a", "neo", "fifteen bytes!!", "sixteen bytes!!!", "é", "ünïcödé, longer than fifteen bytes 😀",
    ])
    func readerReturnsTheStringSent(text: String) throws {
        let bytes: [UInt8] = [0x12, UInt8(text.utf8.count)] + Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer: buffer)
            #expect(throws: Never.self) {
                _ = try reader.readTag()
                #expect(try reader.readString() == text)
            }
        }
    }

    @Test func readerReportsTheAbsoluteOffset() {
        // 20 ASCII bytes then a surrogate, in a string field after another field.
        let payload: [UInt8] = Array(repeating: 0x61, count: 20) + [0xED, 0xB0, 0x80]
        let bytes: [UInt8] = [0x08, 0x01, 0x22, UInt8(payload.count)] + payload
        #expect(decodeError(Node.self, bytes) == .invalidUTF8(offset: 4 + 20))
    }
}
