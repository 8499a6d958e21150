import Foundation
import SwiftFrame

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP short connection on URLSession: each request is one POST whose body is the message
/// framed in the request layout (with its extras, such as the game's `playerId` and
/// `sessionId`), and whose reply body holds the reply and then any event frames.
///
///     let http = HTTPFrameClient<GameCommands>(url: url, requestLayout: .gameHTTPRequest,
///                                              extras: ["playerId": 7, "sessionId": 9])
///     let answer = try await http.post(TestReq(param1: "web", param2: -5))
///     print(answer.reply.result1, answer.events.count)
public struct HTTPFrameClient<Table: CommandTable>: Sendable {
    public var url: URL
    public var requestLayout: FrameLayout
    public var extras: [String: UInt64]
    /// Default 15 s.
    public var timeout: TimeInterval
    public var session: URLSession

    public init(
        url: URL, requestLayout: FrameLayout, extras: [String: UInt64] = [:], timeout: TimeInterval = 15,
        session: URLSession = .shared
    ) {
        self.url = url
        self.requestLayout = requestLayout
        self.extras = extras
        self.timeout = timeout
        self.session = session
    }

    /// Posts `message` and decodes the reply body (`CommandTable.decodeReply`). A status other
    /// than 2xx is `HTTPStatusError`; the table's error reply is `ErrorReply`.
    public func post<M: RequestMessage & CommandMessage>(
        _ message: M
    ) async throws -> ShortReply<Table, M.Response> where M.Response: CommandMessage {
        let body = try await post(
            body: Table.requestBody(message, layout: requestLayout, extras: extras), timeout: timeout)
        return try Table.decodeReply(to: M.self, body: body)
    }

    /// One POST of `body`; the reply's body, or `HTTPStatusError` for a status other than 2xx.
    private func post(body: Data, timeout: TimeInterval) async throws -> Data {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (body, response) = try await session.data(for: request)
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw HTTPStatusError(status: http.statusCode, body: String(decoding: body.prefix(512), as: UTF8.self))
        }
        return body
    }
}

/// The short link of a `FrameClient` (SwiftFrameNIO): its requests that may fall back go out as
/// POSTs here when the long connection is down or too slow.
///
///     configuration.shortLink = HTTPFrameClient<GameCommands>(url: url, requestLayout: .gameHTTPRequest,
///                                                             extras: ["playerId": 7, "sessionId": 9])
extension HTTPFrameClient: ShortLink {
    /// One POST of the request framed in `requestLayout` (with `extras`); the frames of the
    /// reply body in the table's layout. Waits at most `timeout` (or this client's `timeout`,
    /// if shorter) between bytes; the caller bounds the whole exchange.
    public func exchange(command: UInt32, payload: [UInt8], timeout: Duration) async throws -> [Frame] {
        let header = requestLayout.header(command: command, extras: extras)
        let request = try FrameEncoder(layout: requestLayout).encode(header: header, payload: payload)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let body = try await post(body: Data(request), timeout: min(self.timeout, max(seconds, 0.001)))
        return try FrameDecoder.decodeAll([UInt8](body), layout: Table.layout)
    }
}

/// The server answered with a status other than 2xx.
public struct HTTPStatusError: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    /// The start of the body, as text.
    public let body: String

    public var description: String { "HTTP \(status): \(body)" }
}

extension CommandTable {
    /// `requestBody(_:layout:extras:)` as `Data`.
    public static func requestBody<M: CommandMessage>(
        _ message: M, layout: FrameLayout, extras: [String: UInt64] = [:]
    ) throws(FrameError) -> Data {
        Data(try requestBody(message, layout: layout, extras: extras) as [UInt8])
    }

    /// `decodeReply(to:body:)` for a `Data` body.
    public static func decodeReply<M: RequestMessage>(
        to request: M.Type, body: Data
    ) throws -> ShortReply<Self, M.Response> where M.Response: CommandMessage {
        try decodeReply(to: request, body: [UInt8](body))
    }
}
