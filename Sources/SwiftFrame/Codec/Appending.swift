/// Four KiB of zeros: new room at the end of an output array is copied from here with
/// `memcpy`, where `append(contentsOf: repeatElement(0, count:))` stores byte by byte.
@usableFromInline
let zeroPage = [UInt8](repeating: 0, count: 4096)

extension Array where Element == UInt8 {
    /// Grows the array by `count` zero bytes, for an encoder to overwrite in place.
    ///
    /// Encoders size their output first, so the array is grown once per call, and then by at
    /// least double its capacity: an exact `reserveCapacity` would reallocate on nearly every
    /// call when messages or frames are appended one after another to one array (1,353
    /// reallocations for 10,000 appends of 120 bytes, against 15).
    /// (Not `Array(unsafeUninitializedCapacity:)`: the standard library does not specialise its
    /// allocation and looks up the array's metadata on every call, about 500 instructions,
    /// more than encoding a small message; growing an array of bytes is specialised.)
    @inlinable
    mutating func appendZeros(_ count: Int) {
        if capacity == 0 && count <= zeroPage.count {
            // A new array: allocated at the exact size and filled in one step.
            self = zeroPage.withUnsafeBytes { [UInt8](UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            return
        }
        let needed = self.count + count
        if needed > capacity { reserveCapacity(Swift.max(needed, 2 * capacity)) }
        var left = count
        zeroPage.withUnsafeBytes { zeros in
            while left > 0 {
                let chunk = Swift.min(left, zeros.count)
                append(contentsOf: UnsafeRawBufferPointer(rebasing: zeros[..<chunk]))
                left -= chunk
            }
        }
    }

    /// Grows the array by `size` bytes and runs `body` with a writer over them that uses the
    /// sizes of the size pass. `body` must fill them exactly: anything else is a generator bug,
    /// and traps naming `what` was written.
    @inlinable
    mutating func appendWritten(
        size: Int, sizes: consuming SizeCache, of what: @autoclosure () -> String, _ body: (inout ProtoWriter) -> Void
    ) {
        let start = count
        // The cache moves into the writer here, outside the closures below: a writer made inside
        // one would get a copy of the cache (about 180 instructions to copy and destroy both).
        var writer = ProtoWriter(buffer: UnsafeMutableRawBufferPointer(start: nil, count: 0), sizes: sizes)
        if capacity == 0 && size > zeroPage.count {
            // A large new array is written where it is allocated, never zeroed: the standard
            // library's unspecialised allocation costs less than zeroing more than a page.
            self = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                writer.retarget(UnsafeMutableRawBufferPointer(buffer))
                body(&writer)
                initialized = size - writer.remaining
            }
        } else {
            appendZeros(size)
            withUnsafeMutableBytes { buffer in
                writer.retarget(UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
                body(&writer)
            }
        }
        precondition(writer.remaining == 0, "\(what()): size pass and write pass disagree")
    }
}
