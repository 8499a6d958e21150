/// A protobuf message. Generated structs conform to this; each implements its own
/// straight-line decode, size and encode code against `ProtoReader`, `SizeCache` and
/// `ProtoWriter`.
public protocol Message: FramePayload, CustomDebugStringConvertible {
    /// The fully qualified protobuf name, e.g. `im.user.login_request` or `login_request`.
    static var protoMessageName: String { get }

    /// The fields' names and kinds for the text format, in number order (see `TextFormatField`).
    static var textFormatFields: [TextFormatField] { get }

    /// The field names the message reserves (`reserved "old_name";`): the text format skips
    /// a field of such a name, as protobuf's parser does.
    static var textFormatReservedNames: [String] { get }

    /// True for a message generated with `TextFormat=Numbers`, which leaves field names out
    /// of the code: it prints in the text format by number, and has no JSON form (JSON
    /// throws `JSONError.Kind.unrepresentable` for it). False for every other message.
    static var fieldNamesLeftOut: Bool { get }

    /// A message with every field at its default.
    init()

    /// Fields read from the wire that this message does not know, kept byte for byte.
    var unknownFields: UnknownFields { get set }

    /// Reads fields until the end of the reader's current message, merging them into self.
    @_documentation(visibility: internal)
    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError)

    /// The encoded size of this message's fields; records nested sizes in `cache`.
    @_documentation(visibility: internal)
    func computeSize(into cache: inout SizeCache) -> Int

    /// Writes this message's fields; nested sizes come from the size pass.
    @_documentation(visibility: internal)
    func encodeMessage(to writer: inout ProtoWriter)

    /// Throws `.missingRequiredField` when a proto2 `required` field, here or in a nested
    /// message, is not set. Messages that cannot hold required fields keep the default,
    /// which does nothing.
    func checkInitialized() throws(WireError)
}

extension Message {
    @inlinable
    public func checkInitialized() throws(WireError) {}
}

extension Message {
    /// Decodes a message from its wire bytes.
    /// - Parameters:
    ///   - bytes: the message's encoding.
    ///   - maxDepth: how deeply nested messages may be (default 100).
    ///   - partial: accept a message whose proto2 `required` fields are not all set.
    @inlinable
    public init(
        serializedBytes bytes: [UInt8], maxDepth: Int = ProtoReader.defaultMaxDepth,
        partial: Bool = false
    ) throws(WireError) {
        self.init()
        try merge(serializedBytes: bytes, maxDepth: maxDepth)
        if !partial { try checkInitialized() }
    }

    /// Decodes a message from a slice (e.g. the payload of a frame) without copying it.
    @inlinable
    public init(
        serializedBytes bytes: ArraySlice<UInt8>, maxDepth: Int = ProtoReader.defaultMaxDepth,
        partial: Bool = false
    ) throws(WireError) {
        self.init()
        let failure: WireError? = bytes.withUnsafeBytes { buffer in
            self.mergeCatching(buffer, maxDepth: maxDepth)
        }
        if let failure { throw failure }
        if !partial { try checkInitialized() }
    }

    /// Decodes a message from raw memory.
    @inlinable
    public init(
        buffer: UnsafeRawBufferPointer, maxDepth: Int = ProtoReader.defaultMaxDepth,
        partial: Bool = false
    ) throws(WireError) {
        self.init()
        if let failure = mergeCatching(buffer, maxDepth: maxDepth) { throw failure }
        if !partial { try checkInitialized() }
    }

    /// Merges the fields encoded in `bytes` into this message.
    @inlinable
    public mutating func merge(serializedBytes bytes: [UInt8], maxDepth: Int = ProtoReader.defaultMaxDepth)
        throws(WireError)
    {
        let failure: WireError? = bytes.withUnsafeBytes { buffer in
            self.mergeCatching(buffer, maxDepth: maxDepth)
        }
        if let failure { throw failure }
    }

    // The standard library's withUnsafeBytes is `rethrows`, which erases typed errors;
    // the error is carried out of the closure as a value instead.
    @inlinable
    mutating func mergeCatching(_ buffer: UnsafeRawBufferPointer, maxDepth: Int) -> WireError? {
        var reader = ProtoReader(buffer: buffer, maxDepth: maxDepth)
        do throws(WireError) {
            try decodeMessage(from: &reader)
            return nil
        } catch {
            return error
        }
    }

    /// The number of bytes `serializedBytes()` returns.
    @inlinable
    public func serializedSize() -> Int {
        var cache = SizeCache()
        return computeSize(into: &cache)
    }

    /// Encodes the message. Fields are written in field-number order, unknown fields last.
    /// - Parameter partial: write even if proto2 `required` fields are not all set.
    @inlinable
    public func serializedBytes(partial: Bool = false) throws(WireError) -> [UInt8] {
        if !partial { try checkInitialized() }
        var writer = ProtoWriter()
        let size = computeSize(into: &writer.sizes)
        return [UInt8](written: size, by: &writer, of: Self.protoMessageName) { writer in encodeMessage(to: &writer) }
    }

    /// Encodes the message at the end of `bytes`, growing it once by exactly the encoded size.
    @inlinable
    public func serialize(appendingTo bytes: inout [UInt8], partial: Bool = false) throws(WireError) {
        if !partial { try checkInitialized() }
        var writer = ProtoWriter()
        let size = computeSize(into: &writer.sizes)
        append(size: size, by: &writer, to: &bytes)
    }

    /// Appends the encoding whose size pass returned `size` and filled the sizes of `writer`.
    @inlinable
    func append(size: Int, by writer: inout ProtoWriter, to bytes: inout [UInt8]) {
        bytes.appendWritten(size: size, by: &writer, of: Self.protoMessageName) { writer in encodeMessage(to: &writer) }
    }
}
