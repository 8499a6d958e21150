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
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = try Table.requestBody(message, layout: requestLayout, extras: extras)
        let (body, response) = try await session.data(for: request)
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw HTTPStatusError(status: http.statusCode, body: String(decoding: body.prefix(512), as: UTF8.self))
        }
        return try Table.decodeReply(to: M.self, body: body)
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
