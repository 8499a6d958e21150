import SwiftFrame

/// Why a connection ended.
public enum DisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// The peer closed the connection between frames.
    case closedByPeer
    /// `attempts` heartbeats in a row got no answer in time.
    case heartbeatTimeout(attempts: Int)
    /// The peer sent bytes that are no frame of the layout (bad magic, absurd length, unknown
    /// type), or closed the connection in the middle of a frame (`.truncated`).
    case badFrame(FrameError)
    /// A socket error.
    case transportError(String)
    /// Connecting did not succeed (refused, unreachable, timed out).
    case connectFailed(String)
    /// The client's `onConnect` hook (its login) failed, so the connection was dropped.
    case handshakeFailed(String)
    /// The client closed it: `run()` was cancelled, or `reconnectNow()` was called.
    case closedByClient

    public var description: String {
        switch self {
        case .closedByPeer: "closed by peer"
        case let .heartbeatTimeout(attempts): "no heartbeat answer after \(attempts) attempts"
        case let .badFrame(error): "bad frame: \(error)"
        case let .transportError(message): "transport error: \(message)"
        case let .connectFailed(message): "connect failed: \(message)"
        case let .handshakeFailed(message): "handshake failed: \(message)"
        case .closedByClient: "closed by client"
        }
    }
}

/// What a client tells about its connection, on `FrameClient.states`.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// The first attempt.
    case connecting
    /// Connected, and the `onConnect` hook (if any) succeeded; requests go out.
    case connected
    case disconnected(DisconnectReason)
    /// Attempt `attempt` after a drop or a failed connect, after waiting `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// `run()` has returned: cancelled, or out of attempts.
    case stopped

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case let .disconnected(reason): "disconnected reason=\(reason)"
        case let .reconnecting(attempt, delay): "reconnecting attempt=\(attempt) delay=\(delay)"
        case .stopped: "stopped"
        }
    }
}

/// Why a request or a send failed (besides `ErrorReply`, a `FrameError` for a message the
/// layout cannot carry, and `CancellationError`).
public enum FrameClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No reply to `command` within `after`.
    case timedOut(command: UInt32, after: Duration)
    /// No connection came up within `after` (the request's deadline).
    case noConnection(after: Duration)
    /// The connection dropped while the request was outstanding (or being written).
    case connectionLost(DisconnectReason)
    /// `limit` requests are outstanding on the connection already.
    case tooManyPending(limit: Int)
    /// The reply arrived but its body is not a valid message of the reply type.
    case badReply(command: UInt32, WireError)
    /// The client is not running: `run()` has not been called yet, or has returned.
    case stopped
    /// `run()` gave up after `attempts` attempts to connect.
    case gaveUp(attempts: Int, last: DisconnectReason)

    public var description: String {
        switch self {
        case let .timedOut(command, after): "no reply to command \(command) within \(after)"
        case let .noConnection(after): "no connection within \(after)"
        case let .connectionLost(reason): "connection lost: \(reason)"
        case let .tooManyPending(limit): "\(limit) requests are outstanding already"
        case let .badReply(command, error): "the reply on command \(command) does not decode: \(error)"
        case .stopped: "the client is not running"
        case let .gaveUp(attempts, last): "gave up after \(attempts) attempts; last: \(last)"
        }
    }
}
