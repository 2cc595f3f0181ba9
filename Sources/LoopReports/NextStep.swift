import Foundation
import LoopModel
import LoopWorkflows

// The command line's words for failures: each error's one line, and what to do next.

/// What to do next, in the command line's words: each of the library's next steps named as
/// the command (and option) that takes it. The libraries say what went wrong; the library's
/// door says which of its operations helps (``NextStep``); these are the words.
public enum FailureWords {
    /// The one-line text for an error from any of the libraries, with the next step on the
    /// command line where there is one.
    public static func line(for error: any Error) -> String { line(for: FailureSummary(error)) }

    /// The one-line text for a failure, with its next step on the command line.
    public static func line(for failure: FailureSummary) -> String {
        failure.nextStep.map { failure.line + "; " + words($0) } ?? failure.line
    }

    /// The next step as the command line takes it.
    public static func words(_ step: NextStep) -> String {
        switch step {
        case .listLoops: "`loop list` shows them"
        case .addAudio: "add some with `loop attach LOOP --audio TAKE`"
        case .addATake: "add a take with `loop attach LOOP --audio TAKE`"
        case .recordChangedAgain: "`loop attach LOOP --changed --audio TAKE` records them again"
        case .moveAClip: "`loop adjust LOOP PHRASE --shift MS` moves a clip"
        case .installAsCopy: "`loop import SOURCE --as-copy` installs it as a new loop of your own"
        case .installAsCopyOrReplaceEdits:
            "`loop import SOURCE --as-copy` installs it as a new loop; `loop update LOOP --force` (or `loop import SOURCE --force`) replaces your edits"
        case .continueAsANewLoop:
            "`loop export LOOP -o FILE`, then `loop import FILE --as-copy`, goes on with a new loop"
        case .exportACopy: "`loop export LOOP -o FILE` shares a copy"
        case .publishACopy:
            "only its author can publish it; `loop publish LOOP --to URL --as-copy` publishes a copy of your own"
        case .checkTheServer: "is the server running, and the address right?"
        case .chooseAPlaybackDevice:
            "choose one with --device NAME (see `aplay -L`), or render to a file with --output FILE.wav (or --output null)"
        case .chooseACaptureDevice:
            "choose one with --device NAME (see `arecord -L`), or read a recording with --input FILE"
        case .chooseAShadowingDevice: "choose another with --capture-device NAME (see `arecord -L`)"
        case .checkTheTextsLanguage:
            "check that the take reads this text, in the text's language (a `# language: CODE` line at its top; `loop edit LOOP --language CODE` for a loop)"
        case .installTheTransform:
            "install FFmpeg's libavutil (Debian: libavutil57), or cut at pauses (`loop segment AUDIO --count N`)"
        case .giveTheTextRead:
            "give the text of what the take reads (`loop attach LOOP --group G --audio TAKE` cuts a take of one group)"
        case .freeSpace: "free some space and try again"
        case .checkPermissions: "check the permissions of the file and its folder"
        case .adjustAClip: "`loop adjust LOOP PHRASE --start S --end E`"
        case .givePictureAgain: "`loop image LOOP FILE`"
        case .repairReviews: "`loop doctor --repair`"
        case .listTheReviewsDue: "`loop review --list` shows what is due"
        }
    }

    /// What fixes a problem `loop doctor` found: its remedy, with the command that takes it
    /// where one does.
    public static func fix(for problem: HealthReport.Problem) -> String {
        guard let step = NextStep.fixing(problem) else { return problem.remedy }
        let command =
            switch step {
            case .addAudio: "`loop attach LOOP --audio TAKE`"
            default: words(step)
            }
        return problem.remedy + " with " + command
    }
}

/// A command the command line itself refuses (the library was not asked): its one line.
public struct CommandRefusal: Error, CustomStringConvertible {
    /// The refusal's one line.
    public var description: String

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}
