import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopText

extension LibraryStore {
    /// Replaces a loop's text. Every phrase whose text is unchanged (matched in order, as a diff
    /// would) keeps its row, audio and study history. A phrase whose text was changed in place
    /// (a typo fixed) keeps its row and its clip, marked as recorded for its earlier text,
    /// unless `dropChangedAudio`; the others are removed or added.
    public func replaceSource(ofLoop id: String, with source: LoopSource, text: String, dropChangedAudio: Bool = false)
        throws -> EditOutcome
    {
        try storing(needing: nil) {
            var rebuilt = RebuildOutcome()
            try database.write { db in
                guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                    throw LibraryError(.loopNotFound, "no loop with id \(id)")
                }
                let groups = source.groups.map {
                    $0.phrases.map { RebuiltPhrase(text: $0.text, translation: $0.translation, clip: .keep) }
                }
                rebuilt = try Self.rebuildPhrases(ofLoop: id, as: groups, keepChangedPhrases: !dropChangedAudio, db)
                if let title = source.title {
                    loop.title = title
                    loop.titleKey = matchingKey(title)
                }
                if let language = source.language { loop.language = language.lowercased() }
                if let translation = source.translationLanguage { loop.translationLanguage = translation.lowercased() }
                if !source.tags.isEmpty {
                    try db.execute(sql: "DELETE FROM loopTag WHERE loopId = ?", arguments: [id])
                    try Self.insertTags(source.tags, loopId: id, db)
                }
                loop.sourceText = text
                try Self.touch(&loop, db)
            }
            let detail = try loop(id: id)
            let phrases = detail.phrases
            let changed = rebuilt.changed.map { phrases[$0] }
            var outcome = EditOutcome(
                kept: phrases.count - rebuilt.added.count - changed.count, removed: rebuilt.removed,
                needingAudio: (rebuilt.added + rebuilt.changed.filter { phrases[$0].audio == nil }).sorted().map {
                    phrases[$0]
                },
                recordedForEarlierText: changed.filter(\.clipIsForEarlierText), loop: detail)
            outcome.reviewsRestarted = rebuilt.reviewsRestarted
            return outcome
        }
    }

    /// Changes a loop's title, language or tags; the header of its stored text follows.
    public func updateMetadata(
        ofLoop id: String, title: String? = nil, language: String? = nil, addTags: [String] = [],
        removeTags: [String] = []
    ) throws -> LoopDetail {
        try storing(needing: nil) {
            try Self.checkFields(title: title, language: language, tags: addTags)
            try database.write { db in
                guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                    throw LibraryError(.loopNotFound, "no loop with id \(id)")
                }
                if let title {
                    loop.title = title
                    loop.titleKey = matchingKey(title)
                    loop.sourceText = SourceHeader.setting("title", to: title, in: loop.sourceText)
                }
                if let language {
                    loop.language = language.lowercased()
                    loop.sourceText = SourceHeader.setting("language", to: language.lowercased(), in: loop.sourceText)
                }
                if !addTags.isEmpty || !removeTags.isEmpty {
                    try Self.insertTags(addTags, loopId: id, db)
                    for tag in removeTags {
                        try db.execute(
                            sql: "DELETE FROM loopTag WHERE loopId = ? AND tagKey = ?",
                            arguments: [id, matchingKey(tag)])
                    }
                    let tags = try String.fetchAll(
                        db, sql: "SELECT tag FROM loopTag WHERE loopId = ? ORDER BY tagKey", arguments: [id])
                    loop.sourceText = SourceHeader.setting(
                        "tags", to: tags.isEmpty ? nil : tags.joined(separator: ", "), in: loop.sourceText)
                }
                try Self.touch(&loop, db)
            }
            return try loop(id: id)
        }
    }

    /// Moves phrase `number`'s clip to `range` (frames) within its take.
    public func adjust(loop id: String, phrase number: Int, to range: Range<Int>) throws -> StoredPhrase {
        try database.write { db in
            guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                throw LibraryError(.loopNotFound, "no loop with id \(id)")
            }
            guard
                var phrase = try PhraseRecord.fetchOne(
                    db, sql: "SELECT * FROM phrase WHERE loopId = ? AND position = ?", arguments: [id, number - 1])
            else {
                throw LibraryError(.phraseNotFound, "the loop has no phrase \(number)")
            }
            guard let hash = phrase.audioSha256, let asset = try AudioAssetRecord.fetchOne(db, key: hash) else {
                throw LibraryError(.phraseHasNoAudio, "phrase \(number) has no audio yet")
            }
            guard range.lowerBound >= 0, range.upperBound <= asset.frameCount, !range.isEmpty else {
                let length = Double(asset.frameCount) / Double(asset.sampleRate)
                throw LibraryError(
                    .invalidRange,
                    String(format: "the clip must start before it ends and lie within the take (0 to %.3f s)", length))
            }
            phrase.startFrame = range.lowerBound
            phrase.endFrame = range.upperBound
            try phrase.update(db)
            try Self.touch(&loop, db)
        }
        return try loop(id: id).phrases[number - 1]
    }

    /// Gives the phrases with these ids (in order) their clips from a new take, copied into
    /// the library first (or, `received`, copied already: then call it inside
    /// ``whileInFlight(_:)-5hl7y``, which holds the lock this takes otherwise).
    public func attach(
        loop id: String, phraseIds: [Int64], take: CutTake, received: ReceivedTake? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> LoopDetail {
        try storing(needing: received?.byteCount ?? Self.fileSize(take.path)) {
            guard take.ranges.count == phraseIds.count else {
                throw LibraryError(
                    .invalidRange, "the take has \(take.ranges.count) clips for \(phraseIds.count) phrases")
            }
            let lock = received == nil ? try LibraryLock(layout, exclusive: false) : nil
            let stored = try received.map { try adopt($0, for: take) } ?? storeTake(take, progress: progress)
            try database.write { db in
                guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                    throw LibraryError(.loopNotFound, "no loop with id \(id)")
                }
                try stored.asset.insert(db, onConflict: .ignore)
                for (index, (phraseId, range)) in zip(phraseIds, take.ranges).enumerated() {
                    // A new clip reads the phrase as it is now: any earlier-text mark goes.
                    try db.execute(
                        sql: """
                            UPDATE phrase SET audioSha256 = ?, startFrame = ?, endFrame = ?, recordedText = NULL, cutConfidence = ? WHERE id = ? AND loopId = ?
                            """,
                        arguments: [
                            stored.asset.sha256, range.lowerBound, range.upperBound, take.confidence(at: index),
                            phraseId, id,
                        ])
                }
                try Self.touch(&loop, db)
            }
            withExtendedLifetime(lock) {}
            return try loop(id: id)
        }
    }

    /// Removes a loop and its phrases; its audio stays until `loop gc`.
    public func remove(loop id: String) throws {
        try database.write { db in
            guard try LoopRecord.deleteOne(db, key: id) else {
                throw LibraryError(.loopNotFound, "no loop with id \(id)")
            }
        }
    }

    /// A change: a new revision, now, and marked as edited here.
    static func touch(_ loop: inout LoopRecord, _ db: Database) throws {
        // Revisions come from bundles too: one at the last a bundle may carry cannot move on, or
        // loop would export bundles it refuses itself.
        guard loop.revision < LoopRevision.last else {
            throw LibraryError(
                .revisionLimit,
                "'\(loop.title)' is at revision \(loop.revision), the last there is (\(LoopRevision.last)): copy it into a new loop to go on"
            )
        }
        loop.revision += 1
        loop.updatedAt = Date()
        loop.editedLocally = true
        try loop.update(db)
    }

    /// A phrase of a loop's new text, and what becomes of its clip.
    struct RebuiltPhrase {
        enum Clip {
            /// A phrase whose text did not change keeps its clip; a new one has none; a changed
            /// one keeps it marked as recorded for its earlier text, or loses it, as asked.
            case keep
            /// The clip given, and the text it was recorded for if not this one (a shared
            /// loop's update).
            case set((sha256: String, frames: Range<Int>)?, recordedText: String?)
        }

        var text: String
        var translation: String?
        var clip: Clip
        /// Its picture when set from outside (a shared loop's update: `.some(nil)` takes it
        /// off); nil keeps what the phrase has.
        var picture: PictureChange? = nil
    }

    /// A picture set by a shared loop's update, or taken off (nil).
    struct PictureChange {
        var sha256: String?
    }

    /// What a rebuild did: phrases removed, positions added, and the positions of phrases whose
    /// text changed but kept their row (and, with a clip, their clip, marked as recorded for
    /// their earlier text).
    struct RebuildOutcome {
        var removed = 0
        var added: [Int] = []
        var changed: [Int] = []
        /// Groups being reviewed whose text changed: their reviews start anew.
        var reviewsRestarted = 0
    }

    /// Replaces a loop's groups and phrases with `groups`. Every phrase whose text is unchanged
    /// (matched in order, as a diff would) keeps its row, and so its study history. With
    /// `keepChangedPhrases`, so does a phrase whose text was changed in place (see
    /// ``ChangedPhrases``); the others are removed or added.
    static func rebuildPhrases(
        ofLoop id: String, as groups: [[RebuiltPhrase]], groupPictures: [String?]? = nil, keepChangedPhrases: Bool,
        _ db: Database
    ) throws -> RebuildOutcome {
        let old = try PhraseRecord.fetchAll(
            db, sql: "SELECT * FROM phrase WHERE loopId = ? ORDER BY position", arguments: [id])
        let newTexts = groups.flatMap { $0 }.map(\.text)
        let same = unchangedPairs(old.map(\.text), newTexts)
        let changed =
            keepChangedPhrases ? ChangedPhrases.pairs(old: old.map(\.text), new: newTexts, unchanged: same) : []
        let matches = same + changed
        let changedNew = Set(changed.map(\.1))
        let keptOld = Set(matches.map(\.0))
        let oldForNew = Dictionary(uniqueKeysWithValues: matches.map { ($0.1, $0.0) })
        var outcome = RebuildOutcome()
        for (index, record) in old.enumerated() where !keptOld.contains(index) {
            _ = try record.delete(db)
            outcome.removed += 1
        }
        // A group's picture stays with the group at its place (the first, the second, ...),
        // unless `groupPictures` says otherwise (a shared loop's update).
        let oldGroupPictures = try Row.fetchAll(
            db, sql: "SELECT position, pictureSha256 FROM phraseGroup WHERE loopId = ?", arguments: [id]
        )
        .reduce(into: [Int: String]()) { pictures, row in if let hash: String = row[1] { pictures[row[0]] = hash } }
        // Move what stays out of the way of the new positions, then rebuild the groups.
        try db.execute(sql: "UPDATE phrase SET position = -1 - position WHERE loopId = ?", arguments: [id])
        try db.execute(sql: "UPDATE phraseGroup SET position = -1 - position WHERE loopId = ?", arguments: [id])
        let oldGroups = try Int64.fetchAll(db, sql: "SELECT id FROM phraseGroup WHERE loopId = ?", arguments: [id])
        var position = 0
        for (groupIndex, group) in groups.enumerated() {
            let picture =
                groupPictures.map { $0.indices.contains(groupIndex) ? $0[groupIndex] : nil }
                ?? oldGroupPictures[groupIndex]
            let groupId = try PhraseGroupRecord.insert(loopId: id, position: groupIndex, picture: picture, db)
            for phrase in group {
                var record =
                    oldForNew[position].map { old[$0] }
                    ?? PhraseRecord(
                        id: nil, loopId: id, groupId: groupId, position: position, text: phrase.text, translation: nil,
                        audioSha256: nil, startFrame: nil, endFrame: nil)
                if changedNew.contains(position) {
                    outcome.changed.append(position)
                    // The clip reads the text it was first recorded for; back to that text, the mark goes.
                    let recordedFor = record.recordedText ?? record.text
                    record.recordedText = record.audioSha256 == nil || recordedFor == phrase.text ? nil : recordedFor
                }
                record.text = phrase.text
                record.groupId = groupId
                record.position = position
                record.translation = phrase.translation
                if case .set(let clip, let recordedText) = phrase.clip {
                    // A clip moved or replaced was placed by hand (or by another cutter): the
                    // cutter's confidence no longer speaks for it.
                    if clip?.sha256 != record.audioSha256 || clip?.frames.lowerBound != record.startFrame
                        || clip?.frames.upperBound != record.endFrame
                    {
                        record.cutConfidence = nil
                    }
                    record.audioSha256 = clip?.sha256
                    record.startFrame = clip?.frames.lowerBound
                    record.endFrame = clip?.frames.upperBound
                    record.recordedText = clip == nil ? nil : recordedText
                }
                if let picture = phrase.picture { record.pictureSha256 = picture.sha256 }
                if record.id == nil {
                    try record.insert(db)
                    outcome.added.append(position)
                } else {
                    try record.update(db)
                }
                position += 1
            }
        }
        for groupId in oldGroups { _ = try PhraseGroupRecord.deleteOne(db, key: groupId) }
        outcome.reviewsRestarted = try followReviewedGroups(ofLoop: id, texts: groups.map { $0.map(\.text) }, db)
        return outcome
    }

    /// The most phrases, old and new together, that the middle of an edit may hold for a full
    /// diff (the standard library's Myers diff keeps a trace that grows with the square of the
    /// differences: 3,000 is at most about 70 MB). Beyond it, only the shared start and end match.
    static let maxDiffedPhrases = 3_000

    /// Index pairs (old, new) of the phrases an edit left unchanged, in order: those the
    /// standard library's `difference(from:)` neither removes nor inserts. Shared starts and ends
    /// are matched first; what lies between is diffed when it is no more than
    /// ``maxDiffedPhrases`` phrases.
    static func unchangedPairs(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let head = (0..<prefix).map { ($0, $0) }
        let tail = (0..<suffix).reversed().map { (a.count - 1 - $0, b.count - 1 - $0) }
        let old = a[prefix..<(a.count - suffix)]
        let new = b[prefix..<(b.count - suffix)]
        guard !old.isEmpty, !new.isEmpty, old.count + new.count <= maxDiffedPhrases else { return head + tail }
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in new.difference(from: old) {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        let keptOld = old.indices.filter { !removed.contains($0 - prefix) }
        let keptNew = new.indices.filter { !inserted.contains($0 - prefix) }
        return head + Array(zip(keptOld, keptNew)) + tail
    }
}

/// Rewrites the `# key: value` header lines of a loop's source text.
enum SourceHeader {
    static func setting(_ key: String, to value: String?, in text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        let headerEnd =
            lines.firstIndex { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return !trimmed.isEmpty && !trimmed.hasPrefix("#")
            } ?? lines.count
        let matches = { (line: String) -> Bool in
            let body = line.trimmingCharacters(in: .whitespaces).drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            return body.lowercased().hasPrefix(key + ":")
        }
        if let index = lines[..<headerEnd].firstIndex(where: matches) {
            if let value { lines[index] = "# \(key): \(value)" } else { lines.remove(at: index) }
        } else if let value {
            lines.insert("# \(key): \(value)", at: 0)
        }
        return lines.joined(separator: "\n")
    }
}
