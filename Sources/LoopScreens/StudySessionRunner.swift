import Foundation
import LoopPictureDecoding
import LoopPlayback
import LoopStudy
import LoopTerminal
import Synchronization

/// Shows a playing session: a full-screen view with keys, or a line per step.
public enum StudySessionRunner {
    /// The full-screen view: keys in, a redraw on every change and on resize; the terminal is
    /// restored however the session ends (q, Ctrl-C, SIGTERM, an error).
    /// `pictures` are the decoded pictures and which to show where (nil: none).
    public static func runFullScreen(
        player: StudyPlayer, title: String, groups: [[StudyPhrase]],
        pictures: (choice: PictureChoice, decoded: [String: RGBAPicture])? = nil
    ) async throws -> [Int: PhraseStudy] {
        var showTranslation = true, hideText = false, showHelp = false
        let style = Terminal.standardOutput()
        var shelf: PictureShelf?
        try await FullScreen.run(updates: player.start()) { terminal in
            shelf = pictures.map { PictureShelf(terminal: terminal, decoded: $0.decoded) }
        } render: { rows, columns in
            let display = player.display
            return StudyView(
                title: title, groups: groups, display: display, showTranslation: showTranslation, hideText: hideText,
                showHelp: showHelp, terminal: style, rows: rows, columns: columns,
                pictures: shelf, picture: pictures?.choice.path(group: display.group, phrase: display.phrase)
            ).frame
        } handle: { key in
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
        }
        return try await player.finished()
    }

    /// A line per step (no terminal, or --once); Ctrl-C ends the session cleanly.
    public static func runPlain(player: StudyPlayer, groups: [[StudyPhrase]], printing: Bool) async throws -> [Int:
        PhraseStudy]
    {
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { player.quit() }
        interrupt.resume()
        defer { interrupt.cancel(); signal(SIGINT, SIG_DFL) }
        let texts = Dictionary(uniqueKeysWithValues: groups.flatMap { $0 }.map { ($0.number, $0.text) })
        var last = ""
        for await display in player.start() where printing {
            let line = describe(display, texts: texts)
            if line != last { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
            last = line
        }
        return try await player.finished()
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
