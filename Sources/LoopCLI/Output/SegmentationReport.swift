import Foundation
import LoopAuthoring

/// The stable `--json` shape of `loop segment`: scripts rely on it.
struct SegmentationReport: Encodable {
    struct Span: Encodable { var start: Double; var end: Double }
    struct CutMark: Encodable { var at: Double; var pause: Double; var confidence: Double }

    var file: String
    var duration: Double
    var sampleRate: Int
    var channels: Int
    var segments: [Span]
    var cuts: [CutMark]

    init(file: String, segmentation: Segmentation) {
        self.file = file
        duration = milliseconds(segmentation.duration)
        sampleRate = segmentation.sampleRate
        channels = segmentation.channelCount
        segments = segmentation.segments.map {
            Span(start: milliseconds(segmentation.seconds($0.startFrame)), end: milliseconds(segmentation.seconds($0.endFrame)))
        }
        cuts = segmentation.cuts.map {
            CutMark(at: milliseconds(segmentation.seconds($0.frame)), pause: milliseconds($0.pauseDuration), confidence: $0.confidence)
        }
    }

    func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// Seconds rounded to the millisecond, for output.
func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

/// An Audacity label track: `start<TAB>end<TAB>label`, one line a segment.
struct LabelTrack {
    var segmentation: Segmentation
    var phraseTexts: [String]?

    var text: String {
        segmentation.segments.enumerated().map { index, segment in
            let label = phraseTexts.flatMap { index < $0.count ? $0[index] : nil } ?? "\(index + 1)"
            return String(format: "%.6f\t%.6f\t", segmentation.seconds(segment.startFrame), segmentation.seconds(segment.endFrame)) + label + "\n"
        }.joined()
    }
}
