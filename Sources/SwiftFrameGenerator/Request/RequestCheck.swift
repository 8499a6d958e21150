import SwiftFrameDescriptors

/// What protoc guarantees of every request it sends, checked before anything is resolved:
/// names and numbers unique in their scopes, oneof indexes in range, enums with values. A request that breaks
/// them did not come from protoc (a hand-made or corrupted one), and is refused with a
/// problem naming the place instead of being trusted.
enum RequestCheck {
    static func problems(in files: [FileDescriptor]) -> [String] {
        var problems: [String] = []
        var fileNames: Set<String> = []
        for file in files {
            let name = file.name ?? ""
            if !fileNames.insert(name).inserted { problems.append("malformed request: file \(name) is sent twice") }
            let place = "malformed request: \(name)"
            unique(file.messageType.map(\.protoName) + file.enumType.map(\.protoName), "type", place, &problems)
            file.messageType.forEach { check($0, place: place + ": message " + $0.protoName, &problems) }
            file.enumType.forEach { check($0, place: place + ": enum " + $0.protoName, &problems) }
        }
        return problems
    }

    private static func check(_ message: MessageDescriptor, place: String, _ problems: inout [String]) {
        let fields = message.field
        let oneofs = message.oneofDecl.map(\.protoName)
        unique(fields.map(\.protoName) + oneofs, "field or oneof", place, &problems)
        unique(fields.map { String($0.fieldNumber) }, "field number", place, &problems)
        unique(message.nestedType.map(\.protoName) + message.enumType.map(\.protoName), "nested type", place, &problems)
        for field in fields {
            if let index = field.oneofIndex, !oneofs.indices.contains(Int(index)) {
                problems.append("\(place): field \(field.protoName) names oneof \(index) of \(oneofs.count)")
            }
        }
        message.nestedType.forEach { check($0, place: place + "." + $0.protoName, &problems) }
        message.enumType.forEach { check($0, place: place + ": enum " + $0.protoName, &problems) }
    }

    private static func check(_ enumType: EnumDescriptor, place: String, _ problems: inout [String]) {
        if enumType.value.isEmpty { problems.append("\(place) has no values") }
        unique(enumType.value.map(\.protoName), "value", place, &problems)
    }

    private static func unique(_ names: [String], _ kind: String, _ place: String, _ problems: inout [String]) {
        var seen: Set<String> = []
        for name in names where !seen.insert(name).inserted {
            problems.append("\(place): \(kind) \(name) is declared twice")
        }
    }
}
