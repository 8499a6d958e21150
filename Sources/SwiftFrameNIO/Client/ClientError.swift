import NIOCore
import NIOPosix
import SwiftFrame

/// Why a connection ended, or never came up.
public enum DisconnectReason: Sendable, CustomStringConvertible {
    /// The peer closed the connection between frames.
    case closedByPeer
    /// `attempts` heartbeats in a row got no answer in time.
    case heartbeatTimeout(attempts: Int)
    /// The peer sent bytes that are no frame of the layout (bad magic, absurd length, unknown
    /// type), or closed the connection in the middle of a frame (`.truncated`).
    case badFrame(FrameError)
    /// A socket error on an open connection (a reset, a broken pipe).
    case transportError(any Error)
    /// Connecting did not succeed.
    case connectFailed(ConnectFailure)
    /// The client's `onConnect` hook (its login) threw this error, so the connection was
    /// dropped. Wrapped in `FinalFailure` it also ended `run()`.
    case loginFailed(any Error)
    /// The client closed it: `run()` was cancelled, `reconnectNow()` was called, or
    /// `networkChanged()` found no heartbeat to check the connection with.
    case closedByClient
    /// An interceptor refused a frame the peer sent (a body that does not decrypt).
    case rejectedFrame(any Error)

    public var description: String {
        switch self {
        case .closedByPeer: "closed by peer"
        case let .heartbeatTimeout(attempts): "no heartbeat answer after \(attempts) attempts"
        case let .badFrame(error): "bad frame: \(error)"
        case let .transportError(error): "transport error: \(error)"
        case let .connectFailed(failure): "connect failed: \(failure)"
        case let .loginFailed(error): "login failed: \(error)"
        case .closedByClient: "closed by client"
        case let .rejectedFrame(error): "frame refused: \(error)"
        }
    }
}

extension DisconnectReason {
    /// Why an attempt failed, said for `FrameClientError.noConnection`: a connect failure by
    /// itself ("refused", "not TLS: ..."), other reasons as `description` says them.
    var attemptDescription: String {
        switch self {
        case let .connectFailed(.tls(failure)): "\(failure)"
        case let .connectFailed(failure): "connect \(failure)"
        default: description
        }
    }
}

/// Why connecting failed.
public enum ConnectFailure: Error, Sendable, CustomStringConvertible {
    /// Nothing listens at the address (every address the name resolved to refused).
    case refused
    /// No answer within the configuration's `connectTimeout`.
    case timedOut(after: Duration)
    /// The host name did not resolve.
    case unresolved(host: String)
    /// TCP connected but TLS did not come up (`ClientConfiguration.tls`); a final failure
    /// (`TLSFailure.isFinal`) also ends `run()`.
    case tls(TLSFailure)
    /// Anything else: the network is unreachable, no route, the error as the system gave it.
    case other(any Error)

    public var description: String {
        switch self {
        case .refused: "refused"
        case let .timedOut(after): "no answer within \(after)"
        case let .unresolved(host): "\(host) does not resolve"
        case let .tls(failure): "tls: \(failure)"
        case let .other(error): "\(error)"
        }
    }

    /// Names what NIO threw when connecting.
    init(_ error: any Error, timeout: Duration) {
        switch error {
        case let error as ConnectFailure:
            self = error
        case let error as TLSFailure:
            self = .tls(error)
        case ChannelError.connectTimeout:
            self = .timedOut(after: timeout)
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                self = .unresolved(host: error.host)
            } else if !error.connectionErrors.isEmpty,
                error.connectionErrors.allSatisfy({ ($0.error as? IOError)?.errnoCode == ECONNREFUSED })
            {
                self = .refused
            } else if error.connectionErrors.contains(where: { failure in
                if case ChannelError.connectTimeout = failure.error { return true }
                return false
            }) {
                self = .timedOut(after: timeout)
            } else {
                self = .other(error)
            }
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self = .refused
        default:
            self = .other(error)
        }
    }
}

/// What a client tells about its connection, on `FrameClient.states`.
public enum ConnectionState: Sendable, CustomStringConvertible {
    /// The first attempt.
    case connecting
    /// Connected to this endpoint, and the `onConnect` hook (if any) succeeded; requests go out.
    /// (`case .connected` matches it whatever the endpoint.)
    case connected(Endpoint)
    case disconnected(DisconnectReason)
    /// Attempt `attempt` after a drop or a failed connect, after waiting `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// `run()` has ended: with the error it threw (`FrameClientError.gaveUp`, the error in a
    /// `FinalFailure`, or a final `TLSFailure`), or nil when it was cancelled.
    case stopped((any Error)?)

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case let .connected(endpoint): "connected endpoint=\(endpoint)"
        case let .disconnected(reason): "disconnected reason=\(reason)"
        case let .reconnecting(attempt, delay): "reconnecting attempt=\(attempt) delay=\(delay)"
        case let .stopped(error): error.map { "stopped error=\($0)" } ?? "stopped"
        }
    }
}

/// Thrown by an `onConnect` hook for a failure that retrying cannot heal, such as a rejected
/// password: the client does not reconnect, `run()` (or `withFrameClient`) throws `error`,
/// and requests waiting for a connection fail with it.
///
///     guard reply.isSuc else { throw FinalFailure(LoginFailed(reply)) }
public struct FinalFailure: Error, CustomStringConvertible {
    public let error: any Error

    public init(_ error: any Error) {
        self.error = error
    }

    public var description: String { "final: \(error)" }
}

/// Why a request, a send or `run()` failed. Besides these a caller can see `ErrorReply` (the
/// server answered with the table's error command), a `FrameError` (a message the layout
/// cannot carry), `CancellationError`, the error an `onConnect` hook threw in a
/// `FinalFailure`, and a `TLSFailure` that stopped the client.
public enum FrameClientError: Error, Sendable, CustomStringConvertible {
    /// No reply to `command` within `after`.
    case timedOut(command: UInt32, after: Duration)
    /// No connection came up within `after` (the request's deadline); `last` is why the last
    /// attempt failed, or the last connection ended (nil: none had, the first attempt was still
    /// under way): `.connectFailed(.tls(.notTLS))`, `.connectFailed(.refused)`, ...
    case noConnection(after: Duration, last: DisconnectReason?)
    /// The connection dropped while the request was outstanding (or being written).
    case connectionLost(DisconnectReason)
    /// `limit` requests are outstanding on the connection already.
    case tooManyPending(limit: Int)
    /// The reply arrived but its body is not a valid message of the reply type.
    case badReply(command: UInt32, WireError)
    /// The client is not running: `run()` has returned (it was cancelled).
    case stopped
    /// `run()` was called while it runs already (a client runs once at a time; after `run()`
    /// has returned it may be run again).
    case alreadyRunning
    /// `run()` gave up after `attempts` attempts to connect.
    case gaveUp(attempts: Int, last: DisconnectReason)

    public var description: String {
        switch self {
        case let .timedOut(command, after): "no reply to command \(command) within \(after)"
        case let .noConnection(after, last?): "no connection within \(after) (last attempt: \(last.attemptDescription))"
        case let .noConnection(after, nil): "no connection within \(after) (the first attempt was still under way)"
        case let .connectionLost(reason): "connection lost: \(reason)"
        case let .tooManyPending(limit): "\(limit) requests are outstanding already"
        case let .badReply(command, error): "the reply on command \(command) does not decode: \(error)"
        case .stopped: "the client is not running"
        case .alreadyRunning: "the client is running already"
        case let .gaveUp(attempts, last): "gave up after \(attempts) attempts; last: \(last)"
        }
    }
}
