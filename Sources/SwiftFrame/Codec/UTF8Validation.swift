/// Strict UTF-8 validation (Unicode 15, table 3-7): no overlong forms, no surrogates,
/// nothing above U+10FFFF. ASCII runs are checked eight bytes at a time.
@usableFromInline
enum UTF8Validation {
    /// Whether every byte is below 0x80, read a word at a time with no byte loop: the last
    /// word overlaps the one before it, and a buffer under eight bytes is read in 4-, 2- and
    /// 1-byte pieces.
    @usableFromInline
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return true }
        var bits: UInt64 = 0
        if count >= 8 {
            var index = 0
            while index < count - 8 {
                bits |= base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            bits |= base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            var index = 0
            if count & 4 != 0 {
                bits |= UInt64(base.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                index += 4
            }
            if count & 2 != 0 {
                bits |= UInt64(base.loadUnaligned(fromByteOffset: index, as: UInt16.self))
                index += 2
            }
            if count & 1 != 0 {
                bits |= UInt64(base.load(fromByteOffset: index, as: UInt8.self))
            }
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// Whether `string`'s UTF-8 is exactly `bytes` (not empty): compared a word at a time, the
    /// last word overlapping the one before it.
    @usableFromInline
    static func holds(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        let utf8 = string.utf8
        guard utf8.count == count, let base = bytes.baseAddress else { return false }
        return utf8.withContiguousStorageIfAvailable { stored -> Bool in
            let other = UnsafeRawPointer(stored.baseAddress!)
            guard count >= 8 else { return memoryEqual(base, other, count) }
            var index = 0
            while index < count - 8 {
                if base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    != other.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                {
                    return false
                }
                index += 8
            }
            return base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == other.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } ?? utf8.elementsEqual(bytes)
    }

    /// Whether the `count` (under eight) bytes at `a` and `b` are equal.
    private static func memoryEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        for index in 0..<count {
            if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) {
                return false
            }
        }
        return true
    }

    /// Index of the first byte that starts an invalid sequence, or nil when all is valid.
    @usableFromInline
    static func firstInvalidIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return nil }
        var index = 0
        while index < count {
            // Fast path: eight ASCII bytes at once.
            if count - index >= 8,
                base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
                continue
            }
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80  // allowed range of the second byte
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return index
            }
            guard count - index >= length else { return index }
            let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
            guard second >= low, second <= high else { return index }
            for offset in 2..<length {
                let next = base.load(fromByteOffset: index + offset, as: UInt8.self)
                guard next & 0xC0 == 0x80 else { return index }
            }
            index += length
        }
        return nil
    }
}
