// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LoopLearn",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "loop", targets: ["loop"]),
        .library(name: "LoopAudio", targets: ["LoopAudio"]),
        .library(name: "LoopAuthoring", targets: ["LoopAuthoring"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C libraries, wrapped only by the module that owns them.
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),

        // Audio files: decoding, encoding, streaming reads, mono downmix.
        .target(name: "LoopAudio", dependencies: ["CSndFile"]),

        // Text into phrases, audio into phrase clips.
        .target(name: "LoopAuthoring", dependencies: ["LoopAudio"]),

        // The command line: parsing, formatting; all logic lives in the libraries.
        .target(
            name: "LoopCLI",
            dependencies: [
                "LoopAudio",
                "LoopAuthoring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "loop", dependencies: ["LoopCLI"]),

        .testTarget(name: "LoopAudioTests", dependencies: ["LoopAudio"]),
        .testTarget(name: "LoopAuthoringTests", dependencies: ["LoopAuthoring", "LoopAudio"]),
        .testTarget(name: "LoopCLITests", dependencies: ["LoopCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
