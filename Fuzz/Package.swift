// swift-tools-version:6.0
// libFuzzer targets for the bundle readers, the text parser, the picture header reader, the subtitle reader, the audio file
// reader, the Loop Library client's reading of a server's answers, a signed request's headers as the server reads them,
// language names and the numeric options. Built by Scripts/fuzz with -sanitize=fuzzer (which
// provides main), so they live outside the main package.
import PackageDescription

let package = Package(
    name: "LoopFuzz",
    dependencies: [
        .package(name: "LoopLearn", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "LibFuzzerDriver"),
        .executableTarget(
            name: "ManifestFuzzer",
            dependencies: ["LibFuzzerDriver", .product(name: "LoopShare", package: "LoopLearn")]),
        .executableTarget(
            name: "ArchiveFuzzer", dependencies: ["LibFuzzerDriver", .product(name: "LoopShare", package: "LoopLearn")]),
        .executableTarget(
            name: "PictureFuzzer",
            dependencies: ["LibFuzzerDriver", .product(name: "LoopPictures", package: "LoopLearn")]),
        .executableTarget(
            name: "TextFuzzer", dependencies: ["LibFuzzerDriver", .product(name: "LoopText", package: "LoopLearn")]),
        .executableTarget(
            name: "SubtitleFuzzer",
            dependencies: [
                "LibFuzzerDriver", .product(name: "LoopExchange", package: "LoopLearn"),
                .product(name: "LoopText", package: "LoopLearn"),
            ]),
        .executableTarget(
            name: "AudioHeaderFuzzer",
            dependencies: ["LibFuzzerDriver", .product(name: "LoopAudioFiles", package: "LoopLearn")]),
        .executableTarget(
            name: "ServerAnswerFuzzer",
            dependencies: [
                "LibFuzzerDriver", .product(name: "LoopLibraryAPI", package: "LoopLearn"),
                .product(name: "LoopReports", package: "LoopLearn"),
                .product(name: "LoopWorkflows", package: "LoopLearn"),
            ]),
        .executableTarget(
            name: "SignatureFuzzer",
            dependencies: ["LibFuzzerDriver", .product(name: "LoopLibraryAPI", package: "LoopLearn")]),
        .executableTarget(
            name: "LanguageFuzzer", dependencies: ["LibFuzzerDriver", .product(name: "LoopText", package: "LoopLearn")]),
        .executableTarget(
            name: "OptionsFuzzer",
            dependencies: [
                "LibFuzzerDriver", .product(name: "LoopCLI", package: "LoopLearn"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
