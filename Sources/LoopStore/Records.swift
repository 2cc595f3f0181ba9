import Foundation
import GRDB
import LoopFoundation
import LoopModel

// One record type per table. Migrations never use these types: they describe today's schema.

struct LoopRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loop"
    var id: String
    var title: String
    /// The title folded for matching (case and diacritics removed).
    var titleKey: String
    var language: String?
    var translationLanguage: String?
    var sourceText: String
    var createdAt: Date
    var updatedAt: Date
    var revision: Int
    /// The share module's: the author's public key, when the loop came from a bundle.
    var ownerKey: String?
    /// The share module's: the revision last imported.
    var originRevision: Int?
    var editedLocally: Bool
    /// The loop's picture, if any.
    var pictureSha256: String? = nil
}

struct LoopTagRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loopTag"
    var loopId: String
    var tag: String
    var tagKey: String
}

struct PhraseGroupRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "phraseGroup"
    var id: Int64?
    var loopId: String
    var position: Int
    var pictureSha256: String? = nil

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Adds a group at `position` of a loop; returns its id.
    static func insert(loopId: String, position: Int, picture: String? = nil, _ db: Database) throws -> Int64 {
        var record = PhraseGroupRecord(id: nil, loopId: loopId, position: position, pictureSha256: picture)
        try record.insert(db)
        guard let id = record.id else { throw LibraryError(.storageFailed, "the database gave the new group no id") }
        return id
    }
}

struct PhraseRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "phrase"
    var id: Int64?
    var loopId: String
    var groupId: Int64
    var position: Int
    var text: String
    var translation: String?
    var audioSha256: String?
    var startFrame: Int?
    var endFrame: Int?
    /// The text the clip was recorded for, when the phrase's text has changed since; else nil.
    var recordedText: String?
    var pictureSha256: String? = nil
    /// How sure the cutter was of the clip's edges; nil when placed by hand.
    var cutConfidence: Double? = nil

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct AudioAssetRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audioAsset"
    var sha256: String
    /// Relative to the library folder: `audio/ab/cdef...`.
    var path: String
    var format: String
    var sampleRate: Int
    var channelCount: Int
    var frameCount: Int
    var byteCount: Int
    var createdAt: Date
}

struct PictureAssetRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pictureAsset"
    var sha256: String
    /// Relative to the library folder: `pictures/ab/cdef...`.
    var path: String
    var format: String
    var width: Int
    var height: Int
    var byteCount: Int
    var createdAt: Date
}

/// A new loop's rows: the loop, its tags, its groups and their phrases, inserted together.
struct NewLoopRows {
    struct Phrase {
        var text: String
        var translation: String?
        var clip: (sha256: String, frames: Range<Int>)?
        /// The text the clip was recorded for, when not this one.
        var recordedText: String? = nil
        var picture: String? = nil
        var cutConfidence: Double? = nil
    }

    var record: LoopRecord
    var tags: [String]
    var groups: [[Phrase]]
    /// Each group's picture (by position), when it has one.
    var groupPictures: [String?] = []

    func insert(_ db: Database) throws {
        // The loop's row goes in without its source text, which is set once its phrases are in:
        // each phrase's insert updates the loop's counts (a trigger), and SQLite rewrites the
        // whole row each time, a long text's overflow pages too (20,000 phrases took 10 s).
        var bare = record
        bare.sourceText = ""
        try bare.insert(db)
        try LibraryStore.insertTags(tags, loopId: record.id, db)
        var position = 0
        for (groupIndex, group) in groups.enumerated() {
            let picture = groupPictures.indices.contains(groupIndex) ? groupPictures[groupIndex] : nil
            let groupId = try PhraseGroupRecord.insert(loopId: record.id, position: groupIndex, picture: picture, db)
            for phrase in group {
                var row = PhraseRecord(
                    id: nil, loopId: record.id, groupId: groupId, position: position, text: phrase.text,
                    translation: phrase.translation,
                    audioSha256: phrase.clip?.sha256, startFrame: phrase.clip?.frames.lowerBound,
                    endFrame: phrase.clip?.frames.upperBound,
                    recordedText: phrase.clip == nil ? nil : phrase.recordedText, pictureSha256: phrase.picture,
                    cutConfidence: phrase.clip == nil ? nil : phrase.cutConfidence)
                try row.insert(db)
                position += 1
            }
        }
        try db.execute(sql: "UPDATE loop SET sourceText = ? WHERE id = ?", arguments: [record.sourceText, record.id])
    }
}
