/// The text form of `FrameLayout` (grammar in `FrameLayout`'s documentation).
enum LayoutText {
    // MARK: Printing

    static func print(_ layout: FrameLayout) -> String {
        var items = layout.fields.map(print)
        if layout.maxFrameSize != FrameLayout.defaultMaxFrameSize {
            items.append("max=\(layout.maxFrameSize)")
        }
        if case let .resynchronize(maxSkip) = layout.badHeaderPolicy {
            items.append("resync=\(maxSkip)")
        }
        return items.joined(separator: " ")
    }

    static func print(_ field: FrameLayout.Field) -> String {
        var text: String
        switch field.kind {
        case .extra(let name): text = "extra." + name
        default: text = field.name
        }
        text += ":"
        if field.width == 0 {
            text += "varint"
        } else {
            text += (field.isSigned ? "i" : "u") + String(field.width * 8)
            if field.byteOrder == .littleEndian && field.width > 1 { text += "le" }
        }
        switch field.kind {
        case let .magic(value):
            text += "=0x" + LayoutRules.hex(value)
        case let .length(span, adjustment):
            text += ":" + spanName(span)
            if adjustment != 0 { text += ":adj=" + (adjustment > 0 ? "+" : "") + String(adjustment) }
        case let .type(known) where !known.isEmpty:
            text += ":known=" + known.map { String($0) }.joined(separator: ",")
        default:
            break
        }
        return text
    }

    static func spanName(_ span: FrameLayout.LengthSpan) -> String {
        switch span {
        case .body: "body"
        case .commandAndBody: "cmd+body"
        case .afterLength: "after"
        case .wholeFrame: "frame"
        }
    }

    static let spans: [String: FrameLayout.LengthSpan] = [
        "body": .body, "cmd+body": .commandAndBody, "after": .afterLength, "frame": .wholeFrame,
    ]

    // MARK: Parsing

    struct Token {
        var text: Substring
        var line: Int
        var column: Int

        func error(_ message: String) -> FrameLayoutError {
            FrameLayoutError(message, token: String(text), line: line, column: column)
        }
    }

    static func parse(_ description: String) throws(FrameLayoutError) -> FrameLayout {
        var fields: [FrameLayout.Field] = []
        var fieldTokens: [Token] = []
        var maxFrameSize: Int?
        var maxToken: Token?
        var resync: Int?
        var resyncToken: Token?

        for token in tokenize(description) {
            let text = token.text
            if text.contains(":") {
                fields.append(try parseField(token))
                fieldTokens.append(token)
                continue
            }
            guard let equals = text.firstIndex(of: "=") else {
                throw token.error("expected a field (role:type, e.g. length:u32:body) or a setting (max=N, resync=N)")
            }
            let key = text[..<equals]
            let value = text[text.index(after: equals)...]
            switch key {
            case "max":
                if maxFrameSize != nil { throw token.error("max is set twice") }
                guard let number = parseNumber(value), let size = Int(exactly: number), size > 0 else {
                    throw token.error("max needs a positive number of bytes")
                }
                maxFrameSize = size
                maxToken = token
            case "resync":
                if resync != nil { throw token.error("resync is set twice") }
                guard let number = parseNumber(value), let skip = Int(exactly: number), skip > 0 else {
                    throw token.error("resync needs a positive number of bytes to skip at most")
                }
                resync = skip
                resyncToken = token
            default:
                throw token.error("unknown setting '\(key)' (settings are max=N and resync=N)")
            }
        }
        if fieldTokens.isEmpty {
            throw FrameLayoutError("a layout needs at least a length field, e.g. length:u32:body")
        }
        let layout = FrameLayout(
            unchecked: fields,
            maxFrameSize: maxFrameSize ?? FrameLayout.defaultMaxFrameSize,
            badHeaderPolicy: resync.map { .resynchronize(maxSkip: $0) } ?? .fail
        )
        if let problem = LayoutRules.check(layout) {
            let token: Token? =
                switch problem.culprit {
                case let .field(index): fieldTokens[index]
                case .maxSetting: maxToken
                case .resyncSetting: resyncToken
                case nil: nil
                }
            if let token { throw token.error(problem.message) }
            throw FrameLayoutError(problem.message)
        }
        return layout
    }

    /// Splits at whitespace, dropping `#` comments; records where each token starts.
    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var line = 1
        var column = 1
        var index = text.startIndex
        var inComment = false
        var tokenStart: (index: String.Index, line: Int, column: Int)?

        func close(at end: String.Index) {
            if let start = tokenStart {
                tokens.append(Token(text: text[start.index..<end], line: start.line, column: start.column))
                tokenStart = nil
            }
        }

