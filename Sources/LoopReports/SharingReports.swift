import Foundation
import LoopLibraryAPI
import LoopModel
import LoopShare
import LoopTerminal
import LoopWorkflows

// What the sharing commands print: import, inspect, publish, update and browse.

extension VerifiedBundle {
    /// `loop inspect`'s lines: the format, the signer, each loop, the audio.
    public var lines: [String] {
        var lines = [
            "bundle format \(manifest.version), created \(manifest.created)",
            "signed by \(signer): signature, hashes and audio verified",
        ]
        for loop in manifest.loops {
            let phrases = loop.groups.reduce(0) { $0 + $1.phrases.count }
            lines.append(
                "  \(Terminal.inert(String(loop.id.prefix(8))))  \(Terminal.inert(loop.title))  revision \(loop.revision), \(loop.groups.count) groups, \(phrases) phrases"
            )
        }
        let bytes = manifest.audio.reduce(0) { $0 + $1.bytes }
        lines.append(
            String(
                format: "  %d audio file%@, %.1f MB", manifest.audio.count, manifest.audio.count == 1 ? "" : "s",
                Double(bytes) / 1e6))
        return lines
    }
}

extension BundleImporter.Result {
    /// `loop import`'s line for each loop of a bundle imported (or, with `dryRun`, that would be).
    public func lines(dryRun: Bool) -> [String] {
        return loops.compactMap { title, outcome in
            let title = Terminal.inert(title)
            switch outcome {
            case .added(let id):
                return "\(dryRun ? "Would add" : "Added") '\(title)' (\(id.prefix(8))), signed by \(signer)"
            case .updated(let id, let from, let to, let restarted):
                return
                    "\(dryRun ? "Would update" : "Updated") '\(title)' (\(id.prefix(8))) from revision \(from) to \(to)"
                    + ReviewWords.restarted(restarted)
            case .unchanged(_, let revision):
                return dryRun ? "Unchanged: '\(title)' is at revision \(revision) already" : nil
            case .older(_, let have, let offered):
                return dryRun ? "Would skip '\(title)': revision \(offered) is older than the \(have) here" : nil
            }
        }
    }
}

/// `loop publish --json`.
public struct PublishReport: Encodable {
    var id: String
    var shortID: String
    var revision: Int
    var previousRevision: Int?
    var link: String
    var install: String

    public init(_ published: LoopLibrarySharing.Published) {
        let result = published.result
        (id, shortID, revision, previousRevision) = (
            result.id, result.shortID, result.revision, result.previousRevision
        )
        (link, install) = (published.link, published.install)
    }
}

/// `loop update --json`: a line a loop.
public struct UpdateReport: Encodable {
    var id: String
    var title: String
    var server: String
    var status: String
    var from: Int?
    var to: Int?
    var error: String?
    /// Groups being reviewed whose text changed: their reviews start anew.
    var reviewsRestarted: Int?

    public init(
        id: String, title: String, server: String, status: String, from: Int? = nil, to: Int? = nil,
        error: String? = nil, reviewsRestarted: Int? = nil
    ) {
        (self.id, self.title, self.server, self.status) = (id, title, server, status)
        (self.from, self.to, self.error, self.reviewsRestarted) = (from, to, error, reviewsRestarted)
    }
}

/// `loop browse --json`.
public struct CatalogPageReport: Encodable {
    var total: Int
    var offset: Int
    var limit: Int
    /// True when more loops match than `total` (a search with words counts up to 1,000).
    var totalIsLowerBound: Bool?
    var loops: [Entry]

    struct Entry: Encodable {
        var loop: CatalogLoop
        var link: String
    }

    /// `page`, each loop with its preview link (`link(shortID)`).
    public init(_ page: CatalogPage, link: (String) -> String) {
        (total, offset, limit) = (page.total, page.offset, page.limit)
        totalIsLowerBound = page.totalIsLowerBound
        loops = page.loops.map { Entry(loop: $0, link: link($0.shortID)) }
    }
}

extension CatalogLoop {
    /// `loop browse`'s line: title, languages, phrases, author, tags, then `link`.
    public func browseLine(link: String) -> String {
        let languages = [language, translationLanguage].compactMap { $0 }.joined(separator: "→")
        let by = author ?? authorFingerprint.prefix(9) + "…"
        var line =
            "\(Terminal.inert(title))  \(languages.isEmpty ? "" : languages + ", ")\(phraseCount) phrases, by \(Terminal.inert(String(by)))"
        if !tags.isEmpty { line += "  [\(Terminal.inert(tags.joined(separator: ", ")))]" }
        // Every field came from a server: the whole line is made inert, not only the texts.
        return Terminal.inert(line + "  " + link)
    }
}
