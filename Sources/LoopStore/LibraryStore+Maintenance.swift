import Foundation
import GRDB
import LoopFoundation
import LoopModel

/// What the database itself says about its health, read in one transaction.
private struct DatabaseFindings {
    var integrity: [String]
    var foreignKeyErrors: Int
    var assets: [AudioAssetRecord]
    var pictures: [PictureAssetRecord]
    var loopCount: Int
    var phraseCount: Int
    var clipsPastTheirTake: Int
    var clipsForEarlierText: [ClipForEarlierText]
    /// Loops whose kept counts (for listings) disagree with their rows.
    var loopsWithStaleCounts: Int
    /// Reviews dated after `now`'s next day, or with a date a library does not keep (a clock that
    /// was wrong), and the latest of them as stored.
    var reviewsOutOfTime: (count: Int, groups: Int, latest: String?)

    init(_ db: Database, now: Date) throws {
        integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        foreignKeyErrors = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
        assets = try AudioAssetRecord.fetchAll(db, sql: "SELECT * FROM audioAsset ORDER BY path")
        pictures = try PictureAssetRecord.fetchAll(db, sql: "SELECT * FROM pictureAsset ORDER BY path")
        loopCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM loop") ?? 0
        phraseCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM phrase") ?? 0
        clipsPastTheirTake =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM phrase JOIN audioAsset ON audioAsset.sha256 = phrase.audioSha256
                    WHERE phrase.endFrame > audioAsset.frameCount
                    """) ?? 0
        clipsForEarlierText = try Row.fetchAll(
            db,
            sql: """
                SELECT loop.id, loop.title, phrase.position, phrase.text, phrase.recordedText FROM phrase JOIN loop ON loop.id = phrase.loopId
                WHERE phrase.recordedText IS NOT NULL AND phrase.audioSha256 IS NOT NULL ORDER BY loop.titleKey, loop.id, phrase.position
                """
        ).map { row in
            ClipForEarlierText(
                loopId: row[0], loopTitle: row[1], number: (row[2] as Int) + 1, text: row[3], recordedText: row[4])
        }
        loopsWithStaleCounts =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM loop WHERE
                        phraseCount != (SELECT COUNT(*) FROM phrase WHERE phrase.loopId = loop.id)
                        OR phrasesNeedingAudio != (SELECT COUNT(*) FROM phrase WHERE phrase.loopId = loop.id AND phrase.audioSha256 IS NULL)
                        OR groupCount != (SELECT COUNT(*) FROM phraseGroup WHERE phraseGroup.loopId = loop.id)
                    """) ?? 0
        let outOfTime = try Row.fetchOne(
            db,
            sql:
                "SELECT COUNT(*), COUNT(DISTINCT loopId || groupKey), MAX(reviewedAt) FROM groupReview WHERE \(LibraryStore.reviewOutOfTime)",
            arguments: [LibraryStore.reviewedLatest(now: now)])
        reviewsOutOfTime = (outOfTime?[0] ?? 0, outOfTime?[1] ?? 0, outOfTime?[2])
    }
}

