import SwiftFrame
import SwiftFrameDescriptors

// The ways real projects already carry command ids in their .proto files, read as they are,
// as a config file (Protos/swiftframe/config.proto) asks: a custom message option of their
// own, a field whose default names the id, comments with ids in declaration order, and
// commands listed one by one. Ids from every source go through one TableBuilder, so they are
// checked the same way.

extension Swiftframe_Config {
    /// The configured envelope of a message's bytes field.
    func envelope(message fullName: String, body: String) -> Swiftframe_Envelope? {
        envelope.first { ($0.message == fullName || $0.message == "." + fullName) && $0.body == body }
    }

    /// The enum field that selects what a bytes field holds: `(swiftframe.selected_by)` on the
    /// field, else the config's envelope of it; nil for a field that is no envelope body.
    func selector(of field: FieldDescriptor, in messageFullName: String) -> String? {
        field.options?[extension: Swiftframe_OptionsExtensions.selectedBy]
            ?? envelope(message: messageFullName, body: field.protoName)?.selectedBy
    }
}

extension String {
    /// nil for an empty string: config fields are proto3 strings, empty when not given.
    var nonEmpty: String? { isEmpty ? nil : self }
}

extension CommandResolver {
    /// Which side a message with an id of its own travels on, from its name.
    enum Role: Equatable {
        case request, response
        /// Neither name says: it is both sent and received under its id (`Heartbeat`).
        case both
    }

    /// `C2G_Login`, `LoginReq`, `LoginRequest` are requests; `G2C_Login`, `LoginRsp`,
    /// `LoginResp`, `LoginResponse`, `LoginAck`, `LoginNtf`, `LoginNotify`, `LoginPush` are
    /// responses or pushes.
    static func role(of name: String) -> Role {
        if let (from, to) = direction(of: name) {
            if from | 0x20 == UInt8(ascii: "c") { return .request }
            if to | 0x20 == UInt8(ascii: "c") { return .response }
        }
        let key = normalized(name)
        if requestSuffixes.contains(where: key.hasSuffix) { return .request }
        if responseSuffixes.contains(where: key.hasSuffix) { return .response }
        return .both
    }

    /// The sender and receiver letters of a `C2G_` / `G2C_` name prefix.
    private static func direction(of name: String) -> (from: UInt8, to: UInt8)? {
        let bytes = Array(name.utf8.prefix(4))
        guard bytes.count == 4, bytes[1] == UInt8(ascii: "2"), bytes[3] == UInt8(ascii: "_") else {
            return nil
        }
        return (bytes[0], bytes[2])
    }

    /// Name endings (compared without case and underscores) of requests, and of responses and pushes.
    static let requestSuffixes = ["req", "request"]
    static let responseSuffixes = ["rsp", "resp", "response", "ack", "ntf", "notify", "push"]

    /// The name without its direction: `LoginReq` and `LoginRsp` are both `login`,
    /// `C2G_Ping` and `G2C_Ping` both `ping`.
    static func commandWord(of name: String) -> String {
        var key = normalized(name)
        if direction(of: name) != nil { key.removeFirst(3) }
        for suffix in (requestSuffixes + responseSuffixes).sorted(by: { $0.count > $1.count })
        where key.hasSuffix(suffix) {
            return String(key.dropLast(suffix.count))
        }
        return key
    }

