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
    /// The directions of the frames it is called for: `.outbound` (frames this end writes),
    /// `.inbound` (frames it reads) or `.both`, the default. The chain reads it once per
    /// connection, when the connection is set up, so an interceptor that only stamps what is
    /// sent, or a logger whose level drops its lines, costs the frames it does not see nothing.
    var directions: InterceptedFrame.Directions { get }

    /// Called once for each frame of its directions, on the connection's event loop: before
    /// an outbound frame is encoded and written, after an inbound frame is cut from the stream
    /// and before it is matched to a request or decoded. Change `frame.header` or
    /// `frame.payload` in place to change what is written or what the app receives; the next
    /// interceptor of the chain sees the frame as this one left it. Throw to refuse the frame:
    /// an outbound frame is not sent and its request or send fails with the error; an inbound
    /// frame closes the connection (`DisconnectReason.rejectedFrame`).
    func intercept(_ frame: inout InterceptedFrame) throws
}

extension FrameInterceptor {
    /// Both directions: an interceptor that does not say otherwise sees every frame.
    public var directions: InterceptedFrame.Directions { .both }
}

/// A frame as an interceptor sees it: its `header` and its `payload` (the body), which it may
/// change, its `direction`, and the `layout` and `connection` it travels on.
public struct InterceptedFrame: Sendable {
    /// Which way a frame travels.
    public enum Direction: Sendable, Hashable, CustomStringConvertible {
        /// Written by this end: a request, a send or a heartbeat of a client, a reply or a
        /// push of a server.
        case outbound
        /// Read from the peer.
        case inbound

        /// `out` or `in`, for logs.
        public var description: String { self == .outbound ? "out" : "in" }
    }

    /// A set of directions (`FrameInterceptor.directions`).
    public struct Directions: OptionSet, Sendable, Hashable {
        /// The directions as bits: 1 for outbound, 2 for inbound.
        public let rawValue: UInt8

        /// The directions whose bits `rawValue` sets.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// Frames this end writes.
        public static let outbound = Directions(rawValue: 1)
        /// Frames this end reads.
        public static let inbound = Directions(rawValue: 2)
        /// Every frame.
        public static let both: Directions = [.outbound, .inbound]
    }

    /// The frame's header values, as the layout's fields give them: `command`, `sequence`,
    /// `type` and the `extras` (the layout's `extra.NAME` fields), each nil (or absent) when
    /// the layout has no such field. An outbound frame arrives with its header complete (a
    /// client's requests, sends and heartbeats already numbered); what an interceptor changes
    /// here is what is written, or, inbound, what this end matches the frame by (`sequence`)
    /// and decodes it as (`command`). The length field and the magic are not in it: the
    /// encoder writes them from the layout and the payload.
    public var header: FrameHeader
    /// The frame's body: the encoded protobuf message, or whatever an interceptor nearer the
    /// app made of it (outbound) or the peer sent (inbound), as bytes. Replace it or change it
    /// in place (compress, encrypt, append a field); the length the header carries follows it.
    public var payload: [UInt8]
    /// Whether this end writes the frame or has read it.
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

    /// The connection's frame layout (the command table's `layout`): which header fields
    /// exist, their widths, and how the frame is encoded.
    public var layout: FrameLayout { route.layout }
    /// The connection the frame travels on: its side, its number and addresses, and the
    /// command table's names.
    public var connection: InterceptedConnection { route.connection }

    /// The command id the header carries: its command field, or its type field when the
    /// layout has no command field (the IM header). Read from `header` each time, so it
    /// follows a change to `header.command` or `header.type`.
    public var command: UInt32 { route.layout.commandID(of: header) }

    /// The whole frame, header and payload, as the layout writes it to the wire now (a capture
    /// writes these bytes). Throws the `FrameError` of a payload too long for the layout or a
    /// header value too wide for its field.
    public func encoded() throws(FrameError) -> [UInt8] {
        try FrameEncoder(layout: route.layout).encode(header: header, payload: payload)
    }
}

/// What an interceptor knows of the connection a frame travels on.
public struct InterceptedConnection: Sendable {
    /// Which end of the connection this is.
    public enum Side: Sendable, Hashable {
        /// A `FrameClient`'s connection to its server.
        case client
        /// A `FrameServer`'s connection to one of its clients.
        case server
    }

    /// Whether the interceptor runs in a client or in a server.
    public let side: Side
    /// The connection's number: the connections of the process that have interceptors are
    /// numbered from 1 as they are set up, so it is unique within the process for as long as
    /// it runs (a client's reconnection is a new connection, with a new number).
    public let id: Int
    /// This end's address, when the channel knows it.
    public let local: SocketAddress?
    /// The peer's address, when the channel knows it.
    public let remote: SocketAddress?
    /// The command table's name for a command id (`CMD_TEST`; `commandName(_:)` of the
    /// generated table), nil for an id the table gives no name.
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
    init<Table: CommandTable>(
        _ interceptors: [any FrameInterceptor], side: InterceptedConnection.Side, channel: any Channel,
        table: Table.Type
    ) {
        outbound = interceptors.filter { $0.directions.contains(.outbound) }
        inbound = interceptors.reversed().filter { $0.directions.contains(.inbound) }
        route =
            interceptors.isEmpty
            ? nil
            : Route(
                layout: Table.layout,
                connection: InterceptedConnection(
                    side: side, id: ConnectionNumbers.next(), local: channel.localAddress,
                    remote: channel.remoteAddress,
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
        var seen = InterceptedFrame(
            header: frame.header, payload: Array(frame.payload), direction: .inbound, route: route)
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
