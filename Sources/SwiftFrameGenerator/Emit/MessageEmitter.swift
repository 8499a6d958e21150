/// A struct per message: fields, initializers and nested types in the declaration; the
/// straight-line decode, size and encode code in an extension after it.
struct MessageEmitter {
    let message: MessageType
    let visibility: String
    /// The file prints proto names in the text format (`TextFormat=Names`).
    let printsNames: Bool
    /// The compact mode (`optimize_for = CODE_SIZE`): a field table instead of codec code.
    let isCompact: Bool

    private var ranges: [ClosedRange<Int>] { message.extensionRanges }
    /// The extension ranges as Swift range literals, `1000...536870911, ...`.
    private var rangeList: String { ranges.map { "\($0.lowerBound)...\($0.upperBound)" }.joined(separator: ", ") }

    func emitDeclaration(to printer: Printer) {
        printer.documentation(message.comments)
        let conformance = ranges.isEmpty ? "SwiftFrame.Message" : "SwiftFrame.ExtensibleMessage"
        printer.block("\(visibility)struct \(message.swiftName): \(conformance)") {
            for member in message.members {
                switch member {
                case let .field(field): emitProperty(FieldCode(field: field), to: printer)
                case let .oneof(oneof):
                    printer.documentation(oneof.comments)
                    printer.line("\(visibility)var \(oneof.swiftName): \(message.swiftPath).\(oneof.typeName)? = nil")
                }
            }
            printer.line("\(visibility)var unknownFields = SwiftFrame.UnknownFields()")
            if !ranges.isEmpty {
                printer.line("/// Fields read in the extension ranges; see `SwiftFrame.Extension`.")
                printer.line("\(visibility)var extensionFields = SwiftFrame.UnknownFields()")
            }
            printer.line()
            printer.line("\(visibility)init() {}")
            if message.hasMemberwiseInit {
                printer.line()
                emitMemberwiseInit(to: printer)
            }
            for oneof in message.oneofs {
                printer.line()
                OneofEmitter(oneof: oneof, visibility: visibility).emit(to: printer)
            }
            emitDefaults(to: printer)
            for enumType in message.enums {
                printer.line()
                EnumEmitter(enumType: enumType, visibility: visibility, printsNames: printsNames).emit(to: printer)
            }
            for nested in message.messages {
                printer.line()
                MessageEmitter(message: nested, visibility: visibility, printsNames: printsNames, isCompact: isCompact)
                    .emitDeclaration(to: printer)
            }
        }
    }

    private func emitProperty(_ code: FieldCode, to printer: Printer) {
        let field = code.field
        printer.documentation(field.comments)
        guard field.isBoxed else {
            printer.line("\(visibility)var \(field.swiftName): \(code.declaredType) = \(code.defaultValue)")
            return
        }
        // A sub-message lives in an immutable box: the struct holds a reference.
        printer.block("\(visibility)var \(field.swiftName): \(code.declaredType)") {
            printer.line("get { \(code.storage)?.value }")
            printer.line("set { \(code.storage) = newValue.map(SwiftFrame.Boxed.init) }")
        }
        printer.line("private var _\(field.swiftName): SwiftFrame.Boxed<\(code.baseType)>? = nil")
    }

    /// proto2 `[default = ...]` values: an unset field reads as `nil`; its declared default
    /// is `Message.Defaults.field`.
    private func emitDefaults(to printer: Printer) {
        let declared = message.fields.compactMap { field -> (Field, String)? in
            guard let text = field.declaredDefault, let value = field.shape.value,
                let literal = DefaultValues.literal(text, for: value)
            else {
                return nil
            }
            return (field, literal)
        }
        guard let name = message.defaultsName, !declared.isEmpty else { return }
        printer.line()
        printer.line("/// The `[default = ...]` values of the .proto, for fields that are not set.")
        printer.block("\(visibility)enum \(name)") {
            for (field, literal) in declared {
                printer.line(
                    "\(visibility)static let \(field.swiftName): \(FieldCode(field: field).baseType) = \(literal)")
            }
        }
    }

