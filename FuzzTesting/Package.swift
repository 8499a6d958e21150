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
        // The invariants; the main package compiles these sources too, to replay FailCases/.
        .target(
            name: "FuzzChecks",
            dependencies: [
                .product(name: "SwiftFrame", package: swiftframe),
                .product(name: "SwiftFrameConformanceMessages", package: swiftframe),
                .product(name: "SwiftFrameConformanceMessagesCompact", package: swiftframe),
                .product(name: "SwiftFrameDescriptors", package: swiftframe),
                .product(name: "SwiftFrameGenerator", package: swiftframe),
                .product(name: "SwiftFrameNIO", package: swiftframe),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        fuzzTarget("FuzzMessage"),
        fuzzTarget("FuzzFrames"),
        fuzzTarget("FuzzLayoutText"),
        fuzzTarget("FuzzPlugin"),
        fuzzTarget("FuzzDecoderHandler"),
        fuzzTarget("FuzzClientInbound"),
    ]
)
