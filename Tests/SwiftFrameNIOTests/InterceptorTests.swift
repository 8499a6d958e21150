// Interceptors end to end over loopback sockets: a token stamped on every request and checked
// by the server, bodies compressed and encrypted by header flag on both sides, frame logging,
// and a capture that `swiftframe inspect` reads back.

#if Encryption
import Crypto
#endif
import Foundation
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import TestSupport
import Testing

/// A table of raw frames in the IM header with a flags byte, for the body transforms.
enum FlagCommands: CommandTable {
    struct Raw: Sendable, Hashable {
        var command: UInt32
        var payload: [UInt8]
    }

    static let layout = FrameLayout(checkedDescription: "magic:u8=0x81 seq:u32 type:u8 extra.flags:u8 length:u16:body")

    static func decode(_ frame: Frame) throws(WireError) -> Raw {
        Raw(command: commandID(of: frame), payload: Array(frame.payload))
    }

    static func decodeRequest(_ frame: Frame) throws(WireError) -> Raw {
        try decode(frame)
    }
}

/// Records what passes it (put last in a chain: the frames as on the wire).
final class Spy: FrameInterceptor {
    let seen = NIOLockedValueBox<[(direction: InterceptedFrame.Direction, flags: UInt64, size: Int)]>([])

    func intercept(_ frame: inout InterceptedFrame) throws {
        let entry = (frame.direction, frame.header.extras["flags"] ?? 0, frame.payload.count)
        seen.withLockedValue { $0.append(entry) }
    }
}

/// A server-side check: requests must carry field 15, a string token, which is recorded.
final class TokenCheck: FrameInterceptor {
    struct Missing: Error {}
    let tokens = NIOLockedValueBox<[String]>([])

    func intercept(_ frame: inout InterceptedFrame) throws {
        guard frame.direction == .inbound else { return }
        let token = try frame.payload.withUnsafeBytes { bytes -> String? in
            var reader = ProtoReader(buffer: bytes)
            var found: String?
            while reader.hasRemaining {
                let tag = try reader.readTag()
                if tag == Wire.tag(fieldNumber: 15, wireType: .lengthDelimited) {
                    found = try reader.readString()
                } else {
                    try reader.skipValue(tag: tag)
                }
            }
            return found
        }
        guard let token else { throw Missing() }
        tokens.withLockedValue { $0.append(token) }
    }
}

/// Collects log lines.
struct CollectingLogHandler: LogHandler {
    let lines: NIOLockedValueBox<[String]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLockedValue { $0.append("\(event.level) \(event.message)") }
    }
}

