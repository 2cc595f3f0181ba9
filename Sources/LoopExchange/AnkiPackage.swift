import Crypto
import Foundation
import GRDB
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPictures
import ZIPFoundation

/// A loop as an Anki package (`.apkg`): a deck named after the loop, one note per phrase with
/// its clip, text, translation and picture, in a note type of its own ("LoopLearn phrase":
/// fields Text, Translation, Audio, Loop, Group, Number, Picture; one card: hear the phrase,
/// then read it and see its picture).
///
/// What Anki's importer keys on stays the same from one export to the next: each note's GUID
/// comes from the loop's id and the phrase's id (which an edit of the phrase's text keeps), the
/// note type's and the deck's ids from fixed names and the loop's id, and each clip's media
/// name from the phrase. So importing a newer export updates the notes (their `mod` is the
/// export's time) instead of adding them again. The package is the legacy one every Anki
/// reads: `collection.anki2` (schema 11), `media` (a JSON map), and the clips as `0`, `1`, ...
public struct AnkiPackage: Sendable {
    /// The note type's fields, in order.
    public static let fields = ["Text", "Translation", "Audio", "Loop", "Group", "Number", "Picture"]
    /// The note type's id: the same in every export, so that notes update.
    static let noteTypeID: Int64 = 1_733_950_127_001
    static let noteTypeName = "LoopLearn phrase"

    /// An exporter with the default note type.
    public init() {}

    /// Writes `loop` to `path` (atomically): a note for each phrase that has audio (a card
    /// starts from the clip).
    public func write(_ loop: LoopDetail, to path: String, now: Date = Date()) throws {
        let phrases = loop.phrases.filter { $0.audio != nil }
        guard !phrases.isEmpty else {
            throw ExchangeError(
                .exportRefused, path: path,
                message: "'\(loop.summary.title)' has no audio yet: record or attach a take first")
        }
        let parent =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let scratch = try ScratchFolder(in: parent, prefix: ".loop-anki-")
        do {
            try write(loop, phrases: phrases, in: scratch.path, to: path, now: now)
        } catch let error as ExchangeError where error.subject?.hasPrefix(scratch.path) != true {
            throw error
        } catch {
            // The work folder is loop's own, hidden: a failure is said of the deck named.
            let full = DiskSpace.isOutOfSpace(error) || (DiskSpace.available(at: parent) ?? .max) < 1 << 16
            throw ExchangeError(
                .exportRefused, path: path,
                message: full
                    ? DiskSpace.message(at: parent, needing: nil) + "; the deck was not written"
                    : "cannot write the deck (\((error as? any DescribedError)?.message ?? FileSystemError.reason(error)))"
            )
        }
        _ = consume scratch
    }

    /// Writes the deck's files in `folder`, then the package, renamed to `path` once whole.
    private func write(_ loop: LoopDetail, phrases: [StoredPhrase], in folder: String, to path: String, now: Date)
        throws
    {
        var media: [String: String] = [:]
        var audioNames: [Int64: String] = [:]
        for phrase in phrases {
            guard let audio = phrase.audio else { continue }
            let index = String(media.count)
            let name = "looplearn-\(loop.summary.id.prefix(8))-\(phrase.id).flac"
            var writer = try AudioFileWriter(
                path: folder + "/" + index, format: .flac, sampleRate: audio.sampleRate,
                channelCount: audio.channelCount)
            try writer.append(frames: audio.startFrame..<audio.endFrame, of: audio.path)
            try writer.commit()
            media[index] = name
            audioNames[phrase.id] = name
        }
        // Each phrase's picture (its own, its group's or the loop's), each file once.
        var pictureNames: [Int64: String] = [:]
        var storedPictures: [String: String] = [:]
        for phrase in phrases {
            guard let picture = phrase.picture(in: loop) else { continue }
            if storedPictures[picture.sha256] == nil {
                let index = String(media.count)
                let name = "looplearn-\(picture.sha256.prefix(16)).\(picture.format.fileExtension)"
                do {
                    try FileManager.default.copyItem(atPath: picture.path, toPath: folder + "/" + index)
                } catch {
                    throw ExchangeError(
                        .exportRefused, path: picture.path,
                        message: "cannot read the picture (\(error.localizedDescription))")
                }
                media[index] = name
                storedPictures[picture.sha256] = name
            }
            pictureNames[phrase.id] = storedPictures[picture.sha256]
        }
        try writeCollection(
            loop, phrases: phrases, audioNames: audioNames, pictureNames: pictureNames,
            to: folder + "/collection.anki2", now: now)
        try JSONSerialization.data(withJSONObject: media, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: folder + "/media"))

