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

            Exit status: 0 a reply, 1 an error reply (the table's error command), 2 a transport \
            failure or no reply in time, 64 a usage error.
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

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
        "A header field of the request: NAME=VALUE, for the layout's extra fields (repeatable).", valueName: "name=value"))
    var extra: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "A request sent first, on the same connection: 'MESSAGE TEXT' (a login).", valueName: "request"))
    var login: String?

    @Option(name: .long, help: "Seconds to wait for each reply.")
    var timeout: Double = 10

    @Option(name: .long, help: "After the reply, print pushes for this many seconds.")
    var watch: Double = 0

    @Argument(help: "The request: a message (`Test_Req`, or `game.Test_Req`; one an envelope holds is wrapped in it), or a command (`CMD_SYSTEM_LOGOUT`, or its id).")
    var message: String

    @Argument(help: "The request in protobuf text format.")
    var text: String = ""

    func validate() throws {
        guard !protocolOptions.isEmpty else { throw ValidationError("give the .proto files (--proto) or --descriptor-set") }
        guard (http == nil) != (host == nil || port == nil) else {
            throw ValidationError("give --host and --port for a long connection, or --http URL")
        }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1 through 65535") }
        guard timeout > 0, watch >= 0 else { throw ValidationError("--timeout must be positive and --watch not negative") }
        _ = try extras()
    }

    func run() async throws {
        try await reportingFailures {
            let loaded = try protocolOptions.load()
            let session = try CallSession(loaded: loaded, layout: layout.map(layoutNamed) ?? loaded.layout(),
                                          extras: try extras(), timeout: .milliseconds(Int64(timeout * 1000)))
            var requests = [try session.request(message, text)]
            if let login {
                let parts = login.split(separator: " ", maxSplits: 1).map(String.init)
                guard let name = parts.first else { throw ToolFailure(status: .usage, message: "--login: give 'MESSAGE TEXT'") }
                requests.insert(try session.request(name, parts.count > 1 ? parts[1] : ""), at: 0)
            }
            if let http {
                try await session.post(requests, to: http, layout: httpLayout.map(layoutNamed))
            } else if let host, let port {
                try await session.exchange(requests, host: host, port: port, watch: .milliseconds(Int64(watch * 1000)))
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
        if let command = table.commands.first(where: { $0.request.map(named) ?? false }), let message = command.request {
            return Request(command: command, message: message, payload: try encode(text, as: message))
        }
        if let inner = payloads.schemas.messageNames.first(where: named) {
            let bytes = try encode(text, as: inner)
            if let (outer, wrapped) = try payloads.wrapped(inner, bytes, until: isRequest),
               let command = table.commands.first(where: { $0.request == outer }) {
                return Request(command: command, message: "\(outer) > ... > \(inner)", payload: wrapped)
            }
        }
        if let command = table.commands.first(where: { $0.name == name || String($0.id) == name }) {
            guard let message = command.request else {
                guard text.isEmpty else { throw ToolFailure(status: .usage, message: "\(command.name) carries no message: give no text") }
                return Request(command: command, message: "(no body)", payload: [])
            }
            return Request(command: command, message: message, payload: try encode(text, as: message))
        }
        let known = table.commands.compactMap(\.request).sorted().joined(separator: ", ")
        throw ToolFailure(status: .usage, message: "\(name) is neither a request nor a command of \(table.file) (requests: \(known))")
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
    func exchange(_ requests: [Request], host: String, port: Int, watch: TimeAmount) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let channel: NIOAsyncChannel<Frame, OutboundFrame>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            ByteToMessageHandler(FrameDecoderHandler(layout: layout)),
                            MessageToByteHandler(FrameEncoderHandler(layout: layout)))
                        return try NIOAsyncChannel<Frame, OutboundFrame>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw ToolFailure(status: .transport, message: "cannot connect to \(host):\(port): \(error)")
        }
        let connection = channel.channel
        try await channel.executeThenClose { inbound, outbound in
            var frames = inbound.makeAsyncIterator()
            var sequence: UInt64 = 0
            var failed = false
            for request in requests {
                sequence += 1
                let header = layout.header(command: request.command.id,
                                           sequence: layout.fields.contains { $0.kind == .sequence } ? sequence : nil,
                                           extras: extras)
                try await outbound.write(OutboundFrame(header: header, payload: request.payload))
                print("sent \(request.command.name) \(request.message)")
                // Every wait has a deadline: when it passes, the connection is closed, which ends
                // the frames.
                let deadline = Deadline(closing: connection, after: timeout)
                defer { deadline.cancel() }
                while true {
                    guard let frame = try await nextFrame(&frames) else {
                        throw ToolFailure(status: .transport, message: deadline.passed
                            ? "no reply to \(request.command.name) within \(timeout.seconds) s"
                            : "the server closed the connection before replying to \(request.command.name)")
                    }
                    let command = layout.commandID(of: frame)
                    let isReply = frame.header.sequence.map { $0 == sequence }
                        ?? (command == request.command.id || command == table.errorCommand)
                    guard isReply else {
                        print(payloads.describe(frame, label: "push"))
                        continue
                    }
                    let isError = command == table.errorCommand
                    print(payloads.describe(frame, label: isError ? "error" : "reply",
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

    /// The next frame; nil when the connection has ended.
    private func nextFrame(_ frames: inout NIOAsyncChannelInboundStream<Frame>.AsyncIterator) async throws -> Frame? {
        do {
            return try await frames.next()
        } catch let error as FrameError {
            throw ToolFailure(status: .transport, message: "bad frame from the server: \(error)")
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            return nil
        }
    }

    // MARK: HTTP short connection

    /// Posts each request; prints the reply and the frames after it.
    func post(_ requests: [Request], to url: String, layout requestLayout: FrameLayout?) async throws {
        guard let endpoint = URL(string: url) else { throw ToolFailure(status: .usage, message: "--http: '\(url)' is no URL") }
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
            guard let first = frames.first else { throw ToolFailure(status: .transport, message: "the reply body holds no frame") }
            let isError = layout.commandID(of: first) == table.errorCommand
            for (index, frame) in frames.enumerated() {
                let label = index > 0 ? "event" : isError ? "error" : "reply"
                print(payloads.describe(frame, label: label, answering: index > 0 ? nil
                    : payloads.requestPath(command: request.command.id, payload: request.payload)))
            }
            if isError { throw ToolFailure(status: .failed, message: "the server answered with an error") }
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
