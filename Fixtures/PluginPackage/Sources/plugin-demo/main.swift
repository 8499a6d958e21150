import LiveProtocol
import SharedProtocol

// Messages from the build-time target and from the checked-in one, encoded, decoded and printed.
let state = Live_RoomState(roomId: 7, viewers: 1200, recentGifts: [Live_Gift(kind: .rocket, count: 3)])
let login = Game_LoginRequest(account: "neo", token: "t0k", version: 3)
do {
    let decoded = try Live_RoomState(serializedBytes: state.serializedBytes())
    print(decoded, "gifts:", decoded.giftCount)
    print(try Game_LoginRequest(serializedBytes: login.serializedBytes()))
} catch {
    print("decoding failed: \(error)")
}
print(Game_LoginReply(code: 0, playerId: 42), "succeeded:", Game_LoginReply().succeeded)
// room.proto's swiftframe options (imported from swiftframe's own Protos/) made a command table.
print("EnterRoom command:", Live_EnterRoom.commandID, "table:", Live_RoomCommands.self)
