import Logging

/// Logs one line per frame through swift-log: direction, command (by name where the table
/// gives one), sequence number and body size, with the connection in the metadata.
///
///     configuration.interceptors = [FrameLogging(logger: Logger(label: "game.frames"))]
///
/// Put it last to log frames as they cross the wire (compressed or encrypted bodies), first to
/// log them as the app sees them.
public struct FrameLogging: FrameInterceptor {
    public let logger: Logger
    public let level: Logger.Level

    public init(logger: Logger, level: Logger.Level = .info) {
        self.logger = logger
        self.level = level
    }

    /// None when the logger's level drops the lines. Read as each connection starts, so a
    /// logger whose handler changes its level later logs from the next connection on; while
    /// logging is off, frames do not pass through it at all.
    public var directions: InterceptedFrame.Directions { logger.logLevel <= level ? .both : [] }

    public func intercept(_ frame: inout InterceptedFrame) throws {
        guard logger.logLevel <= level else { return }
        let command = frame.command
        let name = frame.connection.commandName(command).map { "\($0) (\(command))" } ?? "\(command)"
        let sequence = frame.header.sequence.map { " seq=\($0)" } ?? ""
        logger.log(
            level: level, "\(frame.direction) \(name)\(sequence) bytes=\(frame.payload.count)",
            metadata: [
                "connection": "\(frame.connection.id)", "peer": "\(frame.connection.remote.map { "\($0)" } ?? "?")",
            ])
    }
}
