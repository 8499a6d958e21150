// protoc-gen-swiftframe: protoc runs this with a CodeGeneratorRequest on stdin and reads
// the CodeGeneratorResponse from stdout.
//   protoc --plugin=protoc-gen-swiftframe=PATH --swiftframe_out=DIR file.proto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftFrame
import SwiftFrameGenerator

/// Writes all of `bytes` to a file descriptor; false on failure.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    bytes.withUnsafeBytes { buffer in
        // An empty buffer has no address, and nothing to write.
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let count = write(descriptor, base + offset, buffer.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}

func fail(_ message: String) -> Never {
    _ = writeAll(Array("protoc-gen-swiftframe: \(message)\n".utf8), to: 2)
    exit(1)
}

if CommandLine.arguments.dropFirst() == ["--version"] {
    print("protoc-gen-swiftframe \(Release.version)")
    exit(0)
}

if CommandLine.arguments.count > 1 || isatty(0) != 0 {
    print(
        """
        protoc-gen-swiftframe is a protoc plugin; run it through protoc:
          protoc --plugin=protoc-gen-swiftframe=PATH --swiftframe_out=DIR [--swiftframe_opt=Visibility=internal] FILE.proto
          protoc-gen-swiftframe --version
        """)
    exit(CommandLine.arguments.dropFirst().allSatisfy { $0 == "--help" || $0 == "-h" } ? 0 : 1)
}

var input: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 1 << 16)
while true {
    // errno is taken at once, before anything else can change it.
    let (count, error) = chunk.withUnsafeMutableBytes { buffer in
        let count = read(0, buffer.baseAddress, buffer.count)
        return (count, count < 0 ? errno : 0)
    }
    if count < 0 && error == EINTR { continue }
    if count < 0 && error == EBADF {
        fail(
            "cannot read stdin (errno \(error)): it is closed. protoc gives a plugin a closed stdin when protoc itself was started with its standard input closed; start protoc with one (for example < /dev/null)"
        )
    }
    if count < 0 { fail("cannot read stdin (errno \(error))") }
    if count == 0 { break }
    input.append(contentsOf: chunk[..<count])
}

do {
    let (output, warnings) = try Generator.run(requestBytes: input)
    for warning in warnings {
        _ = writeAll(Array("\(warning)\n".utf8), to: 2)
    }
    guard writeAll(output, to: 1) else { fail("cannot write the response to stdout") }
} catch {
    fail("stdin is not a valid CodeGeneratorRequest: \(error)")
}
