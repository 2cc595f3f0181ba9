import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopModel
import LoopStore
import LoopText

/// A loop just authored (or a take just attached), and the cuts worth a listen.
public struct AuthoredLoop: Sendable {
    public var loop: LoopDetail
    /// The cuts the segmenter was unsure of: the phrase numbers on either side, and how sure.
    public var doubtfulCuts: [DoubtfulCut]
    /// The phrases (numbers across the loop) the take was for but does not read: they still
    /// need audio.
    public var notFound: [Int] = []
    /// The phrases the take was for.
    public var phrasesAsked = 0
    /// How the take was cut (by its text in a language, or at its pauses).
    public var method: CuttingMethod = .pauses
    /// What the user should know about the cutting, once.
    public var notes: [String] = []
    /// The other loops with its title, found in the read that returned it.
    public var namesakes = Namesakes()
}

/// A cut the segmenter was unsure of.
public struct DoubtfulCut: Sendable, Equatable {
    /// Phrase numbers (1-based, across the loop) on either side of the cut.
    public var before: Int
    public var after: Int
    public var confidence: Double
}

/// Authoring: a loop from its text and a take cut at its pauses, and new takes cut onto the
/// phrases that need audio. The take is copied into the library while it is cut (each takes
/// about as long as the other); it takes its place only once the cut has succeeded.
public struct Authoring: Sendable {
    let store: LibraryStore
    public var segmenter: SilenceSegmenter
    /// The text's language, when neither the loop nor the text's script says it.
    public var language: String?

    package init(store: LibraryStore, segmenter: SilenceSegmenter = SilenceSegmenter(), language: String? = nil) {
        self.store = store
        self.segmenter = segmenter
        self.language = language
    }

    /// Adds a loop from the text in `textFile` (`-`: standard input) and, with `media`, its take
    /// (any audio or video file, decoded first when it must be), cut so that every phrase gets
    /// its clip. `splitSentences` also splits long lines at sentence ends.
    public func author(
        textFile: String, splitSentences: Bool = false, media: MediaFile?, title: String? = nil,
        language: String? = nil,
        tags: [String] = [], progress: WorkProgress? = nil
    ) async throws -> AuthoredLoop {
        let written = try LoopSource.readText(at: textFile)
        let source = try LoopSource(
            parsing: written, from: textFile, options: LoopSource.ParseOptions(splitSentences: splitSentences))
        // The text as written is kept, unless sentences were split out of its lines.
        let sourceText = splitSentences ? nil : written
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        guard let media else {
            return try await author(
                source: source, sourceText: sourceText, takePath: nil, title: title, language: language, tags: tags)
        }
        return try await media.reading(progress: progress) { take in
            try await author(
                source: source, sourceText: sourceText, takePath: take, title: title, language: language, tags: tags,
                progress: importing)
        }
    }

    /// Cuts a new take (any audio or video file) onto the phrases that need audio: see
    /// ``attach(loop:takePath:group:includingChanged:progress:)``.
    public func attach(
        loop id: String, media: MediaFile, group: Int? = nil, includingChanged: Bool = false,
        progress: WorkProgress? = nil
    ) async throws -> AuthoredLoop {
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        return try await media.reading(progress: progress) { take in
            try await attach(
                loop: id, takePath: take, group: group, includingChanged: includingChanged, progress: importing)
        }
    }

