import ArgumentParser
import Foundation
import LoopAudio
import LoopAuthoring
import LoopErrors
import LoopShare
import LoopStore

/// Runs a command body; a failure prints `error: <message>` on one line and exits non-zero.
public func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        // Inert: a message may quote a title or a path that came from outside.
        StandardError.write("error: \(Terminal.inert(describe(error)))\n")
        throw ExitCode.failure
    }
}

/// The one-line text for an error from any of the libraries, with the next step on the
/// command line where there is one.
func describe(_ error: any Error) -> String {
    guard let error = error as? any LoopError else { return String(describing: error) }
    let line = MediaOptions.namingOriginals(error.description)
    return CommandHints.hint(for: error.kind).map { line + "; " + $0 } ?? line
}

/// What to do next, in this interface's words, for the kinds of failure the libraries report
/// (they describe what went wrong; they never name a command or an option).
enum CommandHints {
    static func hint(for kind: String) -> String? { hints[kind] }

    private static let hints: [String: String] = [
        "library.loopNotFound": "`loop list` shows them",
        "library.phraseHasNoAudio": "add some with `loop attach`",
        "library.nothingToDo": "`loop adjust` moves a clip",
        "library.onlyClipsForEarlierText": "`loop attach --changed` records them again",
        "library.notTheAuthor": "import it as a new loop with --as-copy",
        "library.editedHere": "import it as a new loop with --as-copy, or replace it with --force",
        "library.revisionLimit": "export it and import it --as-copy to go on editing",
        "share.identity": "`loop export` shares a copy",
        "server.forbidden": "only its author can publish it; `loop import --as-copy` makes a copy of your own to publish",
        "server.unreachable": "is the server running, and the address right?",
        "study.noAudio": "add a take with `loop attach`",
        "audio.noPlaybackDevice": "choose one with --device NAME (see `aplay -L`), or render to a file with --output FILE.wav (or --output null)",
        "audio.noCaptureDevice": "choose one with --device NAME (see `arecord -L`), or read a recording with --input FILE",
    ]

    /// The command that fixes a problem `loop doctor` found, where one does.
    static func fix(for problem: HealthReport.Problem) -> String {
        switch problem.kind {
        case .clipsPastTheirTake: problem.remedy + " with `loop adjust`"
        case .audioMissing, .audioDamaged: problem.remedy + " with `loop attach`"
        case .pictureMissing, .pictureDamaged: problem.remedy + " with `loop image`"
        default: problem.remedy
        }
    }
}

/// A failure found by the command line itself.
public struct CLIError: LoopError {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var kind: String { "cli" }
}

/// Unbuffered writes to standard error.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
