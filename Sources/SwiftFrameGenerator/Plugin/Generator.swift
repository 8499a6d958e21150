import SwiftFrame
import SwiftFrameDescriptors

/// The plugin protocol in one place: request in, response out.
public enum Generator {
    /// Generates one Swift file per file to generate. Problems go into `response.error`,
    /// which protoc prints before failing.
    public static func generate(_ request: CodeGeneratorRequest) -> CodeGeneratorResponse {
        generateWithWarnings(request).response
    }

    /// Like `generate`, also returning warnings (commands that match no message), which
    /// the plugin prints on stderr for protoc to show.
    public static func generateWithWarnings(_ request: CodeGeneratorRequest) -> (
        response: CodeGeneratorResponse, warnings: [Diagnostic]
    ) {
        var response = CodeGeneratorResponse()
        response.supportedFeatures =
            CodeGeneratorResponse.featureProto3Optional | CodeGeneratorResponse.featureSupportsEditions
        // The editions whose feature defaults the resolver has (protoc's own, published).
        response.minimumEdition = EditionDefaults.supported.lowerBound
        response.maximumEdition = EditionDefaults.supported.upperBound
        do throws(GenerationError) {
            let options = try GeneratorOptions(parameter: request.parameter ?? "")
            let resolution = try Resolver.resolve(request, options: options)
            var outputs: [String: String] = [:]
            for file in resolution.files {
                let output = file.outputName(options.fileNaming)
                if let other = outputs[output] {
                    throw GenerationError([
                        Place(file: file.name).error(
                            .outputCollision,
                            "\(other) and \(file.name) would both be written to \(output); use FileNaming=FullPath")
                    ])
                }
                outputs[output] = file.name
            }
            response.file = resolution.files.map { file in
                .init(
                    name: file.outputName(options.fileNaming), content: FileEmitter(file: file, options: options).emit()
                )
            }
            return (response, resolution.warnings)
        } catch {
            response.error = error.description
            return (response, [])
        }
    }

    /// Decodes a serialized CodeGeneratorRequest and returns the serialized response and
    /// the warnings. Throws only when the request itself cannot be decoded.
    public static func run(requestBytes: [UInt8]) throws(WireError) -> (response: [UInt8], warnings: [Diagnostic]) {
        let request = try CodeGeneratorRequest(serializedBytes: requestBytes, partial: true)
        let (response, warnings) = generateWithWarnings(request)
        return (try response.serializedBytes(), warnings)
    }
}
