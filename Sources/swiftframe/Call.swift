#if Transport
import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftFrame
import SwiftFrameGenerator
import SwiftFrameNIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `swiftframe call`: sends one request to a server and prints the typed reply.
struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a request to a server and print the typed reply.",
        discussion: """
            The request is a message of the command table, given by name and in protobuf text \
            format; the reply is printed in text format, envelopes unwrapped. Frames that \
            answer no request (pushes) are printed as they come.

              swiftframe call --proto game.proto --host 127.0.0.1 --port 9000 Test_Req 'param1: "hi" param2: 1'
              swiftframe call --proto game.proto --http http://127.0.0.1:8080/ --http-layout game-http-request \\
                  --extra playerId=7 --extra sessionId=9 Test_Req 'param1: "web"'

            A reply whose message carries the response of the request in a bytes field (the IM \
            system's CommonRespon.respon) shows that field as the request's own response \
            (login_response for a login).

            --tls speaks TLS on the long connection: the server's chain must lead to the \
            system's roots or to --ca-file, its certificate must be for --server-name (default: \
            --host), and with --pin its key must be one of the pins. --http takes an https:// \
            URL as it is (URLSession checks it against the system's roots).

              swiftframe call --proto game.proto --host 10.0.0.5 --port 9443 --tls \\
                  --ca-file ca.pem --server-name game.example.com --pin sha256/BASE64 \\
                  Test_Req 'param1: "hi"'

            Exit status: 0 a reply, 1 an error reply (the table's error command), 2 a transport \
            failure, a TLS refusal (untrusted chain, wrong name, pin mismatch) or no reply in \
            time, 64 a usage error.
            """
    )

    @OptionGroup var protocolOptions: ProtocolOptions

    @Option(name: .long, help: "A preset or a layout file (default: the command table's layout).")
    var layout: String?

    @Option(name: .long, help: "The server's host, for a long connection.")
    var host: String?

    @Option(name: .long, help: "The server's TCP port.")
    var port: Int?

    @Option(name: .long, help: "Post the request to this URL instead (the HTTP short connection).")
    var http: String?

    @Option(name: .customLong("http-layout"), help: "The layout of the HTTP request body (default: the table's).")
    var httpLayout: String?

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp(
            "A header field of the request: NAME=VALUE, for the layout's extra fields (repeatable).",
            valueName: "name=value"))
    var extra: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A request sent first, on the same connection: 'MESSAGE TEXT' (a login).", valueName: "request"))
    var login: String?

    @Option(name: .long, help: "Seconds to wait for each reply.")
    var timeout: Double = 10

    @Option(name: .long, help: "After the reply, print pushes for this many seconds.")
    var watch: Double = 0

    @OptionGroup(title: "TLS (the long connection)") var tls: CallTLSOptions

    @Argument(
        help:
            "The request: a message (`Test_Req`, or `game.Test_Req`; one an envelope holds is wrapped in it), or a command (`CMD_SYSTEM_LOGOUT`, or its id)."
    )
    var message: String

    @Argument(help: "The request in protobuf text format.")
    var text: String = ""

    func validate() throws {
        guard !protocolOptions.isEmpty else {
            throw ValidationError("give the .proto files (--proto) or --descriptor-set")
        }
        guard (http == nil) != (host == nil || port == nil) else {
            throw ValidationError("give --host and --port for a long connection, or --http URL")
        }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1 through 65535") }
        guard timeout > 0, watch >= 0 else {
            throw ValidationError("--timeout must be positive and --watch not negative")
        }
        _ = try extras()
        try tls.check(http: http != nil)
    }

    func run() async throws {
        try await reportingFailures {
            let loaded = try protocolOptions.load()
            let session = try CallSession(
                loaded: loaded, layout: layout.map(layoutNamed) ?? loaded.layout(),
                extras: try extras(), timeout: .milliseconds(Int64(timeout * 1000)))
            var requests = [try session.request(message, text)]
            if let login {
                let parts = login.split(separator: " ", maxSplits: 1).map(String.init)
                guard let name = parts.first else {
                    throw ToolFailure(status: .usage, message: "--login: give 'MESSAGE TEXT'")
                }
                requests.insert(try session.request(name, parts.count > 1 ? parts[1] : ""), at: 0)
            }
            if let http {
                try await session.post(requests, to: http, layout: httpLayout.map(layoutNamed))
            } else if let host, let port {
                try await session.exchange(
                    requests, host: host, port: port, watch: .milliseconds(Int64(watch * 1000)),
                    tls: try tls.settings(host: host))
            }
        }
    }

    private func extras() throws -> [String: UInt64] {
        var extras: [String: UInt64] = [:]
        for item in extra {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = UInt64(parts[1]) else {
                throw ValidationError("--extra \(item): expected NAME=NUMBER")
            }
            extras[String(parts[0])] = value
        }
        return extras
    }
}

