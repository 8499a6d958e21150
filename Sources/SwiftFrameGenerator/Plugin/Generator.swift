import SwiftFrame

/// The plugin protocol in one place: request in, response out.
public enum Generator {
    /// Generates one Swift file per file to generate. Problems go into `response.error`,
    /// which protoc prints before failing.
    public static func generate(_ request: CodeGeneratorRequest) -> CodeGeneratorResponse {
        var response = CodeGeneratorResponse()
        response.supportedFeatures = CodeGeneratorResponse.featureProto3Optional
        do throws(GenerationError) {
            let options = try GeneratorOptions(parameter: request.parameter)
            let files = try Resolver.resolve(request)
            response.files = files.map { file in
                .init(name: file.outputName, content: FileEmitter(file: file, options: options).emit())
            }
        } catch {
            response.error = error.description
        }
        return response
    }

    /// Decodes a serialized CodeGeneratorRequest and returns the serialized response.
    /// Throws only when the request itself cannot be decoded.
    public static func run(requestBytes: [UInt8]) throws(WireError) -> [UInt8] {
        let request = try CodeGeneratorRequest(serializedBytes: requestBytes)
        return try generate(request).serializedBytes()
    }
}
