/// Copies `count` bytes from `source` to `target` (which do not overlap). Strings and bytes on
/// the wire are mostly short; a `memcpy` call costs more than the copy itself for them, so
/// up to 32 bytes are copied here with a few loads and stores of the widest size that fits
/// (overlapping in the middle), and only longer runs call `memcpy`.
///
/// From 8 to 15 bytes the copy is the first eight, then the rest on its own, never one word
/// across byte 8. Those are the lengths of a small string, whose bytes live in the string
/// value itself: `withContiguousStorageIfAvailable` stores them to the stack as two words and
/// hands out that address. A load that straddles two just-stored words cannot take its bytes
/// from the stores and waits until both reach the cache; loads inside one word can. (Whether
/// the wait shows depends on what else is in flight: it showed in one benchmark program's
/// login encode, four of whose six strings are that short, and not in another.)
@inlinable @inline(__always)
func copyBytes(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count: Int) {
    switch count {
    case 16...32:
        copyEnds(SIMD16<UInt8>.self, source, target, count)
    case 8..<16:
        target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        copyUnder8(source + 8, target + 8, count &- 8)
    case 0..<8:
        copyUnder8(source, target, count)
    default:
        target.copyMemory(from: source, byteCount: count)
    }
}

/// Copies fewer than eight bytes: two four-byte words, or the first, middle and last byte.
@inlinable @inline(__always)
func copyUnder8(_ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, _ count: Int) {
    switch count {
    case 4..<8:
        copyEnds(UInt32.self, source, target, count)
    case 1..<4:
        // One, two or three bytes: the first, the middle and the last (some the same).
        target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
        target.storeBytes(
            of: source.load(fromByteOffset: count >> 1, as: UInt8.self), toByteOffset: count >> 1, as: UInt8.self)
        target.storeBytes(
            of: source.load(fromByteOffset: count &- 1, as: UInt8.self), toByteOffset: count &- 1, as: UInt8.self)
    default:
        break
    }
}

/// The first and the last `Word` of `count` bytes, `Word`'s size ≤ count ≤ twice its size.
@inlinable @inline(__always)
func copyEnds<Word: BitwiseCopyable>(
    _: Word.Type, _ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, _ count: Int
) {
    let lastOffset = count &- MemoryLayout<Word>.size
    let first = source.loadUnaligned(as: Word.self)
    let last = source.loadUnaligned(fromByteOffset: lastOffset, as: Word.self)
    target.storeBytes(of: first, as: Word.self)
    target.storeBytes(of: last, toByteOffset: lastOffset, as: Word.self)
}
