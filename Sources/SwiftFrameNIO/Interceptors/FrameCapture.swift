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

/// Records every frame that passes, with its time and direction, as a pcap file: each frame
/// one TCP segment between the connection's real addresses. `swiftframe inspect` prints it,
/// and Wireshark or tcpdump open it.
///
///     let capture = try FrameCapture(path: "session.pcap")
///     configuration.interceptors = [FrameLogging(logger: logger), capture]   // last: as on the wire
///
/// Put it last in the chain to record frames as they cross the wire, first to record them as
/// the app sees them (before compression or encryption). Writes happen on the event loop, a
/// record per frame: it is a tool for support cases, not for every session.
public final class FrameCapture: FrameInterceptor {
    private struct State {
        var writer = PcapWriter()
        var descriptor: Int32?
    }

    private let state: NIOLockedValueBox<State>
    private let sink: (@Sendable ([UInt8]) -> Void)?

    /// A capture into a new file at `path` (replacing one that is there).
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open \(path)") }
        state = NIOLockedValueBox(State(descriptor: descriptor))
        sink = nil
        try Self.write(PcapWriter.fileHeader, to: descriptor)
    }

    /// A capture whose bytes go to `sink`: the file header first, then a record per frame.
    public init(sink: @escaping @Sendable ([UInt8]) -> Void) {
        state = NIOLockedValueBox(State())
        self.sink = sink
        sink(PcapWriter.fileHeader)
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
        let local = CaptureEndpoint(frame.connection.local, default: 1)
        let remote = CaptureEndpoint(frame.connection.remote, default: 2)
        let (from, to) = frame.direction == .outbound ? (local, remote) : (remote, local)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        try state.withLockedValue { state in
            guard sink != nil || state.descriptor != nil else { return }
            let records = state.writer.records(
                seconds: UInt32(truncatingIfNeeded: now.tv_sec), microseconds: UInt32(now.tv_nsec / 1000),
                from: from, to: to, payload: bytes)
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
                let written = SwiftFrameNIO.writeDescriptor(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
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
private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, bytes, count) }

extension CaptureEndpoint {
    /// The IP address and port of `address`; 127.0.0.`host`:0 when there is none (a Unix
    /// socket, or an address the channel did not give).
    init(_ address: SocketAddress?, default host: UInt8) {
        switch address {
        case let .v4(v4)?:
            var raw = v4.address.sin_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(address?.port ?? 0))
        case let .v6(v6)?:
            var raw = v6.address.sin6_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(address?.port ?? 0))
        default:
            self.init(address: [127, 0, 0, host], port: 0)
        }
    }
}