extension LibraryStore {
    /// Checks the database's integrity and every audio file against its hash.
    public func check(now: Date = Date(), progress: (@Sendable (Double) -> Void)? = nil) throws -> HealthReport {
        var problems: [HealthReport.Problem] = []
        let findings = try database.read { db in try DatabaseFindings(db, now: now) }
        if findings.reviewsOutOfTime.count > 0 {
            let (count, groups, latest) = findings.reviewsOutOfTime
            problems.append(
                .init(
                    kind: .reviewsOutOfTime,
                    message:
                        "\(count) review\(count == 1 ? "" : "s") of \(groups) group\(groups == 1 ? "" : "s") dated after today, or in no year a library keeps (the latest \(String((latest ?? "?").unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(32)))): the clock was wrong when they were made, or is wrong now",
                    remedy: "if the clock is right now, remove them and schedule their groups from the others"))
        }
        let (integrity, foreignKeys, assets, counts, badRanges, earlier, staleCounts) = (
            findings.integrity, findings.foreignKeyErrors, findings.assets, (findings.loopCount, findings.phraseCount),
            findings.clipsPastTheirTake, findings.clipsForEarlierText, findings.loopsWithStaleCounts
        )
        if staleCounts > 0 {
            problems.append(
                .init(
                    kind: .staleCounts, message: "\(staleCounts) loops list wrong phrase or group counts",
                    remedy: "copy the library folder somewhere safe and report this as a bug"))
        }
        if integrity != ["ok"] {
            problems.append(
                .init(
                    kind: .databaseDamaged,
                    message: "the database fails SQLite's integrity check: "
                        + integrity.prefix(3).joined(separator: "; "),
                    remedy: "copy the library folder somewhere safe, then try `sqlite3 library.sqlite .recover`"))
        }
        if foreignKeys > 0 {
            problems.append(
                .init(
                    kind: .danglingRows, message: "\(foreignKeys) rows refer to rows that do not exist",
                    remedy: "copy the library folder somewhere safe and report this as a bug"))
        }
        if badRanges > 0 {
            problems.append(
                .init(
                    kind: .clipsPastTheirTake, message: "\(badRanges) phrase clips reach past the end of their take",
                    remedy: "move their boundaries back inside their take"))
        }
        // Every stored file against its hash: the takes, then the pictures.
        struct Stored { var path: String, sha256: String, bytes: Int, isPicture: Bool }
        let stored =
            assets.map { Stored(path: $0.path, sha256: $0.sha256, bytes: $0.byteCount, isPicture: false) }
            + findings.pictures.map { Stored(path: $0.path, sha256: $0.sha256, bytes: $0.byteCount, isPicture: true) }
        let totalBytes = max(stored.reduce(0) { $0 + $1.bytes }, 1)
        var doneBytes = 0
        for file in stored {
            let path = audio.absolute(file.path)
            let remedy =
                file.isPicture
                ? "restore the file from a backup, or give the picture again"
                : "restore the file from a backup, or record the phrases again"
            switch try audio.hash(of: file.path) {
            case nil:
                let owners =
                    file.isPicture
                    ? "a picture of \(try loopTitles(usingPicture: file.sha256))"
                    : "audio of \(try loopTitles(using: file.sha256))"
                problems.append(
                    .init(
                        kind: file.isPicture ? .pictureMissing : .audioMissing, message: "\(path): missing (\(owners))",
                        remedy: remedy))
            case let hash? where hash != file.sha256:
                problems.append(
                    .init(
                        kind: file.isPicture ? .pictureDamaged : .audioDamaged,
                        message: "\(path): damaged (its content no longer matches its SHA-256)", remedy: remedy))
            default:
                break
            }
            doneBytes += file.bytes
            progress?(Double(doneBytes) / Double(totalBytes))
        }
        let known = Set(assets.map(\.path) + findings.pictures.map(\.path))
        let inventory = audio.inventory()
        return HealthReport(
            problems: problems, orphans: inventory.files.filter { !known.contains($0) }, leftovers: inventory.leftovers,
            clipsForEarlierText: earlier, loopCount: counts.0, phraseCount: counts.1, audioFileCount: assets.count,
            pictureFileCount: findings.pictures.count)
    }

    private func loopTitles(using sha256: String) throws -> String {
        let titles = try database.read { db in
            try String.fetchAll(
                db,
                sql:
                    """
                    SELECT DISTINCT title FROM loop WHERE id IN (SELECT loopId FROM phrase WHERE audioSha256 = ?1)
                        OR id IN (SELECT loopId FROM shadowingAttempt WHERE audioSha256 = ?1)
                    """,
                arguments: [sha256])
        }
        return titles.isEmpty ? "no loop" : titles.map { "'\($0)'" }.joined(separator: ", ")
    }

