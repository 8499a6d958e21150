/// Copies `count` bytes from `source` to `target` (which do not overlap). Strings and bytes on
/// the wire are mostly short; a `memcpy` call costs more than the copy itself for them, so
/// up to 32 bytes are copied here with two loads and two stores of the widest size that fits
/// (overlapping in the middle), and only longer runs call `memcpy`.
@inlinable @inline(__always)
func copyBytes(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count: Int) {
    switch count {
    case 16...32:
        copyEnds(SIMD16<UInt8>.self, source, target, count)
    case 8..<16:
        copyEnds(UInt64.self, source, target, count)
    case 4..<8:
        copyEnds(UInt32.self, source, target, count)
    case 1..<4:
        // One, two or three bytes: the first, the middle and the last (some the same).
        target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
        target.storeBytes(of: source.load(fromByteOffset: count >> 1, as: UInt8.self), toByteOffset: count >> 1, as: UInt8.self)
        target.storeBytes(of: source.load(fromByteOffset: count &- 1, as: UInt8.self), toByteOffset: count &- 1, as: UInt8.self)
    case 0:
        break
    default:
        target.copyMemory(from: source, byteCount: count)
    }
}

/// The first and the last `Word` of `count` bytes, `Word`'s size ≤ count ≤ twice its size.
@inlinable @inline(__always)
func copyEnds<Word: BitwiseCopyable>(_: Word.Type, _ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, _ count: Int) {
    let lastOffset = count &- MemoryLayout<Word>.size
    let first = source.loadUnaligned(as: Word.self)
    let last = source.loadUnaligned(fromByteOffset: lastOffset, as: Word.self)
    target.storeBytes(of: first, as: Word.self)
    target.storeBytes(of: last, toByteOffset: lastOffset, as: Word.self)
}
