/// `RequestMessage` conformances: each request names the message that answers it.
enum ResponsePairEmitter {
    /// `extension LoginRequest: SwiftFrame.RequestMessage { typealias Response = LoginResponse }`.
    static func emit(
        _ pairs: [(request: MessageRef, response: MessageRef)], visibility: String,
        to printer: Printer
    ) {
        for (request, response) in pairs {
            printer.line()
            printer.block("extension \(request.swiftPath): SwiftFrame.RequestMessage") {
                printer.line("\(visibility)typealias Response = \(response.swiftPath)")
            }
        }
    }
}
