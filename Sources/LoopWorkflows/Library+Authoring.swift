import Foundation
import LoopAudioFiles
import LoopCutting
import LoopExchange
import LoopFoundation
import LoopModel
import LoopSpeech
import LoopStore
import LoopText

// Authoring: a loop from its text and a take (or a film and its subtitles), and a new take cut
// onto the phrases that need audio. The take is copied into the library while it is cut (each
// takes about as long as the other); it takes its place only once the cut has succeeded.

/// A loop to add: its text (a file, or `-` for standard input) and a take, or a film or a
/// podcast and its subtitles.
public struct NewLoopRequest: Sendable {
    /// The loop's text file; `-` reads standard input.
    public var text: String?
    /// Also split long lines into sentences.
    public var splitSentences = false
    /// The take reading the text, or the media the subtitles go with.
    public var media: MediaFile?
    /// Subtitles of the media (SRT or WebVTT): each cue becomes a phrase (instead of a text).
    public var subtitles: String?
    /// Subtitles in the second language: the phrases' translations, by time.
    public var translation: String?
    /// Every cue moved by this many milliseconds first (negative: earlier).
    public var shift = 0
    /// A group starts where the dialogue pauses longer than this (seconds)...
    public var groupPause = 2.0
    /// ... or every this many cues.
    public var groupSize: Int?
    /// The loop's title (nil: the text's `# title:` line, else the file's name).
    public var title: String?
    /// The text's language (nil: its `# language:` line, else guessed).
    public var language: String?
    /// The language of its translations, if it has any.
    public var translationLanguage: String?
    /// Tags for the loop.
    public var tags: [String] = []

    /// A request with every choice left to the text and the media.
    public init() {}

    /// Refuses what no loop can be made with (a language tag that is not one, options that exclude each other).
    public func check() throws(RequestProblem) {
        try checkLanguage(language, field: "language")
        try checkLanguage(translationLanguage, field: "translationLanguage")
        try RequestProblem.check(
            text == nil && subtitles == nil,
            RequestProblem("give the loop's text with {text}, or {media} and {subtitles}"))
        try RequestProblem.check(text != nil && subtitles != nil, .exclusive("text", "subtitles"))
        try RequestProblem.check(
            subtitles != nil && media == nil,
            RequestProblem("{subtitles} goes with {media} FILE, the film or recording they belong to"))
        try RequestProblem.check(
            subtitles == nil && (translation != nil || shift != 0 || groupSize != nil),
            RequestProblem("{translation}, {shift} and {groupSize} go with {subtitles}"))
        try RequestProblem.check(
            !(0.2...60).contains(groupPause), RequestProblem("{groupPause} takes 0.2 to 60 seconds"))
        if let groupSize {
            try RequestProblem.check(!(1...500).contains(groupSize), RequestProblem("{groupSize} takes 1 to 500 cues"))
        }
        try RequestProblem.check(abs(shift) > 3_600_000, RequestProblem("{shift} takes at most an hour (3600000 ms)"))
    }
}

/// A new take for the phrases of a loop that need audio.
public struct AttachRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// The take: a file, or a stream of one.
    public var media: MediaFile
    /// Only the phrases of this group (1-based); a group whose every phrase has audio is replaced.
    public var group: Int?
    /// Also the phrases whose clip was recorded for an earlier text of theirs.
    public var includingChanged = false

    /// A take for `loop`'s phrases needing audio (those of `group` alone, when given).
    public init(loop: String, media: MediaFile, group: Int? = nil, includingChanged: Bool = false) {
        (self.loop, self.media, self.group, self.includingChanged) = (loop, media, group, includingChanged)
    }
}

/// Why `code` cannot be a language, as a problem of the request's `field`.
func checkLanguage(_ code: String?, field: String) throws(RequestProblem) {
    guard let code, let problem = LanguageCode.problem(code) else { return }
    throw RequestProblem("{\(field)} \(problem)")
}

