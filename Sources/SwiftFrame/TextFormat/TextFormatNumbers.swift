#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Floating-point numbers as protobuf's text format writes them: `%g` with the fewest of two
/// precisions that reads back to the same value (6 or 9 digits for a float, 15 or 17 for a
/// double), `inf`, `-inf` and `nan`. The C library's formatter gives exactly protobuf's
/// digits and exponents (`1e+20`, `1.23456788e+14`); the runtime uses nothing else from it.
enum TextFormatNumbers {
    static func format(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        let short = printf(value, digits: 15)
        return Double(short) == value ? short : printf(value, digits: 17)
    }

    static func format(_ value: Float) -> String {
        if value.isNaN { return "nan" }
        // protobuf reads the short form back with strtof, which reports a subnormal result
        // as out of range: subnormal floats always get the long form.
        if value.isSubnormal { return printf(Double(value), digits: 9) }
        let short = printf(Double(value), digits: 6)
        return Float(short) == value ? short : printf(Double(value), digits: 9)
    }

    private static func printf(_ value: Double, digits: Int32) -> String {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = buffer.withUnsafeMutableBufferPointer { buffer in
            withVaList([digits, value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.*g", $0) }
        }
        return String(decoding: buffer[..<Int(max(0, count))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return value.description
        #endif
    }
}
