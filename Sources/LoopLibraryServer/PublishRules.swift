import Foundation
import LoopFoundation

/// The rules of ownership and revisions, the same whichever catalog applies them.
enum PublishRules {
    /// What is published of a loop id already: its owner, revision, title, and whether listed.
    struct Stored {
        var ownerKey: String
        var revision: Int
        var title: String
        var listed: Bool
        /// Why the operator took it down, if they did.
        var takenDown: String?
    }

    /// A key the operator blocked is refused, with the operator's reason.
    static func checkNotBlocked(reason: String?) throws {
        guard let reason else { return }
        throw CatalogError(.takenDown, "this key is blocked on this Loop Library: \(reason)")
    }

    /// An update of loop `id` to `revision` by `authorKey` needs the key that first published
    /// the id, and a revision newer than the one listed (an unpublished loop may come back at
    /// the revision it had).
    static func check(id: String, revision: Int, authorKey: String, against stored: Stored) throws {
        if let reason = stored.takenDown {
            throw CatalogError(.takenDown, "loop \(id) was taken down by this Loop Library's operator: \(reason)")
        }
        guard stored.ownerKey == authorKey else {
            throw CatalogError(
                .notTheAuthor,
                "loop \(id) belongs to another author: only its author can publish an update (publish it as a copy to share your own version)"
            )
        }
        guard revision > stored.revision || (!stored.listed && revision == stored.revision) else {
            throw CatalogError(
                .staleRevision,
                "the Loop Library has revision \(stored.revision) of '\(stored.title)' already; this is revision \(revision): edit the loop to make a newer one"
            )
        }
    }
}