@Suite(.timeLimit(.minutes(1))) struct InterceptorTests {
    @Test func aTokenIsStampedOnEveryRequestAndTheServerRefusesFramesWithout() async throws {
        let check = TokenCheck()
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.interceptors = [check]
        let server = FrameServer<GameCommands>(port: 0, configuration: serverConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            group.addTask { try await server.run(handler: gameHandler) }
            let port = try await server.port()
            var configuration = ClientConfiguration()
            let token = NIOLockedValueBox("tok-1")
            configuration.interceptors = [BodyFieldStamp(field: 15) { token.withLockedValue { $0 } }]
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                let first = try await client.request(TestReq(param1: "a"))
                token.withLockedValue { $0 = "tok-2" }  // read for each frame
                let second = try await client.request(TestReq(param1: "b"))
                #expect([first.result1, second.result1] == ["echo:a", "echo:b"])
            }
            #expect(check.tokens.withLockedValue { $0 } == ["tok-1", "tok-2"])
            // Without the stamp the server closes the connection: the request fails at once.
            var plain = ClientConfiguration()
            plain.reconnect.maxAttempts = 0
            let error = await #expect(throws: FrameClientError.self) {
                try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: plain) {
                    client in
                    _ = try await client.request(TestReq(param1: "no token"))
                }
            }
            guard case .connectionLost = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            group.cancelAll()
        }
    }

    #if Encryption  // AESGCMBody and SymmetricKey come with the Encryption trait (swift-crypto)
    static func transforms(key: SymmetricKey) -> [any FrameInterceptor] {
        [
            FlaggedBody(field: "flags", bit: 0x01, codec: ZlibBody(), minimumSize: 64),
            FlaggedBody(field: "flags", bit: 0x02, codec: AESGCMBody(key: key)),
        ]
    }

    /// With the server's handler in a task and in the event loop's read (`runOnEventLoop`).
    @Test(arguments: [false, true]) func bodiesAreCompressedAndEncryptedByFlagOnBothSides(inTheRead: Bool) async throws
    {
        let key = SymmetricKey(size: .bits256)
        let serverSpy = Spy()
        let clientSpy = Spy()
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.interceptors = Self.transforms(key: key) + [serverSpy]
        let server = FrameServer<FlagCommands>(port: 0, configuration: serverConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            // Echoes each body back, reversed.
            group.addTask {
                try await serve(server, inTheRead: inTheRead) { request, _ in
                    ServerFrame(command: request.command, payload: request.payload.reversed())
                }
            }
            var configuration = ClientConfiguration()
            configuration.interceptors = Self.transforms(key: key) + [clientSpy]
            let big = Array(String(repeating: "the same words again and again, ", count: 128).utf8)  // 4 KiB
            let small = Array("hi".utf8)
            try await withFrameClient(
                FlagCommands.self, host: "127.0.0.1", port: try await server.port(), configuration: configuration
            ) { client in
                let bigReply = try await client.request(command: 2, payload: big)
                let smallReply = try await client.request(command: 2, payload: small)
                #expect(bigReply == .init(command: 2, payload: big.reversed()))
                #expect(smallReply == .init(command: 2, payload: small.reversed()))
            }
            group.cancelAll()
        }
        // On the wire: the big body compressed then sealed (both bits), the small one sealed only.
        let sent = clientSpy.seen.withLockedValue { $0 }.filter { $0.direction == .outbound }
        #expect(sent.map(\.flags) == [3, 2])
        #expect(sent.first.map { $0.size < 200 } == true, "\(sent)")
        #expect(sent.last?.size == 2 + 12 + 16, "nonce and tag around the body")
        let received = serverSpy.seen.withLockedValue { $0 }.filter { $0.direction == .inbound }
        #expect(received.map(\.flags) == [3, 2])
    }

    @Test(arguments: [false, true]) func aBodyUnderAnotherKeyClosesTheConnection(inTheRead: Bool) async throws {
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.interceptors = Self.transforms(key: SymmetricKey(size: .bits128))
        let server = FrameServer<FlagCommands>(port: 0, configuration: serverConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            group.addTask {
                try await serve(server, inTheRead: inTheRead) { request, _ in
                    ServerFrame(command: request.command, payload: request.payload)
                }
            }
            var configuration = ClientConfiguration()
            configuration.interceptors = Self.transforms(key: SymmetricKey(size: .bits128))
            configuration.reconnect.maxAttempts = 0
            let port = try await server.port()
            let error = await #expect(throws: FrameClientError.self) {
                try await withFrameClient(
                    FlagCommands.self, host: "127.0.0.1", port: port, configuration: configuration
                ) { client in
                    _ = try await client.request(command: 2, payload: [1, 2, 3])
                }
            }
            guard case .connectionLost = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            group.cancelAll()
        }
    }
    #endif

    @Test func decodingStopsAtTheLayoutsLargestFrame() throws {
        let bomb = try ZlibBody().encode([UInt8](repeating: 0, count: 1 << 20))  // 1 MiB of zeros: about 1 KiB
        #expect(bomb.count < 2048)
        #expect(throws: (any Swift.Error).self) { _ = try ZlibBody().decode(bomb, limit: 65_535) }
        #expect(try ZlibBody().decode(bomb, limit: 1 << 20).count == 1 << 20)
    }

    @Test func framesAreLoggedOneLineEach() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "frames") { _ in CollectingLogHandler(lines: lines) }
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            var configuration = ClientConfiguration()
            configuration.interceptors = [FrameLogging(logger: logger)]
            configuration.heartbeat = nil
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                _ = try await client.request(TestReq(param1: "logged"))
            }
        }
        let bodySize = try TestReq(param1: "logged").serializedBytes().count
        #expect(
            lines.withLockedValue { $0 } == [
                "info out CMD_TEST (1) bytes=\(bodySize)", "info in CMD_TEST (1) bytes=\(bodySize + 5)",
            ])
    }

    /// Interceptors are called only for the directions they name: a stamp for frames sent, a
    /// logger whose level drops its lines for none.
    @Test func interceptorsSeeOnlyTheDirectionsTheyName() async throws {
        final class OneWay: FrameInterceptor {
            let directions: InterceptedFrame.Directions
            let seen = NIOLockedValueBox<[InterceptedFrame.Direction]>([])

            init(_ directions: InterceptedFrame.Directions) {
                self.directions = directions
            }

            func intercept(_ frame: inout InterceptedFrame) throws {
                seen.withLockedValue { $0.append(frame.direction) }
            }
        }
        let sent = OneWay(.outbound), received = OneWay(.inbound), neither = OneWay([]), both = Spy()
        var quiet = Logger(label: "frames") { _ in CollectingLogHandler(lines: NIOLockedValueBox([])) }
        quiet.logLevel = .warning
        #expect(FrameLogging(logger: quiet).directions.isEmpty)
        #expect(FrameLogging(logger: quiet, level: .error).directions == .both)
        #expect(BodyFieldStamp(field: 15) { "t" }.directions == .outbound)
        try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            var configuration = ClientConfiguration()
            configuration.interceptors = [sent, received, neither, both]
            configuration.heartbeat = nil
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                _ = try await client.request(TestReq(param1: "a"))
                _ = try await client.request(TestReq(param1: "b"))
            }
        }
        #expect(sent.seen.withLockedValue { $0 } == [.outbound, .outbound])
        #expect(received.seen.withLockedValue { $0 } == [.inbound, .inbound])
        #expect(neither.seen.withLockedValue { $0 }.isEmpty)
        #expect(both.seen.withLockedValue { $0.map(\.direction) } == [.outbound, .inbound, .outbound, .inbound])
    }

    @Test func aCaptureIsReadBackByInspect() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).pcap")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capture = try FrameCapture(path: path)
        let port = try await withServer(GameCommands.self, handler: gameHandler) { _, port in
            var configuration = ClientConfiguration()
            configuration.interceptors = [capture]
            configuration.heartbeat = nil
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                _ = try await client.request(TestReq(param1: "one"))
                _ = try await client.request(TestReq(param1: "two"))
            }
            return port
        }
        capture.close()
        let (status, output) = try await offThePool {
            try Peer.run(
                [Repository.builtExecutable("swiftframe"), "inspect", "--layout", "game-tcp", path], seconds: 30)
        }
        let lines = output.split(separator: "\n").map(String.init)
        #expect(status == 0, "\(output)")
        #expect(lines.count == 4, "\(output)")
        // Requests from the client's port to the server's, replies back, each cut by its own size.
        let toServer = lines.filter { $0.contains("to=127.0.0.1:\(port) ") }
        let fromServer = lines.filter { $0.contains("from=127.0.0.1:\(port) ") }
        #expect(toServer.count == 2 && fromServer.count == 2, "\(output)")
        #expect(lines.allSatisfy { $0.hasPrefix("frame time=") && $0.contains(" cmd=1 ") }, "\(output)")
        #expect(
            toServer.last?.contains("offset=\(8 + 4 + (try TestReq(param1: "one").serializedBytes().count))") == true,
            "\(output)")
    }
}

