/// This release of swiftframe: the runtime, and the plugin built from the same package.
public enum Release {
    /// `protoc-gen-swiftframe --version` prints it; generated files name it in their header.
    public static let version = "0.9.0"

    /// The interface between generated code and this runtime. Generated files refer to
    /// `GeneratedCodeVersion<N>` for the N they were written against, so code generated
    /// for another runtime fails to compile at that line instead of somewhere inside.
    public static let generatedCode = 1
}

/// Named by every file the plugin of this release generates; see ``Release``.
@_documentation(visibility: internal)
public enum GeneratedCodeVersion1 {}
