import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

/// Fills a catalog with copies of one published loop under other ids, titles, languages and
/// tags: the large catalog `loop-benchmark server` measures against.
struct SeedBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-benchmark",
        abstract: "Fill a catalog with copies of a published loop (for loop-benchmark server).",
        shouldDisplay: false)

    @OptionGroup var storage: StorageOptions
    @Option(help: "The published loop to copy.") var from: String
    @Option(help: "How many copies.") var count = 10_000
    @Option(help: "A file to write the copies' ids to, one a line.") var idsFile: String?
    @Option(
        help: """
            Downloads of the copies to count, each by a client of its own on one of the last ten \
            days, most of them of a few copies (Hot's list; three in ten fall before the seven days it counts).
            """)
    var downloads = 0

    func validate() throws {
        guard count >= 0, downloads >= 0 else {
            throw ValidationError("--count and --downloads take a number of 0 or more")
        }
    }

    func run() async throws {
        guard let catalog = try storage.openCatalogForOperator() as? any BenchmarkSeeding else {
            throw ValidationError("this catalog cannot be seeded")
        }
        try await catalog.prepare()
        guard let model = try await catalog.loop(from, now: Date()) else {
            throw ValidationError("no loop '\(from)' is published here")
        }
        // Each copy's page rendered ahead once it is in, as a publish does (where the templates
        // are found).
        let web = WebTemplates.locate().flatMap { try? WebTemplates(folder: $0) }
        if web == nil {
            FileHandle.standardError.write(
                Data("warning: the web templates were not found: the copies' pages render on each first visit\n".utf8))
        }
        let words = [
            "café", "gare", "marché", "train", "hotel", "Bahnhof", "Markt", "estación", "mercado", "駅", "市場", "piazza",
            "stazione",
        ]
        let languages = [("fr", "en"), ("de", "en"), ("es", "en"), ("ja", "en"), ("it", "en"), ("fr", "de")]
        // The model's phrases and translations, as a publish indexes them.
        struct Content: Decodable { var groups: [[CatalogLoopDetail.Phrase]] }
        let phrases = try JSONDecoder().decode(Content.self, from: model.content).groups.joined().flatMap {
            [$0.text] + ($0.translation.map { [$0] } ?? [])
        }
        var entries: [CatalogEntry] = []
        for index in 0..<count {
            let (language, translation) = languages[index % languages.count]
            let title = "\(words[index % words.count]) \(words[(index / words.count) % words.count]) \(index)"
            let tags = ["level \(index % 6 + 1)", words[(index / 7) % words.count]]
            let entry =
                CatalogEntry(
                    authored: CatalogLoop.Authored(
                        id: UUID().uuidString.lowercased(), revision: 1,
                        authorFingerprint: model.summary.authorFingerprint, title: title, language: language,
                        translationLanguage: translation, tags: tags, groupCount: model.summary.groupCount,
                        phraseCount: model.summary.phraseCount, seconds: model.summary.seconds),
                    authorKey: model.authorKey, content: model.content,
                    bundleSHA256: model.bundleSHA256, bundleBytes: model.bundleBytes,
                    searchTitle: CatalogText.searchField([title]),
                    searchText: CatalogText.searchField([title] + tags + phrases))
            entries.append(entry)
        }
        try await catalog.insertForBenchmark(entries, now: Date())
        _ = try await web?.renderPagesAhead(in: catalog)
        // The k-th download takes the copy at k³ mod 1,009 scaled to the copies (a few taken
        // often, most rarely or never), on day k mod 10 before today.
        let now = Date()
        for download in 0..<(entries.isEmpty ? 0 : downloads) {
            let share = Double(download * download % 1_009 * download % 1_009) / 1_009
            let entry = entries[min(entries.count - 1, Int(share * share * Double(entries.count)))]
            _ = try await catalog.countDownload(
                id: entry.id, client: "seed-\(download)", now: now.addingTimeInterval(-Double(download % 10) * 86_400))
        }
        try await catalog.close()
        if let idsFile {
            try entries.map(\.id).joined(separator: "\n").write(toFile: idsFile, atomically: true, encoding: .utf8)
        }
    }
}
