/// Writes fields in the binary encoding: the JSON reader turns JSON into it.
enum JSONWire {
    static func tag(_ number: Int32, _ wireType: WireType, to out: inout [UInt8]) {
        Wire.appendVarint(UInt64(Wire.tag(fieldNumber: Int(number), wireType: wireType)), to: &out)
    }

    static func varint(_ number: Int32, _ value: UInt64, to out: inout [UInt8]) {
        tag(number, .varint, to: &out)
        Wire.appendVarint(value, to: &out)
    }

    static func fixed(_ number: Int32, _ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        tag(number, bytes == 4 ? .fixed32 : .fixed64, to: &out)
        for index in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    static func delimited(_ number: Int32, _ bytes: [UInt8], to out: inout [UInt8]) {
        tag(number, .lengthDelimited, to: &out)
        Wire.appendVarint(UInt64(bytes.count), to: &out)
        out += bytes
    }

    /// A string field: its UTF-8 copied straight from the string.
    static func delimited(_ number: Int32, _ text: String, to out: inout [UInt8]) {
        tag(number, .lengthDelimited, to: &out)
        Wire.appendVarint(UInt64(text.utf8.count), to: &out)
        out.append(contentsOf: text.utf8)
    }

    static func group(_ number: Int32, _ body: [UInt8], to out: inout [UInt8]) {
        tag(number, .startGroup, to: &out)
        out += body
        tag(number, .endGroup, to: &out)
    }
}

/// The encoding the streaming reader writes: bytes in memory of its own, grown by doubling, so
/// that appending checks only the room left. Its owner calls `deallocate()` when done.
struct JSONWireBuffer {
    private var start: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    func deallocate() { start.deallocate() }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// Room for `more` bytes after the end.
    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(count + more) }
    }

    private mutating func grow(_ needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: start, count: count)
        start.deallocate()
        (start, capacity) = (moved, grown)
    }

    @inline(__always)
    mutating func varint(_ value: UInt64) {
        reserve(10)
        var value = value
        while value >= 0x80 {
            start[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        start[count] = UInt8(value)
        count += 1
    }

    @inline(__always)
    mutating func tag(_ number: Int32, _ wireType: WireType) {
        varint(UInt64(Wire.tag(fieldNumber: Int(number), wireType: wireType)))
    }

    /// The low `bytes` bytes of `value`, little-endian.
    mutating func fixed(_ value: UInt64, bytes: Int) {
        reserve(8)
        let at = UnsafeMutableRawPointer(start + count)
        if bytes == 4 {
            at.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, as: UInt32.self)
        } else {
            at.storeBytes(of: value.littleEndian, as: UInt64.self)
        }
        count += bytes
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (start + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Writes `size` bytes at the end with `body`, which returns false to write none.
    mutating func append(size: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Bool) -> Bool {
        reserve(size)
        guard body(start + count) else { return false }
        count += size
        return true
    }

    /// Room for a length written before a body of unknown size: one byte, which most bodies
    /// need. Returns where the body starts.
    mutating func beginLength() -> Int {
        reserve(1)
        count += 1
        return count
    }

    /// Fills in the length of the body written since `bodyStart`, moving the body up when its
    /// length needs more than the one byte left for it.
    mutating func endLength(_ bodyStart: Int) {
        let length = count - bodyStart
        if length < 0x80 {
            start[bodyStart - 1] = UInt8(length)
            return
        }
        let extra = Wire.varintSize(UInt64(length)) - 1
        reserve(extra)
        // The regions overlap: copyMemory moves as memmove does.
        UnsafeMutableRawPointer(start + bodyStart + extra).copyMemory(from: start + bodyStart, byteCount: length)
        var value = UInt64(length)
        var at = bodyStart - 1
        while value >= 0x80 {
            start[at] = UInt8(truncatingIfNeeded: value) | 0x80
            at += 1
            value >>= 7
        }
        start[at] = UInt8(value)
        count += extra
    }
}
