// Hand-written code beside the checked-in messages in Generated/.
extension Game_LoginReply {
    public var succeeded: Bool { code == 0 }
}
