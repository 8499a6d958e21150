// swift-tools-version: 6.1
import PackageDescription

/// Dependencies that only their trait resolves (see `traits` below).
let transport: TargetDependencyCondition? = .when(traits: ["Transport"])
let commandLineTool: TargetDependencyCondition? = .when(traits: ["CommandLineTool"])
let compression: TargetDependencyCondition? = .when(traits: ["Compression"])
let encryption: TargetDependencyCondition? = .when(traits: ["Encryption"])
let metrics: TargetDependencyCondition? = .when(traits: ["Metrics"])
let tls: TargetDependencyCondition? = .when(traits: ["TLS"])
let swiftProtobuf: TargetDependencyCondition? = .when(traits: ["SwiftProtobuf"])
/// Network.framework's TLS (through swift-nio-transport-services) exists on Apple platforms only:
/// elsewhere the package is resolved with the trait but never built.
let appleTLS: TargetDependencyCondition? = .when(
    platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst], traits: ["TLS"])

let package = Package(
    name: "swiftframe",
    // The transport's timeouts are Swift `Duration`s.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    // What apps use. The generator library, the conformance testees and their messages, and the
    // demo are targets of this package only: its own tests, scripts and FuzzTesting/ use them
    // (`swift run swiftframe-demo` works here, as every executable of the root package does).
    products: [
        // The runtime the generated code calls.
        .library(name: "SwiftFrame", targets: ["SwiftFrame"]),
        .library(name: "SwiftFrameNIO", targets: ["SwiftFrameNIO"]),
        .library(name: "SwiftFrameURLSession", targets: ["SwiftFrameURLSession"]),
        // SwiftProtobuf's messages as frame payloads (the SwiftProtobuf trait).
        .library(name: "SwiftFrameSwiftProtobuf", targets: ["SwiftFrameSwiftProtobuf"]),
        .library(name: "SwiftFrameWellKnownTypes", targets: ["SwiftFrameWellKnownTypes"]),
        // descriptor.proto's types: code generated for a file that declares custom options
        // (`extend google.protobuf.MessageOptions`) imports it.
        .library(name: "SwiftFrameDescriptors", targets: ["SwiftFrameDescriptors"]),
        .executable(name: "protoc-gen-swiftframe", targets: ["protoc-gen-swiftframe"]),
        .executable(name: "swiftframe", targets: ["swiftframe"]),
        // Generate at build time from a target's .proto files.
        .plugin(name: "SwiftFrameBuildPlugin", targets: ["SwiftFrameBuildPlugin"]),
        // `swift package generate-swiftframe`: the checked-in workflow.
        .plugin(name: "GenerateSwiftFrame", targets: ["GenerateSwiftFrame"]),
        // `swift package check-swiftframe`: its golden test, which needs no write permission.
        .plugin(name: "CheckSwiftFrame", targets: ["CheckSwiftFrame"]),
    ],
    // A package that uses only the runtime, the generator or the plugins needs none of the
    // dependencies below: depending on swiftframe with `traits: []` resolves none of them.
    traits: [
        .trait(name: "Transport", description: "SwiftFrameNIO and the demo: SwiftNIO and swift-log"),
        .trait(name: "CommandLineTool", description: "The swiftframe command-line tool: swift-argument-parser"),
        .trait(name: "Compression", description: "ZlibBody, zlib bodies for FlaggedBody: compress-nio and the system's zlib"),
        .trait(name: "Encryption", description: "AESGCMBody, AES-GCM bodies for FlaggedBody: swift-crypto"),
        .trait(name: "Metrics", description: "FrameMetrics, the client's metrics through swift-metrics"),
        .trait(
            name: "TLS",
            description: "TLS for SwiftFrameNIO's client and server: swift-nio-ssl, swift-certificates (the server's "
                + "name), swift-crypto (key pins), and "
                + "swift-nio-transport-services on Apple platforms (Network.framework's TLS)",
            enabledTraits: ["Transport"]),
        // Off by default: only an app that keeps protoc-gen-swift's messages wants it.
        .trait(
            name: "SwiftProtobuf",
            description: "SwiftFrameSwiftProtobuf, SwiftProtobuf messages as the payloads of command tables: swift-protobuf"),
        .default(enabledTraits: ["Transport", "CommandLineTool", "Compression", "Encryption", "Metrics", "TLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        // Only the tests name it: swift-certificates' own dependency.
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-transport-services", from: "1.28.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // `swift package generate-documentation`; used by no target, so never resolved for
        // packages that depend on swiftframe.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Runtime the generated code calls: no dependencies, no Foundation.
        .target(name: "SwiftFrame"),
        // pcap captures: written by the transport's FrameCapture, read by `swiftframe inspect`.
        .target(name: "SwiftFrameCapture"),
        // google/protobuf's well-known types, generated by the plugin, with conveniences.
        .target(name: "SwiftFrameWellKnownTypes", dependencies: ["SwiftFrame"]),
        // google/protobuf/descriptor.proto, generated by the plugin: the types custom options
        // (`extend google.protobuf.MessageOptions`) extend, and the plugin's own input.
        .target(name: "SwiftFrameDescriptors", dependencies: ["SwiftFrame"]),
        // Descriptor decoder, resolved model, naming, printer and emitters.
        .target(name: "SwiftFrameGenerator", dependencies: ["SwiftFrame", "SwiftFrameDescriptors"]),
        // Messages read from a descriptor set at run time, printed and read in text format through
        // the runtime's printer and reader: what `swiftframe inspect` decodes payloads with.
        .target(name: "SwiftFrameReflection", dependencies: ["SwiftFrame", "SwiftFrameDescriptors"]),
        .executableTarget(name: "protoc-gen-swiftframe", dependencies: ["SwiftFrame", "SwiftFrameGenerator"]),
        // SwiftPM plugins running protoc with the plugin above, configured by a target's
        // swiftframe.json (Plugins/SwiftFrameBuildPlugin/PluginSettings.swift).
        .plugin(name: "SwiftFrameBuildPlugin", capability: .buildTool(), dependencies: ["protoc-gen-swiftframe"]),
        .plugin(
            name: "GenerateSwiftFrame",
            capability: .command(
                intent: .custom(verb: "generate-swiftframe",
                                description: "Regenerate the checked-in Swift of .proto files"),
                permissions: [.writeToPackageDirectory(reason: "Writes the generated Swift sources")]
            ),
            dependencies: ["protoc-gen-swiftframe"]
        ),
        // The same comparison as `generate-swiftframe --check`, as a verb of its own: a command
        // plugin's permissions are fixed per plugin, and this one writes nothing.
        .plugin(
            name: "CheckSwiftFrame",
            capability: .command(
                intent: .custom(verb: "check-swiftframe",
                                description: "Fail, naming each file, when checked-in generated Swift is stale")
            ),
            dependencies: ["protoc-gen-swiftframe"]
        ),
        // Command-line tool: `swiftframe inspect` (the frames of a capture), `dissector` (a Wireshark
        // dissector for a command table) and `call` (a request to a server).
        .executableTarget(
            name: "swiftframe",
            dependencies: [
                "SwiftFrame", "SwiftFrameCapture", "SwiftFrameDescriptors", "SwiftFrameGenerator", "SwiftFrameReflection",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTool),
                // `swiftframe call`.
                .target(name: "SwiftFrameNIO", condition: transport),
                .product(name: "NIOCore", package: "swift-nio", condition: transport),
                .product(name: "NIOPosix", package: "swift-nio", condition: transport),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: transport),
            ]
        ),

        // Live connections on SwiftNIO: channel handlers, a client (request/response, pushes,
        // heartbeat, reconnect) and a server for any command table.
        .target(
            name: "SwiftFrameNIO",
            dependencies: [
                "SwiftFrame", "SwiftFrameCapture",
                .product(name: "NIOCore", package: "swift-nio", condition: transport),
                .product(name: "NIOPosix", package: "swift-nio", condition: transport),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: transport),
                .product(name: "Logging", package: "swift-log", condition: transport),
                .product(name: "CompressNIO", package: "compress-nio", condition: compression),
                // AES-GCM bodies, and the SHA-256 of TLS key pins.
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption", "TLS"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: metrics),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: tls),
                // The server's name, checked against its certificate's SANs (TLS/ServerIdentity.swift).
                .product(name: "X509", package: "swift-certificates", condition: tls),
                .product(name: "NIOTLS", package: "swift-nio", condition: tls),
                .product(name: "NIOTransportServices", package: "swift-nio-transport-services", condition: appleTLS),
            ]
        ),
        // SwiftProtobuf messages as requests, responses and pushes of command tables, coded by
        // SwiftProtobuf itself.
        .target(
            name: "SwiftFrameSwiftProtobuf",
            dependencies: ["SwiftFrame", .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: swiftProtobuf)]
        ),
        // The HTTP short connection on URLSession (Foundation), kept out of the runtime.
        .target(name: "SwiftFrameURLSession", dependencies: ["SwiftFrame"]),
        // One scenario per seed system against a live server; prints a line per step.
        .executableTarget(
            name: "swiftframe-demo",
            dependencies: [
                "SwiftFrameNIO", "SwiftFrameURLSession", "SwiftFrameFixtures",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: commandLineTool),
            ]
        ),

        // The protobuf conformance testee: messages generated from Protos/conformance, and the same
        // .proto files generated with optimize_for = CODE_SIZE (`swiftframe-conformance --code-size`).
        .target(name: "SwiftFrameConformanceMessages", dependencies: ["SwiftFrame", "SwiftFrameWellKnownTypes"]),
        .target(name: "SwiftFrameConformanceMessagesCompact", dependencies: ["SwiftFrame", "SwiftFrameWellKnownTypes"]),
        .executableTarget(
            name: "swiftframe-conformance",
            dependencies: [
                "SwiftFrame", "SwiftFrameConformanceMessages", "SwiftFrameConformanceMessagesCompact",
                "SwiftFrameWellKnownTypes",
            ]),

        // The checked-in output of the plugin for Fixtures/protos, compiled as a module.
        .target(name: "SwiftFrameFixtures", dependencies: ["SwiftFrame", "SwiftFrameDescriptors"], path: "Fixtures/generated"),
        // The same .proto files generated with optimize_for = CODE_SIZE.
        .target(
            name: "SwiftFrameFixturesCompact", dependencies: ["SwiftFrame", "SwiftFrameDescriptors"],
            path: "Fixtures/generated-compact"
        ),

        // What the test targets share: processes and protoc, hand-built wire bytes, the
        // round-trip check against protoc.
        .target(name: "TestSupport", dependencies: ["SwiftFrame"], path: "Tests/TestSupport"),
        .testTarget(name: "SwiftFrameTests", dependencies: ["SwiftFrame", "SwiftFrameFixtures", "TestSupport"]),
        // Handlers on EmbeddedChannel; client, server and demo over loopback against the
        // Python reference peers in Tests/Peers.
        .testTarget(
            name: "SwiftFrameNIOTests",
            dependencies: [
                "SwiftFrameNIO", "SwiftFrameURLSession", "SwiftFrameWellKnownTypes", "SwiftFrameFixtures", "swiftframe-demo", "swiftframe",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: transport),
                .product(name: "NIOPosix", package: "swift-nio", condition: transport),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: transport),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: transport),
                .product(name: "NIOTestUtils", package: "swift-nio", condition: transport),
                .product(name: "Logging", package: "swift-log", condition: transport),
                .product(name: "Crypto", package: "swift-crypto", condition: encryption),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: metrics),
                .product(name: "X509", package: "swift-certificates", condition: tls),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: tls),
            ]
        ),
        .testTarget(
            name: "SwiftFrameGeneratorTests",
            dependencies: ["SwiftFrameGenerator", "SwiftFrameDescriptors", "protoc-gen-swiftframe", "TestSupport"]
        ),
        // The fixtures against protoc; and their CODE_SIZE twins against them (CodeModeTests).
        .testTarget(
            name: "FixtureTests",
            dependencies: [
                "SwiftFrame", "SwiftFrameDescriptors", "SwiftFrameFixtures", "SwiftFrameFixturesCompact", "TestSupport",
            ]),
        // Every fixture and conformance message printed and read through schemas read from
        // protoc's descriptor sets, against protoc and the generated types.
        .testTarget(
            name: "ReflectionTests",
            dependencies: ["SwiftFrameReflection", "SwiftFrame", "SwiftFrameDescriptors", "SwiftFrameFixtures",
                           "SwiftFrameConformanceMessages", "TestSupport"]
        ),
        // Runs the built `swiftframe` executable on captured streams.
        .testTarget(name: "SwiftFrameCLITests", dependencies: ["swiftframe", "SwiftFrame", "SwiftFrameCapture", "SwiftFrameFixtures", "TestSupport"]),
        .testTarget(name: "WellKnownTypesTests", dependencies: ["SwiftFrameWellKnownTypes", "SwiftFrame", "TestSupport"]),
        // Replays FuzzTesting/FailCases through the fuzz targets' own checks (Checks/, which the
        // FuzzTesting package compiles into its fuzz targets).
        .testTarget(
            name: "FuzzReplayTests",
            dependencies: [
                "SwiftFrame", "SwiftFrameConformanceMessages", "SwiftFrameConformanceMessagesCompact", "SwiftFrameDescriptors",
                "SwiftFrameGenerator", "SwiftFrameNIO", "SwiftFrameCapture", "SwiftFrameWellKnownTypes", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: transport),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: transport),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: transport),
            ]
        ),
        // The conformance messages and the testee in both modes; the CODE_SIZE messages against the
        // default ones (CodeModeTests).
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "swiftframe-conformance", "SwiftFrame", "SwiftFrameConformanceMessages",
                "SwiftFrameConformanceMessagesCompact", "SwiftFrameWellKnownTypes", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
