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
