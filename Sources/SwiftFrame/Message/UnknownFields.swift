/// Fields a message read but does not declare, kept as their exact wire bytes (tags
/// included) and written back unchanged after the known fields.
public struct UnknownFields: Hashable, Sendable {
    /// The raw wire bytes, in the order they were read.
    public internal(set) var bytes: [UInt8]

    public init() { bytes = [] }

    /// Unknown fields from raw wire bytes (complete fields, tags included).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    @inlinable
    public var isEmpty: Bool { bytes.isEmpty }

    /// Bytes they take on the wire.
    @inlinable
    public var count: Int { bytes.count }

    @usableFromInline
    mutating func append(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }
}