/// One run of `swiftframe call`: the requests, the connection, and what is printed.
struct CallSession {
    struct Request {
        let command: ProtocolDescription.Command
        let message: String
        let payload: [UInt8]
    }

    let table: ProtocolDescription.Table
    let layout: FrameLayout
    let extras: [String: UInt64]
    let timeout: TimeAmount
    let payloads: PayloadPrinter

    init(loaded: LoadedProtocol, layout: FrameLayout, extras: [String: UInt64], timeout: TimeAmount) throws {
        payloads = try PayloadPrinter(loaded, layout: layout)
        guard let table = payloads.table else {
            throw ToolFailure(status: .usage, message: "the .proto files declare no command table")
        }
        self.table = table
        self.layout = layout
        self.extras = extras
        self.timeout = timeout
    }

    /// The request `name` from `text`: a request message of the table (by its name or full
    /// name; a message an envelope holds is put in its envelopes), or a command by name or id
    /// (a command with no message takes no text).
    func request(_ name: String, _ text: String) throws -> Request {
        func named(_ message: String) -> Bool { message == name || message.hasSuffix("." + name) }
        let isRequest = { (message: String) in table.commands.contains { $0.request == message } }
        if let command = table.commands.first(where: { $0.request.map(named) ?? false }), let message = command.request
        {
            return Request(command: command, message: message, payload: try encode(text, as: message))
        }
        if let inner = payloads.schemas.messageNames.first(where: named) {
            let bytes = try encode(text, as: inner)
            if let (outer, wrapped) = try payloads.wrapped(inner, bytes, until: isRequest),
                let command = table.commands.first(where: { $0.request == outer })
            {
                return Request(command: command, message: "\(outer) > ... > \(inner)", payload: wrapped)
            }
        }
        if let command = table.commands.first(where: { $0.name == name || String($0.id) == name }) {
            guard let message = command.request else {
                guard text.isEmpty else {
                    throw ToolFailure(status: .usage, message: "\(command.name) carries no message: give no text")
                }
                return Request(command: command, message: "(no body)", payload: [])
            }
            return Request(command: command, message: message, payload: try encode(text, as: message))
        }
        let known = table.commands.compactMap(\.request).sorted().joined(separator: ", ")
        throw ToolFailure(
            status: .usage, message: "\(name) is neither a request nor a command of \(table.file) (requests: \(known))")
    }

    private func encode(_ text: String, as message: String) throws -> [UInt8] {
        do {
            return try payloads.encode(text, as: message)
        } catch {
            throw ToolFailure(status: .usage, message: "\(message): \(error)")
        }
    }

    // MARK: Long connection

