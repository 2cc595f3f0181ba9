import Foundation
import Testing

/// The error vocabulary's floors: the foundation names only its own domain (each module names
/// the domain of the failures it reports), and the interface's words for failures cover every
/// kind of failure an interface meets, so that a new one does not pass unsaid.
struct ErrorDomainTests {
    static var sources: URL { ImportArrowTests.sources }

    /// Every `typealias NAME = LoopError<KIND>` in `Sources/`: the error's name, its module.
    static func errorTypes() throws -> [(name: String, module: String)] {
        var found: [(String, String)] = []
        let root = sources.path
        let files = FileManager.default.enumerator(atPath: root)?.allObjects.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for match in text.matches(of: /public typealias (\w+) = LoopError<\w+>/) {
                found.append((String(match.1), String(file.split(separator: "/")[0])))
            }
        }
        return found
    }

    @Test func theFoundationNamesNoDomainAboveItsOwn() throws {
        let text = try String(
            contentsOf: Self.sources.appendingPathComponent("LoopFoundation/LoopError.swift"), encoding: .utf8)
        let named = text.matches(of: /static let (\w+) = ErrorDomain\(/).map { String($0.1) }
        #expect(named == ["file"], "LoopFoundation names the domains \(named)")
    }

    /// The server's own failures reach a client as its errors; the synthesizer's are told as
    /// notes where the cutter falls back to pauses; the terminal's (above the library's door)
    /// say all there is: the door gives a next step for every other kind.
    static let wordedElsewhere: Set<String> = ["PublishError", "CatalogError", "SpeechError", "TerminalError"]

    @Test func theInterfacesWordsCoverEveryKindOfFailure() throws {
        let words = try String(
            contentsOf: Self.sources.appendingPathComponent("LoopWorkflows/NextStep.swift"), encoding: .utf8)
        let errors = try Self.errorTypes()
        #expect(errors.count >= 15)
        for (name, module) in errors where !Self.wordedElsewhere.contains(name) {
            #expect(
                words.contains("as \(name):") || words.contains("is \(name)"),
                "\(name) (\(module)) has no next step in NextStep")
        }
    }
}
