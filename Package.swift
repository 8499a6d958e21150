// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swiftframe",
    products: [
        .library(name: "SwiftFrame", targets: ["SwiftFrame"]),
        .library(name: "SwiftFrameGenerator", targets: ["SwiftFrameGenerator"]),
        .executable(name: "protoc-gen-swiftframe", targets: ["protoc-gen-swiftframe"]),
    ],
    targets: [
        // Runtime the generated code calls: no dependencies, no Foundation.
        .target(name: "SwiftFrame"),
        // Descriptor decoder, resolved model, naming, printer and emitters.
        .target(name: "SwiftFrameGenerator", dependencies: ["SwiftFrame"]),
        .executableTarget(name: "protoc-gen-swiftframe", dependencies: ["SwiftFrameGenerator"]),

        // The checked-in output of the plugin for Fixtures/protos, compiled as a module.
        .target(name: "SwiftFrameFixtures", dependencies: ["SwiftFrame"], path: "Fixtures/generated"),

        .testTarget(name: "SwiftFrameTests", dependencies: ["SwiftFrame"]),
        .testTarget(
            name: "SwiftFrameGeneratorTests",
            dependencies: ["SwiftFrameGenerator", "protoc-gen-swiftframe"]
        ),
        .testTarget(name: "FixtureTests", dependencies: ["SwiftFrame", "SwiftFrameFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
