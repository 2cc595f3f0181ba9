import Foundation
import LoopAudioFiles
import LoopCutting
import LoopExchange
import LoopFoundation
import LoopLibraryClient
import LoopModel
import LoopPictures
import LoopShare
import LoopStudy
import LoopTerminal
import LoopText
import LoopWorkflows

// The command line's words for failures: each error's one line, and what to do next.

/// What to do next, in this interface's words, for the kinds of failure the libraries report
/// (they describe what went wrong; they never name a command or an option). The domains, and
/// each domain's kinds, are switched over exhaustively: a new domain or kind does not compile
/// until it is given a step here, or `nil` on purpose.
public enum NextStep {
    /// The one-line text for an error from any of the libraries, with the next step on the
    /// command line where there is one.
    public static func line(for error: any Error) -> String {
        guard let error = error as? any DescribedError else { return String(describing: error) }
        return after(error).map { error.description + "; " + $0 } ?? error.description
    }

    public static func after(_ error: any DescribedError) -> String? {
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
        case let error as FileSystemError: after(error.kind)
        case let error as CLIError: after(error.kind)
        // The synthesizer's failures say what is missing (its data, a voice); loop then cuts at
        // pauses, and says so. The server's own (publish, catalog) reach a client as `server`
        // errors, with their statuses.
        default: nil
        }
    }

    static func after(_ kind: FileSystemFailure) -> String? {
        switch kind.errno {
        case ENOSPC, EDQUOT: "free some space and try again"
        case EACCES, EPERM, EROFS: "check the permissions of the file and its folder"
        default: nil
        }
    }

    static func after(_ kind: CommandLineFailure) -> String? {
        switch kind {
        case .refused: nil
        }
    }

    static func after(_ kind: LibraryFailure) -> String? {
        switch kind {
        case .loopNotFound: "`loop list` shows them"
        case .phraseHasNoAudio: "add some with `loop attach LOOP --audio TAKE`"
        case .nothingToDo: "`loop adjust LOOP PHRASE --shift MS` moves a clip"
        case .onlyClipsForEarlierText: "`loop attach LOOP --changed --audio TAKE` records them again"
        case .notTheAuthor: "`loop import SOURCE --as-copy` installs it as a new loop of your own"
        case .editedHere:
            "`loop import SOURCE --as-copy` installs it as a new loop; `loop update LOOP --force` (or `loop import SOURCE --force`) replaces your edits"
        case .revisionLimit: "`loop export LOOP -o FILE`, then `loop import FILE --as-copy`, goes on with a new loop"
        case .newerSchema, .audioMissing, .cannotOpen, .ambiguousLoop, .phraseNotFound, .invalidRange, .storageFailed,
            .invalidQuery, .invalidText, .noSpace, .clockOutOfRange:
            nil
        }
    }

    static func after(_ kind: ShareFailure) -> String? {
        switch kind {
        case .notTheAuthor: "`loop export LOOP -o FILE` shares a copy"
        case .identity, .unsafeEntry, .tooLarge, .corrupt, .newerFormat, .badManifest, .badSignature, .badAudio,
            .badPicture,
            .writeFailed:
            nil
        }
    }

    static func after(_ kind: ClientFailure.Reason) -> String? {
        switch kind {
        case .forbidden:
            "only its author can publish it; `loop publish LOOP --to URL --as-copy` publishes a copy of your own"
        case .unreachable: "is the server running, and the address right?"
        case .notFound, .conflict, .refused, .server, .local: nil
        }
    }

    static func after(_ kind: StudyFailure) -> String? {
        switch kind {
        case .noAudio: "add a take with `loop attach LOOP --audio TAKE`"
        case .noSuchGroup, .invalidSettings: nil
        }
    }

    static func after(_ kind: AudioFailure) -> String? {
        switch kind {
        case .noPlaybackDevice:
            "choose one with --device NAME (see `aplay -L`), or render to a file with --output FILE.wav (or --output null)"
        case .noCaptureDevice: "choose one with --device NAME (see `arecord -L`), or read a recording with --input FILE"
        case .fileNotFound, .notReadable, .emptyFile, .unsupportedFormat, .truncated, .decodeFailed, .writeFailed,
            .invalidArgument, .libraryMissing:
            nil
        }
    }

    static func after(_ kind: SegmentationFailure) -> String? {
        switch kind {
        case .silentTake, .tooFewPauses, .invalidCount: nil
        case .textMismatch:
            "check that the take reads this text, in the text's language (a `# language: CODE` line at its top; `loop edit LOOP --language CODE` for a loop)"
        case .alignerMissing:
            "install FFmpeg's libavutil (Debian: libavutil57), or cut at pauses (`loop segment AUDIO --count N`)"
        case .textLongerThanTake:
            "give the text of what the take reads (`loop attach LOOP --group G --audio TAKE` cuts a take of one group)"
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
        case .noServer, .draftUnwritable, .draftUnreadable, .badName, .badProgress, .refused: nil
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
    public static func fix(for problem: HealthReport.Problem) -> String {
        switch problem.kind {
        case .clipsPastTheirTake: problem.remedy + " with `loop adjust LOOP PHRASE --start S --end E`"
        case .audioMissing, .audioDamaged: problem.remedy + " with `loop attach LOOP --audio TAKE`"
        case .pictureMissing, .pictureDamaged: problem.remedy + " with `loop image LOOP FILE`"
        case .reviewsOutOfTime: problem.remedy + " with `loop doctor --repair`"
        default: problem.remedy
        }
    }
}

/// The ways the command line itself can refuse a command.
public enum CommandLineFailure: String, LoopErrorKind {
    /// Arguments that cannot be honoured together, or a file they name that cannot be used.
    case refused

    public static let domain = ErrorDomain.cli
}

/// A failure found by the command line itself.
public typealias CLIError = LoopError<CommandLineFailure>

extension ErrorDomain {
    /// The command line itself.
    public static let cli = ErrorDomain(rawValue: "cli")
}
