// swift-tools-version: 6.1
// A package that uses swiftframe as an app would, through both SwiftPM plugins:
// scripts/check-plugins.sh builds and runs it, and checks and regenerates its checked-in code.
import PackageDescription

let package = Package(
    name: "PluginPackage",
    dependencies: [
        // traits: [] resolves none of swiftframe's dependencies (SwiftNIO, swift-log, the CLI's
        // argument parser): the runtime and the plugins need none of them.
        .package(name: "swiftframe", path: "../..", traits: []),
    ],
    targets: [
        // .proto files inside the target, generated at build time.
        .target(
            name: "LiveProtocol",
            dependencies: [.product(name: "SwiftFrame", package: "swiftframe")],
            exclude: ["swiftframe.json"],
            plugins: [.plugin(name: "SwiftFrameBuildPlugin", package: "swiftframe")]
        ),
        // .proto files shared with a server team (protos/), generated into checked-in
        // sources by `swift package generate-swiftframe`.
        .target(
            name: "SharedProtocol",
            dependencies: [.product(name: "SwiftFrame", package: "swiftframe")],
            exclude: ["swiftframe.json"]
        ),
        .executableTarget(name: "plugin-demo", dependencies: ["LiveProtocol", "SharedProtocol"]),
    ],
    swiftLanguageModes: [.v6]
)
