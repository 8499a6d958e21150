/// Four KiB of zeros: new room at the end of an output array is copied from here with
/// `memcpy`, where `append(contentsOf: repeatElement(0, count:))` stores byte by byte.
@usableFromInline
let zeroPage = [UInt8](repeating: 0, count: 4096)

extension Array where Element == UInt8 {
    /// Grows the array by `count` zero bytes, for an encoder to overwrite in place.
    ///
    /// Encoders size their output first, so the array grows once, by the exact size.
    /// (Not `Array(unsafeUninitializedCapacity:)`: the standard library does not specialise its
    /// allocation and looks up the array's metadata on every call, about 500 instructions,
    /// more than encoding a small message; growing an array of bytes is specialised.)
    @inlinable
    mutating func appendZeros(_ count: Int) {
        reserveCapacity(self.count + count)
        var left = count
        zeroPage.withUnsafeBytes { zeros in
            while left > 0 {
                let chunk = Swift.min(left, zeros.count)
                append(contentsOf: UnsafeRawBufferPointer(rebasing: zeros[..<chunk]))
                left -= chunk
            }
        }
    }
}
