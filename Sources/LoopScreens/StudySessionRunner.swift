import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows
import Synchronization

/// The groups still to rate once a session ended (nil while it plays), and whether the learner quit.
private final class RatingsAsked: Sendable {
    let pending = Mutex<[Int]?>(nil)
    let quit = Mutex(false)
}

/// Shows a playing session: a full-screen view with keys, or a line per step.
public enum StudySessionRunner {
    /// How the view asks for ratings.
    public enum Rating: Sendable {
        /// When the session ends, each group studied through is rated in turn (keys 1-4).
        case atTheEnd
        /// Reviewing one group (`loop review`): keys 1-4 rate it and end its session.
        case reviewing(group: Int)
    }

    /// The rating keys' words.
    static let ratingKeys = "1 again · 2 hard · 3 good · 4 easy"

    /// The full-screen view: keys in, a redraw on every change and on resize; the terminal is
    /// restored however the session ends (q, Ctrl-C, SIGTERM, an error).
    /// `pictures` are the decoded pictures and which to show where (nil: none).
    public static func runFullScreen(
        player: any StudyControls, title: String, groups: [[StudyPhrase]],
        pictures: (choice: PictureChoice, decoded: DecodedPictures)? = nil, rating: Rating = .atTheEnd,
        shadowing: ShadowingSession? = nil, attemptWords: @escaping @Sendable (AttemptScore?) -> String = { _ in "" }
    ) async throws -> StudyResult {
        var showTranslation = true
        var hideText = false
        var showHelp = false
        let style = Terminal.standardOutput()
        var shelf: PictureShelf?
        // The view's own stream: the player's displays, then, once it ends, the ratings asked
        // for the groups studied (the view ends when the last is given).
        let (updates, continuation) = AsyncStream.makeStream(of: Void.self)
        let asking = RatingsAsked()
        var ratings: [Int: ReviewRating] = [:]
        let forward = Task {
            for await _ in player.start() { continuation.yield() }
            let studied = player.studiedGroups
            if case .atTheEnd = rating, !studied.isEmpty {
                asking.pending.withLock { $0 = studied }
                continuation.yield()
            } else {
                continuation.finish()
            }
        }
        defer { forward.cancel() }
        shadowing?.onEvent { _ in continuation.yield() }
        func rate(_ value: ReviewRating) {
            switch rating {
            case .reviewing(let group):
                ratings[group] = value
                player.quit()
            case .atTheEnd:
                let next = asking.pending.withLock { pending -> Int? in
                    guard let first = pending?.first else { return nil }
                    pending?.removeFirst()
                    return first
                }
                if let next { ratings[next] = value }
                if asking.pending.withLock({ $0?.isEmpty ?? false }) { continuation.finish() }
            }
        }
        try await FullScreen.run(updates: updates) { terminal in
            shelf = pictures.map { PictureShelf(terminal: terminal, decoded: $0.decoded) }
        } render: { rows, columns in
            var display = player.display
            var prompt: String?
            if let group = asking.pending.withLock({ $0?.first }) {
                display.group = group
                prompt = "How well did you know group \(group + 1)? " + ratingKeys + " · q skip (counts as good)"
            } else if case .reviewing = rating {
                prompt = "Rate it to go on: " + ratingKeys + " · q stop reviewing"
            }
            return StudyView(
                title: title, groups: groups, display: display, showTranslation: showTranslation, hideText: hideText,
                showHelp: showHelp, terminal: style, rows: rows, columns: columns,
                pictures: shelf, picture: pictures?.choice.path(group: display.group, phrase: display.phrase),
                prompt: prompt,
                attemptLine: shadowing?.hasStopped == true
                    ? "recording stopped (why is said when you quit)"
                    : display.phrase.flatMap { phrase in shadowing?.lastScore(at: phrase).map(attemptWords) },
                shadowing: shadowing != nil
            ).frame
        } handle: { key in
            if asking.pending.withLock({ $0 != nil }) {
                switch key {
                case .interrupt, .character("q"), .character("Q"), .escape: continuation.finish()
                case .character(let character):
                    // 1 to 4: a rating.
                    if let rating = character.wholeNumberValue.flatMap(ReviewRating.init(rawValue:)) {
                        rate(rating)
                    }
                default: break
                }
                return
            }
            switch key {
            case .interrupt, .character("q"), .character("Q"):
                asking.quit.withLock { $0 = true }
                player.quit()
            case .character(" "): player.send(.playPause)
            case .right: player.send(.nextPhrase)
            case .left: player.send(.previousPhrase)
            case .down: player.send(.nextGroup)
            case .up: player.send(.previousGroup)
            case .character("a"): player.send(.selectAll)
            case .character("m"): player.send(.switchMode)
            case .character("+"), .character("="): player.send(.faster)
            case .character("-"), .character("_"): player.send(.slower)
            case .character("t"): showTranslation.toggle()
            case .character("h"): hideText.toggle()
            case .character("?"): showHelp.toggle()
            case .character("c"), .character("C"):
                // The model, then the learner's last attempt at the phrase (the session pauses).
                if let phrase = player.display.phrase, let both = try? shadowing?.modelThenMine(phrase) {
                    player.playAside(both)
                }
            case .character(let character):
                if case .reviewing = rating {
                    if let digit = character.wholeNumberValue, let value = ReviewRating(rawValue: digit) { rate(value) }
                } else if let digit = character.wholeNumberValue, digit >= 1 {
                    player.send(.select(group: digit - 1))
                } else if let index = Array("!@#$%^&*(").firstIndex(of: character) {
                    player.send(.toggle(group: index))
                }
            default: break
            }
        }
        let study = try await player.finished()
        return StudyResult(
            study: study, studiedGroups: player.studiedGroups, ratings: ratings, quit: asking.quit.withLock { $0 })
    }

