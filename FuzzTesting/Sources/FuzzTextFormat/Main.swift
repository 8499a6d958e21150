// libFuzzer entry point; built with -parse-as-library (see FuzzTesting/README.md).
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    checkTextFormat(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
