import Foundation
import Testing

/// The shape of the house, read from the `import` lines of `Sources/`: each module imports only
/// the modules of ours it is allowed to (README, "Architecture"), so arrows run one way and an
/// arrow that runs the wrong way fails here, naming the file.
struct ImportArrowTests {
    /// What each module may import of ours (Swift modules and C wrappers). A module not listed
    /// fails the test: a new module says where it stands.
    static let allowed: [String: Set<String>] = [
        "LoopFoundation": [],
        "LoopText": ["LoopFoundation"],
        "LoopStudy": ["LoopFoundation"],
        "LoopLibraryAPI": [],
        "LoopAudioFiles": ["LoopFoundation", "CSndFile", "CSndFileLoader"],
        "LoopAudio": ["LoopFoundation", "LoopAudioFiles", "CALSA", "CALSALoader", "CFFmpeg", "CFFmpegLoader",
                      "CSampleRate", "CSampleRateLoader", "CSoundTouch", "CSoundTouchLoader"],
        "LoopPictures": ["LoopFoundation", "CChafa", "CChafaLoader", "CFFmpeg", "CFFmpegLoader"],
        "LoopTerminal": ["LoopFoundation", "LoopPictures", "CTerminal"],
        "LoopSpeech": ["LoopFoundation", "CEspeakNG", "CEspeakNGLoader", "CMeCab", "CMeCabLoader"],
        "LoopCutting": ["LoopFoundation", "LoopAudioFiles", "LoopSpeech", "CFFmpeg", "CFFmpegLoader"],
        "LoopModel": ["LoopFoundation", "LoopPictures"],
        "LoopStore": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopPictures", "CPhraseRank"],
        "LoopShare": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopPictures"],
        "LoopExchange": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopCutting", "LoopStore"],
        "LoopRecording": ["LoopFoundation", "LoopText", "LoopAudio", "LoopAudioFiles", "LoopCutting"],
        "LoopPlayback": ["LoopFoundation", "LoopStudy", "LoopAudio", "LoopAudioFiles"],
        "LoopLibraryClient": ["LoopFoundation", "LoopLibraryAPI", "CCurlLoader"],
        "LoopLibraryServer": ["LoopFoundation", "LoopLibraryAPI", "LoopShare", "LoopAudioFiles", "LoopPictures"],
        "LoopServerCommand": ["LoopLibraryServer", "LoopLibraryAPI"],
        "LoopWorkflows": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopStore", "LoopShare",
                          "LoopStudy", "LoopPlayback", "LoopRecording", "LoopExchange", "LoopLibraryClient", "LoopLibraryAPI"],
        "LoopScreens": ["LoopFoundation", "LoopModel", "LoopTerminal", "LoopPictures", "LoopStudy", "LoopPlayback", "LoopRecording",
                        "LoopCutting", "LoopWorkflows"],
        "LoopReports": ["LoopFoundation", "LoopModel", "LoopText", "LoopCutting", "LoopShare", "LoopPictures", "LoopTerminal", "LoopWorkflows",
                        "LoopLibraryAPI"],
        // The commands reach the library through LoopWorkflows (`Library` and the workflows),
        // never the store.
        "LoopCLI": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopShare", "LoopStudy",
                    "LoopPlayback", "LoopRecording", "LoopExchange", "LoopLibraryClient", "LoopLibraryAPI", "LoopWorkflows",
                    "LoopPictures", "LoopTerminal", "LoopScreens", "LoopReports"],
        "LoopBenchmarks": ["LoopFoundation", "LoopText", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopStore", "LoopStudy",
                           "LoopPlayback", "LoopRecording", "LoopWorkflows", "LoopCLI", "LoopTerminal", "LoopReports", "LoopSpeech", "LoopExchange"],
        "LoopTestSupport": ["LoopSpeech", "LoopAudioFiles"],
        "loop": ["LoopCLI"],
    ]

    /// Modules that must never reach audio, whatever the table says: the server, the client, the
    /// bundle code's contract, the text model and the foundation.
    static let withoutAudioDevices: Set<String> = ["LoopFoundation", "LoopText", "LoopStudy", "LoopLibraryAPI", "LoopLibraryClient",
                                                   "LoopLibraryServer", "LoopServerCommand", "LoopShare", "LoopPictures"]
    /// Modules that hold no audio and no store at all.
    static let plain: Set<String> = ["LoopFoundation", "LoopText", "LoopLibraryAPI"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    /// Every import of one of our modules in `Sources/`: module, file, imported.
    static func imports() throws -> [(module: String, file: String, imported: String)] {
        let ours = Set(try FileManager.default.contentsOfDirectory(atPath: sources.path))
        var found: [(String, String, String)] = []
        for module in ours.sorted() where !module.hasPrefix("C") {
            let folder = sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                          words[..<index].allSatisfy({ ["@testable", "@preconcurrency", "internal", "public", "package", "private", "fileprivate", "@_exported"].contains($0) })
                    else { continue }
                    let imported = String(words[index + 1])
                    if ours.contains(imported) || imported == "LoopAudio" { found.append((module, module + "/" + file, imported)) }
                }
            }
        }
        return found
    }

    @Test func everyImportRunsTheWayTheArchitectureAllows() throws {
        let imports = try Self.imports()
        #expect(imports.count > 100, "the import lines were not found under \(Self.sources.path)")
        for (module, file, imported) in imports {
            guard let allowed = Self.allowed[module] else {
                Issue.record("\(module) is not in the architecture's table: say what it may import")
                continue
            }
            #expect(allowed.contains(imported), "\(file) imports \(imported), which \(module) may not")
        }
    }

    @Test func theServerTheClientTheBundlesTheTextAndTheInterfacesKeepTheirDistance() throws {
        for (module, file, imported) in try Self.imports() {
            if Self.withoutAudioDevices.contains(module) {
                #expect(imported != "LoopAudio", "\(file) imports LoopAudio (ALSA, FFmpeg)")
            }
            if Self.plain.contains(module) {
                #expect(!["LoopAudio", "LoopAudioFiles", "LoopStore", "LoopCutting"].contains(imported), "\(file) imports \(imported)")
            }
            if ["LoopCLI", "LoopTerminal", "LoopScreens", "LoopReports"].contains(module) {
                #expect(imported != "LoopLibraryServer" && imported != "LoopStore", "\(file) imports \(imported): an interface goes through the workflows")
            }
            if ["LoopShare", "LoopLibraryServer", "LoopLibraryClient", "LoopLibraryAPI"].contains(module) {
                #expect(imported != "LoopStore", "\(file) imports the store")
            }
        }
    }
}