    /// Sends each request in turn on one connection and prints its reply; then pushes for `watch`.
    func exchange(_ requests: [Request], host: String, port: Int, watch: TimeAmount, tls: CallTLSOptions.Settings?)
        async throws
    {
        let group = MultiThreadedEventLoopGroup.singleton
        let channel: NIOAsyncChannel<FrameSlice, OutboundFrame>
        let handshake: EventLoopFuture<Void>?
        let timeout = timeout
        do {
            (channel, handshake) = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handshake = try tls?.add(to: channel, timeout: timeout)
                        try channel.pipeline.syncOperations.addHandlers(
                            FrameSliceHandler(layout: layout),
                            MessageToByteHandler(FrameEncoderHandler(layout: layout)))
                        return (
                            try NIOAsyncChannel<FrameSlice, OutboundFrame>(wrappingChannelSynchronously: channel),
                            handshake
                        )
                    }
                }
        } catch {
            throw ToolFailure(status: .transport, message: "cannot connect to \(host):\(port): \(error)")
        }
        let connection = channel.channel
        try await channel.executeThenClose { inbound, outbound in
            // TLS: nothing is sent before the handshake is done and the server accepted.
            if let handshake {
                do {
                    try await handshake.get()
                } catch {
                    throw ToolFailure(status: .transport, message: "TLS with \(host):\(port) failed: \(error)")
                }
            }
            var frames = inbound.makeAsyncIterator()
            var sequence: UInt64 = 0
            var failed = false
            for request in requests {
                sequence += 1
                let header = layout.header(
                    command: request.command.id,
                    sequence: layout.sequenceField != nil ? sequence : nil,
                    extras: extras)
                try await outbound.write(OutboundFrame(header: header, payload: request.payload))
                print("sent \(request.command.name) \(request.message)")
                // Every wait has a deadline: when it passes, the connection is closed, which ends
                // the frames.
                let deadline = Deadline(closing: connection, after: timeout)
                defer { deadline.cancel() }
                while true {
                    guard let frame = try await nextFrame(&frames) else {
                        throw ToolFailure(
                            status: .transport,
                            message: deadline.passed
                                ? "no reply to \(request.command.name) within \(timeout.seconds) s"
                                : "the server closed the connection before replying to \(request.command.name)")
                    }
                    let command = layout.commandID(of: frame)
                    let isReply =
                        frame.header.sequence.map { $0 == sequence }
                        ?? (command == request.command.id || command == table.errorCommand)
                    guard isReply else {
                        print(payloads.describe(frame, label: "push"))
                        continue
                    }
                    let isError = command == table.errorCommand
                    print(
                        payloads.describe(
                            frame, label: isError ? "error" : "reply",
                            answering: payloads.requestPath(command: request.command.id, payload: request.payload)))
                    failed = isError
                    break
                }
                if failed { break }
            }
            if watch > .zero && !failed {
                let deadline = Deadline(closing: connection, after: watch)
                defer { deadline.cancel() }
                while let frame = try await nextFrame(&frames) {
                    print(payloads.describe(frame, label: "push"))
                }
            }
            if failed { throw ToolFailure(status: .failed, message: "the server answered with an error") }
        }
    }

    /// The next frame, copied out of the read; nil when the connection has ended.
    private func nextFrame(_ frames: inout NIOAsyncChannelInboundStream<FrameSlice>.AsyncIterator) async throws
        -> Frame?
    {
        do {
            return try await frames.next()?.copy()
        } catch let error as FrameError {
            throw ToolFailure(status: .transport, message: "bad frame from the server: \(error)")
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            return nil
        }
    }

    // MARK: HTTP short connection

    /// Posts each request; prints the reply and the frames after it.
    func post(_ requests: [Request], to url: String, layout requestLayout: FrameLayout?) async throws {
        guard let endpoint = URL(string: url) else {
            throw ToolFailure(status: .usage, message: "--http: '\(url)' is no URL")
        }
        let bodyLayout = requestLayout ?? layout
        for request in requests {
            let body: [UInt8]
            do {
                body = try FrameEncoder(layout: bodyLayout).encode(
                    header: bodyLayout.header(command: request.command.id, extras: extras), payload: request.payload)
            } catch {
                throw ToolFailure(status: .usage, message: "the request does not fit the layout: \(error)")
            }
            var post = URLRequest(url: endpoint, timeoutInterval: Double(timeout.nanoseconds) / 1e9)
            post.httpMethod = "POST"
            post.httpBody = Data(body)
            print("sent \(request.command.name) \(request.message)")
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await URLSession.shared.data(for: post)
            } catch {
                throw ToolFailure(status: .transport, message: "POST \(url): \(error.localizedDescription)")
            }
            if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                throw ToolFailure(status: .transport, message: "POST \(url): HTTP \(status)")
            }
            let frames: [Frame]
            do {
                frames = try FrameDecoder.decodeAll([UInt8](data), layout: layout)
            } catch {
                throw ToolFailure(status: .transport, message: "the reply body: \(error)")
            }
            guard let first = frames.first else {
                throw ToolFailure(status: .transport, message: "the reply body holds no frame")
            }
            let isError = layout.commandID(of: first) == table.errorCommand
            for (index, frame) in frames.enumerated() {
                let label = index > 0 ? "event" : isError ? "error" : "reply"
                print(
                    payloads.describe(
                        frame, label: label,
                        answering: index > 0
                            ? nil
                            : payloads.requestPath(command: request.command.id, payload: request.payload)))
            }
            if isError { throw ToolFailure(status: .failed, message: "the server answered with an error") }
        }
    }
}

