// swift-tools-version: 6.0
// libFuzzer targets for every decoder, in a package of their own so that `make test` never
// builds them. `make fuzz` (in the repository root) builds and runs them; README.md here says how.
import Foundation
import PackageDescription

// A path dependency is identified by its directory's name, which is whatever the clone is
// called ("main", "swiftframe", ...).
let swiftframe = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent
    .lowercased()

func fuzzTarget(_ name: String) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzChecks"])
}

let package = Package(
    name: "swiftframe-fuzz",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        // The invariants: the main package's Tests/FuzzReplayTests/Checks (linked), whose tests
        // replay FailCases/ through them.
        .target(
            name: "FuzzChecks",
            dependencies: [
                "SwiftFrameConformanceMessages", "SwiftFrameConformanceMessagesCompact", "FuzzGenerator", "FuzzCaptureReader",
                .product(name: "SwiftFrame", package: swiftframe),
                .product(name: "SwiftFrameWellKnownTypes", package: swiftframe),
                .product(name: "SwiftFrameDescriptors", package: swiftframe),
                .product(name: "SwiftFrameNIO", package: swiftframe),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The main package's generator and conformance messages, which are not its products:
        // their folders, linked (Sources/X -> ../../Sources/X), compiled here. The generator
        // takes another name: the main package's target of that name is part of its
        // protoc-gen-swiftframe product, and target names are unique in a package graph.
        .target(
            name: "FuzzGenerator",
            dependencies: [
                .product(name: "SwiftFrame", package: swiftframe),
                .product(name: "SwiftFrameDescriptors", package: swiftframe),
            ]
        ),
        // The capture reader (Sources/SwiftFrameCapture, linked), under another name for the same
        // reason: the main package's SwiftFrameNIO depends on its SwiftFrameCapture.
        .target(name: "FuzzCaptureReader"),
        .target(
            name: "SwiftFrameConformanceMessages",
            dependencies: [
                .product(name: "SwiftFrame", package: swiftframe),
                .product(name: "SwiftFrameWellKnownTypes", package: swiftframe),
            ]
        ),
        .target(
            name: "SwiftFrameConformanceMessagesCompact",
            dependencies: [
                .product(name: "SwiftFrame", package: swiftframe),
                .product(name: "SwiftFrameWellKnownTypes", package: swiftframe),
            ]
        ),
        fuzzTarget("FuzzMessage"),
        fuzzTarget("FuzzFrames"),
        fuzzTarget("FuzzLayoutText"),
        fuzzTarget("FuzzPlugin"),
        fuzzTarget("FuzzDecoderHandler"),
        fuzzTarget("FuzzClientInbound"),
        fuzzTarget("FuzzCapture"),
        fuzzTarget("FuzzJSON"),
        fuzzTarget("FuzzTextFormat"),
    ]
)