    /// Name, type and default of each initializer parameter: fields, and oneofs as a whole.
    private var parameters: [(name: String, type: String, defaultValue: String)] {
        message.members.map { member in
            switch member {
            case let .field(field):
                let code = FieldCode(field: field)
                return (field.swiftName, code.declaredType, code.defaultValue)
            case let .oneof(oneof):
                return (oneof.swiftName, "\(message.swiftPath).\(oneof.typeName)?", "nil")
            }
        }
    }

    private func emitMemberwiseInit(to printer: Printer) {
        let parameters = self.parameters.map { "\($0.name): \($0.type) = \($0.defaultValue)" }
        let oneLine = "\(visibility)init(\(parameters.joined(separator: ", ")))"
        let header: String
        if parameters.count <= 2 && oneLine.count <= 90 {
            header = oneLine
        } else {
            printer.indented("\(visibility)init(") {
                for (index, parameter) in parameters.enumerated() {
                    printer.line(parameter + (index == parameters.count - 1 ? "" : ","))
                }
            }
            header = ")"
        }
        printer.block(header) {
            for parameter in self.parameters {
                printer.line("self.\(parameter.name) = \(parameter.name)")
            }
        }
    }

    func emitCodecExtensions(to printer: Printer) {
        let ordered = message.fieldsByNumber.map(FieldCode.init)
        printer.line()
        let conformance = isCompact ? "SwiftFrame.CompactMessage" : "SwiftFrame.FieldTableMessage"
        printer.block("extension \(message.swiftPath): \(conformance)") {
            printer.line("\(visibility)static var protoMessageName: Swift.String { \"\(message.fullName)\" }")
            if !printsNames {
                printer.line("\(visibility)static var fieldNamesLeftOut: Swift.Bool { true }")
            }
            emitFieldTable(ordered, to: printer)
            if !isCompact {
                printer.line()
                emitDecode(ordered, to: printer)
                printer.line()
                emitSize(ordered, to: printer)
                printer.line()
                emitEncode(ordered, to: printer)
            }
            if message.needsInitializationCheck {
                printer.line()
                emitInitializationCheck(to: printer)
            }
        }
        for nested in message.messages {
            MessageEmitter(message: nested, visibility: visibility, printsNames: printsNames, isCompact: isCompact)
                .emitCodecExtensions(to: printer)
        }
    }