/// A loop just authored (or a take just attached), and the cuts worth a listen.
public struct AuthoredLoop: Sendable {
    /// The loop as it now is.
    public var loop: LoopDetail
    /// The cuts the segmenter was unsure of: the phrase numbers on either side, and how sure.
    public var doubtfulCuts: [DoubtfulCut]
    /// The phrases (numbers across the loop) the take was for but does not read: they still
    /// need audio.
    public var notFound: [Int] = []
    /// The phrases the take was for.
    public var phrasesAsked = 0
    /// What the user should know about the cutting, once.
    public var notes: [String] = []
    /// The other loops with its title, found in the read that returned it.
    public var namesakes = Namesakes()
    /// Whether a take was cut (a loop may be added with its text alone).
    public var withTake = false
    /// Whether it was made from subtitles (its cuts follow the cues, none is doubtful).
    public var fromSubtitles = false
    /// Where in its text the take was found, when the text is far longer than the take (a
    /// chapter in its book): the loop holds that part of the text alone.
    public var foundInText: FoundInText?
}

/// Where in a long text its take was found: the lines it reads, and the heading above them.
public struct FoundInText: Sendable, Equatable {
    /// The first and last lines read (1-based phrase numbers of the whole text).
    public var first: Int
    /// See ``first``.
    public var last: Int
    /// How many lines the whole text holds.
    public var lineCount: Int
    /// The loop's lines in the whole text (1-based): the paragraphs holding those read.
    public var kept: ClosedRange<Int>
    /// The heading they fall under, when the text has one ("Chapter 9").
    public var heading: String?
}

/// A cut the segmenter was unsure of.
public struct DoubtfulCut: Sendable, Equatable {
    /// Phrase numbers (1-based, across the loop) on either side of the cut.
    public var before: Int
    /// The phrase after the cut.
    public var after: Int
    /// How sure the segmenter was (0...1).
    public var confidence: Double
}

extension Library {
    /// Adds the loop `request` describes: its text and, with a take, the take cut so that every
    /// phrase gets its clip; or a film's or podcast's phrases from its subtitles.
    public func newLoop(_ request: NewLoopRequest, progress: WorkProgress? = nil) async throws -> AuthoredLoop {
        try request.check()
        if let subtitles = request.subtitles, let media = request.media {
            return try await authorFromSubtitles(subtitles, media: media, request: request, progress: progress)
        }
        let textFile = request.text ?? "-"
        let written = try LoopSource.readText(at: textFile)
        let source = try LoopSource(
            parsing: written, from: textFile, options: LoopSource.ParseOptions(splitSentences: request.splitSentences))
        // The text as written is kept, unless sentences were split out of its lines.
        let sourceText = request.splitSentences ? nil : written
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        guard let media = request.media else {
            return try await author(source: source, sourceText: sourceText, takePath: nil, request: request)
        }
        var authored = try await media.reading(progress: progress) { take in
            try await author(
                source: source, sourceText: sourceText, takePath: take, request: request, progress: importing)
        }
        authored.withTake = true
        return authored
    }

    /// Cuts a new take (any audio or video file) onto the phrases that need audio (of one
    /// group, if given), and with `includingChanged` the phrases whose clip was recorded for an
    /// earlier text.
    public func attach(_ request: AttachRequest, progress: WorkProgress? = nil) async throws -> AuthoredLoop {
        let id = try resolve(request.loop)
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        var authored = try await request.media.reading(progress: progress) { take in
            try await attach(
                loop: id, takePath: take, group: request.group, includingChanged: request.includingChanged,
                progress: importing)
        }
        authored.withTake = true
        return authored
    }

