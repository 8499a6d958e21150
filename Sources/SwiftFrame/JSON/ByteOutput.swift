/// Bytes written through a pointer into memory of their own, doubled when full: what the JSON
/// printer writes, and the binary encoding the streaming JSON reader writes. A byte costs a
/// store, where appending to an array costs a uniqueness and a capacity check, and a run of
/// bytes a call to the array's generic append.
struct ByteOutput: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// Room for `extra` more bytes: where they go. Written bytes count once `advance(by:)`
    /// says so.
    @inline(__always)
    mutating func room(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity &- count < extra { grow(extra) }
        return base + count
    }

    @inline(__always)
    mutating func advance(by written: Int) {
        count &+= written
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let larger = Swift.max(2 * capacity, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    mutating func append(_ byte: UInt8) {
        room(1).pointee = byte
        count &+= 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let target = room(bytes.count)
        if bytes.count <= 16 {
            // Most runs are a few bytes (a name, a number, a separator): a loop beats a call.
            for index in 0..<bytes.count { target[index] = source[index] }
        } else {
            target.initialize(from: source, count: bytes.count)
        }
        count &+= bytes.count
    }

    /// Where the byte at `offset` (below `count`) is, until the next write that grows the memory.
    func address(_ offset: Int) -> UnsafeMutablePointer<UInt8> {
        base + offset
    }

    /// Forgets what was written after the first `count` bytes.
    mutating func truncate(to count: Int) {
        self.count = Swift.min(count, self.count)
    }

    /// The bytes written so far.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    var bytes: [UInt8] {
        withBytes { Array($0) }
    }

    var string: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }
}
