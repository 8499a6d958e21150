// The login message encoded by a function written for it alone, with the standard library's
// public API and no protobuf runtime: sizes from `utf8.count`, one output array, each string's
// bytes from `withContiguousStorageIfAvailable`, copied with word loads and stores (no
// `memcpy` call). It does what this message needs and nothing else, so its time shows how far
// a generated encoder is from what the message allows, and how far that is from 3×
// SwiftProtobuf's speed (`BenchProfile wall 9 "login, by hand"`; its instructions with
// `BenchProfile byhand encode login N`). What the runtime learns about short copies and new
// arrays it learns too (the output zeroed with `memset`, short strings never read across their
// two words), so that it stays the bound.

public enum ByHand {
    @inline(never)
    public static func encodeLogin(_ message: SFLogin) -> [UInt8] {
        let nickName = message.nickName.utf8.count, pwd = message.pwd.utf8.count, ip = message.ip.utf8.count
        let deviceName = message.deviceName.utf8.count, deviceId = message.deviceId.utf8.count
        let version = message.version.utf8.count
        let port = UInt64(bitPattern: Int64(message.port))
        var size = field(nickName) &+ field(pwd) &+ field(ip) &+ field(deviceName) &+ field(deviceId) &+ field(version)
        if port != 0 { size &+= 1 &+ varintSize(port) }
        // `Array(repeating:count:)` and `Array(unsafeUninitializedCapacity:)` look up the
        // array's metadata on every call; from a `Repeated` it is one allocation and a memset.
        var output = [UInt8](repeatElement(0, count: size))
        output.withUnsafeMutableBytes { buffer in
            var cursor = buffer.baseAddress!
            put(10, message.nickName, nickName, &cursor)
            put(18, message.pwd, pwd, &cursor)
            put(26, message.ip, ip, &cursor)
            if port != 0 {
                cursor.storeBytes(of: 32, as: UInt8.self)
                cursor = store(port, at: cursor + 1)
            }
            put(42, message.deviceName, deviceName, &cursor)
            put(50, message.deviceId, deviceId, &cursor)
            put(58, message.version, version, &cursor)
        }
        return output
    }

    /// Bytes of a string field of `count` bytes with a one-byte tag; none when empty.
    @inline(__always)
    static func field(_ count: Int) -> Int {
        count == 0 ? 0 : 1 &+ varintSize(UInt64(count)) &+ count
    }

    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        (64 &- (value | 1).leadingZeroBitCount &+ 6) / 7
    }

    @inline(__always)
    static func store(_ value: UInt64, at cursor: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var value = value, cursor = cursor
        while value >= 0x80 {
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, as: UInt8.self)
            cursor += 1
            value &>>= 7
        }
        cursor.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        return cursor + 1
    }

    @inline(__always)
    static func put(_ tag: UInt8, _ string: String, _ count: Int, _ cursor: inout UnsafeMutableRawPointer) {
        guard count > 0 else { return }
        cursor.storeBytes(of: tag, as: UInt8.self)
        var next = store(UInt64(count), at: cursor + 1)
        // Always contiguous on Linux; the wall benchmark checks the bytes before timing.
        _ = string.utf8.withContiguousStorageIfAvailable { utf8 in
            copy(UnsafeRawPointer(utf8.baseAddress!), to: next, count)
        }
        next += count
        cursor = next
    }

    /// Copies `count` bytes: up to 32 with two or four overlapping word loads and stores.
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, _ count: Int) {
        switch count {
        case 0..<8:
            copyUnder8(source, to: target, count)
        case 8..<16:
            // The first eight bytes, then the rest from the second word on: a short string's
            // bytes are copied out in two words, and a load across both waits for both to reach
            // the cache.
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            copyUnder8(source + 8, to: target + 8, count &- 8)
        case 16:
            let first = source.loadUnaligned(as: UInt64.self)
            let last = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            target.storeBytes(of: first, as: UInt64.self)
            target.storeBytes(of: last, toByteOffset: 8, as: UInt64.self)
        case 17...32:
            let a = source.loadUnaligned(as: UInt64.self)
            let b = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = source.loadUnaligned(fromByteOffset: count &- 16, as: UInt64.self)
            let d = source.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            target.storeBytes(of: a, as: UInt64.self)
            target.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            target.storeBytes(of: c, toByteOffset: count &- 16, as: UInt64.self)
            target.storeBytes(of: d, toByteOffset: count &- 8, as: UInt64.self)
        default:
            target.copyMemory(from: source, byteCount: count)
        }
    }

    /// Copies fewer than eight bytes: four-byte words at both ends, or byte by byte.
    @inline(__always)
    static func copyUnder8(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, _ count: Int) {
        if count >= 4 {
            target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self), toByteOffset: count &- 4, as: UInt32.self)
        } else {
            for i in 0..<count { target.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) }
        }
    }
}
