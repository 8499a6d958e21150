import SwiftFrameDescriptors

/// What protoc guarantees of every request it sends, checked before anything is resolved:
/// names and numbers unique in their scopes, field numbers in range, oneof indexes in range,
/// enums with values. A request that breaks them did not come from protoc (a hand-made or
/// corrupted one), and is refused with a problem naming the place instead of being trusted.
enum RequestCheck {
    /// The largest field number protobuf allows.
    static let maxFieldNumber: Int32 = (1 << 29) - 1

    static func problems(in index: DescriptorIndex) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        var fileNames: Set<String> = []
        for file in index.files {
            let name = file.name ?? ""
            let place = Place(file: name, "malformed request")
            if !fileNames.insert(name).inserted {
                problems.append(place.error(.malformedRequest, "malformed request: file \(name) is sent twice"))
            }
            unique(file.messageType.map(\.protoName) + file.enumType.map(\.protoName), "type", place, &problems)
        }
        for message in index.messages {
            let place = Place(
                file: index.files[message.file].name ?? "", element: message.fullName,
                "malformed request: message \(message.fullName)")
            let descriptor = message.descriptor
            let fields = descriptor.field
            let oneofs = descriptor.oneofDecl.map(\.protoName)
            unique(fields.map(\.protoName) + oneofs, "field or oneof", place, &problems)
            unique(fields.map { String($0.fieldNumber) }, "field number", place, &problems)
            unique(
                descriptor.nestedType.map(\.protoName) + descriptor.enumType.map(\.protoName), "nested type", place,
                &problems)
            for field in fields {
                let fieldPlace = place.appending(
                    "field \(field.protoName)", element: message.fullName + "." + field.protoName)
                if let oneof = field.oneofIndex, !oneofs.indices.contains(Int(oneof)) {
                    problems.append(
                        fieldPlace.error(.malformedRequest, "\(fieldPlace) names oneof \(oneof) of \(oneofs.count)"))
                }
                if !(1...maxFieldNumber).contains(field.fieldNumber) {
                    problems.append(
                        fieldPlace.error(
                            .malformedRequest,
                            "\(fieldPlace): number \(field.fieldNumber) is out of range 1...\(maxFieldNumber)"))
                }
            }
        }
        for enumType in index.enums {
            let place = Place(
                file: index.files[enumType.file].name ?? "", element: enumType.fullName,
                "malformed request: enum \(enumType.fullName)")
            if enumType.descriptor.value.isEmpty {
                problems.append(place.error(.malformedRequest, "\(place) has no values"))
            }
            unique(enumType.descriptor.value.map(\.protoName), "value", place, &problems)
        }
        return problems
    }

    private static func unique(_ names: [String], _ kind: String, _ place: Place, _ problems: inout [Diagnostic]) {
        var seen: Set<String> = []
        for name in names where !seen.insert(name).inserted {
            problems.append(place.error(.malformedRequest, "\(place): \(kind) \(name) is declared twice"))
        }
    }
}