@Suite(.timeLimit(.minutes(1))) struct MetricsTests {
    @Test func requestsRepliesErrorsLatencyBytesAndReconnectsAreCounted() async throws {
        let metrics = TestMetrics()
        try await withServer(
            GameCommands.self,
            handler: { request, context in
                if case let .testReq(request) = request, request.param1 == "slow" {
                    try await Task.sleep(for: .milliseconds(400))
                }
                if case let .testReq(request) = request, request.param1 == "pushes" {
                    for serial in 1...3 {
                        try await context.push(ServerFrame(NoticeNtf(text: "n", serial: Int64(serial))))
                    }
                }
                return try await gameHandler(request, context)
            }
        ) { _, port in
            var configuration = quickReconnect()
            configuration.metrics = FrameMetrics(factory: metrics, dimensions: [("server", "game")])
            configuration.heartbeat = nil
            configuration.pushBufferSize = 1
            try await withFrameClient(GameCommands.self, host: "127.0.0.1", port: port, configuration: configuration) {
                client in
                let stalled = client.pushes  // takes one push, drops two
                _ = try await client.request(TestReq(param1: "a"))
                _ = try await client.request(TestReq(param1: "pushes"))
                await #expect(throws: ErrorReply<GameCommands>.self) {
                    _ = try await client.request(command: GameCommands.ID.systemLogout.rawValue)
                }
                await #expect(throws: FrameClientError.self) {
                    _ = try await client.request(TestReq(param1: "slow"), timeout: .milliseconds(100))
                }
                client.reconnectNow()
                _ = try await client.request(TestReq(param1: "b"))
                _ = stalled
            }
        }
        let server = ("server", "game")
        let test = [server, ("command", "CMD_TEST")]
        #expect(metrics.counterTotal(label: "swiftframe_client_requests_total", dimensions: test) == 4)
        #expect(metrics.counterTotal(label: "swiftframe_client_replies_total", dimensions: test) == 3)
        #expect(
            metrics.counterTotal(label: "swiftframe_client_errors_total", dimensions: test + [("kind", "timed_out")])
                == 1)
        #expect(
            metrics.counterTotal(
                label: "swiftframe_client_errors_total",
                dimensions: [server, ("command", "CMD_SYSTEM_LOGOUT"), ("kind", "error_reply")]) == 1)
        let durations = try metrics.expectTimer("swiftframe_client_request_duration", test).values
        #expect(durations.count == 3 && durations.allSatisfy { $0 > 0 && $0 < 5_000_000_000 })
        #expect(try metrics.expectCounter("swiftframe_client_reconnects_total", [server]).totalValue == 1)
        #expect(try metrics.expectCounter("swiftframe_client_connects_total", [server]).totalValue == 2)
        #expect(try metrics.expectCounter("swiftframe_client_pushes_dropped_total", [server]).totalValue == 2)
        #expect(try metrics.expectCounter("swiftframe_client_bytes_out_total", [server]).totalValue > 4 * 12)
        #expect(try metrics.expectCounter("swiftframe_client_bytes_in_total", [server]).totalValue > 4 * 12)
        // Every request left the pending count: 5 in, 3 answered, 1 error reply, 1 timed out.
        let pending = try metrics.expectMeter("swiftframe_client_pending_requests", [server]).values
        #expect(pending.last == 0 && pending.max() == 1, "\(pending)")
    }
}
