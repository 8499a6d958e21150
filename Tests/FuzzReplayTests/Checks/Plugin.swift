import SwiftFrame
// The generator's sources, compiled by FuzzTesting/Package.swift as FuzzGenerator (the main
// package's SwiftFrameGenerator is no product), or the main package's own for FuzzReplayTests.
#if canImport(FuzzGenerator)
import FuzzGenerator
#else
import SwiftFrameGenerator
#endif

/// The plugin on arbitrary bytes as its CodeGeneratorRequest: a typed decoding error, or a
/// response that decodes (with files or with an error), never a crash.
public func checkPlugin(_ data: UnsafeRawBufferPointer) {
    let response: [UInt8]
    do {
        response = try Generator.run(requestBytes: Array(data)).response
    } catch {
        return
    }
    do {
        _ = try CodeGeneratorResponse(serializedBytes: response)
    } catch {
        fatalError("the plugin's response does not decode: \(error)")
    }
}