        while index < text.endIndex {
            let character = text[index]
            if character.isNewline {
                close(at: index)
                inComment = false
                line += 1
                column = 0
            } else if inComment {
                // skip
            } else if character == "#" {
                close(at: index)
                inComment = true
            } else if character.isWhitespace {
                close(at: index)
            } else if tokenStart == nil {
                tokenStart = (index, line, column)
            }
            column += 1
            index = text.index(after: index)
        }
        close(at: text.endIndex)
        return tokens
    }

    static func parseField(_ token: Token) throws(FrameLayoutError) -> FrameLayout.Field {
        let parts = token.text.split(separator: ":", omittingEmptySubsequences: false)
        if let empty = parts.firstIndex(where: \.isEmpty) {
            throw token.error(empty == 0 ? "missing field role before ':'" : "empty part between ':'")
        }
        let role = parts[0]
        guard parts.count >= 2 else {
            throw token.error("missing type after the role, e.g. \(role):u32")
        }

        // Type, with the value for a magic.
        var typeText = parts[1]
        var valueText: Substring?
        if let equals = typeText.firstIndex(of: "=") {
            valueText = typeText[typeText.index(after: equals)...]
            typeText = typeText[..<equals]
        }
        guard let type = parseType(typeText) else {
            throw token.error("unknown type '\(typeText)' (u8, u16, u32, u64, i8...i64, with le or be, or varint)")
        }
        let options = parts.dropFirst(2)

        let kind: FrameLayout.FieldKind
        switch role {
        case "magic":
            guard let valueText else { throw token.error("a magic needs its value, e.g. magic:u32=0xFF") }
            guard let value = parseNumber(valueText) else { throw token.error("'\(valueText)' is not a number") }
            if let option = options.first { throw token.error("magic takes no option '\(option)'") }
            kind = .magic(value)
        case "length":
            var span: FrameLayout.LengthSpan?
            var adjustment: Int?
            for option in options {
                if let found = spans[String(option)] {
                    if span != nil { throw token.error("a length has one span") }
                    span = found
                } else if option.hasPrefix("adj=") {
                    if adjustment != nil { throw token.error("adj is given twice") }
                    guard let value = parseSigned(option.dropFirst(4)) else {
                        throw token.error("'\(option)' needs a whole number, e.g. adj=-4")
                    }
                    adjustment = value
                } else {
                    throw token.error("unknown length option '\(option)' (body, cmd+body, after, frame, adj=N)")
                }
            }
            guard let span else { throw token.error("a length needs its span: body, cmd+body, after or frame") }
            kind = .length(span: span, adjustment: adjustment ?? 0)
        case "cmd", "seq":
            if let option = options.first { throw token.error("\(role) takes no option '\(option)'") }
            kind = role == "cmd" ? .command : .sequence
        case "type":
            var known: [UInt64] = []
            for option in options {
                guard option.hasPrefix("known=") else {
                    throw token.error("unknown type option '\(option)' (known=1,2,...)")
                }
                if !known.isEmpty { throw token.error("known is given twice") }
                for item in option.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false) {
                    guard let value = parseNumber(item) else { throw token.error("'\(item)' is not a number") }
                    known.append(value)
                }
            }
            kind = .type(known: known)
        default:
            guard role.hasPrefix("extra.") else {
                throw token.error("unknown field '\(role)' (magic, length, cmd, seq, type, or extra.NAME)")
            }
            if let option = options.first { throw token.error("an extra field takes no option '\(option)'") }
            kind = .extra(name: String(role.dropFirst(6)))
        }
        if valueText != nil, role != "magic" {
            throw token.error("only a magic takes a value ('=')")
        }
        return FrameLayout.Field(kind: kind, width: type.width, byteOrder: type.byteOrder, isSigned: type.isSigned)
    }

    static func parseType(_ text: Substring) -> (width: Int, byteOrder: FrameLayout.ByteOrder, isSigned: Bool)? {
        if text == "varint" { return (0, .bigEndian, false) }
        var rest = text
        let isSigned: Bool
        switch rest.first {
        case "u": isSigned = false
        case "i": isSigned = true
        default: return nil
        }
        rest = rest.dropFirst()
        var byteOrder = FrameLayout.ByteOrder.bigEndian
        if rest.hasSuffix("le") {
            byteOrder = .littleEndian
            rest = rest.dropLast(2)
        } else if rest.hasSuffix("be") {
            rest = rest.dropLast(2)
        }
        let width: Int
        switch rest {
        case "8": width = 1
        case "16": width = 2
        case "32": width = 4
        case "64": width = 8
        default: return nil
        }
        return (width, byteOrder, isSigned)
    }

    /// Decimal or `0x` hexadecimal, unsigned, no sign or separators.
    static func parseNumber(_ text: Substring) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            return digits.isEmpty || digits.contains("+") || digits.contains("-") ? nil : UInt64(digits, radix: 16)
        }
        return text.isEmpty || text.first == "+" || text.first == "-" ? nil : UInt64(text, radix: 10)
    }

    /// An optional sign, then a number as in `parseNumber`.
    static func parseSigned(_ text: Substring) -> Int? {
        var negative = false
        var digits = text
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard let magnitude = parseNumber(digits), magnitude <= UInt64(Int.max) else { return nil }
        return negative ? -Int(magnitude) : Int(magnitude)
    }
}

extension FrameLayout {
    /// A layout the caller checks (its plan is nil if it breaks a rule).
    init(unchecked fields: [Field], maxFrameSize: Int, badHeaderPolicy: BadHeaderPolicy) {
        self.fields = fields
        self.maxFrameSize = maxFrameSize
        self.badHeaderPolicy = badHeaderPolicy
        self.plan = LayoutRules.check(self) == nil ? FramePlan(self) : nil
    }
}