    /// Adds a loop from its text and, with `takePath`, its take cut so that every phrase gets
    /// its clip. `progress` follows the cutting and copying (0...1).
    public func author(
        source: LoopSource, sourceText: String?, takePath: String?, title: String? = nil, language: String? = nil,
        tags: [String] = [], progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let store = self.store
        guard let takePath else {
            let (loop, namesakes) = try await BlockingWork.run {
                let loop = try store.createLoop(
                    source: source, title: title, language: language, tags: tags, sourceText: sourceText)
                return try store.loopAndNamesakes(id: loop.summary.id)
            }
            return AuthoredLoop(loop: loop, doubtfulCuts: [], namesakes: namesakes)
        }
        let texts = source.phrases.map(\.text)
        return try await withTakeInFlight(takePath) {
            let (take, found, segmentation, received) = try await receiveAndCut(
                takePath: takePath, texts: texts, language: language ?? source.language, progress: progress)
            let (loop, namesakes) = try await keeping(received) {
                let id: String
                if found.count == texts.count {
                    id = try store.createLoop(
                        source: source, title: title, language: language, tags: tags, take: take, received: received,
                        sourceText: sourceText
                    ).summary.id
                } else {
                    // A take of some of the phrases: the loop with its text, then their clips.
                    let loop = try store.createLoop(
                        source: source, title: title, language: language, tags: tags, sourceText: sourceText)
                    do {
                        _ = try store.attach(
                            loop: loop.summary.id, phraseIds: found.map { loop.phrases[$0].id }, take: take,
                            received: received)
                    } catch {
                        try? store.remove(loop: loop.summary.id)
                        throw error
                    }
                    id = loop.summary.id
                }
                return try store.loopAndNamesakes(id: id)
            }
            progress?(1)
            var authored = Self.authored(loop, segmentation: segmentation, found: found, asked: texts.count)
            authored.namesakes = namesakes
            return authored
        }
    }

    /// Cuts a new take onto the phrases that need audio (of one group, if given), and with
    /// `includingChanged` the phrases whose clip was recorded for an earlier text.
    public func attach(
        loop id: String, takePath: String, group: Int? = nil, includingChanged: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let store = self.store
        let detail = try await BlockingWork.run { try store.loop(id: id) }
        let waiting = try Self.phrasesWaiting(in: detail, group: group, includingChanged: includingChanged)
        let authored = try await withTakeInFlight(takePath) {
            let (take, found, segmentation, received) = try await receiveAndCut(
                takePath: takePath, texts: waiting.map(\.text), language: detail.summary.language, progress: progress)
            let loop = try await keeping(received) {
                try store.attach(loop: id, phraseIds: found.map { waiting[$0].id }, take: take, received: received)
            }
            progress?(1)
            return Self.authored(loop, segmentation: segmentation, found: found, asked: waiting.count)
        }
        // The cuts are between the waiting phrases: name them by their numbers in the loop.
        var named = authored
        named.doubtfulCuts = authored.doubtfulCuts.map {
            DoubtfulCut(
                before: waiting[$0.before - 1].number, after: waiting[$0.after - 1].number, confidence: $0.confidence)
        }
        named.notFound = authored.notFound.map { waiting[$0 - 1].number }
        return named
    }

    /// The phrases a new take is for.
    static func phrasesWaiting(in detail: LoopDetail, group: Int?, includingChanged: Bool) throws -> [StoredPhrase] {
        if let group, !(1...max(detail.groups.count, 1)).contains(group) {
            throw LibraryError(.phraseNotFound, "the loop has \(detail.groups.count) groups, not \(group)")
        }
        let inGroup = { (phrase: StoredPhrase) in group == nil || phrase.group == group }
        let waiting = detail.phrases.filter {
            ($0.audio == nil || (includingChanged && $0.clipIsForEarlierText)) && inGroup($0)
        }
        guard waiting.isEmpty else { return waiting }
        // A group whose every phrase has audio: the take is for the whole group, and replaces it.
        if group != nil { return detail.phrases.filter(inGroup) }
        let which = includingChanged ? "audio for its text" : "audio"
        let message =
            group.map { "every phrase of group \($0) has \(which) already" } ?? "every phrase has \(which) already"
        let changed = includingChanged ? 0 : detail.phrases.filter { $0.clipIsForEarlierText && inGroup($0) }.count
        if changed > 0 {
            throw LibraryError(.onlyClipsForEarlierText, message + "; \(changed) of them read an earlier text")
        }
        throw LibraryError(.nothingToDo, message)
    }