/// `--tls`, `--ca-file`, `--server-name` and `--pin`, as `swiftframe-demo` takes them. TLS is
/// there when the package's `TLS` trait is (it is by default); without it `--tls` is a usage
/// error.
struct CallTLSOptions: ParsableArguments {
    @Flag(help: "Speak TLS on the long connection.")
    var tls = false

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "With --tls: trust only this CA (PEM); default: the system's roots.", valueName: "file"))
    var caFile: String?

    @Option(
        name: .customLong("server-name"),
        help: ArgumentHelp(
            "With --tls: the name the server's certificate must carry, sent as SNI (default: --host).",
            valueName: "name"))
    var serverName: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --tls: a pin of the server's key, sha256/BASE64 (repeatable: the key must be one of them).",
            valueName: "sha256/base64"))
    var pin: [String] = []

    func check(http: Bool) throws {
        if !tls && (caFile != nil || serverName != nil || !pin.isEmpty) {
            throw ValidationError("--ca-file, --server-name and --pin go with --tls")
        }
        if tls && http {
            throw ValidationError("--tls is for --host and --port; for --http give an https:// URL")
        }
        #if !TLS
        if tls { throw ValidationError("this build of swiftframe has no TLS (the package's TLS trait is off)") }
        #endif
    }

    /// The TLS handlers of a run to `host`; nil without --tls. A configuration that does not
    /// load (a CA file that is missing or no PEM, a pin that is no base64 SHA-256) is a usage
    /// error, found before connecting.
    func settings(host: String) throws -> Settings? {
        guard tls else { return nil }
        #if TLS
        let tls = ClientTLS(
            serverName: serverName, trustRoots: caFile.map { .certificates(.file($0)) } ?? .system, pins: pin)
        do {
            return Settings(handlers: try ClientTLSChannelHandlers(tls, host: host))
        } catch {
            throw ToolFailure(status: .usage, message: "--tls: \(error)")
        }
        #else
        return nil
        #endif
    }

    /// The TLS handlers of a run.
    struct Settings: Sendable {
        #if TLS
        let handlers: ClientTLSChannelHandlers
        #endif

        /// Puts the TLS handlers in front of `channel` (in its initializer): the future is the
        /// handshake and the checks of the server.
        func add(to channel: any Channel, timeout: TimeAmount) throws -> EventLoopFuture<Void> {
            #if TLS
            return try handlers.add(to: channel, timeout: .nanoseconds(timeout.nanoseconds))
            #else
            return channel.eventLoop.makeSucceededVoidFuture()
            #endif
        }
    }
}

/// Closes a connection when a wait has gone on too long.
final class Deadline: Sendable {
    private let timer: Scheduled<Void>
    private let fired: NIOLockedValueBox<Bool>

    init(closing channel: any Channel, after delay: TimeAmount) {
        let fired = NIOLockedValueBox(false)
        self.fired = fired
        timer = channel.eventLoop.scheduleTask(in: delay) {
            fired.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
    }

    /// Whether the time ran out.
    var passed: Bool { fired.withLockedValue { $0 } }

    func cancel() { timer.cancel() }
}

extension TimeAmount {
    var seconds: String { String(format: "%.1f", Double(nanoseconds) / 1e9) }
}
#endif
