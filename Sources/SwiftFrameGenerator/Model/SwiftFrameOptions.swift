/// Field numbers of the custom options in Protos/swiftframe/options.proto.
enum SwiftFrameOption {
    enum File {
        static let layout = 50700
        static let requestPrefix = 50701
        static let responsePrefix = 50702
    }

    enum Message {
        static let requestID = 50700
        static let responseID = 50701
    }

    enum Enum {
        static let commandTable = 50700
    }

    enum EnumValue {
        static let request = 50700
        static let response = 50701
        static let holds = 50702
        static let errorReply = 50703
        static let heartbeat = 50704
    }

    enum Field {
        static let selectedBy = 50700
    }
}