    /// The take at `takePath` copied into the library while it is cut by `texts`: the clips
    /// (with the take's format, read once), the phrases found, the segmentation, and the copy.
    /// Call it inside ``withTakeInFlight(_:_:)``; the copy is removed if the cut fails.
    private func receiveAndCut(
        takePath: String, texts: [String], language: String?, progress: (@Sendable (Double) -> Void)?
    ) async throws -> (take: CutTake, found: [Int], segmentation: Segmentation, received: ReceivedTake) {
        let cutter = TakeCutter(segmenter: segmenter, language: self.language)
        let (received, (segmentation, info)) = try await receive(takePath: takePath, progress: progress) {
            let info = try AudioFileReader(path: takePath).info
            let segmentation = try cutter.cut(
                path: takePath, hint: .text(texts, language: language),
                progress: progress.map { report in { @Sendable in report($0 * 0.9) } })
            return (segmentation, info)
        }
        let found = segmentation.phrases ?? Array(texts.indices)
        let take = CutTake(
            path: takePath, ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame },
            confidences: segmentation.clipConfidences, info: info)
        return (take, found, segmentation, received)
    }

    /// What a cut of `asked` phrases gave: the loop, the doubtful cuts and the phrases not
    /// found, by the numbers of the phrases the take was for.
    private static func authored(_ loop: LoopDetail, segmentation: Segmentation, found: [Int], asked: Int)
        -> AuthoredLoop
    {
        // A clip's number in the take (1-based) to its phrase's among those asked.
        let phraseNumber = { (clip: Int) in (clip - 1 < found.count ? found[clip - 1] : clip - 1) + 1 }
        let doubtful = doubtfulCuts(segmentation).map {
            DoubtfulCut(before: phraseNumber($0.before), after: phraseNumber($0.after), confidence: $0.confidence)
        }
        let notFound = (0..<asked).filter { !found.contains($0) }.map { $0 + 1 }
        return AuthoredLoop(
            loop: loop, doubtfulCuts: doubtful, notFound: notFound, phrasesAsked: asked, method: segmentation.method,
            notes: segmentation.notes)
    }

    /// Runs `body` while a take's copy is in flight: the library's shared lock held (so `gc`
    /// never takes the copy), and a full disk reported as such.
    func withTakeInFlight<T: Sendable>(_ takePath: String, _ body: () async throws -> T) async throws -> T {
        try await store.reportingFullDisk(needing: RegularFile.size(takePath)) { try await store.whileInFlight(body) }
    }

    /// Copies the take into the library while `cut` finds its clips, both at once; the copy is
    /// removed when either fails.
    func receive<Cut: Sendable>(
        takePath: String, progress: (@Sendable (Double) -> Void)?, cut: @escaping @Sendable () throws -> Cut
    ) async throws -> (ReceivedTake, Cut) {
        let store = self.store
        async let copy = BlockingWork.run("loop copy take") { try store.receiveTake(copyOf: takePath) }
        let found = await Result(catching: { try await BlockingWork.run("loop cut take", cut) })
        let received: Result<ReceivedTake, any Error>
        do { received = .success(try await copy) } catch { received = .failure(error) }
        do {
            return (try received.get(), try found.get())
        } catch {
            if case .success(let file) = received { store.discard(file) }
            throw error
        }
    }

    /// Stores what `save` writes with the received take; the copy is removed if it fails.
    func keeping<T: Sendable>(_ received: ReceivedTake, _ save: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingWork.run("loop store take", save)
        } catch {
            store.discard(received)
            throw error
        }
    }

    /// The cuts worth a listen (``Cut/isDoubtful``), by the numbers of the phrases they part.
    static func doubtfulCuts(_ segmentation: Segmentation) -> [DoubtfulCut] {
        segmentation.cuts.enumerated().filter { $0.element.isDoubtful }
            .map { DoubtfulCut(before: $0.offset + 1, after: $0.offset + 2, confidence: $0.element.confidence) }
    }
}

extension Result where Failure == any Error {
    /// The outcome of async work, success or error, for work that must clean up either way.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
