import SwiftFrame

/// Where one layout's headers carry the command id, and whether they number frames, worked out
/// once for a server or a connection. Reading `Table.layout` copies the layout (every reference
/// in it retained and released), and finding its command field walks its fields: the request
/// and reply paths ask this instead.
struct Heading: Sendable {
    /// The command id travels in the type field (a layout without a command field).
    let commandInType: Bool
    /// The layout has a sequence field.
    let numbersFrames: Bool

    init(_ layout: FrameLayout) {
        commandInType = layout.carriesCommandInType
        numbersFrames = layout.sequenceField != nil
    }

    /// `FrameLayout.header(command:sequence:extras:)`.
    func header(command: UInt32, sequence: UInt64? = nil, extras: [String: UInt64] = [:]) -> FrameHeader {
        FrameHeader(command: command, inTypeField: commandInType, sequence: sequence, extras: extras)
    }

    /// `FrameLayout.commandID(of:)`.
    func commandID(of header: FrameHeader) -> UInt32 {
        header.commandID(inTypeField: commandInType)
    }
}

extension OutboundFrame {
    /// `init(_:layout:sequence:extras:)`, headed by `heading` rather than the layout.
    init<M: CommandMessage>(_ message: M, heading: Heading, extras: [String: UInt64]) throws {
        self.init(
            header: heading.header(command: M.commandID, extras: extras), payload: try message.framePayloadBytes())
    }
}