    private func loopTitles(usingPicture sha256: String) throws -> String {
        let titles = try database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT title FROM loop WHERE pictureSha256 = ?1
                        OR id IN (SELECT loopId FROM phraseGroup WHERE pictureSha256 = ?1) OR id IN (SELECT loopId FROM phrase WHERE pictureSha256 = ?1)
                    """, arguments: [sha256])
        }
        return titles.isEmpty ? "no loop" : titles.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// Reviews dated later than this `now`'s next day, or in a form (a five-digit year) that sorts
    /// apart from time: an SQL condition on `groupReview`, with the latest date a review may carry.
    static let reviewOutOfTime = """
        (reviewedAt > ? OR reviewedAt NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]*')
        """

    static func reviewedLatest(now: Date) -> Date {
        min(now.addingTimeInterval(86_400), ReviewCard.reviewDates.upperBound)
    }

    /// Removes the reviews ``check(now:progress:)`` finds dated after today or in no year a
    /// library keeps, and schedules each of their groups again from its other reviews (none
    /// left: it starts anew). Returns how many reviews were removed, of how many groups.
    public func removeReviewsOutOfTime(now: Date = Date(), replay: ReviewReplay) throws -> (reviews: Int, groups: Int) {
        try LibraryStore.checkReviewDate(now)
        return try storing {
            try database.write { db in
                let latest = Self.reviewedLatest(now: now)
                let groups = try Row.fetchAll(
                    db, sql: "SELECT DISTINCT loopId, groupKey FROM groupReview WHERE \(Self.reviewOutOfTime)",
                    arguments: [latest])
                try db.execute(sql: "DELETE FROM groupReview WHERE \(Self.reviewOutOfTime)", arguments: [latest])
                let removed = db.changesCount
                let settings = try Self.reviewSettings(db)
                for group in groups {
                    let (loop, key): (String, String) = (group[0], group[1])
                    guard let position = try Self.reviewKeys(ofLoop: loop, db).first(where: { $0.value == key })?.key
                    else { continue }
                    try Self.computeState(
                        loop: loop, key: key, position: position, settings: settings, replay: replay, db)
                }
                return (removed, groups.count)
            }
        }
    }

    /// Runs storage work; a full disk becomes one error that says so, naming the library's device
    /// and what the work needed, instead of whatever the layer that noticed it said.
    func storing<T>(needing bytes: Int? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error where !(error is LibraryError) && DiskSpace.isOutOfSpace(error) {
            throw LibraryError(
                .noSpace,
                DiskSpace.message(at: root, needing: bytes)
                    + "; free some space and try again (the library was not changed)")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // SQLite's words name the statement; the person needs to know what to change.
            throw LibraryError(
                .storageFailed,
                "\(root): the library is read-only (its files, its folder or the disk it is on): loop cannot change it; check their permissions (the library was not changed)"
            )
        }
    }

    /// The size of the file at `path`, if it can be told.
    static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    /// Runs `body` as work in flight: `loop gc` waits until it returns, so the files it keeps in
    /// ``scratchFolder(named:)`` are never taken for the leftovers of an interrupted copy.
    public func whileInFlight<T>(_ body: () throws -> T) throws -> T {
        let lock = try LibraryLock(layout, exclusive: false)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    /// A folder of its own for work in flight, inside the library (on the same file system as
    /// the audio, so that its files move into place by renaming); removed by the caller, or by
    /// `loop gc` once no work is in flight.
    public func scratchFolder(named prefix: String) -> String { layout.scratchFolder(named: prefix) }

    /// The audio no phrase's clip and no kept attempt refers to (an SQL condition on `audioAsset`).
    static let unreferencedAudio = """
        sha256 NOT IN (SELECT audioSha256 FROM phrase WHERE audioSha256 IS NOT NULL)
            AND sha256 NOT IN (SELECT audioSha256 FROM shadowingAttempt)
        """

    /// Removes audio that no phrase or kept attempt refers to, pictures nothing refers to, and
    /// what interrupted copies left behind.
    public func collectGarbage() throws -> GarbageReport {
        let lock = try LibraryLock(layout, exclusive: true)
        let unreferenced = try database.write { db -> [String] in
            let paths = try String.fetchAll(
                db,
                sql:
                    "SELECT path FROM audioAsset WHERE " + Self.unreferencedAudio
            )
            try db.execute(sql: "DELETE FROM audioAsset WHERE " + Self.unreferencedAudio)
            let unusedPictures = """
                FROM pictureAsset WHERE sha256 NOT IN (SELECT pictureSha256 FROM loop WHERE pictureSha256 IS NOT NULL
                    UNION SELECT pictureSha256 FROM phraseGroup WHERE pictureSha256 IS NOT NULL
                    UNION SELECT pictureSha256 FROM phrase WHERE pictureSha256 IS NOT NULL)
                """
            let pictures = try String.fetchAll(db, sql: "SELECT path " + unusedPictures)
            try db.execute(sql: "DELETE " + unusedPictures)
            return paths + pictures
        }
        let known = try database.read { db in
            Set(try String.fetchAll(db, sql: "SELECT path FROM audioAsset UNION SELECT path FROM pictureAsset"))
        }
        let inventory = audio.inventory()
        let doomed = Set(unreferenced + inventory.files.filter { !known.contains($0) } + inventory.leftovers).sorted()
        var freed = 0
        var removed: [String] = []
        for path in doomed {
            let absolute = audio.absolute(path)
            let size = (try? FileManager.default.attributesOfItem(atPath: absolute)[.size] as? Int) ?? nil
            if (try? FileManager.default.removeItem(atPath: absolute)) != nil {
                freed += size ?? 0
                removed.append(path)
            }
        }
        withExtendedLifetime(lock) {}
        return GarbageReport(removedFiles: removed, freedBytes: freed)
    }
}
