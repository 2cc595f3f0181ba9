// swift-tools-version:6.1
import PackageDescription

/// Where Debian puts chafa's headers and GLib's (which chafa's include). They are named here
/// rather than taken from pkg-config, whose flags would also link both libraries into `loop`,
/// which opens chafa only when it first draws a picture (CChafaLoader).
let chafaHeaders =
    ["/usr/include/chafa", "/usr/include/glib-2.0"]
    + ["x86_64", "aarch64"].flatMap {
        ["/usr/lib/\($0)-linux-gnu/chafa/include", "/usr/lib/\($0)-linux-gnu/glib-2.0/include"]
    }

let package = Package(
    name: "LoopLearn",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "loop", targets: ["loop"]),
        .executable(name: "loop-benchmark", targets: ["loop-benchmark"]),
        // The Loop Library server: a program of its own, so that `loop` builds without its
        // server framework and drivers (`loop serve` runs it).
        .executable(name: "loop-server", targets: ["loop-server"]),
        .library(name: "LoopAudioFiles", targets: ["LoopAudioFiles"]),
        .library(name: "LoopAudio", targets: ["LoopAudio"]),
        .library(name: "LoopText", targets: ["LoopText"]),
        .library(name: "LoopCutting", targets: ["LoopCutting"]),
        .library(name: "LoopModel", targets: ["LoopModel"]),
        .library(name: "LoopStore", targets: ["LoopStore"]),
        .library(name: "LoopShare", targets: ["LoopShare"]),
        .library(name: "LoopWorkflows", targets: ["LoopWorkflows"]),
        .library(name: "LoopPictures", targets: ["LoopPictures"]),
        .library(name: "LoopFFmpeg", targets: ["LoopFFmpeg"]),
        // For the fuzz targets (Fuzz/), which drive the real commands and readers.
        .library(name: "LoopCLI", targets: ["LoopCLI"]),
        .library(name: "LoopExchange", targets: ["LoopExchange"]),
        .library(name: "LoopLibraryAPI", targets: ["LoopLibraryAPI"]),
        .library(name: "LoopReports", targets: ["LoopReports"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // The Loop Library server only (`loop-server`); `loop` builds none of them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `/metrics` in Prometheus's text format (swift-metrics comes with Hummingbird).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Its channel handlers: the connection cap.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // gzip for the pages and their scripts (zlib, through NIO's buffers).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // C libraries, wrapped only by the module that owns them. Each one `loop` does not need
        // at every start is opened with dlopen on first use rather than linked (Package.swift
        // takes its header only; a loader target defines the functions called, forwarding them
        // through CDynamicLibrary), so that `list`, `show` and `search` start without it.
        .target(name: "CDynamicLibrary", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libsndfile's header only: CSndFileLoader defines the functions called and opens the
        // library (and its eight codec libraries) on first use, so that commands that touch no
        // audio (`list`, `show`, `search`) do not load them at start.
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .target(name: "CSndFileLoader", dependencies: ["CDynamicLibrary"]),

        // SQLite's C side: the library's full-text ranking (`loop_rank`, bm25 without its cost
        // for one word), an FTS5 function registered on each connection to the library's SQLite,
        // and the setting the Loop Library server makes before it opens its catalog (SQLite's
        // statistics of its memory off: `sqlite3_config` takes variable arguments, which Swift
        // cannot call). Linked: every command that opens the library needs it.
        .target(name: "CSQLiteExtensions", linkerSettings: [.linkedLibrary("sqlite3")]),

        // ALSA (playback and capture), chafa (pictures drawn in a terminal: sixel or kitty
        // graphics, or character art) and libsamplerate: their headers, and loaders.
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .target(name: "CALSALoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CSampleRate", providers: [.apt(["libsamplerate0-dev"])]),
        .target(name: "CSampleRateLoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CChafa", providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
        .target(
            name: "CChafaLoader", dependencies: ["CChafa", "CDynamicLibrary"],
            cSettings: [.unsafeFlags(chafaHeaders.map { "-I" + $0 })]),
        // SoundTouch's C API (playback at another speed): its header only; CSoundTouchLoader
        // defines the functions called and opens the library on first use, so that `loop` does
        // not start a C++ library at every start.
        .systemLibrary(name: "CSoundTouch", providers: [.apt(["libsoundtouch-dev"])]),
        .target(name: "CSoundTouchLoader", dependencies: ["CDynamicLibrary"]),
        // FFmpeg's libraries: any audio or video file's audio (m4a, mp4, mkv, webm, ...), and
        // pictures. Their headers only: CFFmpegLoader defines the functions called and opens the
        // libraries on first use, so that `loop` does not load them (and the hundred-odd
        // libraries they need) at every start.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libswscale-dev"])]),
        .target(name: "CFFmpegLoader", dependencies: ["CFFmpeg"], linkerSettings: [.linkedLibrary("dl")]),
        // The C library's `wcwidth`, which Swift's Glibc module leaves out (the terminal views).
        .systemLibrary(name: "CTerminal"),

        // What every module may use: durable files, scratch folders, disk space, regular-file checks,
        // the blocking-work thread, crash points for tests, and the one error vocabulary. Nothing of ours.
        .target(name: "LoopFoundation"),

        .target(name: "LoopAudioFiles", dependencies: ["LoopFoundation", "CSndFile", "CSndFileLoader"]),

        // Pictures as audio is split: what a picture is (formats, header checks: no C, for the
        // model, the bundles and the server), decoding it (FFmpeg), and drawing it (LoopTerminal).
        .target(name: "LoopPictures", dependencies: ["LoopFoundation"]),

        // FFmpeg's one home: every call of its libraries (a media file's audio decoded, a
        // picture's first frame decoded, the real FFT the cutter measures speech with).
        .target(
            name: "LoopFFmpeg",
            dependencies: ["LoopFoundation", "LoopAudioFiles", "LoopPictures", "CFFmpeg", "CFFmpegLoader"]),

        .target(
            name: "LoopAudio",
            dependencies: [
                "LoopFoundation", "LoopAudioFiles", "LoopFFmpeg", "CALSA", "CALSALoader", "CSoundTouch",
                "CSoundTouchLoader", "CSampleRate", "CSampleRateLoader",
            ]
        ),

        .target(name: "LoopStudy", dependencies: ["LoopFoundation", "LoopModel"]),

        // aubio (pitch, by YIN): its header only; CAubioLoader defines the functions called and
        // opens the library when a first attempt is scored.
        .systemLibrary(name: "CAubio", providers: [.apt(["libaubio-dev"])]),
        .target(name: "CAubioLoader", dependencies: ["CDynamicLibrary"]),

        // Shadowing: a learner's attempt at a phrase scored against the model clip.
        .target(
            name: "LoopShadowing",
            dependencies: [
                "LoopFoundation", "LoopModel", "LoopAudioFiles", "LoopAudio", "LoopStudy", "LoopCutting", "LoopSpeech",
                "CAubio",
                "CAubioLoader",
            ]),

        .target(
            name: "LoopRecording",
            dependencies: ["LoopFoundation", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopSpeech"]),

        .target(
            name: "LoopPlayback",
            dependencies: ["LoopFoundation", "LoopModel", "LoopStudy", "LoopAudio", "LoopAudioFiles"]),

        .target(name: "LoopText", dependencies: ["LoopFoundation"]),

        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .target(name: "CEspeakNGLoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CMeCab", providers: [.apt(["libmecab-dev"])]),
        .target(name: "CMeCabLoader", dependencies: ["CDynamicLibrary"]),

        .target(
            name: "LoopSpeech",
            dependencies: ["LoopFoundation", "CEspeakNG", "CEspeakNGLoader", "CMeCab", "CMeCabLoader"]),

        .target(
            name: "LoopCutting",
            dependencies: ["LoopFoundation", "LoopAudioFiles", "LoopSpeech", "LoopFFmpeg"]),

        .target(
            name: "LoopModel",
            dependencies: ["LoopFoundation", "LoopPictures", .product(name: "Crypto", package: "swift-crypto")]),

        .target(
            name: "LoopStore",
            dependencies: [
                "LoopFoundation", "CSQLiteExtensions", "LoopModel", "LoopAudioFiles", "LoopText", "LoopPictures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // zlib's raw deflate, which zip entries hold: the bundles' own reader and writer.
        .systemLibrary(name: "CDeflate", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(
            name: "LoopShare",
            dependencies: [
                "LoopFoundation", "LoopModel", "LoopAudioFiles", "LoopText", "LoopPictures", "LoopLibraryAPI",
                "CDeflate",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        .target(
            name: "LoopExchange",
            dependencies: [
                "LoopFoundation", "LoopAudioFiles", "LoopCutting", "LoopText", "LoopModel", "LoopPictures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        .target(
            name: "LoopWorkflows",
            dependencies: [
                "LoopFoundation", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopText", "LoopModel", "LoopStore",
                "LoopShare", "LoopPictures", "LoopFFmpeg", "LoopStudy", "LoopPlayback", "LoopRecording",
                "LoopExchange", "LoopLibraryClient", "LoopLibraryAPI", "LoopSpeech", "LoopShadowing",
            ]
        ),

        .target(name: "LoopLibraryAPI"),

        .target(name: "CCurlLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "LoopLibraryClient",
            dependencies: [
                "LoopFoundation", "LoopLibraryAPI", "CCurlLoader", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        .target(
            name: "LoopLibraryServer",
            dependencies: [
                "LoopFoundation",
                "CSQLiteExtensions",
                "LoopAudioFiles",
                "LoopShare",
                "LoopPictures",
                "LoopLibraryAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .executableTarget(
            name: "loop-server",
            dependencies: [
                "LoopLibraryServer", "LoopLibraryAPI", "LoopFoundation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/LoopServerCommand"
        ),

        .target(
            name: "LoopTerminal",
            dependencies: ["LoopFoundation", "LoopFFmpeg", "CTerminal", "CChafa", "CChafaLoader"],
            swiftSettings: [.unsafeFlags(chafaHeaders.flatMap { ["-Xcc", "-I" + $0] })]
        ),

        .target(
            name: "LoopScreens",
            // The terminal's sessions: what the library's sessions show, drawn.
            dependencies: ["LoopModel", "LoopTerminal", "LoopWorkflows"]
        ),

        .target(
            name: "LoopReports",
            // The interface's words: what the commands print of the library's outcomes.
            dependencies: ["LoopModel", "LoopTerminal", "LoopWorkflows"]
        ),

        .target(
            name: "LoopCLI",
            dependencies: [
                // The commands parse, call one workflow and print its report: the workflows do the
                // work, the interface modules print and draw.
                "LoopWorkflows", "LoopModel", "LoopReports", "LoopTerminal", "LoopScreens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "loop", dependencies: ["LoopCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        .executableTarget(
            name: "loop-benchmark",
            dependencies: [
                "LoopCLI", "LoopTerminal", "LoopReports", "LoopWorkflows", "LoopAudio", "LoopAudioFiles", "LoopCutting",
                "LoopText",
                "LoopModel", "LoopStore", "LoopStudy", "LoopPlayback", "LoopRecording", "LoopSpeech", "LoopExchange",
                "LoopFoundation", "LoopShadowing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/LoopBenchmarks"
        ),

        .target(name: "LoopTestSupport", dependencies: ["LoopSpeech", "LoopAudioFiles"]),

        .testTarget(name: "ArchitectureTests"),
        .testTarget(
            name: "LoopAudioTests", dependencies: ["LoopTestSupport", "LoopFoundation", "LoopAudio", "LoopAudioFiles"]),
        .testTarget(name: "LoopTextTests", dependencies: ["LoopTestSupport", "LoopFoundation", "LoopText"]),
        .testTarget(
            name: "LoopCuttingTests",
            dependencies: ["LoopTestSupport", "LoopFoundation", "LoopCutting", "LoopSpeech", "LoopAudioFiles"]),
        .testTarget(
            name: "LoopStoreTests",
            dependencies: [
                "LoopTestSupport", "LoopFoundation", "LoopModel", "LoopStore", "LoopText", "LoopStudy",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LoopPicturesTests",
            dependencies: ["LoopTestSupport", "LoopFoundation", "LoopPictures", "LoopFFmpeg", "LoopTerminal"]),
        .testTarget(name: "LoopStudyTests", dependencies: ["LoopTestSupport", "LoopStudy", "LoopModel"]),
        .testTarget(
            name: "LoopShadowingTests",
            dependencies: ["LoopTestSupport", "LoopShadowing", "LoopSpeech", "LoopModel"]),
        .testTarget(
            name: "LoopRecordingTests",
            dependencies: [
                "LoopTestSupport", "LoopRecording", "LoopCutting", "LoopSpeech", "LoopAudioFiles", "LoopModel",
            ]),
        .testTarget(
            name: "LoopPlaybackTests",
            dependencies: ["LoopTestSupport", "LoopPlayback", "LoopStudy", "LoopAudio", "LoopAudioFiles", "LoopModel"]),
        .testTarget(name: "LoopExchangeTests", dependencies: ["LoopFoundation", "LoopExchange"]),
        .testTarget(
            name: "LoopShareTests",
            dependencies: [
                "LoopTestSupport", "LoopFoundation", "LoopAudioFiles", "LoopShare", "LoopModel", "LoopStore",
                "LoopText", "LoopPictures",
                "LoopFFmpeg",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LoopLibraryServerTests",
            dependencies: [
                "LoopLibraryServer", "LoopLibraryAPI", "LoopFoundation",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(
            name: "LoopWorkflowsTests",
            dependencies: [
                "LoopTestSupport", "LoopFoundation", "LoopWorkflows", "LoopShare", "LoopModel", "LoopStore",
                "LoopCutting", "LoopText", "LoopPlayback", "LoopStudy",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LoopCLITests",
            dependencies: [
                "LoopTestSupport", "LoopCLI", "LoopTerminal", "LoopScreens", "LoopReports", "LoopAudioFiles",
                "LoopStudy", "LoopShare",
                "LoopModel", "LoopStore", "LoopLibraryAPI", "LoopLibraryClient", "LoopFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every module imports what it uses: a member of a type is visible only where its module is
// imported, so the imports (and the dependencies above, checked against them by
// ArchitectureTests) say what a module really uses.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// Programs and tests are linked with LLVM's lld, which the Swift toolchain ships, rather than
// gold, Linux's default: the release `loop` links in 6 s instead of 28 s, and starts about 1 ms
// sooner; its relative relocations are packed (DT_RELR, glibc 2.36), 0.2-0.5 ms more (README, "Speed").
for target in package.targets where target.type == .executable || target.type == .test {
    target.linkerSettings =
        (target.linkerSettings ?? []) + [
            .unsafeFlags(
                ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux]))
        ]
}
