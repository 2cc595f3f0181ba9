import Foundation
import LoopAuthoring

/// The stable `--json` shape of `loop segment`: scripts rely on it.
struct SegmentationReport {
    var file: String
    var segmentation: Segmentation

    var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("duration", .number(milliseconds(segmentation.duration))),
            ("sampleRate", .integer(segmentation.sampleRate)),
            ("channels", .integer(segmentation.channelCount)),
            ("segments", .array(segmentation.segments.map {
                .object([
                    ("start", .number(milliseconds(segmentation.seconds($0.startFrame)))),
                    ("end", .number(milliseconds(segmentation.seconds($0.endFrame)))),
                ])
            })),
            ("cuts", .array(segmentation.cuts.map {
                .object([
                    ("at", .number(milliseconds(segmentation.seconds($0.frame)))),
                    ("pause", .number(milliseconds($0.pauseDuration))),
                    ("confidence", .number($0.confidence)),
                ])
            })),
        ])
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
