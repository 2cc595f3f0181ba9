import Foundation

/// An Audacity label track: one line a segment, `start<TAB>end<TAB>label`, times in seconds.
public struct AudacityLabels: Sendable {
    public var segmentation: Segmentation
    /// A label per segment; segments past the end are labelled by their number.
    public var labels: [String]

    public init(segmentation: Segmentation, labels: [String]) {
        self.segmentation = segmentation
        self.labels = labels
    }

    public var text: String {
        segmentation.segments.enumerated().map { index, segment in
            let label = index < labels.count ? labels[index] : String(index + 1)
            return String(format: "%.6f\t%.6f\t", segmentation.seconds(segment.startFrame), segmentation.seconds(segment.endFrame)) + label + "\n"
        }.joined()
    }
}
