// swift-tools-version:6.1
import PackageDescription

/// Where Debian puts chafa's headers and GLib's (which chafa's include). They are named here
/// rather than taken from pkg-config, whose flags would also link both libraries into `loop`,
/// which opens chafa only when it first draws a picture (CChafaLoader).
let chafaHeaders = ["/usr/include/chafa", "/usr/include/glib-2.0"]
    + ["x86_64", "aarch64"].flatMap { ["/usr/lib/\($0)-linux-gnu/chafa/include", "/usr/lib/\($0)-linux-gnu/glib-2.0/include"] }

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
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
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

        // The library's full-text ranking (`loop_rank`, bm25 without its cost for one word),
        // an FTS5 function registered on each connection to the library's SQLite (linked: every
        // command that opens the library needs it).
        .target(name: "CPhraseRank", linkerSettings: [.linkedLibrary("sqlite3")]),

        // ALSA (playback and capture), chafa (pictures drawn in a terminal: sixel or kitty
        // graphics, or character art) and libsamplerate: their headers, and loaders.
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .target(name: "CALSALoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CSampleRate", providers: [.apt(["libsamplerate0-dev"])]),
        .target(name: "CSampleRateLoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CChafa", providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
        .target(name: "CChafaLoader", dependencies: ["CChafa", "CDynamicLibrary"], cSettings: [.unsafeFlags(chafaHeaders.map { "-I" + $0 })]),
        // SoundTouch's C API (playback at another speed): its header only; CSoundTouchLoader
        // defines the functions called and opens the library on first use, so that `loop` does
        // not start a C++ library at every start.
        .systemLibrary(name: "CSoundTouch", providers: [.apt(["libsoundtouch-dev"])]),
        .target(name: "CSoundTouchLoader", dependencies: ["CDynamicLibrary"]),
        // FFmpeg's libraries: any audio or video file's audio (m4a, mp4, mkv, webm, ...), and
        // pictures. Their headers only: CFFmpegLoader defines the functions called and opens the
        // libraries on first use, so that `loop` does not load them (and the hundred-odd
        // libraries they need) at every start.
        .systemLibrary(name: "CFFmpeg", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libswscale-dev"])]),
        .target(name: "CFFmpegLoader", dependencies: ["CFFmpeg"], linkerSettings: [.linkedLibrary("dl")]),
        // The C library's `wcwidth`, which Swift's Glibc module leaves out (the terminal views).
        .systemLibrary(name: "CTerminal"),

        // What every module may use: durable files, scratch folders, disk space, regular-file checks,
        // the blocking-work thread, crash points for tests, and the one error vocabulary. Nothing of ours.
        .target(name: "LoopFoundation"),

        // Audio files through libsndfile: reading (streaming, mono downmix), writing, copying a
        // range. What the bundle code and the server need of audio, without devices or FFmpeg.
        .target(name: "LoopAudioFiles", dependencies: ["LoopFoundation", "CSndFile", "CSndFileLoader"]),

        // Audio beyond files: any media's audio (FFmpeg), ALSA playback and capture,
        // time-stretching (SoundTouch), resampling (libsamplerate).
        .target(name: "LoopAudio", dependencies: ["LoopFoundation", "LoopAudioFiles", "CALSA", "CALSALoader", "CSoundTouch", "CSoundTouchLoader", "CSampleRate", "CSampleRateLoader", "CFFmpeg", "CFFmpegLoader"]),

        // Pictures: PNG, JPEG, WebP and GIF checked as hostile input (type, size, damage),
        // decoded (FFmpeg) and drawn in a terminal (chafa).
        .target(name: "LoopPictures", dependencies: ["LoopFoundation", "LoopAudioFiles", "CFFmpeg", "CFFmpegLoader", "CChafa", "CChafaLoader"],
                swiftSettings: [.unsafeFlags(chafaHeaders.flatMap { ["-Xcc", "-I" + $0] })]),

        // Study: the engine that decides what to play, what silence to leave and what to show.
        // No I/O: tests run it on a virtual clock.
        .target(name: "LoopStudy", dependencies: ["LoopFoundation"]),

        // Recording: a take captured live, phrases detected as they are read.
        .target(name: "LoopRecording", dependencies: ["LoopFoundation", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopText"]),

        // Playback of a study session: clips rendered to ALSA, a WAV file or nowhere.
        .target(name: "LoopPlayback", dependencies: ["LoopFoundation", "LoopStudy", "LoopAudio", "LoopAudioFiles"]),

        // A loop's text: its groups, phrases, translations and metadata, the sentence splitter,
        // and the checks on text from outside. No audio.
        .target(name: "LoopText", dependencies: ["LoopFoundation"]),

        // espeak-ng (speech from text) and MeCab (readings of written Japanese): their headers,
        // and loaders that open them when a take is first aligned with its text.
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .target(name: "CEspeakNGLoader", dependencies: ["CDynamicLibrary"]),
        .systemLibrary(name: "CMeCab", providers: [.apt(["libmecab-dev"])]),
        .target(name: "CMeCabLoader", dependencies: ["CDynamicLibrary"]),

        // Speech from text: the synthesizer (espeak-ng, one owner at a time), the language a
        // text is read in and its voice, readings of Japanese kanji.
        .target(name: "LoopSpeech", dependencies: ["LoopFoundation", "CEspeakNG", "CEspeakNGLoader", "CMeCab", "CMeCabLoader"]),

        // A take into phrase clips: the cuts found by aligning the take with its rendered text,
        // or among its pauses. Pure over samples: no store, no files beyond reading a take and
        // writing clips. Its FFT is FFmpeg's (av_tx).
        .target(name: "LoopCutting", dependencies: ["LoopFoundation", "LoopAudioFiles", "LoopSpeech", "CFFmpeg", "CFFmpegLoader"]),

        // A stored loop as its readers see it: summaries, details, phrases with their clips and
        // pictures, search hits, health and study reports, the library's failures. Plain values:
        // the store makes them, the bundle code, the workflows and the interfaces read them.
        .target(name: "LoopModel", dependencies: ["LoopFoundation", "LoopPictures", .product(name: "Crypto", package: "swift-crypto")]),

        // The library: loops in SQLite, audio as content-addressed files beside it.
        .target(
            name: "LoopStore",
            dependencies: [
                "LoopFoundation",
                "CPhraseRank",
                "LoopModel",
                "LoopAudioFiles",
                "LoopText",
                "LoopPictures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Sharing: signed loop bundles, the author's identity.
        .target(
            name: "LoopShare",
            dependencies: [
                "LoopFoundation",
                "LoopModel",
                "LoopAudioFiles",
                "LoopText",
                "LoopPictures",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Loops in and out of the tools learners use: subtitles (SubRip, WebVTT), Audacity
        // labels, Anki packages.
        .target(name: "LoopExchange", dependencies: ["LoopFoundation", "LoopAudioFiles", "LoopCutting", "LoopText", "LoopModel", "LoopStore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "ZIPFoundation", package: "ZIPFoundation"), .product(name: "Crypto", package: "swift-crypto")]),

        // The workflows an interface calls: authoring, attaching, recording and saving,
        // studying and saving the results, editing, and sharing with its import rules. The
        // command line (and the Loop Library server) parse, call these, and render.
        .target(
            name: "LoopWorkflows",
            dependencies: [
                "LoopFoundation",
                "LoopAudio", "LoopAudioFiles",
                "LoopCutting", "LoopText",
                "LoopModel", "LoopStore",
                "LoopShare",
                "LoopStudy",
                "LoopPlayback",
                "LoopRecording",
                "LoopExchange",
                "LoopLibraryClient",
                "LoopLibraryAPI",
            ]
        ),

        // The Loop Library's HTTP API: what the server and its clients exchange (JSON bodies,
        // headers, how an author signs a request). Foundation only.
        .target(name: "LoopLibraryAPI"),

        // libcurl, opened with dlopen on a Loop Library client's first request rather than linked
        // (as Foundation's URLSession would): `loop` starts without it and its thirty-odd libraries.
        .target(name: "CCurlLoader", linkerSettings: [.linkedLibrary("dl")]),
        // A Loop Library's client: publish, unpublish, browse, fetch bundles (libcurl through
        // CCurlLoader, so `loop` carries no server framework).
        .target(name: "LoopLibraryClient", dependencies: ["LoopFoundation", "LoopAudioFiles", "LoopLibraryAPI", "CCurlLoader", .product(name: "Crypto", package: "swift-crypto")]),

        // The Loop Library server: the catalog (SQLite or PostgreSQL), content-addressed blobs,
        // publishing with ownership, the HTTP routes.
        .target(
            name: "LoopLibraryServer",
            dependencies: [
                "LoopFoundation",
                "LoopAudioFiles",
                "LoopShare",
                "LoopPictures",
                "LoopLibraryAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .executableTarget(
            name: "loop-server",
            dependencies: ["LoopLibraryServer", "LoopLibraryAPI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/LoopServerCommand"
        ),

        // The terminal: raw mode, full-screen drawing, progress bars, the escaping of untrusted
        // text, pictures drawn in a terminal. The command line, the phrase editor and the study
        // screen use it.
        .target(name: "LoopTerminal", dependencies: ["LoopFoundation", "LoopPictures", "CTerminal"]),

        // The full-screen views: the study screen, the recording view and the phrase editor,
        // each driving a workflow's or an engine's state through LoopTerminal.
        .target(name: "LoopScreens", dependencies: ["LoopFoundation", "LoopModel", "LoopTerminal", "LoopPictures", "LoopStudy", "LoopPlayback", "LoopRecording", "LoopCutting", "LoopWorkflows"]),

        // What the commands print: each report one value, its JSON (Encodable) and its text for
        // a terminal.
        .target(name: "LoopReports", dependencies: ["LoopFoundation", "LoopModel", "LoopText", "LoopCutting", "LoopShare", "LoopPictures", "LoopTerminal", "LoopWorkflows", "LoopLibraryAPI"]),

        // The command line: parsing, rendering; the work is the workflows'.
        .target(
            name: "LoopCLI",
            dependencies: [
                "LoopFoundation",
                "LoopAudio", "LoopAudioFiles",
                "LoopCutting", "LoopText",
                "LoopModel", "LoopStore",
                "LoopStudy",
                "LoopPlayback",
                "LoopShare",
                "LoopRecording",
                "LoopWorkflows",
                "LoopExchange",
                "LoopLibraryAPI",
                "LoopLibraryClient",
                "LoopPictures",
                "LoopTerminal",
                "LoopScreens",
                "LoopReports",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "loop", dependencies: ["LoopCLI"]),

        // Speed and memory figures, against the goals and next to standard tools: a program of
        // its own (`loop-benchmark`), so the user's `loop` carries none of it.
        .executableTarget(
            name: "loop-benchmark",
            dependencies: [
                "LoopCLI", "LoopTerminal", "LoopReports", "LoopWorkflows", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopText", "LoopModel", "LoopStore", "LoopStudy", "LoopPlayback", "LoopRecording",
                "LoopSpeech", "LoopExchange",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/LoopBenchmarks"
        ),

        // Shared by the tests only: the committed fixtures and a scratch folder that cleans up after itself.
        .target(name: "LoopTestSupport", dependencies: ["LoopSpeech", "LoopAudioFiles"]),

        // The import arrows of Sources/ against the architecture (reads the files; links nothing of ours).
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "LoopAudioTests", dependencies: ["LoopTestSupport", "LoopAudio", "LoopAudioFiles"]),
        .testTarget(name: "LoopTextTests", dependencies: ["LoopTestSupport", "LoopText"]),
        .testTarget(name: "LoopCuttingTests", dependencies: ["LoopTestSupport", "LoopCutting", "LoopSpeech", "LoopAudioFiles"]),
        .testTarget(name: "LoopStoreTests", dependencies: ["LoopTestSupport", "LoopModel", "LoopStore", "LoopText", "LoopAudioFiles", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "LoopPicturesTests", dependencies: ["LoopTestSupport", "LoopPictures"]),
        .testTarget(name: "LoopStudyTests", dependencies: ["LoopTestSupport", "LoopStudy"]),
        .testTarget(name: "LoopRecordingTests", dependencies: ["LoopTestSupport", "LoopRecording", "LoopAudio", "LoopAudioFiles"]),
        .testTarget(name: "LoopPlaybackTests", dependencies: ["LoopTestSupport", "LoopPlayback", "LoopStudy", "LoopAudio", "LoopAudioFiles"]),
        .testTarget(name: "LoopExchangeTests", dependencies: ["LoopTestSupport", "LoopExchange"]),
        .testTarget(name: "LoopShareTests", dependencies: ["LoopTestSupport", "LoopShare", "LoopModel", "LoopStore", "LoopText", .product(name: "ZIPFoundation", package: "ZIPFoundation"), .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "LoopWorkflowsTests", dependencies: ["LoopTestSupport", "LoopWorkflows", "LoopShare", "LoopModel", "LoopStore", "LoopCutting", "LoopText", "LoopAudio", "LoopAudioFiles", "LoopStudy", "LoopPlayback", .product(name: "ZIPFoundation", package: "ZIPFoundation"), .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "LoopCLITests", dependencies: [
            "LoopTestSupport", "LoopCLI", "LoopTerminal", "LoopScreens", "LoopAudio", "LoopAudioFiles", "LoopStudy", "LoopShare", "LoopModel", "LoopStore", "LoopLibraryAPI", "LoopLibraryClient",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// Programs and tests are linked with LLVM's lld, which the Swift toolchain ships, rather than
// gold, Linux's default: the release `loop` links in 6 s instead of 28 s, and starts about 1 ms
// sooner; its relative relocations are packed (DT_RELR, glibc 2.36), 0.2-0.5 ms more (README, "Speed").
for target in package.targets where target.type == .executable || target.type == .test {
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux]))]
}
