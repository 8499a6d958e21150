// Messages encoded by functions written for them alone, with the standard library's public
// API and no protobuf runtime: sizes from `utf8.count`, one output array, each string's bytes
// from `withContiguousStorageIfAvailable`, copied with word loads and stores (no `memcpy` call
// for short strings). Each does what its message needs and nothing else, so its time shows how
// far a generated encoder is from what the message allows: the login message, the chat message
// (proto2, every field set) and the list of units (each unit's size, and the sizes of its
// position and packed fields, computed once and kept for the writing pass). Their times in
// `BenchProfile wall 9 "by hand"` and in the floor rows; their instructions with `BenchProfile
// byhand encode login|chat|units N`. What the runtime learns about short copies and new arrays
// they learn too (the output zeroed with `memset`, short strings never read across their two
// words), so that they stay the bound.
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

    @inline(never)
    public static func encodeChat(_ message: SFChat) -> [UInt8] {
        // proto2 with explicit presence: a set field is written even when empty or zero.
        let sentAt = message.sentAt.map { UInt64(bitPattern: $0) }
        let kind = message.kind.map { UInt64(bitPattern: Int64($0)) }
        let flags = message.flags.map { UInt64($0) }
        let size = present(message.msgId) &+ present(message.sender) &+ present(message.receiver)
            &+ present(message.content) &+ present(message.clientTag) &+ present(sentAt) &+ present(kind) &+ present(flags)
        var output = [UInt8](repeatElement(0, count: size))
        output.withUnsafeMutableBytes { buffer in
            var cursor = buffer.baseAddress!
            putPresent(10, message.msgId, &cursor)
            putPresent(18, message.sender, &cursor)
            putPresent(26, message.receiver, &cursor)
            putPresent(34, message.content, &cursor)
            putPresent(42, message.clientTag, &cursor)
            if let sentAt { put(48, sentAt, &cursor) }
            if let kind { put(56, kind, &cursor) }
            if let flags { put(64, flags, &cursor) }
        }
        return output
    }

    @inline(never)
    public static func encodeUnits(_ list: SFUnits) -> [UInt8] {
        let units = list.units
        let version = UInt64(bitPattern: list.version)
        // Per unit: its size, its position's, and its stats' and buffs' packed lengths.
        return withUnsafeTemporaryAllocation(of: (unit: Int, position: Int, stats: Int, buffs: Int).self, capacity: units.count) { sizes in
            var size = 0
            for (index, unit) in units.enumerated() {
                var position = 0
                if let p = unit.position {
                    position = scalar(zigzag(p.x)) &+ scalar(zigzag(p.y)) &+ scalar(zigzag(p.z))
                }
                let stats = packedSize(unit.stats), buffs = packedSize(unit.buffs)
                var body = scalar(UInt64(bitPattern: unit.id)) &+ scalar(UInt64(bitPattern: Int64(unit.kind)))
                body &+= field(unit.name.utf8.count)
                if unit.position != nil { body &+= 1 &+ varintSize(UInt64(position)) &+ position }
                body &+= field(stats) &+ scalar(UInt64(unit.level)) &+ field(buffs) &+ (unit.alive ? 2 : 0)
                sizes.initializeElement(at: index, to: (body, position, stats, buffs))
                size &+= 1 &+ varintSize(UInt64(body)) &+ body
            }
            size &+= scalar(version)
            var output = [UInt8](repeatElement(0, count: size))
            output.withUnsafeMutableBytes { buffer in
                var cursor = buffer.baseAddress!
                for (index, unit) in units.enumerated() {
                    let sized = sizes[index]
                    put(10, UInt64(sized.unit), &cursor)
                    putScalar(8, UInt64(bitPattern: unit.id), &cursor)
                    putScalar(16, UInt64(bitPattern: Int64(unit.kind)), &cursor)
                    put(26, unit.name, unit.name.utf8.count, &cursor)
                    if let p = unit.position {
                        put(34, UInt64(sized.position), &cursor)
                        putScalar(8, zigzag(p.x), &cursor)
                        putScalar(16, zigzag(p.y), &cursor)
                        putScalar(24, zigzag(p.z), &cursor)
                    }
                    putPacked(42, unit.stats, sized.stats, &cursor)
                    putScalar(48, UInt64(unit.level), &cursor)
                    putPacked(58, unit.buffs, sized.buffs, &cursor)
                    if unit.alive { put(64, 1, &cursor) }
                }
                putScalar(16, version, &cursor)
            }
            _ = sizes.deinitialize()
            return output
        }
    }

    /// Bytes of a string field with a one-byte tag, if set (proto2).
    @inline(__always)
    static func present(_ string: String?) -> Int {
        guard let count = string?.utf8.count else { return 0 }
        return 1 &+ varintSize(UInt64(count)) &+ count
    }

    /// Bytes of a set varint field with a one-byte tag (proto2).
    @inline(__always)
    static func present(_ value: UInt64?) -> Int {
        guard let value else { return 0 }
        return 1 &+ varintSize(value)
    }

    @inline(__always)
    static func zigzag(_ value: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: (value &<< 1) ^ (value &>> 31)))
    }

    /// Bytes of a proto3 varint field with a one-byte tag; none when zero.
    @inline(__always)
    static func scalar(_ value: UInt64) -> Int {
        value == 0 ? 0 : 1 &+ varintSize(value)
    }

    @inline(__always)
    static func packedSize(_ values: [Int64]) -> Int {
        var size = 0
        for value in values { size &+= varintSize(UInt64(bitPattern: value)) }
        return size
    }

    /// A tag and a varint.
    @inline(__always)
    static func put(_ tag: UInt8, _ value: UInt64, _ cursor: inout UnsafeMutableRawPointer) {
        cursor.storeBytes(of: tag, as: UInt8.self)
        cursor = store(value, at: cursor + 1)
    }

    /// A tag and a varint, unless zero (proto3).
    @inline(__always)
    static func putScalar(_ tag: UInt8, _ value: UInt64, _ cursor: inout UnsafeMutableRawPointer) {
        if value != 0 { put(tag, value, &cursor) }
    }

    /// A packed run of `byteCount` bytes, unless empty.
    @inline(__always)
    static func putPacked(_ tag: UInt8, _ values: [Int64], _ byteCount: Int, _ cursor: inout UnsafeMutableRawPointer) {
        guard byteCount > 0 else { return }
        put(tag, UInt64(byteCount), &cursor)
        for value in values { cursor = store(UInt64(bitPattern: value), at: cursor) }
    }

    /// A string field if set, written even when empty (proto2).
    @inline(__always)
    static func putPresent(_ tag: UInt8, _ string: String?, _ cursor: inout UnsafeMutableRawPointer) {
        guard let string else { return }
        let count = string.utf8.count
        if count == 0 {
            put(tag, 0, &cursor)
        } else {
            put(tag, string, count, &cursor)
        }
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
