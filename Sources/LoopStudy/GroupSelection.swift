import LoopFoundation

/// The groups a learner picks, as written on the command line: `1,3-4` is groups 1, 3 and 4.
public enum GroupSelection {
    /// The ranges written (1-based), checked for their form only: nothing is expanded yet, so
    /// `1-9223372036854775807` costs no more than `1-2`.
    public static func ranges(_ text: String) throws(StudyError) -> [ClosedRange<Int>] {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map {
                Int(String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()))
            }
            guard (1...2).contains(bounds.count), let first = bounds.first ?? nil, let last = bounds.last ?? nil,
                first >= 1, last >= first
            else {
                throw StudyError(.invalidSettings, "--groups takes numbers and ranges like 1,3-4, not '\(text)'")
            }
            ranges.append(first...last)
        }
        return ranges
    }

    /// The groups (0-based) `text` names in a loop of `count` groups; a group past its last is
    /// refused before any list is made.
    public static func groups(_ text: String, groupCount count: Int) throws(StudyError) -> [Int] {
        let ranges = try ranges(text)
        if let beyond = ranges.first(where: { $0.upperBound > count }) {
            throw StudyError(.noSuchGroup, "there is no group \(beyond.upperBound): the loop has \(count)")
        }
        return Array(Set(ranges.flatMap { ($0.lowerBound - 1)...($0.upperBound - 1) })).sorted()
    }
}
