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

/// The binary encoding the streaming reader writes.
extension ByteOutput {
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        let at = room(10)
        var value = value
        var written = 0
        while value >= 0x80 {
            at[written] = UInt8(truncatingIfNeeded: value) | 0x80
            written += 1
            value >>= 7
        }
        at[written] = UInt8(value)
        advance(by: written + 1)
    }

    @inline(__always)
    mutating func tag(_ number: Int32, _ wireType: WireType) {
        varint(UInt64(Wire.tag(fieldNumber: Int(number), wireType: wireType)))
    }

    /// The low `bytes` bytes of `value`, little-endian.
    mutating func fixed(_ value: UInt64, bytes: Int) {
        let at = UnsafeMutableRawPointer(room(8))
        if bytes == 4 {
            at.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, as: UInt32.self)
        } else {
            at.storeBytes(of: value.littleEndian, as: UInt64.self)
        }
        advance(by: bytes)
    }

    /// Writes `size` bytes at the end with `body`, which returns false to write none.
    mutating func append(size: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Bool) -> Bool {
        guard body(room(size)) else { return false }
        advance(by: size)
        return true
    }

    /// Room for a length written before a body of unknown size: one byte, which most bodies
    /// need. Returns where the body starts.
    mutating func beginLength() -> Int {
        append(0)
        return count
    }

    /// Fills in the length of the body written since `bodyStart`, moving the body up when its
    /// length needs more than the one byte left for it.
    mutating func endLength(_ bodyStart: Int) {
        let length = count - bodyStart
        if length < 0x80 {
            address(bodyStart - 1).pointee = UInt8(length)
            return
        }
        let extra = Wire.varintSize(UInt64(length)) - 1
        _ = room(extra)
        // The regions overlap: copyMemory moves as memmove does.
        UnsafeMutableRawPointer(address(bodyStart + extra)).copyMemory(from: address(bodyStart), byteCount: length)
        var value = UInt64(length)
        var at = address(bodyStart - 1)
        while value >= 0x80 {
            at.pointee = UInt8(truncatingIfNeeded: value) | 0x80
            at += 1
            value >>= 7
        }
        at.pointee = UInt8(value)
        advance(by: extra)
    }
}
