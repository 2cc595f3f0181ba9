import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopText

/// A loop as a bundle carries it, ready to import.
public struct SharedLoop: Sendable, Equatable {
    /// A phrase as a bundle carries it.
    public struct Phrase: Sendable, Equatable {
        /// The phrase's text.
        public var text: String
        /// Its translation.
        public var translation: String?
        /// The SHA-256 of its take and the frame range, or nil.
        public var clip: (sha256: String, frames: Range<Int>)?
        /// The text the clip was recorded for, when the phrase's text changed since; else nil.
        public var recordedText: String?
        /// The SHA-256 of its picture, if it has one.
        public var picture: String?

        /// A phrase from its parts.
        public init(
            text: String, translation: String?, clip: (sha256: String, frames: Range<Int>)?,
            recordedText: String? = nil, picture: String? = nil
        ) {
            self.picture = picture
            self.text = text
            self.translation = translation
            self.clip = clip
            self.recordedText = recordedText
        }

        /// Two phrases are the same when every part is (the clip's hash and frames compared).
        public static func == (a: Phrase, b: Phrase) -> Bool {
            a.text == b.text && a.translation == b.translation && a.clip?.sha256 == b.clip?.sha256
                && a.clip?.frames == b.clip?.frames
                && a.recordedText == b.recordedText && a.picture == b.picture
        }
    }

    /// The loop's id (a UUID).
    public var id: String
    /// The author's revision.
    public var revision: Int
    /// Its title.
    public var title: String
    /// The language of its phrases.
    public var language: String?
    /// The language of its translations.
    public var translationLanguage: String?
    /// Its tags.
    public var tags: [String]
    /// The text it was made from.
    public var sourceText: String
    /// Its phrases, group by group.
    public var groups: [[Phrase]]
    /// The key (base64) that signed the bundle it came in: its author's.
    public var signerKey: String
    /// The SHA-256 of the loop's picture, and of each group's (nil where none).
    public var picture: String?
    /// See ``picture``.
    public var groupPictures: [String?]

    /// The pictures it shows.
    public var pictureHashes: Set<String> {
        Set([picture].compactMap { $0 } + groupPictures.compactMap { $0 } + groups.flatMap { $0 }.compactMap(\.picture))
    }

    /// The takes its clips are cut from.
    public var clipHashes: Set<String> { Set(groups.flatMap { $0 }.compactMap { $0.clip?.sha256 }) }

    /// A loop from its parts.
    public init(
        id: String, revision: Int, title: String, language: String?, translationLanguage: String?, tags: [String],
        sourceText: String,
        groups: [[Phrase]], signerKey: String, picture: String? = nil, groupPictures: [String?] = []
    ) {
        self.signerKey = signerKey
        self.picture = picture
        self.groupPictures = groupPictures
        self.id = id
        self.revision = revision
        self.title = title
        self.language = language
        self.translationLanguage = translationLanguage
        self.tags = tags
        self.sourceText = sourceText
        self.groups = groups
    }
}

/// A take a bundle brings: where it was extracted and what it is.
public struct SharedTake: Sendable {
    /// The take's SHA-256 (hex).
    public var sha256: String
    /// The verified file; when it lies inside the library folder it is moved into the store.
    public var path: String
    /// Its size in bytes.
    public var byteCount: Int
    /// Its sample rate in hertz.
    public var sampleRate: Int
    /// Its channel count.
    public var channelCount: Int
    /// Its length in frames.
    public var frameCount: Int

    /// A take from its file and figures.
    public init(sha256: String, path: String, byteCount: Int, sampleRate: Int, channelCount: Int, frameCount: Int) {
        self.sha256 = sha256
        self.path = path
        self.byteCount = byteCount
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
    }
}

/// What this library holds of a shared loop's id, for the import rules to judge.
public struct ExistingLoop: Sendable, Equatable {
    /// Its title here.
    public var title: String
    /// Its author's key (base64) when it came from a bundle; nil when it was made here.
    public var ownerKey: String?
    /// Its revision here (local edits count their own).
    public var revision: Int
    /// The author's revision last imported, when it came from a bundle.
    public var originRevision: Int?
    /// Changed here since it was imported.
    public var editedLocally: Bool
}

