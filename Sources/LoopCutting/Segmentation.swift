import LoopFoundation
import LoopSpeech

/// What the segmenter knows about the take's content.
public enum SegmentationHint: Sendable, Equatable {
    /// Nothing: cut at every pause long enough to end a phrase.
    case none
    /// The take holds exactly this many phrases.
    case count(Int)
    /// The take reads these phrases, in order.
    case text([String], language: String?)
}

/// One spoken phrase found in a take, in audio frames.
public struct Segment: Sendable, Equatable, Codable {
    /// The first frame of the phrase (padding included).
    public var startFrame: Int
    /// One past the last frame of the phrase (padding included).
    public var endFrame: Int

    /// A segment from its first frame to the frame after its last.
    public init(startFrame: Int, endFrame: Int) {
        self.startFrame = startFrame
        self.endFrame = endFrame
    }
}

/// A cut between two consecutive segments.
public struct Cut: Sendable, Equatable, Codable {
    /// Where the cut falls, in frames: inside the pause, at its quietest part.
    public var frame: Int
    /// How sure the segmenter is that this pause ends a phrase (0...1).
    public var confidence: Double
    /// The silent length of the pause, in seconds.
    public var pauseDuration: Double

    /// Below this confidence a cut is worth a listen.
    public static let lowConfidence = 0.6

    /// Whether the cut is worth a listen.
    public var isDoubtful: Bool { confidence < Self.lowConfidence }
}

/// The phrases found in a take.
public struct Segmentation: Sendable, Equatable {
    /// The take's sample rate in hertz.
    public var sampleRate: Int
    /// The take's channel count.
    public var channelCount: Int
    /// The take's length in frames.
    public var frameCount: Int
    /// The phrases found, in order.
    public var segments: [Segment]
    /// The cuts between segments: `cuts.count == segments.count - 1`.
    public var cuts: [Cut]
    /// How the cuts were found.
    public var method: CuttingMethod = .pauses
    /// With a text, the phrase each segment reads (indices into the text's phrases, in order):
    /// all of them, unless the take does not read some.
    public var phrases: [Int]?
    /// What the user should know about how the take was cut, once (a language without a voice).
    public var notes: [String] = []
    /// With a text much longer than the take (a chapter's audio and its whole book): the
    /// stretch of the text's phrases the take was found in (indices, in order), which
    /// ``phrases`` lie in; every phrase outside it is absent. Nil when the text was aligned whole.
    public var located: ClosedRange<Int>?

    /// The take's length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The segments that read phrases of `kept` alone, with the cuts between them (a take
    /// aligned with a text: ``phrases`` set; the segments dropped are those at either end).
    public func keeping(phrases kept: ClosedRange<Int>) -> Segmentation {
        guard let phrases else { return self }
        let inside = phrases.indices.filter { kept.contains(phrases[$0]) }
        var trimmed = self
        guard let first = inside.first, let last = inside.last else {
            (trimmed.segments, trimmed.cuts, trimmed.phrases, trimmed.located) = ([], [], [], nil)
            return trimmed
        }
        trimmed.segments = Array(segments[first...last])
        trimmed.cuts = Array(cuts[first..<last])
        trimmed.phrases = Array(phrases[first...last])
        trimmed.located = located.map { max($0.lowerBound, kept.lowerBound)...min($0.upperBound, kept.upperBound) }
        return trimmed
    }

    /// How sure the cutter is of each segment's edges: the lower confidence of the cuts at its
    /// two ends (1 for a take of one segment).
    public var clipConfidences: [Double] {
        segments.indices.map { index in
            min(index > 0 ? cuts[index - 1].confidence : 1, index < cuts.count ? cuts[index].confidence : 1)
        }
    }

    /// Seconds for a frame position.
    public func seconds(_ frame: Int) -> Double { Double(frame) / Double(sampleRate) }
}

/// How a take's cuts were found.
public enum CuttingMethod: Sendable, Equatable {
    /// Among its pauses (with the phrase count or the phrases' lengths, if known).
    case pauses
    /// By what is said: the take aligned with its text rendered in this language.
    case text(SpeechLanguage)
}

/// The ways a take can fail to be cut.
public enum SegmentationFailure: String, LoopErrorKind {
    case silentTake
    case tooFewPauses
    case invalidCount
    /// The take does not read its text (another text, or another language).
    case textMismatch
    /// What aligns a take with its text is missing (FFmpeg's transform).
    case alignerMissing
    /// The text is far longer than anything the take could read of it.
    case textLongerThanTake

    /// Where these errors come from: segmentation.
    public static let domain = ErrorDomain.segmentation
}

/// Why a take could not be cut.
public typealias SegmentationError = LoopError<SegmentationFailure>

extension ErrorDomain {
    /// Cutting a take.
    public static let segmentation = ErrorDomain(rawValue: "segmentation")
}
