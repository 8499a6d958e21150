/// What a frame of a command table carries as its body: a request, response, push or
/// envelope. swiftframe's own messages are payloads; so is any other protobuf message type
/// given these two requirements (SwiftFrameSwiftProtobuf gives them to SwiftProtobuf's
/// messages), and then `FrameClient`, `FrameServer`, `HTTPFrameClient` and the generated
/// tables send and receive it as they do swiftframe's own.
public protocol FramePayload: Sendable, Hashable {
    /// The fully qualified protobuf name, for errors and logs.
    static var protoMessageName: String { get }

    /// Decodes a payload from the bytes where they lie (valid for the call only).
    init(framePayload bytes: UnsafeRawBufferPointer) throws(WireError)

    /// The payload's wire bytes.
    func framePayloadBytes() throws(WireError) -> [UInt8]

    /// Appends a frame with this payload as its body to `bytes`. The default encodes the
    /// payload, then writes the header and copies the bytes after it; swiftframe's messages are
    /// written straight after the header instead, sized once (`FrameEncoder.append`).
    func appendFrame(header: FrameHeader, encoder: FrameEncoder, to bytes: inout [UInt8]) throws(FrameError)
}

extension FramePayload {
    @inlinable
    public func appendFrame(header: FrameHeader, encoder: FrameEncoder, to bytes: inout [UInt8]) throws(FrameError) {
        let payload: [UInt8]
        do throws(WireError) {
            payload = try framePayloadBytes()
        } catch {
            throw .unencodablePayload(error)
        }
        try encoder.append(header: header, payload: payload, to: &bytes)
    }

    /// Decodes a payload from an array or a slice of one (a `Frame`'s payload), not copying it.
    @inlinable
    public init(framePayload bytes: some RandomAccessCollection<UInt8>) throws(WireError) {
        // `withUnsafeBytes` rethrows, which erases typed errors: the result is carried out.
        let decoded =
            bytes.withContiguousStorageIfAvailable { Self.decoding(UnsafeRawBufferPointer($0)) }
            ?? [UInt8](bytes).withUnsafeBytes { Self.decoding($0) }
        self = try decoded.get()
    }

    @inlinable
    static func decoding(_ bytes: UnsafeRawBufferPointer) -> Result<Self, WireError> {
        do throws(WireError) {
            return .success(try Self(framePayload: bytes))
        } catch {
            return .failure(error)
        }
    }
}

extension Message {
    /// Decodes the message where the bytes lie, checking proto2 `required` fields.
    @inlinable
    public init(framePayload bytes: UnsafeRawBufferPointer) throws(WireError) {
        try self.init(buffer: bytes)
    }

    /// `serializedBytes()`: one array of the exact size.
    @inlinable
    public func framePayloadBytes() throws(WireError) -> [UInt8] {
        try serializedBytes()
    }

    @inlinable
    public func appendFrame(header: FrameHeader, encoder: FrameEncoder, to bytes: inout [UInt8]) throws(FrameError) {
        try encoder.append(header: header, message: self, to: &bytes)
    }
}
