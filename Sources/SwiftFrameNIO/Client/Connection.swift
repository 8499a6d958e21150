import NIOCore
import SwiftFrame

/// One live connection of a `FrameClient`: what the client's requests go through, and what
/// its `onConnect` hook gets to log in with before any other request is sent.
public struct Connection<Table: CommandTable>: Sendable {
    let channel: any Channel
    let configuration: ClientConfiguration

    /// Sends `message` and waits for its reply (`M.Response`), matched as the configuration's
    /// `Correlation` says. Throws `ErrorReply` when the server answers with the table's error
    /// reply, `FrameClientError.timedOut` after `timeout` (default: the configuration's),
    /// `.connectionLost` at once if the connection drops first, and `CancellationError` if the
    /// calling task is cancelled (its slot is freed, and a late reply is dropped).
    public func request<M: RequestMessage & CommandMessage>(
        _ message: M, timeout: Duration? = nil
    ) async throws -> M.Response where M.Response: CommandMessage {
        let frame = try OutboundFrame(message, layout: Table.layout)
        return try await exchange(frame, replyCommand: M.Response.commandID, timeout: timeout) { frame in
            do throws(WireError) {
                return try M.Response(serializedBytes: frame.payload)
            } catch {
                throw FrameClientError.badReply(command: M.Response.commandID, error)
            }
        }
    }

    /// A request under any command with a raw body, for commands without a typed message (the
    /// IM heartbeat): the reply on `replyCommand` (default: the same command), decoded as the
    /// table decodes what a client receives.
    public func request(
        command: UInt32, payload: [UInt8] = [], replyCommand: UInt32? = nil, timeout: Duration? = nil
    ) async throws -> Table.Inbound {
        let frame = OutboundFrame(header: Table.layout.header(command: command), payload: payload)
        return try await exchange(frame, replyCommand: replyCommand ?? command, timeout: timeout) { frame in
            do throws(WireError) {
                return try Table.decode(frame)
            } catch {
                throw FrameClientError.badReply(command: command, error)
            }
        }
    }

    /// Sends `message` without waiting for a reply (returns once it is written).
    public func send<M: CommandMessage>(_ message: M) async throws {
        try await send(OutboundFrame(message, layout: Table.layout))
    }

    /// Sends a frame under any command with a raw body (an empty one for a bare command).
    public func send(command: UInt32, payload: [UInt8] = []) async throws {
        try await send(OutboundFrame(header: Table.layout.header(command: command), payload: payload))
    }

    /// Drops this connection; a running client connects again at once.
    public func reconnect() {
        channel.triggerUserOutboundEvent(ReconnectRequest(), promise: nil)
    }

    var closeReason: EventLoopFuture<DisconnectReason> {
        get async throws {
            try await channel.eventLoop.submit { [channel] in
                try channel.pipeline.syncOperations.handler(type: ConnectionHandler<Table>.self).closed.futureResult
            }.get()
        }
    }

    private func send(_ frame: OutboundFrame) async throws {
        do {
            try await channel.writeAndFlush(ClientWrite(frame: frame, kind: .send))
        } catch let error as ChannelError {
            throw FrameClientError.connectionLost(.transportError(String(describing: error)))
        }
    }

    private func exchange<Reply: Sendable>(
        _ frame: OutboundFrame, replyCommand: UInt32, timeout: Duration?,
        decode: @escaping @Sendable (Frame) throws -> Reply
    ) async throws -> Reply {
        let timeout = timeout ?? configuration.requestTimeout
        let promise = channel.eventLoop.makePromise(of: Reply.self)
        let token = ObjectIdentifier(promise.futureResult)
        let write = ClientWrite(
            frame: frame,
            kind: .request(
                replyCommand: replyCommand, deadline: .now() + TimeAmount(timeout), timeout: timeout, token: token,
                completion: { result in promise.completeWith(result.flatMap { frame in Result { try decode(frame) } }) }))
        try Task.checkCancellation()
        channel.writeAndFlush(write).whenFailure { error in
            // Not written: the channel closed, the layout cannot carry it, or too many pending.
            promise.fail(error is ChannelError ? FrameClientError.connectionLost(.closedByPeer) : error)
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: { [channel] in
            channel.triggerUserOutboundEvent(CancelRequest(token: token), promise: nil)
            promise.fail(CancellationError())
        }
    }
}
