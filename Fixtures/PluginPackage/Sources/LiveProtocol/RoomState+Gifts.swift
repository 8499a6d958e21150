// Hand-written code beside the messages generated at build time from protos/.
extension Live_RoomState {
    /// How many gifts the room's recent gifts add up to.
    public var giftCount: UInt32 { recentGifts.reduce(0) { $0 + $1.count } }
}
