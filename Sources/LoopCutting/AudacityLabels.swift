import Foundation

/// An Audacity label track: one line a segment, `start<TAB>end<TAB>label`, times in seconds.
public struct AudacityLabels: Sendable {
    /// The segments to label.
    public var segmentation: Segmentation
    /// A label per segment; segments past the end are labelled by their number.
    public var labels: [String]

    /// A label track of `segmentation`, labelled by `labels`.
    public init(segmentation: Segmentation, labels: [String]) {
        self.segmentation = segmentation
        self.labels = labels
    }

    /// The track as Audacity reads it.
    public var text: String {
        segmentation.segments.enumerated().map { index, segment in
            let label = index < labels.count ? labels[index] : String(index + 1)
            return Self.line(
                start: segmentation.seconds(segment.startFrame), end: segmentation.seconds(segment.endFrame),
                label: label)
        }.joined()
    }

    /// One label's line, newline included; a line break inside the label becomes ` / `, since
    /// the track is one label a line.
    public static func line(start: Double, end: Double, label: String) -> String {
        String(format: "%.6f\t%.6f\t", start, end) + label.replacingOccurrences(of: "\n", with: " / ") + "\n"
    }
}