    /// `fieldTable` (which gives the message its `==`, hashing and text-format names), and the
    /// functions for the fields it leaves to generated code: `==` and hashing, and in the
    /// compact mode their codec.
    private func emitFieldTable(_ fields: [FieldCode], to printer: Printer) {
        printer.line()
        let withNames = printsNames
        // One layout line per stored property, in declaration order, and the property's name.
        var lines: [String] = [], storedProperties: [String] = [], types: [String] = [], maps: [String] = []
        for member in message.members {
            switch member {
            case let .field(field):
                let code = FieldCode(field: field)
                storedProperties.append(code.storedProperty)
                switch code.tableEntry(withNames: withNames) {
                case let .custom(property, type):
                    lines.append("custom \(property)")
                    types.append(type)
                case let .line(line, type):
                    lines.append(line)
                    types += type.map { [$0] } ?? []
                case let .map(line, codec):
                    lines.append(line)
                    maps.append(codec)
                }
            case let .oneof(oneof):
                lines.append("custom \(oneof.swiftName)")
                storedProperties.append(oneof.swiftName)
                types.append("\(message.swiftPath).\(oneof.typeName)?")
            }
        }
        lines.append("unknown")
        storedProperties.append("unknownFields")
        if !ranges.isEmpty {
            lines.append("extensions")
            storedProperties.append("extensionFields")
        }
        let custom = fields.filter(\.isCustomInTable)
        // Each argument: its first line, the lines one level deeper, and its last line, which
        // for the layout's string is as deep as the lines (the string's indentation).
        var arguments: [(opening: String, body: [String], closing: String?, deep: Bool)] = []
        arguments.append(("of: \(message.swiftPath).self", [], nil, false))
        arguments.append(("layout: \"\"\"", lines, "\"\"\"", true))
        // The compiler's offsets, never worked out here: an optimized build folds each to a constant.
        arguments.append(
            ("offsets: [", storedProperties.map { "Swift.MemoryLayout<Self>.offset(of: \\.\($0))!," }, "]", false))
        if !types.isEmpty { arguments.append(("types: [", types.map { $0 + ".self," }, "]", false)) }
        if !maps.isEmpty { arguments.append(("maps: [", maps.map { $0 + "," }, "]", false)) }
        if !custom.isEmpty {
            arguments.append(("custom: [", custom.map { $0.customFieldRow(withNames: withNames) + "," }, "]", false))
        }
        let jsonNames =
            withNames ? fields.compactMap { code in code.field.jsonName.map { (code.field.number, $0) } } : []
        if !jsonNames.isEmpty {
            arguments.append(
                ("jsonNames: [", jsonNames.map { "\($0.0): \(DefaultValues.stringLiteral($0.1))," }, "]", false))
        }
        if withNames && !message.reservedNames.isEmpty {
            let names = message.reservedNames.map(DefaultValues.stringLiteral).joined(separator: ", ")
            arguments.append(("reservedNames: [\(names)]", [], nil, false))
        }
        if !ranges.isEmpty {
            arguments.append(("extensionRanges: [\(rangeList)]", [], nil, false))
        }
        if !message.stringExtensions.isEmpty {
            let numbers = message.stringExtensions.map { "\($0.number)" }.joined(separator: ", ")
            arguments.append(("stringExtensions: [\(numbers)]", [], nil, false))
        }
        printer.indented(
            "\(visibility)static let fieldTable = SwiftFrame.FieldTable(",
            {
                for (index, argument) in arguments.enumerated() {
                    let comma = index == arguments.count - 1 ? "" : ","
                    guard let closing = argument.closing else {
                        printer.line(argument.opening + comma)
                        continue
                    }
                    printer.indented(
                        argument.opening,
                        {
                            argument.body.forEach { printer.line($0) }
                            if argument.deep { printer.line(closing + comma) }
                        }, closing: argument.deep ? nil : closing + comma)
                }
            }, closing: ")")
        guard !custom.isEmpty else { return }
        if isCompact { emitCustomFieldCodec(custom, to: printer) }
        // A oneof's members share one property.
        var properties: [String] = []
        for code in custom where !properties.contains(code.storedProperty) {
            properties.append(code.storedProperty)
        }
        printer.line()
        printer.block("\(visibility)func customFieldsEqual(_ other: Self) -> Swift.Bool") {
            for property in properties {
                printer.line("if self.\(property) != other.\(property) { return false }")
            }
            printer.line("return true")
        }
        printer.line()
        printer.block("\(visibility)func hashCustomFields(into hasher: inout Swift.Hasher)") {
            for property in properties {
                printer.line("hasher.combine(self.\(property))")
            }
        }
    }

    /// A compact message's codec of the fields its table leaves to generated code.
    private func emitCustomFieldCodec(_ custom: [FieldCode], to printer: Printer) {
        printer.line()
        let decode =
            "\(visibility)mutating func decodeCustomField(tag: Swift.UInt32, from reader: inout SwiftFrame.ProtoReader)"
        printer.block(decode + " throws(SwiftFrame.WireError) -> Swift.Bool") {
            printer.switchBlock("tag") {
                for code in custom {
                    for (tag, statements) in code.decodeCases {
                        printer.indented("case \(tag): // " + code.decodeComment(tag: tag)) {
                            statements.forEach { printer.line($0) }
                        }
                    }
                }
                printer.line("default: return false")
            }
            printer.line("return true")
        }
        printer.line()
        printer.block(
            "\(visibility)func customFieldSize(number: Swift.Int32, cache: inout SwiftFrame.SizeCache) -> Swift.Int"
        ) {
            printer.line("var size = SwiftFrame.MessageSize(0)")
            printer.switchBlock("number") {
                for code in custom {
                    printer.line("case \(code.field.number): \(code.sizeStatement)")
                }
                printer.line("default: break")
            }
            printer.line("return size.total")
        }
        printer.line()
        printer.block(
            "\(visibility)func encodeCustomField(number: Swift.Int32, to writer: inout SwiftFrame.ProtoWriter)"
        ) {
            printer.switchBlock("number") {
                for code in custom {
                    printer.indented("case \(code.field.number):") {
                        printer.encodeBlock(code)
                    }
                }
                printer.line("default: break")
            }
        }
    }

