import ArgumentParser
import Foundation
import LoopAudioFiles
import LoopCutting
import LoopModel
import LoopTerminal
import LoopText
import LoopFoundation
import LoopExchange
import LoopLibraryClient
import LoopPictures
import LoopShare
import LoopStudy
import LoopWorkflows

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
    guard let error = error as? any DescribedError else { return String(describing: error) }
    return NextStep.after(error).map { error.description + "; " + $0 } ?? error.description
}

/// What to do next, in this interface's words, for the kinds of failure the libraries report
/// (they describe what went wrong; they never name a command or an option). Each domain's
/// kinds are switched over exhaustively: a new kind does not compile until it is given a step
/// here, or `nil` on purpose.
enum NextStep {
    static func after(_ error: any DescribedError) -> String? {
        switch error {
        case let error as LibraryError: after(error.kind)
        case let error as ShareError: after(error.kind)
        case let error as ClientError: after(error.kind.reason)
        case let error as StudyError: after(error.kind)
        case let error as AudioError: after(error.kind)
        case let error as SegmentationError: after(error.kind)
        case let error as PictureError: after(error.kind)
        case let error as ExchangeError: after(error.kind)
        case let error as WorkflowError: after(error.kind)
        case let error as LoopSourceError: after(error.kind)
        case let error as TerminalError: after(error.kind)
        default: nil
        }
    }

    static func after(_ kind: LibraryFailure) -> String? {
        switch kind {
        case .loopNotFound: "`loop list` shows them"
        case .phraseHasNoAudio: "add some with `loop attach`"
        case .nothingToDo: "`loop adjust` moves a clip"
        case .onlyClipsForEarlierText: "`loop attach --changed` records them again"
        case .notTheAuthor: "import it as a new loop with --as-copy"
        case .editedHere: "import it as a new loop with --as-copy, or replace it with --force"
        case .revisionLimit: "export it and import it --as-copy to go on editing"
        case .newerSchema, .audioMissing, .cannotOpen, .ambiguousLoop, .phraseNotFound, .invalidRange, .storageFailed,
             .invalidQuery, .invalidText, .noSpace:
            nil
        }
    }

    static func after(_ kind: ShareFailure) -> String? {
        switch kind {
        case .identity: "`loop export` shares a copy"
        case .unsafeEntry, .tooLarge, .corrupt, .newerFormat, .badManifest, .badSignature, .badAudio, .badPicture, .writeFailed: nil
        }
    }

    static func after(_ kind: ClientFailure.Reason) -> String? {
        switch kind {
        case .forbidden: "only its author can publish it; `loop import --as-copy` makes a copy of your own to publish"
        case .unreachable: "is the server running, and the address right?"
        case .notFound, .conflict, .refused, .server, .local: nil
        }
    }

    static func after(_ kind: StudyFailure) -> String? {
        switch kind {
        case .noAudio: "add a take with `loop attach`"
        case .noSuchGroup, .invalidSettings: nil
        }
    }

    static func after(_ kind: AudioFailure) -> String? {
        switch kind {
        case .noPlaybackDevice: "choose one with --device NAME (see `aplay -L`), or render to a file with --output FILE.wav (or --output null)"
        case .noCaptureDevice: "choose one with --device NAME (see `arecord -L`), or read a recording with --input FILE"
        case .fileNotFound, .notReadable, .emptyFile, .unsupportedFormat, .truncated, .decodeFailed, .writeFailed,
             .invalidArgument, .libraryMissing:
            nil
        }
    }

    static func after(_ kind: SegmentationFailure) -> String? {
        switch kind {
        case .silentTake, .tooFewPauses, .invalidCount: nil
        case .textMismatch: "check the take and the text; give the language with --language if it was guessed wrong"
        case .alignerMissing: "install FFmpeg's libavutil (Debian: libavutil57), or cut at pauses with --count N"
        }
    }

    static func after(_ kind: PictureFailure) -> String? {
        switch kind {
        case .notAPicture, .tooLarge, .damaged, .unreadable: nil
        }
    }

    static func after(_ kind: ExchangeFailure) -> String? {
        switch kind {
        case .invalidSubtitles, .exportRefused: nil
        }
    }

    static func after(_ kind: WorkflowFailure) -> String? {
        switch kind {
        case .noServer, .draftUnwritable, .draftUnreadable, .badName: nil
        }
    }

    static func after(_ kind: TerminalFailure) -> String? {
        switch kind {
        case .notATerminal, .unusable, .editorFailed: nil
        }
    }

    static func after(_ kind: TextFailure) -> String? {
        switch kind {
        case .invalid: nil
        }
    }

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

/// The ways the command line itself can refuse a command.
public enum CommandLineFailure: String, LoopErrorKind {
    /// Arguments that cannot be honoured together, or a file they name that cannot be used.
    case refused

    public static let domain = "cli"
}

/// A failure found by the command line itself.
public typealias CLIError = LoopError<CommandLineFailure>
