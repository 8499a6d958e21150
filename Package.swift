// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swiftframe",
    products: [
        .library(name: "SwiftFrame", targets: ["SwiftFrame"]),
        .library(name: "SwiftFrameGenerator", targets: ["SwiftFrameGenerator"]),
        .executable(name: "protoc-gen-swiftframe", targets: ["protoc-gen-swiftframe"]),
        .executable(name: "swiftframe", targets: ["swiftframe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Runtime the generated code calls: no dependencies, no Foundation.
        .target(name: "SwiftFrame"),
        // Descriptor decoder, resolved model, naming, printer and emitters.
        .target(name: "SwiftFrameGenerator", dependencies: ["SwiftFrame"]),
        .executableTarget(name: "protoc-gen-swiftframe", dependencies: ["SwiftFrameGenerator"]),
        // Command-line tool: `swiftframe inspect` prints the frames of a captured byte stream.
        .executableTarget(
            name: "swiftframe",
            dependencies: ["SwiftFrame", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // The checked-in output of the plugin for Fixtures/protos, compiled as a module.
        .target(name: "SwiftFrameFixtures", dependencies: ["SwiftFrame"], path: "Fixtures/generated"),

        .testTarget(name: "SwiftFrameTests", dependencies: ["SwiftFrame"]),
        .testTarget(
            name: "SwiftFrameGeneratorTests",
            dependencies: ["SwiftFrameGenerator", "protoc-gen-swiftframe"]
        ),
        .testTarget(name: "FixtureTests", dependencies: ["SwiftFrame", "SwiftFrameFixtures"]),
        // Runs the built `swiftframe` executable on captured streams.
        .testTarget(name: "SwiftFrameCLITests", dependencies: ["swiftframe"]),
    ],
    swiftLanguageModes: [.v6]
)
