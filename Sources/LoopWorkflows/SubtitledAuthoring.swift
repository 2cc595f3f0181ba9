import Foundation
import LoopCutting
import LoopExchange
import LoopFoundation
import LoopModel
import LoopSpeech
import LoopStore
import LoopText

extension Authoring {
    /// Adds a loop from a film's or a podcast's `media` and its subtitles (`subtitleFile`, SRT
    /// or WebVTT), with the translations of `translationFile` when given; every cue moved by
    /// `shift` seconds first. A group starts where the dialogue pauses longer than `groupPause`
    /// seconds, or every `groupSize` cues. The title is the media file's name unless given; the
    /// languages, unless given, are guessed from the cues' words as the aligner guesses a
    /// text's, and a note says what was chosen.
    public func author(
        subtitleFile: String, translationFile: String?, shift: Double = 0, media: MediaFile, groupPause: Double = 2,
        groupSize: Int? = nil, title: String?, language: String?, translationLanguage: String?, tags: [String],
        progress: WorkProgress? = nil
    ) async throws -> AuthoredLoop {
        let cues = try SubtitleReader.read(subtitleFile, shift: shift)
        guard !cues.isEmpty else {
            throw ExchangeError(.invalidSubtitles, path: subtitleFile, message: "the subtitles hold no cue with words")
        }
        let translations = try translationFile.map { try SubtitleReader.read($0, shift: shift) } ?? []
        let name = ((media.path as NSString).lastPathComponent as NSString).deletingPathExtension
        let guessed = language == nil ? SpeechLanguage.guess(cues.map(\.text)) : nil
        let guessedTranslation =
            translationLanguage == nil && !translations.isEmpty ? SpeechLanguage.guess(translations.map(\.text)) : nil
        var chosen: [String] = []
        if title == nil { chosen.append("titled '\(name)' after the media file") }
        if let guessed { chosen.append("language \(guessed) guessed from the subtitles") }
        if let guessedTranslation { chosen.append("translation language \(guessedTranslation) guessed from its file") }
        let importing = progress.map { report in { @Sendable (fraction: Double) in report(.importing, fraction) } }
        var authored = try await media.reading(progress: progress) { take in
            try await author(
                subtitles: cues, translations: translations, takePath: take,
                alignment: SubtitleAlignment(groupPause: groupPause, groupSize: groupSize), title: title ?? name,
                language: language ?? guessed, translationLanguage: translationLanguage ?? guessedTranslation,
                tags: tags, progress: importing)
        }
        if !chosen.isEmpty {
            authored.notes.append(
                chosen.joined(separator: ", ") + " (--title, --language and --translation-language choose others)")
        }
        return authored
    }

    /// Adds a loop made from subtitles over a media file's audio (`takePath`, readable by
    /// libsndfile: see ``MediaInput``): a phrase per cue, translations from `translations`,
    /// clips moved to the speech's edges (``SubtitleAlignment``). Cues past the audio's end are
    /// left out.
    public func author(
        subtitles cues: [SubtitleCue], translations: [SubtitleCue], takePath: String, alignment: SubtitleAlignment,
        title: String, language: String?, translationLanguage: String?, tags: [String],
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> AuthoredLoop {
        let store = self.store
        let cutter = TakeCutter(segmenter: segmenter, language: self.language)
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
            let (loop, namesakes) = try await keeping(received) {
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
        return AuthoredLoop(loop: loop, doubtfulCuts: [], method: cut.method, notes: cut.notes, namesakes: namesakes)
    }
}
