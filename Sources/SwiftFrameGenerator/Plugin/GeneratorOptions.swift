/// Options from `--swiftframe_opt=key=value,key2=value2`. Unknown keys are errors.
public struct GeneratorOptions: Equatable, Sendable {
    public enum Visibility: String, Sendable, CaseIterable {
        case `public`, `internal`, `package`

        /// The access modifier, with its trailing space, written before each declaration.
        var modifier: String { self == .internal ? "" : rawValue + " " }
    }

    /// Access level of the generated declarations.
    public var visibility: Visibility = .public

    public init() {}

    /// Parses protoc's parameter string.
    public init(parameter: String) throws(GenerationError) {
        for item in parameter.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingWhitespace
            guard parts.count == 2 else {
                throw GenerationError(problems: ["option '\(item)' needs a value: write \(key)=VALUE"])
            }
            let value = parts[1].trimmingWhitespace
            switch key {
            case "Visibility":
                guard let visibility = Visibility(rawValue: value) else {
                    let allowed = Visibility.allCases.map(\.rawValue).joined(separator: ", ")
                    throw GenerationError(problems: ["option Visibility=\(value): expected one of \(allowed)"])
                }
                self.visibility = visibility
            default:
                throw GenerationError(problems: ["unknown option '\(key)' (known options: Visibility)"])
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