extension LibraryStore {
    /// Imports shared loops; what becomes of each is for `decide` to say (the rules of
    /// ownership, revisions and local edits), given what the library holds of its id. All of it
    /// or none of it: the takes needed are stored first, then one transaction in which every
    /// loop is decided again before it is written, so that a change made meanwhile by another
    /// process (an edit, the same import) is judged by the same rules rather than overwritten.
    /// In a dry run nothing is written. Returns the outcomes decided in the transaction.
    public func importShared(
        _ loops: [SharedLoop], takes: [SharedTake], pictures: [SharedPicture] = [], dryRun: Bool,
        decide: @Sendable (SharedLoop, ExistingLoop?) throws -> ImportOutcome
    ) throws -> [ImportOutcome] {
        try storing(needing: takes.reduce(0) { $0 + $1.byteCount }) {
            let takesByHash = Dictionary(takes.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
            for loop in loops {
                for phrase in loop.groups.flatMap({ $0 }) {
                    guard let clip = phrase.clip else { continue }
                    guard let take = takesByHash[clip.sha256], clip.frames.lowerBound >= 0,
                        clip.frames.upperBound <= take.frameCount, !clip.frames.isEmpty
                    else {
                        throw LibraryError(.invalidRange, "a clip of '\(loop.title)' lies outside its take")
                    }
                }
            }
            let picturesByHash = Dictionary(pictures.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
            for loop in loops where !loop.pictureHashes.isSubset(of: picturesByHash.keys) {
                throw LibraryError(.storageFailed, "a picture of '\(loop.title)' is missing from what was imported")
            }
            // A first judgement, reading only, says which takes to store.
            let plan = try database.read { db in try loops.map { try decide($0, Self.existing($0.id, db)) } }
            guard !dryRun else { return plan }
            let writes = zip(loops, plan).filter { $0.1.writes }.map(\.0)
            guard !writes.isEmpty else { return plan }

            let lock = try LibraryLock(layout, exclusive: false)
            let needed = Set(writes.flatMap { $0.groups.flatMap { $0 }.compactMap { $0.clip?.sha256 } })
            var assets: [AudioAssetRecord] = []
            for hash in needed.sorted() {
                guard let take = takesByHash[hash] else { continue }
                // A take verified inside the library (the importer's scratch folder) is moved, not copied.
                let file =
                    layout.isIncoming(take.path)
                    ? try audio.adopt(verifiedFile: take.path, sha256: hash, byteCount: take.byteCount)
                    : try audio.store(copyOf: take.path)
                assets.append(
                    AudioAssetRecord(
                        sha256: file.sha256, path: file.path, format: "flac", sampleRate: take.sampleRate,
                        channelCount: take.channelCount,
                        frameCount: take.frameCount, byteCount: file.byteCount, createdAt: Date()))
            }
            let pictureAssets = try Set(writes.flatMap(\.pictureHashes)).sorted().compactMap { picturesByHash[$0] }.map(
                storeShared)
            TestStop.reached("import.before-commit")
            let outcomes = try database.write { db -> [ImportOutcome] in
                for asset in assets { try asset.insert(db, onConflict: .ignore) }
                for asset in pictureAssets { try asset.insert(db, onConflict: .ignore) }
                return try loops.map { shared in
                    // Judged again where it is written: what another process did meanwhile counts.
                    let outcome = try decide(shared, Self.existing(shared.id, db))
                    switch outcome {
                    case .added(let id):
                        guard needed.isSuperset(of: shared.clipHashes) else {
                            throw LibraryError(
                                .storageFailed, "'\(shared.title)' changed while it was imported; import it again")
                        }
                        try Self.insertShared(shared, id: id, ownerKey: shared.signerKey, db)
                    case .updated(let id, let from, let to, _):
                        guard needed.isSuperset(of: shared.clipHashes) else {
                            throw LibraryError(
                                .storageFailed, "'\(shared.title)' changed while it was imported; import it again")
                        }
                        let restarted = try Self.updateShared(shared, id: id, db)
                        return .updated(id: id, from: from, to: to, reviewsRestarted: restarted)
                    case .unchanged, .older:
                        break
                    }
                    return outcome
                }
            }
            TestStop.reached("import.committed")
            withExtendedLifetime(lock) {}
            return outcomes
        }
    }

    /// What the library holds of this id.
    static func existing(_ id: String, _ db: Database) throws -> ExistingLoop? {
        try LoopRecord.fetchOne(db, key: id).map {
            ExistingLoop(
                title: $0.title, ownerKey: $0.ownerKey, revision: $0.revision, originRevision: $0.originRevision,
                editedLocally: $0.editedLocally)
        }
    }

    static func insertShared(_ shared: SharedLoop, id: String, ownerKey: String, _ db: Database) throws {
        let now = Date()
        try NewLoopRows(
            record: LoopRecord(
                id: id, title: shared.title, titleKey: matchingKey(shared.title),
                language: shared.language?.lowercased(),
                translationLanguage: shared.translationLanguage?.lowercased(), sourceText: shared.sourceText,
                createdAt: now,
                updatedAt: now, revision: shared.revision, ownerKey: ownerKey, originRevision: shared.revision,
                editedLocally: false,
                pictureSha256: shared.picture),
            tags: shared.tags,
            groups: shared.groups.map { group in
                group.map {
                    .init(
                        text: $0.text, translation: $0.translation, clip: $0.clip, recordedText: $0.recordedText,
                        picture: $0.picture)
                }
            },
            groupPictures: shared.groupPictures
        ).insert(db)
    }

    /// Replaces a loop's text and phrases with a newer revision, keeping the rows (and so the
    /// study history) of phrases whose text did not change.
    /// Returns how many groups being reviewed changed their text (their reviews start anew).
    static func updateShared(_ shared: SharedLoop, id: String, _ db: Database) throws -> Int {
        guard var loop = try LoopRecord.fetchOne(db, key: id) else { return 0 }
        let groups = shared.groups.map { group in
            group.map {
                RebuiltPhrase(
                    text: $0.text, translation: $0.translation,
                    clip: .set($0.clip.map { (sha256: $0.sha256, frames: $0.frames) }, recordedText: $0.recordedText),
                    picture: PictureChange(sha256: $0.picture))
            }
        }
        // A phrase the author changed in place keeps its row, and so the learner's history.
        let rebuilt = try rebuildPhrases(
            ofLoop: id, as: groups,
            groupPictures: shared.groups.indices.map {
                shared.groupPictures.indices.contains($0) ? shared.groupPictures[$0] : nil
            },
            keepChangedPhrases: true, db)
        loop.pictureSha256 = shared.picture
        try db.execute(sql: "DELETE FROM loopTag WHERE loopId = ?", arguments: [id])
        try insertTags(shared.tags, loopId: id, db)
        loop.title = shared.title
        loop.titleKey = matchingKey(shared.title)
        loop.language = shared.language?.lowercased()
        loop.translationLanguage = shared.translationLanguage?.lowercased()
        loop.sourceText = shared.sourceText
        loop.revision = shared.revision
        loop.originRevision = shared.revision
        loop.editedLocally = false
        loop.updatedAt = Date()
        try loop.update(db)
        return rebuilt.reviewsRestarted
    }

    /// Who may publish this loop: its owner's key (base64), or nil when it was made here.
    public func ownerKey(ofLoop id: String) throws -> String? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT ownerKey FROM loop WHERE id = ?", arguments: [id])
        }
    }
}

extension LibraryStore {
    /// Records that the loop was installed from `server` (with the bundle's ETag).
    public func setOrigin(ofLoop id: String, server: String, etag: String?) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO loopOrigin (loopId, server, etag, checkedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(loopId) DO UPDATE SET server = excluded.server, etag = excluded.etag, checkedAt = excluded.checkedAt
                    """, arguments: [id, server, etag, Date()])
        }
    }

    /// The loops installed from a server, in title order; only those of `ids` when given.
    public func origins(ofLoops ids: [String]? = nil) throws -> [LoopOrigin] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT loopOrigin.loopId, loop.title, loopOrigin.server, loopOrigin.etag
                    FROM loopOrigin JOIN loop ON loop.id = loopOrigin.loopId ORDER BY loop.titleKey
                    """
            ).map { LoopOrigin(loopId: $0["loopId"], title: $0["title"], server: $0["server"], etag: $0["etag"]) }
                .filter { origin in ids.map { $0.contains(origin.loopId) } ?? true }
        }
    }
}
