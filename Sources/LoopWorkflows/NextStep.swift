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
import LoopText

/// What to do next after a failure, as one of the library's operations (each interface words it:
/// the command line names its command, a page its button). The libraries say what went wrong;
/// this door knows which of its operations helps.
public enum NextStep: Sendable, Equatable {
    /// See which loops there are.
    case listLoops
    /// Give the phrases audio: a take cut onto those that need it.
    case addAudio
    /// Give a loop with no audio its first take.
    case addATake
    /// Record again the phrases whose clip reads an earlier text.
    case recordChangedAgain
    /// Move a clip rather than cut a take.
    case moveAClip
    /// Install another author's loop as a new loop of one's own.
    case installAsCopy
    /// Install it as a new loop, or replace the edits made here.
    case installAsCopyOrReplaceEdits
    /// Go on with a new loop: exported, then imported as a copy.
    case continueAsANewLoop
    /// Share a copy of another author's loop in a file.
    case exportACopy
    /// Publish a copy of one's own of another author's loop.
    case publishACopy
    /// Check that the server runs and that its address is right.
    case checkTheServer
    /// Choose another playback device, or render to a file.
    case chooseAPlaybackDevice
    /// Choose another capture device, or read a recording.
    case chooseACaptureDevice
    /// Choose another device to record the learner from while shadowing.
    case chooseAShadowingDevice
    /// Check that the take reads the text, in the text's language.
    case checkTheTextsLanguage
    /// Install FFmpeg's transform, or cut at pauses.
    case installTheTransform
    /// Give the text of what the take reads (a group's take, say).
    case giveTheTextRead
    /// Free some space.
    case freeSpace
    /// Check the permissions of the file and its folder.
    case checkPermissions
    /// (`loop doctor`'s problems) Move a clip's edges back inside its take.
    case adjustAClip
    /// Give the loop a picture again.
    case givePictureAgain
    /// Remove the reviews a wrong clock dated after today.
    case repairReviews
    /// See what is due without studying it.
    case listTheReviewsDue

    /// The step after `error`, if one helps.
    public static func after(_ error: any Error) -> NextStep? {
        switch error {
        case let error as LibraryError: after(error.kind)
        case let error as ShareError: after(error.kind)
        case let error as ClientError: after(error.kind.reason)
        case let error as StudyError: error.kind == .noAudio ? .addATake : nil
        case let error as AudioError: after(error.kind)
        case let error as SegmentationError: after(error.kind)
        case let error as FileSystemError: after(error.kind)
        case let error as WorkflowError: error.kind == .cannotKeepReviews ? .listTheReviewsDue : nil
        // Every kind of these is said well enough by its message: a picture, a subtitle file, a
        // workflow's own refusals, a text, the terminal. The synthesizer's failures say what is
        // missing (its data, a voice), and the cutter then cuts at pauses and says so.
        case is PictureError, is ExchangeError, is LoopSourceError: nil
        default: nil
        }
    }

    static func after(_ kind: LibraryFailure) -> NextStep? {
        switch kind {
        case .loopNotFound: .listLoops
        case .phraseHasNoAudio: .addAudio
        case .nothingToDo: .moveAClip
        case .onlyClipsForEarlierText: .recordChangedAgain
        case .notTheAuthor: .installAsCopy
        case .editedHere: .installAsCopyOrReplaceEdits
        case .revisionLimit: .continueAsANewLoop
        case .newerSchema, .audioMissing, .cannotOpen, .ambiguousLoop, .phraseNotFound, .invalidRange, .storageFailed,
            .invalidQuery, .invalidText, .noSpace, .clockOutOfRange:
            nil
        }
    }

    static func after(_ kind: ShareFailure) -> NextStep? {
        switch kind {
        case .notTheAuthor: .exportACopy
        case .identity, .unsafeEntry, .tooLarge, .corrupt, .newerFormat, .badManifest, .badSignature, .badAudio,
            .badPicture, .writeFailed:
            nil
        }
    }

    static func after(_ kind: ClientFailure.Reason) -> NextStep? {
        switch kind {
        case .forbidden: .publishACopy
        case .unreachable: .checkTheServer
        case .notFound, .conflict, .refused, .server, .local: nil
        }
    }

    static func after(_ kind: AudioFailure) -> NextStep? {
        switch kind {
        case .noPlaybackDevice: .chooseAPlaybackDevice
        case .noCaptureDevice, .captureWritesAFile, .captureStalled: .chooseACaptureDevice
        case .fileNotFound, .notReadable, .emptyFile, .unsupportedFormat, .truncated, .decodeFailed, .writeFailed,
            .invalidArgument, .libraryMissing:
            nil
        }
    }

    static func after(_ kind: SegmentationFailure) -> NextStep? {
        switch kind {
        case .silentTake, .tooFewPauses, .invalidCount: nil
        case .textMismatch: .checkTheTextsLanguage
        case .alignerMissing: .installTheTransform
        case .textLongerThanTake: .giveTheTextRead
        }
    }

    static func after(_ kind: FileSystemFailure) -> NextStep? {
        switch kind.errno {
        case ENOSPC, EDQUOT: .freeSpace
        case EACCES, EPERM, EROFS: .checkPermissions
        default: nil
        }
    }

    /// The operation that fixes a problem the library's check found, where one does.
    public static func fixing(_ problem: HealthReport.Problem) -> NextStep? {
        switch problem.kind {
        case .clipsPastTheirTake: .adjustAClip
        case .audioMissing, .audioDamaged: .addAudio
        case .pictureMissing, .pictureDamaged: .givePictureAgain
        case .reviewsOutOfTime: .repairReviews
        case .databaseDamaged, .danglingRows, .staleCounts: nil
        }
    }
}

/// A failure as an interface says it: its one line (the file or value concerned, then what went
/// wrong) and the step after it.
public struct FailureSummary: Sendable {
    /// `FILE: what went wrong`, or the error as it describes itself.
    public var line: String
    /// What helps, if anything does.
    public var nextStep: NextStep?

    /// The failure `error` is.
    public init(_ error: any Error) {
        line = (error as? any DescribedError)?.description ?? String(describing: error)
        nextStep = NextStep.after(error)
    }
}