    /// A message whose decode switch has more than `splitDecodeCases` cases (a repeated scalar
    /// has two) decodes each field in `decodeField`, kept out of line. With the switch inside
    /// the loop, the -O optimiser's loop and load passes weigh every case's memory accesses
    /// against every other's, so the loop's compile cost grows faster than its field count.
    /// The call costs a little per field read, which small messages, cheap to compile either
    /// way, are spared.
    private static let splitDecodeCases = 8

    /// `decodeMessage` is kept out of line: the runtime's `readMessage`, specialised for each
    /// message type used as a field, would otherwise carry a copy of it, which the compiler
    /// optimises a second time; the copy decoded no faster. (`computeSize` and `encodeMessage`
    /// stay inlinable in small messages: see `inlinedEncodeFields`.)
    private func emitDecode(_ fields: [FieldCode], to printer: Printer) {
        let signature = "\(visibility)mutating func decodeMessage(from reader: inout SwiftFrame.ProtoReader)"
        let split = fields.reduce(0) { $0 + $1.decodeCases.count } > Self.splitDecodeCases
        printer.line("@inline(never)")
        printer.block(signature + " throws(SwiftFrame.WireError)") {
            printer.block("while reader.hasRemaining") {
                if split {
                    printer.line("try self.decodeField(try reader.readTag(), from: &reader)")
                } else {
                    printer.line("let tag = try reader.readTag()")
                    emitDecodeSwitch(fields, to: printer)
                }
            }
        }
        guard split else { return }
        printer.line()
        printer.line("@inline(never)")
        let field = "private mutating func decodeField(_ tag: Swift.UInt32, from reader: inout SwiftFrame.ProtoReader)"
        printer.block(field + " throws(SwiftFrame.WireError)") {
            emitDecodeSwitch(fields, to: printer)
        }
    }

    private func emitDecodeSwitch(_ fields: [FieldCode], to printer: Printer) {
        printer.switchBlock("tag") {
            for code in fields {
                for (tag, statements) in code.decodeCases {
                    let comment = " // " + code.decodeComment(tag: tag)
                    if statements.count == 1 {
                        printer.line("case \(tag): \(statements[0])" + comment)
                    } else {
                        printer.indented("case \(tag):" + comment) {
                            statements.forEach { printer.line($0) }
                        }
                    }
                }
            }
            for string in message.stringExtensions {
                printer.line(
                    "case \(UInt32(string.number) << 3 | 2): try reader.keepStringExtension(into: &self.extensionFields)"
                        + " // extension \(string.fullName) = \(string.number)")
            }
            if ranges.isEmpty {
                printer.line("default: try reader.skipField(tag: tag, into: &self.unknownFields)")
            } else {
                let test = ranges.map(Self.tagTest).joined(separator: " || ")
                printer.indented("default:") {
                    printer.indented("if \(test) { // extensions \(rangeList)") {
                        printer.line("try reader.skipField(tag: tag, into: &self.extensionFields)")
                    }
                    printer.indented(
                        "} else {",
                        {
                            printer.line("try reader.skipField(tag: tag, into: &self.unknownFields)")
                        }, closing: "}")
                }
            }
        }
    }

    /// Whether `tag` is that of a field numbered in `range`, tested on the tag itself: a
    /// `UInt32` compared with literals. The field number's test it replaced,
    /// `1000...536870911 ~= Swift.Int(tag >> 3)`, is generic integer code, which is slow for
    /// the compiler's mandatory passes (run at -Onone too).
    static func tagTest(_ range: ClosedRange<Int>) -> String {
        let low = UInt64(range.lowerBound) << 3
        let high = UInt64(range.upperBound) << 3 | 7
        return high >= UInt64(UInt32.max) ? "tag >= \(low)" : "tag >= \(low) && tag <= \(high)"
    }

    /// A message with more than `inlinedEncodeFields` fields sizes and encodes out of line.
    /// The runtime's writers of a message field, specialised for each message type used as
    /// one, would otherwise carry a copy of its `computeSize` and `encodeMessage` (twice for a
    /// type used both singly and repeated), which the compiler optimises again. A small message
    /// keeps them inlinable: copied into the loop of a repeated field its encode is faster
    /// (the nested encode benchmark); a large one spends far longer on its fields than on the
    /// call.
    private static let inlinedEncodeFields = 8

    private var encodesOutOfLine: Bool { message.fields.count > Self.inlinedEncodeFields }

