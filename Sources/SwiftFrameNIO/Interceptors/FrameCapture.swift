#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOConcurrencyHelpers
import NIOCore
import SwiftFrameCapture

/// Records every frame that passes, with its time and direction, as a pcapng file (or pcap):
/// each frame one TCP segment between the connection's real addresses, after a made-up
/// handshake from the client's side, with sequence and acknowledgment numbers that follow on,
/// so that `swiftframe inspect` prints it with each frame's direction and Wireshark and tshark
/// follow the stream as they would a real capture.
///
///     let capture = try FrameCapture(path: "session.pcapng")
///     configuration.interceptors = [FrameLogging(logger: logger), capture]   // last: as on the wire
///
/// Put it last in the chain to record frames as they cross the wire, first to record them as
/// the app sees them (before compression or encryption). Writes happen on the event loop, a
/// record per frame: it is a tool for support cases, not for every session.
public final class FrameCapture: FrameInterceptor {
    private struct State {
        var writer: CaptureWriter
        var descriptor: Int32?
        /// The connections whose handshake is written.
        var started: Set<Int> = []
    }

    /// The file format.
    public enum Format: Sendable, Hashable {
        /// pcapng (Wireshark's format), with nanosecond timestamps: the default.
        case pcapng
        /// The classic pcap format, with microsecond timestamps.
        case pcap

        var writerFormat: CaptureWriter.Format { self == .pcap ? .pcap : .pcapng }
    }

    private let state: NIOLockedValueBox<State>
    private let sink: (@Sendable ([UInt8]) -> Void)?

    /// A capture into a new file at `path` (replacing one that is there), pcapng unless
    /// `format` says pcap.
    public init(path: String, format: Format = .pcapng) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open \(path)") }
        let writer = CaptureWriter(format: format.writerFormat)
        state = NIOLockedValueBox(State(writer: writer, descriptor: descriptor))
        sink = nil
        try Self.write(writer.fileHeader, to: descriptor)
    }

    /// A capture whose bytes go to `sink`: the file header first, then records per frame.
    public init(format: Format = .pcapng, sink: @escaping @Sendable ([UInt8]) -> Void) {
        let writer = CaptureWriter(format: format.writerFormat)
        state = NIOLockedValueBox(State(writer: writer))
        self.sink = sink
        sink(writer.fileHeader)
    }

    deinit {
        close()
    }

    /// Closes the file; later frames are not recorded.
    public func close() {
        state.withLockedValue { state in
            if let descriptor = state.descriptor { _ = SwiftFrameNIO.closeDescriptor(descriptor) }
            state.descriptor = nil
        }
    }

    public func intercept(_ frame: inout InterceptedFrame) throws {
        let bytes = try frame.encoded()
        let connection = frame.connection
        // Without addresses (a Unix socket), made-up ones that keep connections apart.
        let port = UInt16(truncatingIfNeeded: connection.id)
        let local = CaptureEndpoint(connection.local, default: connection.side == .client ? 1 : 2, port: port)
        let remote = CaptureEndpoint(connection.remote, default: connection.side == .client ? 2 : 1, port: port)
        let (from, to) = frame.direction == .outbound ? (local, remote) : (remote, local)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = UInt32(truncatingIfNeeded: now.tv_sec), nanoseconds = UInt32(now.tv_nsec)
        try state.withLockedValue { state in
            guard sink != nil || state.descriptor != nil else { return }
            var records: [UInt8] = []
            if state.started.insert(connection.id).inserted {
                let (client, server) = connection.side == .client ? (local, remote) : (remote, local)
                records += state.writer.handshake(
                    seconds: seconds, nanoseconds: nanoseconds, client: client, server: server)
            }
            records += state.writer.records(
                seconds: seconds, nanoseconds: nanoseconds, from: from, to: to, payload: bytes)
            if let sink {
                sink(records)
            } else if let descriptor = state.descriptor {
                try Self.write(records, to: descriptor)
            }
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = SwiftFrameNIO.writeDescriptor(
                    descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw IOError(errnoCode: errno, reason: "write")
                }
                offset += written
            }
        }
    }
}

// The C functions, under names that the class's own `close()` does not shadow.
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

extension CaptureEndpoint {
    /// The IP address and port of `address`; 127.0.0.`host`:`port` when there is none (a Unix
    /// socket, or an address the channel did not give).
    init(_ address: SocketAddress?, default host: UInt8, port: UInt16) {
        switch address {
        case let .v4(v4)?:
            var raw = v4.address.sin_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(address?.port ?? 0))
        case let .v6(v6)?:
            var raw = v6.address.sin6_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(address?.port ?? 0))
        default:
            self.init(address: [127, 0, 0, host], port: port)
        }
    }
}
