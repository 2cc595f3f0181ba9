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

