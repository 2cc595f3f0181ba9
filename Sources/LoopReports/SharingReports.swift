import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

// What the sharing commands print: import, inspect, publish, update and browse.

extension BundleSummary {
    /// `loop inspect`'s lines: the format, the signer, each loop, the audio.
    public var lines: [String] {
        var lines = [
            "bundle format \(version), created \(created)",
            "signed by \(signer): signature, hashes and audio verified",
        ]
        for loop in loops {
            lines.append(
                "  \(Terminal.inert(String(loop.id.prefix(8))))  \(Terminal.inert(loop.title))  revision \(loop.revision), \(loop.groups) groups, \(loop.phrases) phrases"
            )
        }
        let bytes = audio.reduce(0) { $0 + $1.bytes }
        lines.append(
            String(
                format: "  %d audio file%@, %.1f MB", audio.count, audio.count == 1 ? "" : "s", Double(bytes) / 1e6))
        return lines
    }
}

extension ImportedBundle {
    /// `loop import`'s line for each loop of a bundle imported (or, with `dryRun`, that would be).
    public func lines(dryRun: Bool) -> [String] {
        return loops.compactMap { title, outcome in
            let title = Terminal.inert(title)
            switch outcome {
            case .added(let id):
                return "\(dryRun ? "Would add" : "Added") '\(title)' (\(id.prefix(8))), signed by \(signer)"
            case .updated(let id, let from, let to, let restarted):
                return
                    "\(dryRun ? "Would update" : "Updated") '\(title)' (\(id.prefix(8))) from revision \(from) to \(to)"
                    + ReviewWords.restarted(restarted)
            case .unchanged(_, let revision):
                return dryRun ? "Unchanged: '\(title)' is at revision \(revision) already" : nil
            case .older(_, let have, let offered):
                return dryRun ? "Would skip '\(title)': revision \(offered) is older than the \(have) here" : nil
            }
        }
    }
}

/// `loop update --json`: a line a loop.
public struct UpdateReport: Encodable {
    var id: String
    var title: String
    var server: String
    var status: String
    var from: Int?
    var to: Int?
    var error: String?
    /// Groups being reviewed whose text changed: their reviews start anew.
    var reviewsRestarted: Int?

    /// The report of one loop's update.
    public init(
        id: String, title: String, server: String, status: String, from: Int? = nil, to: Int? = nil,
        error: String? = nil, reviewsRestarted: Int? = nil
    ) {
        (self.id, self.title, self.server, self.status) = (id, title, server, status)
        (self.from, self.to, self.error, self.reviewsRestarted) = (from, to, error, reviewsRestarted)
    }
}
