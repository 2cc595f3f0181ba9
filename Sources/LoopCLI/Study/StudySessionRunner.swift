import Foundation
import LoopPlayback
import LoopStudy
import Synchronization

/// Runs a player on its own thread while this side shows it: a full-screen view with keys, or
/// a line per step.
enum StudySessionRunner {
    /// The full-screen view: keys in, redraws on every change and on resize; the terminal is
    /// restored however the session ends (q, Ctrl-C, SIGTERM, an error).
    static func runFullScreen(player: StudyPlayer, title: String, groups: [[StudyPhrase]]) async throws -> [Int: PhraseStudy] {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        let changed = Atomic<Bool>(true)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        signal(SIGTERM, SIG_IGN)
        termination.setEventHandler { player.quit() }
        termination.resume()
        defer { termination.cancel() }

        let outcome = PlayerThread.start(player) { _ in changed.store(true, ordering: .relaxed) }
        var showTranslation = true, hideText = false, showHelp = false
        var lastSize = (rows: 0, columns: 0)
        let style = Terminal.standardOutput()
        while !outcome.isDone {
            if let key = terminal.readKey(timeout: 30) {
                switch key {
                case .interrupt, .character("q"), .character("Q"): player.quit()
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
                case .character(let character):
                    if let digit = character.wholeNumberValue, digit >= 1 {
                        player.send(.select(group: digit - 1))
                    } else if let index = Array("!@#$%^&*(").firstIndex(of: character) {
                        player.send(.toggle(group: index))
                    }
                default: break
                }
                changed.store(true, ordering: .relaxed)
            }
            let size = terminal.size
            if changed.exchange(false, ordering: .relaxed) || size != lastSize {
                lastSize = size
                let view = StudyView(title: title, groups: groups, display: player.display, showTranslation: showTranslation, hideText: hideText,
                                     showHelp: showHelp, terminal: style, rows: size.rows, columns: size.columns)
                RawTerminal.write(view.frame)
            }
        }
        terminal.restore()
        return try outcome.result()
    }

    /// A line per step (no terminal, or --once); Ctrl-C ends the session cleanly.
    static func runPlain(player: StudyPlayer, groups: [[StudyPhrase]], printing: Bool) async throws -> [Int: PhraseStudy] {
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { player.quit() }
        interrupt.resume()
        defer { interrupt.cancel(); signal(SIGINT, SIG_DFL) }
        let texts = Dictionary(uniqueKeysWithValues: groups.flatMap { $0 }.map { ($0.number, $0.text) })
        let last = Mutex<String>("")
        let outcome = PlayerThread.start(player) { display in
            guard printing else { return }
            let line = describe(display, texts: texts)
            let isNew = last.withLock { previous in
                defer { previous = line }
                return previous != line
            }
            if isNew { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        }
        while !outcome.isDone { try await Task.sleep(for: .milliseconds(20)) }
        return try outcome.result()
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

/// The player's own thread, and what it ended with.
final class PlayerThread: Sendable {
    private let outcome = Mutex<Result<[Int: PhraseStudy], any Error>?>(nil)

    static func start(_ player: StudyPlayer, onDisplay: @escaping @Sendable (StudyDisplay) -> Void) -> PlayerThread {
        let thread = PlayerThread()
        let worker = Thread {
            let result = Result { try player.run(onDisplay: onDisplay) }
            thread.outcome.withLock { $0 = result }
        }
        worker.stackSize = 8 << 20
        worker.start()
        return thread
    }

    var isDone: Bool { outcome.withLock { $0 != nil } }
    func result() throws -> [Int: PhraseStudy] {
        guard let outcome = outcome.withLock({ $0 }) else { throw CLIError("the study session has not ended yet") }
        return try outcome.get()
    }
}
