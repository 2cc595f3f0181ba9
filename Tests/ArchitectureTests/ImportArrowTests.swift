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
        "LoopStudy": ["LoopFoundation", "LoopModel"],
        "LoopLibraryAPI": [],
        "LoopAudioFiles": ["LoopFoundation", "CSndFile", "CSndFileLoader"],
        "LoopAudio": [
            "LoopFoundation", "LoopAudioFiles", "LoopFFmpeg", "CALSA", "CALSALoader", "CSampleRate",
            "CSampleRateLoader", "CSoundTouch", "CSoundTouchLoader",
        ],
        // What a picture is: no C, so the model, the bundles and the server reach no decoder.
        "LoopPictures": ["LoopFoundation"],
        // FFmpeg's one home: no other module calls its libraries.
        "LoopFFmpeg": ["LoopFoundation", "LoopAudioFiles", "LoopPictures", "CFFmpeg", "CFFmpegLoader"],
        "LoopTerminal": ["LoopFoundation", "LoopFFmpeg", "CTerminal", "CChafa", "CChafaLoader"],
        "LoopSpeech": ["LoopFoundation", "CEspeakNG", "CEspeakNGLoader", "CMeCab", "CMeCabLoader"],
        "LoopCutting": ["LoopFoundation", "LoopAudioFiles", "LoopSpeech", "LoopFFmpeg"],
        "LoopModel": ["LoopFoundation", "LoopPictures"],
        // The store persists: what the scheduler computes and how a picture is decoded are given
        // to it (neither LoopStudy nor LoopFFmpeg).
        "LoopStore": [
            "LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopPictures", "CSQLiteExtensions",
        ],
        "LoopShare": [
            "LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopPictures", "LoopLibraryAPI", "CDeflate",
        ],
        "LoopExchange": [
            "LoopFoundation", "LoopText", "LoopModel", "LoopAudioFiles", "LoopPictures", "LoopCutting",
        ],
        "LoopRecording": [
            "LoopFoundation", "LoopModel", "LoopText", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopSpeech",
        ],
        "LoopPlayback": ["LoopFoundation", "LoopModel", "LoopStudy", "LoopAudio", "LoopAudioFiles"],
        // Shadowing: attempts recorded in a study session's gaps, scored against the model.
        "LoopShadowing": [
            "LoopFoundation", "LoopModel", "LoopAudioFiles", "LoopAudio", "LoopStudy", "LoopCutting", "LoopSpeech",
            "CAubio",
            "CAubioLoader",
        ],
        "LoopLibraryClient": ["LoopFoundation", "LoopLibraryAPI", "CCurlLoader"],
        "LoopLibraryServer": [
            "LoopFoundation", "LoopLibraryAPI", "LoopShare", "LoopAudioFiles", "LoopPictures", "CSQLiteExtensions",
        ],
        "LoopServerCommand": ["LoopFoundation", "LoopLibraryServer", "LoopLibraryAPI"],
        "LoopWorkflows": [
            "LoopFoundation", "LoopText", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopStore",
            "LoopShare", "LoopPictures", "LoopFFmpeg", "LoopStudy", "LoopPlayback", "LoopRecording",
            "LoopExchange", "LoopLibraryClient", "LoopLibraryAPI", "LoopSpeech", "LoopShadowing",
        ],
        // The terminal's sessions and the interface's words: what the library's door gives,
        // its values, and the terminal. (At most three of our modules each.)
        "LoopScreens": ["LoopModel", "LoopTerminal", "LoopWorkflows"],
        "LoopReports": ["LoopModel", "LoopTerminal", "LoopWorkflows"],
        // The commands parse a request, make one call through the library's door and print its
        // outcome: they reach the library, the media, the text, the study and the servers only
        // through LoopWorkflows (and name the values its requests take, LoopModel's).
        "LoopCLI": ["LoopWorkflows", "LoopModel", "LoopReports", "LoopTerminal", "LoopScreens"],
        "LoopBenchmarks": [
            "LoopFoundation", "LoopText", "LoopModel", "LoopAudio", "LoopAudioFiles", "LoopCutting", "LoopStore",
            "LoopStudy",
            "LoopPlayback", "LoopRecording", "LoopWorkflows", "LoopCLI", "LoopTerminal", "LoopReports", "LoopSpeech",
            "LoopExchange", "LoopShadowing",
        ],
        "LoopTestSupport": ["LoopSpeech", "LoopAudioFiles"],
        "loop": ["LoopCLI"],
    ]

    /// Modules that must never reach audio, whatever the table says: the server, the client, the
    /// bundle code's contract, the text model and the foundation.
    static let withoutAudioDevices: Set<String> = [
        "LoopFoundation", "LoopText", "LoopStudy", "LoopLibraryAPI", "LoopLibraryClient",
        "LoopLibraryServer", "LoopServerCommand", "LoopShare", "LoopPictures",
    ]
    /// Modules that must never reach a decoder of pictures (FFmpeg) or their C at all: what
    /// runs on the open internet and what only describes.
    static let withoutPictureDecoding: Set<String> = [
        "LoopFoundation", "LoopText", "LoopModel", "LoopPictures", "LoopShare",
        "LoopLibraryAPI", "LoopLibraryServer", "LoopServerCommand",
    ]
    /// Modules that hold no audio and no store at all.
    static let plain: Set<String> = ["LoopFoundation", "LoopText", "LoopLibraryAPI"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
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
                        words[..<index].allSatisfy({
                            [
                                "@testable", "@preconcurrency", "internal", "public", "package", "private",
                                "fileprivate", "@_exported",
                            ].contains($0)
                        })
                    else { continue }
                    let imported = String(words[index + 1])
                    if ours.contains(imported) || imported == "LoopAudio" {
                        found.append((module, module + "/" + file, imported))
                    }
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
            if Self.withoutPictureDecoding.contains(module) {
                #expect(
                    !["LoopFFmpeg", "LoopAudio", "CFFmpeg", "CFFmpegLoader", "CChafa"].contains(imported),
                    "\(file) imports \(imported)")
            }
            if Self.plain.contains(module) {
                #expect(
                    !["LoopAudio", "LoopAudioFiles", "LoopStore", "LoopCutting"].contains(imported),
                    "\(file) imports \(imported)")
            }
            if ["LoopCLI", "LoopTerminal", "LoopScreens", "LoopReports"].contains(module) {
                #expect(
                    imported != "LoopLibraryServer" && imported != "LoopStore",
                    "\(file) imports \(imported): an interface goes through the workflows")
            }
            if ["LoopShare", "LoopLibraryServer", "LoopLibraryClient", "LoopLibraryAPI"].contains(module) {
                #expect(imported != "LoopStore", "\(file) imports the store")
            }
        }
    }

    // MARK: Package.swift says what the sources say

    /// The repository's `Package.swift`.
    static var manifest: URL { sources.deletingLastPathComponent().appendingPathComponent("Package.swift") }

    /// Each target of `Package.swift` and the dependencies it declares (targets by name,
    /// products by their product name), read from its text: `.target(`, `.executableTarget(`
    /// and `.testTarget(` calls, each `name:` and the `dependencies: [...]` that follows it.
    static func declaredDependencies() throws -> [String: (folder: String, dependencies: Set<String>)] {
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let bytes = Array(text.utf8)
        /// The offset of the bracket that closes the one opened just before `start`.
        func closing(_ open: UInt8, _ close: UInt8, from start: Int) -> Int {
            var depth = 1
            var index = start
            while index < bytes.count {
                if bytes[index] == open { depth += 1 }
                if bytes[index] == close {
                    depth -= 1
                    if depth == 0 { return index }
                }
                index += 1
            }
            return bytes.count
        }
        func slice(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var targets: [String: (String, Set<String>)] = [:]
        for call in text.matches(of: /\.(target|executableTarget|testTarget)\(/) {
            let start = text.utf8.distance(from: text.startIndex, to: call.range.upperBound)
            let arguments = slice(start..<closing(UInt8(ascii: "("), UInt8(ascii: ")"), from: start))
            guard let name = arguments.firstMatch(of: /name: "([^"]+)"/)?.1 else { continue }
            var dependencies = Set<String>()
            if let open = arguments.range(of: "dependencies: [") {
                let listStart = start + arguments.utf8.distance(from: arguments.startIndex, to: open.upperBound)
                let list = slice(listStart..<closing(UInt8(ascii: "["), UInt8(ascii: "]"), from: listStart))
                for product in list.matches(of: /\.product\(name: "([^"]+)"/) { dependencies.insert(String(product.1)) }
                let withoutProducts = list.replacing(/\.product\([^)]*\)/, with: "")
                for target in withoutProducts.matches(of: /"([^"]+)"/) { dependencies.insert(String(target.1)) }
            }
            let folder =
                arguments.firstMatch(of: /path: "(?:Sources|Tests)\/([^"]+)"/).map { String($0.1) } ?? String(name)
            targets[String(name)] = (folder, dependencies)
        }
        return targets
    }

    /// Every module a folder's Swift files import (ours, C wrappers and packages'), and the
    /// files, by folder under `root`.
    static func importsByFolder(under root: URL) throws -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for folder in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else {
                continue
            }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(
                    contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.utf8.count < 120 && line.contains("import ") {
                    guard
                        let match = line.wholeMatch(
                            of:
                                /\s*(?:(?:@testable|@preconcurrency|internal|public|package|@_exported) )*import (\w+)\s*/
                        )
                    else { continue }
                    found[folder, default: []].insert(String(match.1))
                }
            }
        }
        return found
    }

    /// Modules that come with the toolchain: never declared.
    static let toolchain: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationXML", "FoundationEssentials", "Glibc",
        "Dispatch", "Synchronization", "Testing", "XCTest", "_Concurrency",
    ]

    @Test func packageSwiftDeclaresExactlyWhatEachModuleImports() throws {
        let declared = try Self.declaredDependencies()
        #expect(declared.count > 30, "the targets of \(Self.manifest.path) were not found")
        let tests = Self.sources.deletingLastPathComponent().appendingPathComponent("Tests")
        var imported = try Self.importsByFolder(under: Self.sources)
        imported.merge(try Self.importsByFolder(under: tests)) { $0.union($1) }
        for (target, (folder, dependencies)) in declared {
            guard let imports = imported[folder] else { continue } // a C target
            let used = imports.subtracting(Self.toolchain)
            for module in used.subtracting(dependencies).sorted() {
                Issue.record("\(folder) imports \(module), which Package.swift does not declare for \(target)")
            }
            for module in dependencies.subtracting(used).sorted() {
                Issue.record("Package.swift declares \(module) for \(target), which no file of \(folder) imports")
            }
        }
    }
}