    /// Adds a loop from its text and, with `takePath`, its take cut so that every phrase gets
    /// its clip. `progress` follows the cutting and copying (0...1).
    package func author(
        source: LoopSource, sourceText: String?, takePath: String?, request: NewLoopRequest = NewLoopRequest(),
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let (title, language, tags) = (request.title, request.language, request.tags)
        guard let takePath else {
            let (loop, namesakes) = try await work("loop new") { store in
                let loop = try store.createLoop(
                    source: source, title: title, language: language, tags: tags, sourceText: sourceText)
                return try store.loopAndNamesakes(id: loop.summary.id)
            }
            return AuthoredLoop(loop: loop, doubtfulCuts: [], namesakes: namesakes)
        }
        let wholeText = source.phrases.map(\.text)
        return try await withTakeInFlight(takePath) {
            var (take, found, segmentation, received) = try await receiveAndCut(
                takePath: takePath, texts: wholeText, language: language ?? source.language, progress: progress)
            // A take found in a text far longer than itself (a chapter in its book) makes a loop
            // of the part it reads: its paragraphs, titled by the heading above them.
            var (source, sourceText, title, foundInText) = (source, sourceText, title, nil as FoundInText?)
            if var located = segmentation.located {
                // A heading is read before its chapter: one matched last is the take's outro
                // ("end of chapter four") heard as the next chapter's heading.
                if located.count > 1, source.headingPhrases.contains(located.upperBound) {
                    segmentation = segmentation.keeping(phrases: located.lowerBound...(located.upperBound - 1))
                    found = segmentation.phrases ?? []
                    located = (found.first ?? located.lowerBound)...(found.last ?? located.lowerBound)
                    take = CutTake(
                        path: take.path, ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame },
                        confidences: segmentation.clipConfidences, info: take.info)
                }
                let part = source.part(holding: located)
                foundInText = FoundInText(
                    first: located.lowerBound + 1, last: located.upperBound + 1, lineCount: wholeText.count,
                    kept: (part.phrases.lowerBound + 1)...part.phrases.upperBound, heading: part.heading)
                title = title ?? part.heading.map { heading in source.title.map { "\($0): \(heading)" } ?? heading }
                (source, sourceText) = (part.source, nil)
                found = found.map { $0 - part.phrases.lowerBound }
            }
            let texts = source.phrases.map(\.text)
            let (loop, namesakes) = try await keeping(received) {
                [source, sourceText, title, found, take, received] store in
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
            authored.foundInText = foundInText
            return authored
        }
    }