        let temporary = folder + "/package.apkg"
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: temporary), accessMode: .create)
        } catch {
            throw ExchangeError(.exportRefused, path: path, message: "cannot write the package (\(error))")
        }
        let base = URL(fileURLWithPath: folder)
        for entry in ["collection.anki2", "media"] + media.keys.sorted(by: { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) })
        {
            // The clips (FLAC) and pictures are compressed already: stored as they are.
            try archive.addEntry(with: entry, relativeTo: base, compressionMethod: Int(entry) == nil ? .deflate : .none)
        }
        try DurableFile.syncAndRename(temporary, to: path)
    }

    private func writeCollection(
        _ loop: LoopDetail, phrases: [StoredPhrase], audioNames: [Int64: String], pictureNames: [Int64: String],
        to path: String, now: Date
    ) throws {
        let database = try DatabaseQueue(path: path)
        let seconds = Int64(now.timeIntervalSince1970)
        let deckID = Self.stableID("deck", loop.summary.id)
        try database.write { db in
            try db.execute(sql: Self.schema)
            try db.execute(
                sql: "INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')",
                arguments: [
                    seconds / 86_400 * 86_400, seconds * 1000, seconds * 1000,
                    try Self.json(Self.configuration(deckID: deckID)),
                    try Self.json([String(Self.noteTypeID): Self.noteType(deckID: deckID, now: seconds)]),
                    try Self.json(Self.decks(deckID: deckID, name: loop.summary.title, now: seconds)),
                    try Self.json(Self.deckOptions()),
                ])
            let tags = ([loop.summary.language.map { "lang::\($0)" }].compactMap { $0 } + loop.summary.tags)
                .map { $0.replacingOccurrences(of: " ", with: "_") }
            let tagText = tags.isEmpty ? "" : " " + tags.joined(separator: " ") + " "
            for (position, phrase) in phrases.enumerated() {
                let noteID = seconds * 1000 + Int64(position)
                let audio = audioNames[phrase.id].map { "[sound:\($0)]" } ?? ""
                let picture = pictureNames[phrase.id].map { "<img src=\"\($0)\">" } ?? ""
                // Text fields are text: a `[sound:...]` in them (a hostile translation naming
                // `../../etc/passwd`) must not become a reference to media; only the Audio
                // field refers to the package's own.
                let values = [
                    Self.text(phrase.text), Self.text(phrase.translation ?? ""), Self.html(audio),
                    Self.text(loop.summary.title), String(phrase.group), String(phrase.number), picture,
                ]
                try db.execute(
                    sql: "INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')",
                    arguments: [
                        noteID, Self.guid(loop: loop.summary.id, phrase: phrase.id), Self.noteTypeID, seconds, tagText,
                        values.joined(separator: "\u{1F}"), values[0], Self.checksum(phrase.text),
                    ])
                try db.execute(
                    sql: "INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
                    arguments: [noteID, noteID, deckID, seconds, position + 1])
            }
        }
        try database.close()
    }

    /// A phrase's note GUID: the same for the same phrase of the same loop in every export.
    static func guid(loop: String, phrase: Int64) -> String {
        let digest = SHA256.hash(data: Data("looplearn:\(loop):\(phrase)".utf8))
        return "ll"
            + Data(digest.prefix(9)).base64EncodedString().replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "+", with: "-")
    }

    /// An id (positive, below 2^53 as Anki's JSON wants) from names that do not change.
    static func stableID(_ parts: String...) -> Int64 {
        let digest = SHA256.hash(data: Data(parts.joined(separator: ":").utf8))
        return Int64(digest.prefix(6).reduce(0) { $0 << 8 | UInt64($1) }) & ((1 << 52) - 1) | (1 << 40)
    }

    /// Anki's duplicate check: the first 8 hex digits of the SHA-1 of the first field, as a number.
    static func checksum(_ text: String) -> Int64 {
        let digest = Insecure.SHA1.hash(data: Data(text.utf8))
        return Int64(digest.prefix(4).reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// Text as Anki's fields hold it (HTML).
    /// A text field: HTML escaped, and its brackets written as entities, so that Anki reads no
    /// `[sound:...]` (or any other bracketed tag) in what is only text.
    static func text(_ text: String) -> String {
        html(text).replacingOccurrences(of: "[", with: "&#91;").replacingOccurrences(of: "]", with: "&#93;")
    }

    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    static func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    static func noteType(deckID: Int64, now: Int64) -> [String: Any] {
        [
            "id": noteTypeID, "name": noteTypeName, "type": 0, "mod": now, "usn": -1, "sortf": 0, "did": deckID,
            "tags": [String](), "vers": [Int](),
            "latexPre": "", "latexPost": "", "req": [[0, "any", [0, 2]]],
            "css":
                ".card { font-family: sans-serif; font-size: 24px; text-align: center; }\n.translation { color: #555; font-size: 18px; }\n.picture img { max-width: 100%; max-height: 50vh; }",
            "flds": fields.enumerated().map { index, name in
                [
                    "name": name, "ord": index, "font": "Arial", "size": 20, "media": [String](), "rtl": false,
                    "sticky": false,
                ] as [String: Any]
            },
            "tmpls": [
                [
                    "name": "Listen, then read", "ord": 0, "did": NSNull(), "bqfmt": "", "bafmt": "",
                    "qfmt": "{{Audio}}",
                    "afmt":
                        "{{FrontSide}}<hr id=answer><div>{{Text}}</div><div class=translation>{{Translation}}</div><div class=picture>{{Picture}}</div>",
                ] as [String: Any]
            ],
        ]
    }

    static func decks(deckID: Int64, name: String, now: Int64) -> [String: Any] {
        func deck(_ id: Int64, _ name: String) -> [String: Any] {
            [
                "id": id, "name": name, "desc": "", "conf": 1, "dyn": 0, "collapsed": false, "extendNew": 10,
                "extendRev": 50, "mod": now, "usn": -1,
                "newToday": [0, 0], "revToday": [0, 0], "lrnToday": [0, 0], "timeToday": [0, 0],
            ]
        }
        return ["1": deck(1, "Default"), String(deckID): deck(deckID, name.replacingOccurrences(of: "::", with: ":"))]
    }

    static func configuration(deckID: Int64) -> [String: Any] {
        [
            "activeDecks": [deckID], "curDeck": deckID, "curModel": String(noteTypeID), "nextPos": 1,
            "sortType": "noteFld", "sortBackwards": false,
            "addToCur": true, "collapseTime": 1200, "dueCounts": true, "estTimes": true, "newSpread": 0, "timeLim": 0,
        ]
    }

    static func deckOptions() -> [String: Any] {
        [
            "1": [
                "id": 1, "name": "Default", "mod": 0, "usn": 0, "maxTaken": 60, "autoplay": true, "timer": 0,
                "replayq": true, "dyn": false,
                "new": [
                    "delays": [1, 10], "ints": [1, 4, 7], "initialFactor": 2500, "order": 1, "perDay": 20, "bury": true,
                    "separate": true,
                ] as [String: Any],
                "rev": [
                    "perDay": 200, "ease4": 1.3, "fuzz": 0.05, "ivlFct": 1, "maxIvl": 36500, "minSpace": 1,
                    "bury": true,
                ] as [String: Any],
                "lapse": ["delays": [10], "mult": 0, "minInt": 1, "leechFails": 8, "leechAction": 0] as [String: Any],
            ] as [String: Any]
        ]
    }

    static let schema = """
        CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null,
            dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null,
            dconf text not null, tags text not null);
        CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null,
            tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
        CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null,
            usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null,
            factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null,
            odid integer not null, flags integer not null, data text not null);
        CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null,
            lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
        CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
        CREATE INDEX ix_notes_usn on notes (usn);
        CREATE INDEX ix_cards_usn on cards (usn);
        CREATE INDEX ix_revlog_usn on revlog (usn);
        CREATE INDEX ix_cards_nid on cards (nid);
        CREATE INDEX ix_cards_sched on cards (did, queue, due);
        CREATE INDEX ix_revlog_cid on revlog (cid);
        CREATE INDEX ix_notes_csum on notes (csum);
        """
}
