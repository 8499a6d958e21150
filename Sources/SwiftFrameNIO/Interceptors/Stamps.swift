import SwiftFrame

/// Sets header fields (the layout's `extra.NAME` fields: a session id, a client version) on
/// every frame this end sends. The values are read for each frame, so they may change (a
/// session id given at login).
///
///     configuration.interceptors = [HeaderStamp { ["clientVersion": 0x0102_0000, "session": session.id] }]
public struct HeaderStamp: FrameInterceptor {
    private let values: @Sendable () -> [String: UInt64]

    public init(_ values: @escaping @Sendable () -> [String: UInt64]) {
        self.values = values
    }

    public init(_ values: [String: UInt64]) {
        self.init { values }
    }

    public var directions: InterceptedFrame.Directions { .outbound }

    public func intercept(_ frame: inout InterceptedFrame) throws {
        guard frame.direction == .outbound else { return }
        for (name, value) in values() { frame.header.extras[name] = value }
    }
}

/// Adds a length-delimited field (a string such as an auth token) to the body of every frame
/// this end sends, or of the commands in `commands`. Appended to the encoded body, it is read
/// as the message's field `field` by a server whose message declares it (a later occurrence
/// of a field wins over an earlier one), and kept as an unknown field by one that does not.
///
///     configuration.interceptors = [BodyFieldStamp(field: 15) { tokens.current }]
public struct BodyFieldStamp: FrameInterceptor {
    public let field: Int
    public let commands: Set<UInt32>?
    private let value: @Sendable () -> String?

    /// - Parameters:
    ///   - field: the field number, 1 through 536,870,911.
    ///   - commands: the commands to stamp; nil for all of them.
    ///   - value: read for each frame; nil stamps nothing (no token yet, before the login).
    public init(field: Int, commands: Set<UInt32>? = nil, _ value: @escaping @Sendable () -> String?) {
        precondition((1...536_870_911).contains(field), "a protobuf field number is 1 through 536,870,911")
        self.field = field
        self.commands = commands
        self.value = value
    }

    public var directions: InterceptedFrame.Directions { .outbound }

    public func intercept(_ frame: inout InterceptedFrame) throws {
        guard frame.direction == .outbound, commands?.contains(frame.command) ?? true, let value = value() else {
            return
        }
        let count = value.utf8.count
        frame.payload.reserveCapacity(frame.payload.count + 10 + count)  // one copy, not one per part
        frame.payload.appendVarint(UInt64(Wire.tag(fieldNumber: field, wireType: .lengthDelimited)))
        frame.payload.appendVarint(UInt64(count))
        frame.payload += value.utf8
    }
}
