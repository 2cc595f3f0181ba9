import Foundation

/// A `Range: bytes=...` header against a file's size (one range; several are served whole).
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    static func parse(_ header: String, size: Int) -> ByteRange {
        guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let sides = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard sides.count == 2 else { return .whole }
        if sides[0].isEmpty {
            // The last N bytes.
            guard let suffix = Int(sides[1]), suffix > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int(sides[0]), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        guard !sides[1].isEmpty else { return .part(start...(size - 1)) }
        guard let end = Int(sides[1]), end >= start else { return .whole }
        return .part(start...min(end, size - 1))
    }
}
