// swift-tools-version:6.0
// libFuzzer targets for the bundle readers. Built by Scripts/fuzz with -sanitize=fuzzer (which
// provides main), so they live outside the main package.
import PackageDescription

let package = Package(
    name: "LoopFuzz",
    dependencies: [.package(name: "LoopLearn", path: "..")],
    targets: [
        .target(name: "LibFuzzerDriver"),
        .executableTarget(name: "ManifestFuzzer", dependencies: ["LibFuzzerDriver", .product(name: "LoopShare", package: "LoopLearn")]),
        .executableTarget(name: "ArchiveFuzzer", dependencies: ["LibFuzzerDriver", .product(name: "LoopShare", package: "LoopLearn")]),
    ],
    swiftLanguageModes: [.v6]
)