    /// Adds what one config table says about a file.
    mutating func addConfigured(_ table: Swiftframe_Table, file: FileDraft, to builder: inout TableBuilder) {
        let place = Place(file: file.name, "config table")
        var ids: [(message: MessageRef, id: UInt32)] = []
        var explicitPairs: [(MessageRef, MessageRef)] = []
        if let option = table.messageOption.nonEmpty {
            ids += optionIDs(option, file: file, place: place)
        }
        if let fieldName = table.defaultField.nonEmpty {
            ids += defaultFieldIDs(fieldName, file: file, place: place)
        }
        if let comments = table.comments {
            let (commentIDs, pairs) = commentConvention(comments, file: file, place: place)
            ids += commentIDs
            explicitPairs += pairs
        }
        // A message's side comes from its name, unless a comment pairs it: the pair's first is
        // a request, its second a response, whatever their names say.
        var roles: [String: Role] = [:]
        for (message, _) in ids { roles[message.fullName] = Self.role(of: message.protoName) }
        for (request, response) in explicitPairs {
            roles[request.fullName] = .request
            roles[response.fullName] = .response
        }
        for (message, id) in ids {
            let role = roles[message.fullName]
            builder.add(
                id: id, swiftName: Naming.fieldName(message.protoName), origin: message.protoName,
                request: role == .response ? nil : message, response: role == .request ? nil : message,
                isMessageID: true)
        }
        // Requests answer with the response of the same command word, unless a comment names it.
        for (request, response) in explicitPairs {
            pair(request, response, place: place.appending(request.protoName, element: request.fullName))
        }
        let paired = Set(explicitPairs.map { $0.0.fullName })
        let withIDs = ids.map(\.message)
        for request in withIDs where roles[request.fullName] == .request && !paired.contains(request.fullName) {
            let word = Self.commandWord(of: request.protoName)
            let matches = withIDs.filter {
                roles[$0.fullName] == .response && Self.commandWord(of: $0.protoName) == word
            }
            if matches.count == 1 {
                pair(request, matches[0], place: place.appending(request.protoName, element: request.fullName))
            }
        }
        for command in table.command {
            let commandPlace = place.appending("command \(command.id)", element: nil)
            let request = command.request.nonEmpty.flatMap { message(named: $0, from: file, place: commandPlace) }
            let response = command.response.nonEmpty.flatMap { message(named: $0, from: file, place: commandPlace) }
            // Named by `name`, else by its message; a command with no message (a heartbeat, a
            // logout) and no name is `command<id>`. With no message it gets the cases an id
            // enum value with no message gets: the frame's bytes, untyped, on both sides.
            let swiftName: String, origin: String
            if let name = command.name.nonEmpty {
                (swiftName, origin) = (Naming.caseName(name, enumName: ""), name)
            } else if let named = request ?? response {
                (swiftName, origin) = (Naming.fieldName(named.protoName), named.protoName)
            } else {
                (swiftName, origin) = ("command\(command.id)", "command \(command.id)")
            }
            builder.add(id: command.id, swiftName: swiftName, origin: origin, request: request, response: response)
            if let request, let response { pair(request, response, place: commandPlace) }
        }
        for (name, role, keyPath) in [
            (table.errorReply, "error_reply", \TableBuilder.errorCommand),
            (table.heartbeat, "heartbeat", \TableBuilder.heartbeatCommand),
        ] where !name.isEmpty {
            let matches = builder.entries.filter { entry in
                entry.origin == name || entry.request?.protoName == name || entry.response?.protoName == name
                    || entry.request?.fullName == name || entry.response?.fullName == name
            }
            guard let entry = matches.first, matches.count == 1 else {
                let problem = matches.isEmpty ? "names no command of the table" : "names several commands"
                problems.append(place.error(.invalidConfigTable, "\(place): \(role) \"\(name)\" \(problem)"))
                continue
            }
            builder.mark(keyPath, entry.id, role: role, origin: name)
        }
    }

    /// `option (MsgID) = MSG_LOGIN_REQUEST;`: the option's value on each message of the file.
    private mutating func optionIDs(_ option: String, file: FileDraft, place: Place) -> [(
        message: MessageRef, id: UInt32
    )] {
        let trimmed = option.hasPrefix(".") ? String(option.dropFirst()) : option
        let package = file.package
        let candidates = extensions.byName.filter { name, field in
            field.extendee == ".google.protobuf.MessageOptions"
                && (name == trimmed || name == package + "." + trimmed || name.hasSuffix("." + trimmed))
        }
        guard candidates.count == 1, let field = candidates.first?.value else {
            let found = candidates.keys.sorted().joined(separator: ", ")
            if candidates.isEmpty {
                problems.append(
                    place.error(
                        .unknownType,
                        "\(place): message_option \"\(option)\" is no extension of google.protobuf.MessageOptions in this protoc run"
                    ))
            } else {
                problems.append(
                    place.error(.ambiguousName, "\(place): message_option \"\(option)\" is ambiguous: \(found)"))
            }
            return []
        }
        guard let type = field.type, ExtensionCatalog.integerTypes.contains(type) else {
            problems.append(
                place.error(
                    .invalidConvention, "\(place): message_option \"\(option)\" is not an integer or enum option"))
            return []
        }
        // The project's own extension, read while declaring as the varint it is.
        return file.allMessages.compactMap { message in
            guard let value = message.integerOptions[field.number] else { return nil }
            guard let id = UInt32(exactly: value) else {
                let messagePlace = place.appending("message \(message.fullName)", element: message.fullName)
                problems.append(
                    messagePlace.error(
                        .commandIDOutOfRange,
                        "\(messagePlace): (\(option)) = \(Int64(bitPattern: value)) is no command id"))
                return nil
            }
            return (MessageRef(message), id)
        }
    }

