import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopText

/// A phrase as the phrase editor saves it: its text, and where its clip is now.
public struct ReplacementPhrase: Sendable, Equatable {
    /// Where the phrase's clip is.
    public enum Clip: Sendable, Equatable {
        /// A range of a take in the library.
        case stored(sha256: String, frames: Range<Int>)
        /// A range of a new take (a phrase recorded again, two clips joined), stored on save.
        case newTake(path: String, frames: Range<Int>)
    }

    /// The phrase's text.
    public var text: String
    /// Its translation.
    public var translation: String?
    /// Its clip, or nil for none.
    public var clip: Clip?

    /// A phrase from its parts.
    public init(text: String, translation: String?, clip: Clip?) {
        self.text = text
        self.translation = translation
        self.clip = clip
    }
}

extension LibraryStore {
    /// Saves a loop's phrases as the phrase editor left them, all in one transaction: new takes
    /// are stored first, then every phrase written, the text rewritten when phrases were split or
    /// merged (its header kept), and the revision moved on. A phrase whose text did not change
    /// keeps its row and its study history. Refused, with nothing written, when the loop changed
    /// since `revision` (another process edited it meanwhile). Returns the loop as saved, and how
    /// many groups being reviewed changed their text (their reviews start anew).
    public func replacePhrases(ofLoop id: String, revision: Int, with groups: [[ReplacementPhrase]]) throws
        -> (loop: LoopDetail, reviewsRestarted: Int)
    {
        let files = Set(
            groups.flatMap { $0 }.compactMap { phrase -> String? in
                if case .newTake(let path, _)? = phrase.clip { return path } else { return nil }
            }
        ).sorted()
        return try storing(needing: files.compactMap(Self.fileSize).reduce(0, +)) {
            let lock = try LibraryLock(layout, exclusive: false)
            var stored: [String: StoredTake] = [:]
            for file in files {
                let ranges = groups.flatMap { $0 }.compactMap { phrase -> Range<Int>? in
                    if case .newTake(file, let frames)? = phrase.clip { return frames } else { return nil }
                }
                stored[file] = try storeTake(CutTake(path: file, ranges: ranges), progress: nil)
            }
            TestStop.reached("phrases.before-commit")
            var restarted = 0
            try database.write { db in
                guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                    throw LibraryError(.loopNotFound, "no loop with id \(id)")
                }
                guard loop.revision == revision else {
                    throw LibraryError(
                        .storageFailed,
                        "'\(loop.title)' was changed elsewhere while you edited it (now revision \(loop.revision)); nothing was saved"
                    )
                }
                for take in stored.values { try take.asset.insert(db, onConflict: .ignore) }
                let before = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT phraseGroup.position, phrase.text, phrase.translation FROM phrase JOIN phraseGroup ON phraseGroup.id = phrase.groupId
                        WHERE phrase.loopId = ? ORDER BY phrase.position
                        """, arguments: [id]
                ).map { "\($0[0] as Int)\u{1}\($0[1] as String)\u{1}\(($0[2] as String?) ?? "")" }
                let after = groups.enumerated().flatMap { index, group in
                    group.map { "\(index)\u{1}\($0.text)\u{1}\($0.translation ?? "")" }
                }
                let rebuilt = groups.map { group in
                    group.map { phrase -> RebuiltPhrase in
                        let clip: (sha256: String, frames: Range<Int>)?
                        switch phrase.clip {
                        case .stored(let sha256, let frames)?: clip = (sha256, frames)
                        case .newTake(let path, let frames)?: clip = stored[path].map { ($0.asset.sha256, frames) }
                        case nil: clip = nil
                        }
                        return RebuiltPhrase(
                            text: phrase.text, translation: phrase.translation, clip: .set(clip, recordedText: nil))
                    }
                }
                restarted = try Self.rebuildPhrases(ofLoop: id, as: rebuilt, keepChangedPhrases: true, db)
                    .reviewsRestarted
                if before != after {
                    // The text follows the phrases (a bundle's reader checks that they agree).
                    let body = LoopSource(
                        groups: groups.map {
                            PhraseGroup(phrases: $0.map { Phrase(text: $0.text, translation: $0.translation, line: 0) })
                        }
                    ).text
                    loop.sourceText = Self.header(of: loop.sourceText) + body
                }
                try Self.touch(&loop, db)
            }
            withExtendedLifetime(lock) {}
            return (try self.loop(id: id), restarted)
        }
    }

    /// The `#` lines and blank lines before a text's first phrase, each ending in a newline.
    static func header(of text: String) -> String {
        var header = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.isEmpty || trimmed.hasPrefix("#") else { break }
            header += line + "\n"
        }
        return header.isEmpty || header.hasSuffix("\n\n") ? header : header + "\n"
    }
}
