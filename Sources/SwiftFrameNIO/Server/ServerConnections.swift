/// A `FrameServer`'s connections (open, or closing and still handling a request) and where
/// `run` is with them, as one value: serving (connections accepted are admitted), stopping
/// (connections accepted now are refused), or draining (stopping, and `run` waits for the last
/// connection to be done with). Each event is a method that returns what the server must do;
/// the value takes no lock (the server keeps it under its own) and does no I/O, so every cell
/// is tested without sockets (`ServerConnectionsTableTests`).
///
/// `Connection` is a connection (`ServedConnection`), `Waiter` the task of `run` waiting for
/// the last one (a continuation; plain values in the tests).
struct ServerConnections<Connection, Waiter> {
    enum Phase {
        /// `run` is serving: connections accepted are admitted.
        case serving
        /// `run` is stopping: connections accepted now are refused (closed at once).
        case stopping
        /// `run` is stopping and waits, as this waiter, until no connection is left.
        case draining(Waiter)
    }

    /// The connections admitted and not yet done with, by id.
    private(set) var byID: [Int: Connection] = [:]
    private(set) var phase = Phase.serving
    private var lastID = 0

    /// `run` begins: connections are admitted again.
    mutating func start() {
        if case .stopping = phase { phase = .serving }
    }

    /// A connection was accepted: made by `make` with a new id and kept, or nil (refused) while
    /// `run` is stopping.
    mutating func admit(_ make: (Int) -> Connection) -> Connection? {
        guard case .serving = phase else { return nil }
        lastID += 1
        let connection = make(lastID)
        byID[lastID] = connection
        return connection
    }

    /// `run` stops: no connection is admitted from now on. The connections to stop.
    mutating func stop() -> [Connection] {
        if case .serving = phase { phase = .stopping }
        return Array(byID.values)
    }

    /// `run` waits as `waiter` until no connection is left: the waiter to resume now (none is
    /// left, or a waiter from before is replaced), or nil to wait for `remove`.
    mutating func waitUntilEmpty(_ waiter: Waiter) -> Waiter? {
        if byID.isEmpty {
            // Not draining: the last `remove` resumed the waiter before.
            phase = .stopping
            return waiter
        }
        let replaced: Waiter?
        if case let .draining(before) = phase { replaced = before } else { replaced = nil }
        phase = .draining(waiter)
        return replaced
    }

    /// Connection `id` is done with (closed, and no task handling it): the waiter to resume
    /// when it was the last one `run` waited for.
    mutating func remove(id: Int) -> Waiter? {
        byID[id] = nil
        guard byID.isEmpty, case let .draining(waiter) = phase else { return nil }
        phase = .stopping
        return waiter
    }
}

extension ServerConnections: Sendable where Connection: Sendable, Waiter: Sendable {}
extension ServerConnections.Phase: Sendable where Waiter: Sendable {}
