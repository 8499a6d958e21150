/// Four KiB of zeros: new room at the end of an output array is copied from here with
/// `memcpy`, where `append(contentsOf: repeatElement(0, count:))` stores byte by byte.
@usableFromInline
let zeroPage = [UInt8](repeating: 0, count: Array.zeroPageSize)

extension Array where Element == UInt8 {
    /// The bytes in `zeroPage`, known where it is inlined (reading `zeroPage.count` goes
    /// through the global's lazy initialisation).
    @inlinable
    static var zeroPageSize: Int { 4096 }

    /// A new array of `count` zeros: one allocation, specialised for bytes, and one `memset`
    /// (`Array(repeating:count:)` allocates through the standard library's unspecialised
    /// entry point, which looks up the array's metadata on every call).
    ///
    /// Stores only. It was a copy from `zeroPage`, whose loads can wait behind stores just made
    /// to an address that matches theirs in its low 12 bits (the processor compares those
    /// first), so that how long a copy took depended on where the source and the output fell;
    /// `memset` has no loads to wait (Benchmarks/README.md has the encode rows).
    @usableFromInline
    static func zeros(_ count: Int) -> [UInt8] {
        [UInt8](repeatElement(0, count: count))
    }

    /// Grows the array by `count` zero bytes, for an encoder to overwrite in place. (A new
    /// array is made at its exact size by `init(written:by:of:_:)` instead.)
    ///
    /// Encoders size their output first, so the array is grown once per call, and then by at
    /// least double its capacity: an exact `reserveCapacity` would reallocate on nearly every
    /// call when messages or frames are appended one after another to one array.
    /// (Not `Array(unsafeUninitializedCapacity:)`: the standard library does not specialise its
    /// allocation and looks up the array's metadata on every call, which costs more than
    /// encoding a small message; growing an array of bytes is specialised.)
    @inlinable
    mutating func appendZeros(_ count: Int) {
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

    /// A new array of `size` bytes written by `body` with `writer`, whose sizes the size pass
    /// filled. `body` must fill them exactly: anything else is a generator bug, and traps
    /// naming `what` was written.
    @inlinable
    init(
        written size: Int, by writer: inout ProtoWriter, of what: @autoclosure () -> String,
        _ body: (inout ProtoWriter) -> Void
    ) {
        if size > Array.zeroPageSize {
            // A large array is written where it is allocated, never zeroed: the standard
            // library's unspecialised allocation costs less than zeroing more than a page.
            self = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                writer.retarget(UnsafeMutableRawBufferPointer(buffer))
                body(&writer)
                initialized = size - writer.remaining
            }
        } else {
            self = Array.zeros(size)
            withUnsafeMutableBytes { buffer in
                writer.retarget(buffer)
                body(&writer)
            }
        }
        precondition(writer.remaining == 0, "\(what()): size pass and write pass disagree")
    }

    /// Grows the array by `size` bytes and writes them as `init(written:by:of:_:)` does.
    @inlinable
    mutating func appendWritten(
        size: Int, by writer: inout ProtoWriter, of what: @autoclosure () -> String, _ body: (inout ProtoWriter) -> Void
    ) {
        if capacity == 0 {
            self = [UInt8](written: size, by: &writer, of: what(), body)
            return
        }
        let start = count
        appendZeros(size)
        withUnsafeMutableBytes { buffer in
            writer.retarget(UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
            body(&writer)
        }
        precondition(writer.remaining == 0, "\(what()): size pass and write pass disagree")
    }
}