    /// `optional MID mid = 1 [default = LoginReq];`: the number of the enum value the default names.
    private mutating func defaultFieldIDs(_ fieldName: String, file: FileDraft, place: Place) -> [(
        message: MessageRef, id: UInt32
    )] {
        var found: [(message: MessageRef, id: UInt32)] = []
        for message in file.allMessages {
            guard let field = message.fields.first(where: { $0.protoName == fieldName }),
                let name = field.declaredDefault
            else { continue }
            guard case let .plain(.enumeration(enumType))? = field.shape.value,
                let number = enumType.cases.first(where: { $0.protoName == name })?.number
                    ?? enumType.aliases.first(where: { $0.protoName == name })?.target.number
            else {
                let fieldPlace = place.appending(
                    "message \(message.fullName): field \(fieldName)",
                    element: message.fullName + "." + fieldName)
                problems.append(
                    fieldPlace.error(.invalidConvention, "\(fieldPlace) needs an enum default naming the id"))
                continue
            }
            found.append((MessageRef(message), UInt32(bitPattern: number)))
        }
        return found
    }

    /// Every top-level message gets an id in declaration order, as ET's Proto2CS numbers them
    /// (`Opcode = ++startOpcode`): start + 1 for the first. `//ResponseType X` above a request
    /// names its response.
    private mutating func commentConvention(
        _ comments: Swiftframe_Comments, file: FileDraft,
        place: Place
    ) -> ([(message: MessageRef, id: UInt32)], [(MessageRef, MessageRef)]) {
        var start = comments.start
        if comments.startFromFileName {
            let stem = Naming.stem(of: file.name)
            let digits = stem.reversed().drop { !$0.isNumber }.prefix { $0.isNumber }
            guard let number = UInt32(String(digits.reversed())) else {
                problems.append(
                    place.error(
                        .invalidConvention, "\(place): start_from_file_name, but \(file.name) has no number in its name"
                    ))
                return ([], [])
            }
            start = number
        }
        let keyword = comments.keyword.nonEmpty ?? "ResponseType"
        var ids: [(message: MessageRef, id: UInt32)] = []
        var pairs: [(MessageRef, MessageRef)] = []
        for (index, message) in file.messages.enumerated() {
            let number = UInt64(start) + UInt64(index) + 1
            guard let id = UInt32(exactly: number) else {
                let messagePlace = place.appending("message \(message.fullName)", element: message.fullName)
                problems.append(
                    messagePlace.error(.commandIDOutOfRange, "\(messagePlace): id \(number) is over 32 bits"))
                continue
            }
            ids.append((MessageRef(message), id))
            let lines = (message.comments ?? "").split(separator: "\n").map { $0.drop(while: \.isWhitespace) }
            guard let line = lines.first(where: { $0.hasPrefix(keyword) }) else { continue }
            let name = line.dropFirst(keyword.count).drop(while: \.isWhitespace).prefix { !$0.isWhitespace }
            let messagePlace = place.appending("message \(message.fullName)", element: message.fullName)
            if let response = self.message(named: String(name), from: file, place: messagePlace) {
                pairs.append((MessageRef(message), response))
            }
        }
        return (ids, pairs)
    }
}