    /// A line per step (no terminal, or --once); Ctrl-C ends the session cleanly.
    public static func runPlain(
        player: any StudyControls, groups: [[StudyPhrase]], printing: Bool, shadowing: ShadowingSession? = nil,
        attemptWords: @escaping @Sendable (AttemptScore?) -> String = { _ in "" }
    ) async throws -> StudyResult {
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { player.quit() }
        interrupt.resume()
        defer {
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        let texts = Dictionary(uniqueKeysWithValues: groups.flatMap { $0 }.map { ($0.number, $0.text) })
        var last = ""
        if printing {
            shadowing?.onEvent { event in
                let line =
                    switch event {
                    case .attempt(let phrase, let score): "phrase \(phrase) · you: \(attemptWords(score))\n"
                    case .stopped: "shadowing: recording stopped\n"
                    }
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        }
        for await display in player.start() where printing {
            let line = describe(display, texts: texts)
            // With shadowing, the end is said once the last attempt is scored.
            if line != last && !(shadowing != nil && display.phase == .finished) {
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
            last = line
        }
        let study = try await player.finished()
        if let shadowing {
            _ = await shadowing.waitForAttempts()
            if printing && last == "finished" { FileHandle.standardOutput.write(Data("finished\n".utf8)) }
        }
        return StudyResult(study: study, studiedGroups: player.studiedGroups, ratings: [:])
    }

    static func describe(_ display: StudyDisplay, texts: [Int: String]) -> String {
        let phase: String
        switch display.phase {
        case .listening: phase = "listen"
        case .speakAlong: phase = "say it along"
        case .repeatAloud: phase = "repeat the group"
        case .paused: phase = "paused"
        case .finished: phase = "finished"
        }
        let what = display.phrase.map { "phrase \($0): " + (texts[$0] ?? "") } ?? "group \(display.group + 1)"
        return display.phase == .finished ? "finished" : "group \(display.group + 1) · \(phase) · \(what)"
    }
}