    private func emitSize(_ fields: [FieldCode], to printer: Printer) {
        if encodesOutOfLine { printer.line("@inline(never)") }
        printer.block("\(visibility)func computeSize(into cache: inout SwiftFrame.SizeCache) -> Swift.Int") {
            guard !fields.isEmpty || !ranges.isEmpty else {
                printer.line("return self.unknownFields.count")
                return
            }
            printer.line("var size = SwiftFrame.MessageSize(self.unknownFields.count)")
            if !ranges.isEmpty { printer.line("size.add(self.extensionFields.count)") }
            for code in fields {
                printer.line(code.sizeStatement)
            }
            printer.line("return size.total")
        }
    }

    /// Required fields are set, here and in every nested message that can hold them. The
    /// message's table checks the fields it holds (its `required` and `checked` lines), so
    /// only oneof members and groups are checked here: a loop per repeated field and a copy of
    /// each nested message's optional are costly for the optimiser. A table with `required`
    /// lines and no `checked` ones is called only when one of its required fields is unset
    /// (one comparison per field, then the table names the first missing one). Emitted only for
    /// a message that can hold required fields, so encoding any other message checks nothing.
    /// Kept out of line: otherwise the optimiser copies each nested message's check into its
    /// parent's.
    private func emitInitializationCheck(to printer: Printer) {
        let codes = message.fields.map(FieldCode.init)
        let tableCodes = codes.filter { !$0.isCustomInTable }
        let required = tableCodes.filter(\.field.isRequired)
        let checksTableValues = tableCodes.contains(where: \.needsInitializationCheck)
        printer.line("@inline(never)")
        printer.block("\(visibility)func checkInitialized() throws(SwiftFrame.WireError)") {
            if checksTableValues {
                printer.line("try self.checkTableFields()")
            } else if !required.isEmpty {
                let unset = required.map { "self.\($0.storedProperty) == nil" }.joined(separator: " || ")
                printer.block("if \(unset)") { printer.line("try self.checkTableFields()") }
            }
            for code in codes where code.isCustomInTable {
                let field = code.field
                if field.isRequired {
                    printer.block("if self.\(field.swiftName) == nil") {
                        printer.line(
                            "throw .missingRequiredField(message: Self.protoMessageName, field: \"\(field.protoName)\")"
                        )
                    }
                }
                guard code.needsInitializationCheck else { continue }
                let access = "self.\(field.swiftName)"
                switch field.shape {
                case .repeated, .packed: printer.line("for value in \(access) { try value.checkInitialized() }")
                case .map: printer.line("for value in \(access).values { try value.checkInitialized() }")
                case let .oneofMember(_, oneof):
                    printer.line(
                        "if case let .\(field.swiftName)(value)? = self.\(oneof) { try value.checkInitialized() }")
                case .optional, .required, .implicit: printer.line("try \(access)?.checkInitialized()")
                }
            }
        }
    }

    private func emitEncode(_ fields: [FieldCode], to printer: Printer) {
        if encodesOutOfLine { printer.line("@inline(never)") }
        printer.block("\(visibility)func encodeMessage(to writer: inout SwiftFrame.ProtoWriter)") {
            // Extension ranges are written where they fall in field-number order.
            var pendingRanges = ranges
            func writeRanges(before number: Int?) {
                while let range = pendingRanges.first, number.map({ range.lowerBound < $0 }) ?? true {
                    printer.line(
                        "writer.writeExtensions(self.extensionFields, in: \(range.lowerBound)...\(range.upperBound))")
                    pendingRanges.removeFirst()
                }
            }
            for code in fields {
                writeRanges(before: Int(code.field.number))
                printer.encodeBlock(code)
            }
            writeRanges(before: nil)
            if !ranges.isEmpty {
                let list = ranges.map { "\($0.lowerBound)...\($0.upperBound)" }.joined(separator: ", ")
                printer.line("writer.writeExtensionLeftovers(self.extensionFields, ranges: [\(list)])")
            }
            printer.line("writer.writeUnknownFields(self.unknownFields)")
        }
    }
}

extension Printer {
    /// The statements that write a field, inside their block if they have one.
    func encodeBlock(_ code: FieldCode) {
        let (header, body) = code.encodeBlock
        guard let header else { return body.forEach { line($0) } }
        block(header) { body.forEach { line($0) } }
    }
}