    /// Cuts a take onto the phrases of loop `id` that need audio.
    func attach(
        loop id: String, takePath: String, group: Int? = nil, includingChanged: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let detail = try await work("loop attach") { try $0.loop(id: id) }
        let waiting = try Self.phrasesWaiting(in: detail, group: group, includingChanged: includingChanged)
        let authored = try await withTakeInFlight(takePath) {
            let (take, found, segmentation, received) = try await receiveAndCut(
                takePath: takePath, texts: waiting.map(\.text), language: detail.summary.language, progress: progress)
            let loop = try await keeping(received) { store in
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
        let cutter = TakeCutter(synthesizer: Self.synthesizer)
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
        let doubtful = segmentation.cuts.enumerated().filter { $0.element.isDoubtful }.map {
            DoubtfulCut(
                before: phraseNumber($0.offset + 1), after: phraseNumber($0.offset + 2),
                confidence: $0.element.confidence)
        }
        let notFound = (0..<asked).filter { !found.contains($0) }.map { $0 + 1 }
        return AuthoredLoop(
            loop: loop, doubtfulCuts: doubtful, notFound: notFound, phrasesAsked: asked, notes: segmentation.notes)
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
    func keeping<T: Sendable>(_ received: ReceivedTake, _ save: @escaping @Sendable (LibraryStore) throws -> T)
        async throws -> T
    {
        do {
            return try await work("loop store take", save)
        } catch {
            store.discard(received)
            throw error
        }
    }
}

// MARK: - From subtitles

extension Library {
    /// Adds a loop from a film's or a podcast's `media` and its subtitles (SRT or WebVTT), with
    /// the request's translations; every cue moved by its shift first. A group starts where the
    /// dialogue pauses longer than the request's pause, or every so many cues. The title is the
    /// media file's name unless given; the languages, unless given, are guessed from the cues'
    /// words as the aligner guesses a text's, and a note says what was chosen.
    func authorFromSubtitles(
        _ subtitleFile: String, media: MediaFile, request: NewLoopRequest, progress: WorkProgress?
    ) async throws -> AuthoredLoop {
        let shift = Double(request.shift) / 1000
        let cues = try SubtitleReader.read(subtitleFile, shift: shift)
        guard !cues.isEmpty else {
            throw ExchangeError(.invalidSubtitles, path: subtitleFile, message: "the subtitles hold no cue with words")
        }
        let translations = try request.translation.map { try SubtitleReader.read($0, shift: shift) } ?? []
        let name = ((media.path as NSString).lastPathComponent as NSString).deletingPathExtension
        let guessed = request.language == nil ? SpeechLanguage.guess(cues.map(\.text)) : nil
        let guessedTranslation =
            request.translationLanguage == nil && !translations.isEmpty
            ? SpeechLanguage.guess(translations.map(\.text)) : nil
        var chosen: [String] = []
        if request.title == nil { chosen.append("titled '\(name)' after the media file") }
        if let guessed { chosen.append("language \(guessed) guessed from the subtitles") }
        if let guessedTranslation { chosen.append("translation language \(guessedTranslation) guessed from its file") }
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        let alignment = SubtitleAlignment(groupPause: request.groupPause, groupSize: request.groupSize)
        var authored = try await media.reading(progress: progress) { take in
            try await author(
                subtitles: cues, translations: translations, takePath: take, alignment: alignment,
                title: request.title ?? name, language: request.language ?? guessed,
                translationLanguage: request.translationLanguage ?? guessedTranslation, tags: request.tags,
                progress: importing)
        }
        if !chosen.isEmpty {
            authored.notes.append(
                chosen.joined(separator: ", ") + " (--title, --language and --translation-language choose others)")
        }
        authored.withTake = true
        authored.fromSubtitles = true
        return authored
    }

    /// Adds a loop made from subtitles over a media file's audio (`takePath`, readable by
    /// libsndfile): a phrase per cue, translations from `translations`, clips moved to the
    /// speech's edges (``SubtitleAlignment``). Cues past the audio's end are left out.
    package func author(
        subtitles cues: [SubtitleCue], translations: [SubtitleCue], takePath: String, alignment: SubtitleAlignment,
        title: String, language: String?, translationLanguage: String?, tags: [String],
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let cutter = TakeCutter(synthesizer: Self.synthesizer)
        let (loop, namesakes, cut) = try await withTakeInFlight(takePath) {
            let (received, cut) = try await receive(takePath: takePath, progress: progress) {
                () throws -> (result: SubtitleAlignment.Result, method: CuttingMethod, notes: [String]) in
                let envelope = try EnergyEnvelope.measure(
                    path: takePath, progress: progress.map { report in { @Sendable in report($0 * 0.4) } })
                let duration = Double(envelope.frameCount) / Double(envelope.sampleRate)
                let heard = cues.filter { $0.start < duration - 0.05 }
                guard !heard.isEmpty else {
                    throw ExchangeError(
                        .exportRefused, path: takePath,
                        message:
                            "no cue of the subtitles lies within the audio (\(Int(duration)) s): are they for this file, or shifted (--shift)?"
                    )
                }
                // No speech found (silence, steady noise) leaves every cue its own times.
                let speech = (try? SilenceSegmenter().segment(envelope, hint: .none, path: takePath).segments) ?? []
                let placed = alignment.align(heard, translations: translations, envelope: envelope, speech: speech)
                return try alignment.followingTheWords(
                    placed, path: takePath, sampleRate: envelope.sampleRate, cutter: cutter, language: language,
                    progress: progress.map { report in { @Sendable in report(0.4 + $0 * 0.5) } })
            }
            let aligned = cut.result
            let (loop, namesakes) = try await keeping(received) { store in
                let source = LoopSource(
                    title: title, language: language, translationLanguage: translationLanguage, tags: tags,
                    groups: aligned.groups.map { PhraseGroup(phrases: $0) })
                let id = try store.createLoop(
                    source: source, title: title, language: language, tags: tags,
                    take: CutTake(path: takePath, ranges: aligned.ranges), received: received
                ).summary.id
                return try store.loopAndNamesakes(id: id)
            }
            progress?(1)
            return (loop, namesakes, cut)
        }
        return AuthoredLoop(loop: loop, doubtfulCuts: [], notes: cut.notes, namesakes: namesakes)
    }
}

extension Result where Failure == any Error {
    /// The outcome of async work, success or error, for work that must clean up either way.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
