import Foundation
import LoopFoundation
import LoopLibraryAPI
import LoopModel
import LoopText

/// The checks a manifest passes before anything in it is believed, beyond its JSON shape:
/// ids in the form loop itself makes them (they reach file paths), revisions in range, text
/// free of NUL and control characters, sizes within the format's limits, each loop once, and
/// each loop's text saying what its groups and phrases say.
enum ManifestCheck {
    /// The format's limits (docs/bundle-format.md): reading a manifest costs time and memory in
    /// proportion to these, never more.
    static let maxLoops = 1_000
    static let maxPhrases = TextCheck.maxPhrases
    static let maxFieldCharacters = TextCheck.maxFieldCharacters
    static let maxRevision = LoopRevision.last

    /// The format's limits on how many loops and phrases a bundle holds.
    static func checkCounts(loops: Int, phrases: Int) throws(ShareError) {
        guard loops <= maxLoops else {
            throw ShareError(.tooLarge, "the bundle holds \(loops) loops; the format allows \(maxLoops)")
        }
        guard phrases <= maxPhrases else {
            throw ShareError(.tooLarge, "the bundle holds \(phrases) phrases; the format allows \(maxPhrases)")
        }
    }

    static func check(_ manifest: BundleManifest) throws(ShareError) {
        try checkCounts(
            loops: manifest.loops.count,
            phrases: manifest.loops.reduce(0) { $0 + $1.groups.reduce(0) { $0 + $1.phrases.count } })
        var seen: Set<String> = []
        for loop in manifest.loops {
            guard isLoopId(loop.id) else {
                throw ShareError(
                    .badManifest, "a loop id is not one loop makes (a lowercase UUID): '\(shown(loop.id))'")
            }
            guard seen.insert(loop.id).inserted else {
                throw ShareError(.badManifest, "the bundle holds loop \(loop.id) twice")
            }
            guard (1...maxRevision).contains(loop.revision) else {
                throw ShareError(
                    .badManifest,
                    "loop \(loop.id.prefix(8)) has revision \(loop.revision); revisions run from 1 to \(maxRevision)")
            }
            try checkText(of: loop)
            try checkSourceAgreesWithPhrases(loop)
        }
        if let name = manifest.authorName, AuthorName.validated(name) != name {
            throw ShareError(
                .badManifest,
                "the author's name '\(shown(name))' is not one a library gives (1 to 40 letters, digits, spaces, '.', '-' or '_')"
            )
        }
    }

    /// A lowercase UUID, as `UUID().uuidString.lowercased()` makes.
    static func isLoopId(_ id: String) -> Bool {
        guard id.utf8.count == 36, UUID(uuidString: id) != nil else { return false }
        return id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }
    }

    private static func checkText(of loop: BundleManifest.Loop) throws(ShareError) {
        let name = "loop \(loop.id.prefix(8))"
        var lines: [(String, String)] = [("title", loop.title)]
        if let language = loop.language { lines.append(("language", language)) }
        if let language = loop.translationLanguage { lines.append(("translationLanguage", language)) }
        lines += loop.tags.map { ("tag", $0) }
        for (g, group) in loop.groups.enumerated() {
            for (p, phrase) in group.phrases.enumerated() {
                let place = "group \(g + 1) phrase \(p + 1)"
                lines.append((place, phrase.text))
                if let translation = phrase.translation { lines.append(("\(place) translation", translation)) }
                if let recorded = phrase.recordedText { lines.append(("\(place) recordedText", recorded)) }
            }
        }
        for (field, language) in [("language", loop.language), ("translationLanguage", loop.translationLanguage)] {
            if let language, let problem = LanguageCode.problem(language) {
                throw ShareError(.badManifest, "\(name): its \(field) \(problem)")
            }
        }
        for (field, text) in lines {
            if let problem = TextCheck.problem(inLine: text) {
                throw ShareError(.badManifest, "\(name): its \(field) \(problem)")
            }
            guard text.count <= maxFieldCharacters else {
                throw ShareError(.tooLarge, "\(name): its \(field) is longer than \(maxFieldCharacters) characters")
            }
        }
        guard loop.sourceText.utf8.count <= TextCheck.maxTextBytes else {
            throw ShareError(.tooLarge, "\(name): its text is larger than \(TextCheck.maxTextBytes >> 20) MiB")
        }
        if let (line, problem) = TextCheck.problem(inText: loop.sourceText) {
            throw ShareError(.badManifest, "\(name): line \(line) of its text \(problem)")
        }
    }

    /// A bundle whose text disagrees with its phrases would lose them at the next `loop edit`.
    private static func checkSourceAgreesWithPhrases(_ loop: BundleManifest.Loop) throws(ShareError) {
        let name = "loop \(loop.id.prefix(8)) ('\(shown(loop.title))')"
        let source: LoopSource
        do {
            source = try LoopSource(parsing: loop.sourceText)
        } catch {
            throw ShareError(.badManifest, "\(name): its text does not parse (\(error.description))")
        }
        let inText = source.groups.map { $0.phrases.map { [$0.text, $0.translation ?? ""] } }
        let inPhrases = loop.groups.map { $0.phrases.map { [$0.text, $0.translation ?? ""] } }
        guard inText != inPhrases else { return }
        let textCount = source.phrases.count
        let phraseCount = loop.groups.reduce(0) { $0 + $1.phrases.count }
        let detail =
            textCount != phraseCount
            ? "its text has \(textCount) phrases in \(source.groups.count) groups, its phrase list \(phraseCount) in \(loop.groups.count)"
            : "its text and its phrase list differ in wording or grouping"
        throw ShareError(.badManifest, "\(name): \(detail)")
    }

    /// Text from a bundle as an error shows it: its first 60 characters, control characters as `?`.
    static func shown(_ text: String) -> String {
        let shown = String(
            text.unicodeScalars.prefix(60).map {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0)
            })
        return text.unicodeScalars.count > 60 ? shown + "…" : shown
    }
}
