import NIOConcurrencyHelpers
import NIOCore
import SwiftFrame

/// Sees every frame a client or a server sends or receives, and may change it or refuse it:
/// stamp a token on each request, log frames, compress or encrypt bodies, capture traffic.
///
/// Interceptors run in a chain (`ClientConfiguration.interceptors`,
/// `ServerConfiguration.interceptors`): frames going out pass them first to last, frames
/// coming in last to first, so the interceptor nearest the wire (the last one) undoes its
/// work first. They run on the connection's event loop, once per frame, so keep them quick.
///
/// Throwing refuses the frame. An outbound frame refused is not sent: its request or send
/// fails with the error. An inbound frame refused closes the connection (a peer whose frames
/// do not pass, say a body that does not decrypt, cannot be trusted with the next one): the
/// client reports `DisconnectReason.rejectedFrame` and its pending requests fail at once.
public protocol FrameInterceptor: Sendable {
    /// The frames it is called for: both directions unless it says otherwise. The chain works
    /// this out once per connection, so an interceptor that only stamps what is sent, or a
    /// logger whose level drops its lines, costs the frames it does not see nothing.
    var directions: InterceptedFrame.Directions { get }
    func intercept(_ frame: inout InterceptedFrame) throws
}

extension FrameInterceptor {
    public var directions: InterceptedFrame.Directions { .both }
}

/// A frame as an interceptor sees it: its header values and body, which it may change, and
/// where it is going.
public struct InterceptedFrame: Sendable {
    public enum Direction: Sendable, Hashable, CustomStringConvertible {
        /// Written by this end.
        case outbound
        /// Read from the peer.
        case inbound

        public var description: String { self == .outbound ? "out" : "in" }
    }

    /// A set of directions (`FrameInterceptor.directions`).
    public struct Directions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8

        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        public static let outbound = Directions(rawValue: 1)
        public static let inbound = Directions(rawValue: 2)
        public static let both: Directions = [.outbound, .inbound]
    }

    public var header: FrameHeader
    public var payload: [UInt8]
    public let direction: Direction
    /// The layout and the connection, shared by every frame of the connection: one reference
    /// to pass along rather than two structs to copy for each frame.
    private let route: InterceptorChain.Route

    init(header: FrameHeader, payload: [UInt8], direction: Direction, route: InterceptorChain.Route) {
        self.header = header
        self.payload = payload
        self.direction = direction
        self.route = route
    }

    /// The connection's layout (for the header's command field, and to encode the frame).
    public var layout: FrameLayout { route.layout }
    /// The connection the frame travels on.
    public var connection: InterceptedConnection { route.connection }

    /// The command id in the header (its command field, or its type field).
    public var command: UInt32 { route.layout.commandID(of: header) }

    /// The frame's bytes as the layout writes them.
    public func encoded() throws(FrameError) -> [UInt8] {
        try FrameEncoder(layout: route.layout).encode(header: header, payload: payload)
    }
}

/// What an interceptor knows of the connection a frame travels on.
public struct InterceptedConnection: Sendable {
    public enum Side: Sendable, Hashable {
        case client, server
    }

    public let side: Side
    /// Unique within the process for as long as it runs.
    public let id: Int
    public let local: SocketAddress?
    public let remote: SocketAddress?
    /// The command table's name for a command id (`CMD_TEST`), where the table gives names.
    public let commandName: @Sendable (UInt32) -> String?
}

/// The interceptors of one connection, in order.
struct InterceptorChain: Sendable {
    /// Where a connection's frames go: what every `InterceptedFrame` of it refers to.
    final class Route: Sendable {
        let layout: FrameLayout
        let connection: InterceptedConnection

        init(layout: FrameLayout, connection: InterceptedConnection) {
            self.layout = layout
            self.connection = connection
        }
    }

    /// The interceptors that see frames sent, first to last.
    let outbound: [any FrameInterceptor]
    /// The interceptors that see frames received, last to first.
    let inbound: [any FrameInterceptor]
    /// Nil without interceptors (a server's idle connections then hold nothing for them).
    let route: Route?

    /// `interceptors` for a connection of `Table` on `channel` (its addresses are known once
    /// it is active), numbered among the process's connections.
    init<Table: CommandTable>(_ interceptors: [any FrameInterceptor], side: InterceptedConnection.Side, channel: any Channel, table: Table.Type) {
        outbound = interceptors.filter { $0.directions.contains(.outbound) }
        inbound = interceptors.reversed().filter { $0.directions.contains(.inbound) }
        route = interceptors.isEmpty ? nil : Route(
            layout: Table.layout,
            connection: InterceptedConnection(
                side: side, id: ConnectionNumbers.next(), local: channel.localAddress, remote: channel.remoteAddress,
                commandName: { Table.commandName($0) }))
    }

    /// The frame to write, after every interceptor, first to last.
    func outbound(_ frame: OutboundFrame) throws -> OutboundFrame {
        guard !outbound.isEmpty, let route else { return frame }
        var seen = InterceptedFrame(header: frame.header, payload: frame.payload, direction: .outbound, route: route)
        for interceptor in outbound { try interceptor.intercept(&seen) }
        return OutboundFrame(header: seen.header, payload: seen.payload)
    }

    /// The frame read, after every interceptor, last to first.
    func inbound(_ frame: Frame) throws -> Frame {
        guard !inbound.isEmpty, let route else { return frame }
        var seen = InterceptedFrame(header: frame.header, payload: Array(frame.payload), direction: .inbound, route: route)
        for interceptor in inbound { try interceptor.intercept(&seen) }
        return Frame(header: seen.header, payload: seen.payload[...], offset: frame.offset)
    }
}

/// Numbers the connections interceptors see.
enum ConnectionNumbers {
    private static let last = NIOLockedValueBox(0)

    static func next() -> Int {
        last.withLockedValue { last in
            last += 1
            return last
        }
    }
}
