/// Which phrases of an edited text are the same phrase with its text changed in place (a typo
/// fixed, a word swapped), as opposed to phrases removed and others added.
///
/// Between two phrases that stayed the same, the removed and the added phrases are paired one
/// to one, in order, only when there are as many of each, and only pairs whose texts are alike
/// (at least half their characters the same, by edit distance, case and accents aside). So a
/// phrase split in two or two merged into one never pair: a split or merged phrase needs audio
/// of its own, and a clip of half the text, or of one of two phrases, would be wrong.
enum ChangedPhrases {
    /// The smallest share of characters two texts must have in common to be one phrase changed.
    static let minimumLikeness = 0.5
    /// The largest edit-distance table one comparison may fill (two phrases of 1,000 characters).
    static let maxComparedCells = 1_000_000

    /// Index pairs (old, new) of changed phrases, given the pairs that stayed the same
    /// (ascending on both sides, as a longest common subsequence gives them).
    static func pairs(old: [String], new: [String], unchanged: [(Int, Int)]) -> [(Int, Int)] {
        var pairs: [(Int, Int)] = []
        var previous = (-1, -1)
        for anchor in unchanged + [(old.count, new.count)] {
            let removed = (previous.0 + 1)..<anchor.0
            let added = (previous.1 + 1)..<anchor.1
            if removed.count == added.count {
                for (o, n) in zip(removed, added) where likeness(old[o], new[n]) >= minimumLikeness {
                    pairs.append((o, n))
                }
            }
            previous = anchor
        }
        return pairs
    }

    /// 1 for the same text (case and accents aside), 0 for texts with nothing in common: one
    /// less the edit distance over the longer text's length.
    static func likeness(_ a: String, _ b: String) -> Double {
        let x = Array(matchingKey(a))
        let y = Array(matchingKey(b))
        let longest = max(x.count, y.count)
        guard longest > 0 else { return 1 }
        guard !x.isEmpty, !y.isEmpty else { return 0 }
        // Phrases are short; a text too long to compare cheaply counts as another phrase.
        guard x.count * y.count <= maxComparedCells else { return 0 }
        // One row of the edit-distance table at a time.
        var row = Array(0...y.count)
        for i in 1...x.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...y.count {
                let above = row[j]
                row[j] = x[i - 1] == y[j - 1] ? diagonal : 1 + min(diagonal, row[j - 1], above)
                diagonal = above
            }
        }
        return 1 - Double(row[y.count]) / Double(longest)
    }
}
