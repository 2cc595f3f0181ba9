import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopStudy
import LoopTestSupport
import Testing

@testable import LoopStore

/// Schema migrations must never lose audio. Keep these tests for every future migration.
struct MigrationTests {
    /// A library as the first schema wrote it, from a frozen dump (`Tests/Fixtures/library-
    /// schema-1.sql`, never generated from today's migrations), its audio where the rows say.
    func makeFirstSchemaLibrary() throws -> (root: String, sha256: String) {
        let root = temporaryLibraryFolder()
        let sha256 = "a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993"
        let audio = root + "/audio/a4"
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("clean.flac"), toPath: audio + "/" + sha256.dropFirst(2))
        let queue = try DatabaseQueue(path: root + "/library.sqlite")
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: try String(contentsOfFile: Fixture.path("library-schema-1.sql"), encoding: .utf8))
        }
        try queue.close()
        return (root, sha256)
    }

    @Test func aFirstSchemaLibraryOpensWithEveryLoopPhraseAndAudioFileIntact() throws {
        let (root, sha256) = try makeFirstSchemaLibrary()
        let audioBefore = AudioStore(layout: LibraryLayout(root: root)).inventory()

        var updates = 0
        let library = try LibraryStore(at: root) { updates += 1 }
        #expect(updates == 1, "the user is told once that the library is being updated")
        _ = try LibraryStore(at: root) { updates += 1 }
        _ = try LibraryStore(at: temporaryLibraryFolder()) { updates += 1 }
        #expect(updates == 1, "not again, and not for a new library")

        let applied = try library.database.read { db in try LibraryMigrations.migrator.appliedIdentifiers(db) }
        #expect(applied == Set(LibraryMigrations.migrator.migrations), "every migration ran")
        let loops = try library.loops()
        #expect(loops.map(\.title) == ["Gare du Nord"])
        #expect(loops[0].revision == 4 && loops[0].tags == ["Voyage"])
        let loop = try library.loop(id: loops[0].id)
        #expect(loop.phrases.map(\.text) == ["Où est la gare ?", "À droite."])
        #expect(loop.phrases.map(\.translation) == ["Where is the station?", nil])
        #expect(loop.phrases.map(\.audio?.startFrame) == [88_900, 123_400])
        #expect(loop.phrases.allSatisfy { $0.audio?.sha256 == sha256 })
        #expect(
            AudioStore(layout: LibraryLayout(root: root)).inventory() == audioBefore,
            "no audio file moved, renamed or removed")
        #expect(try AudioStore.sha256(ofFileAt: try #require(loop.phrases[0].audio?.path)) == sha256)
        let health = try library.check()
        #expect(health.isHealthy && health.audioFileCount == 1 && health.orphans.isEmpty)
        #expect(
            try library.search("gare").map(\.text) == ["Où est la gare ?"],
            "rows from before the search index are found")
    }

    @Test func theStudyOfAnOlderLibraryCountsInItsDaysStudied() throws {
        let (root, _) = try makeFirstSchemaLibrary()
        let queue = try DatabaseQueue(path: root + "/library.sqlite")
        let now = Date()
        let yesterday = now.addingTimeInterval(-86_400)
        try queue.write { db in
            for (date, seconds) in [(yesterday, 90.0), (now, 30.0), (now, 15.0)] {
                try db.execute(
                    sql:
                        "INSERT INTO studyEvent (loopId, phraseId, startedAt, seconds, repetitions) SELECT loopId, id, ?, ?, 1 FROM phrase LIMIT 1",
                    arguments: [date, seconds])
            }
        }
        try queue.close()
        let library = try LibraryStore(at: root)
        let day = Calendar.current.startOfDay(for: now)
        let stats = try library.reviewStats(now: now, dayStart: day, dayEnd: day.addingTimeInterval(86_400))
        #expect(stats.days[StudyDay.name(of: now)]?.seconds == 45)
        #expect(stats.days[StudyDay.name(of: yesterday)]?.seconds == 90)
        #expect(stats.streak == 2)
    }

    /// Every file under the library's audio and pictures folders, with its SHA-256.
    func storedFiles(_ root: String) throws -> [String: String] {
        var files: [String: String] = [:]
        for folder in ["audio", "pictures"] {
            let base = root + "/" + folder
            for case let relative as String in FileManager.default.enumerator(atPath: base) ?? NSEnumerator() {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &isFolder),
                    !isFolder.boolValue
                else { continue }
                files[folder + "/" + relative] = try AudioStore.sha256(ofFileAt: base + "/" + relative)
            }
        }
        return files
    }

    @Test func audioAndPicturesSurviveEveryMigrationStepOneAtATime() throws {
        let (root, sha256) = try makeFirstSchemaLibrary()
        // Pictures beside the audio from the start (as a library a later version wrote would have).
        let pictureHash = try #require(try ContentAddress.sha256(ofFileAt: Fixture.path("picture-red.png")))
        let pictureFile = root + "/" + LibraryLayout.Relative.pictureFile(sha256: pictureHash)
        try FileManager.default.createDirectory(
            atPath: (pictureFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("picture-red.png"), toPath: pictureFile)
        let filesBefore = try storedFiles(root)
        #expect(filesBefore.count == 2)

        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in db.add(tokenizer: PhraseSearchTokenizer.self) }
        let queue = try DatabaseQueue(path: root + "/library.sqlite", configuration: configuration)
        let migrator = LibraryMigrations.migrator
        for step in migrator.migrations {
            try migrator.migrate(queue, upTo: step)
            #expect(
                try storedFiles(root) == filesBefore,
                "after '\(step)' every audio file and picture is where it was, byte for byte")
            let clips = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT audioSha256 FROM phrase ORDER BY position")
            }
            #expect(clips == [sha256, sha256], "after '\(step)' every phrase still refers to its take")
            if step == "v8 pictures of loops, groups and phrases" {
                // The first step that knows pictures: give the loop, a group and a phrase one.
                try queue.write { db in
                    try db.execute(
                        sql: "INSERT INTO pictureAsset VALUES (?, ?, 'png', 96, 64, 266, '2026-11-23 00:00:00')",
                        arguments: [pictureHash, LibraryLayout.Relative.pictureFile(sha256: pictureHash)])
                    try db.execute(sql: "UPDATE loop SET pictureSha256 = ?", arguments: [pictureHash])
                    try db.execute(sql: "UPDATE phraseGroup SET pictureSha256 = ?", arguments: [pictureHash])
                    try db.execute(
                        sql: "UPDATE phrase SET pictureSha256 = ? WHERE position = 1", arguments: [pictureHash])
                }
            }
        }
        try queue.close()

        let library = try LibraryStore(at: root)
        let loop = try library.loop(id: "0f0f0f0f-0000-4000-8000-000000000001")
        #expect(loop.picture?.sha256 == pictureHash && loop.groupPictures.allSatisfy { $0?.sha256 == pictureHash })
        #expect(loop.phrases.map { $0.picture?.sha256 } == [nil, pictureHash])
        #expect(loop.phrases.allSatisfy { $0.audio?.sha256 == sha256 })
        let health = try library.check()
        #expect(
            health.isHealthy && health.audioFileCount == 1 && health.pictureFileCount == 1 && health.orphans.isEmpty)
        // And `gc` keeps both: rows refer to them.
        #expect(try library.collectGarbage().removedFiles.isEmpty)
        #expect(try storedFiles(root) == filesBefore)
    }

    @Test func eightOpenersAtOnceMigrateAFirstSchemaLibraryOnceAndAllSucceed() async throws {
        let (root, sha256) = try makeFirstSchemaLibrary()
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { Thread.isMainThread == false && (try? LibraryStore(at: root)) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(opened == Array(repeating: true, count: 8))
        let library = try LibraryStore(at: root)
        #expect(try library.loops().map(\.title) == ["Gare du Nord"])
        #expect(
            try library.loop(id: "0f0f0f0f-0000-4000-8000-000000000001").phrases.allSatisfy {
                $0.audio?.sha256 == sha256
            })
        #expect(try library.check().isHealthy)
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftUntouched() throws {
        let root = temporaryLibraryFolder()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: root + "/library.sqlite")
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: root + "/library.sqlite"))
        #expect { try LibraryStore(at: root) } throws: { error in
            (error as? LibraryError)?.kind == .cannotOpen
                && "\(error)".contains("not a loop library: the database belongs to something else (tables contacts)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/library.sqlite")) == before, "not a byte changed")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: root).filter {
                !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
            } == ["library.sqlite"],
            "and nothing added beside it (no audio folder)")
    }

    @Test func aFIFOWhereTheDatabaseGoesIsRefusedAtOnce() throws {
        let root = temporaryLibraryFolder()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(mkfifo(root + "/library.sqlite", 0o644) == 0)
        // Opening a FIFO for reading blocks until a writer comes: the check comes first.
        for access in [LibraryStore.Access.readOnly, .readWrite] {
            #expect { try LibraryStore(at: root, access: access) } throws: { error in
                (error as? LibraryError)?.kind == .cannotOpen
                    && "\(error)".contains("library.sqlite: is a pipe (FIFO), not a regular file: not a loop library")
            }
        }
    }

    @Test func aLibraryFromANewerVersionIsRefusedAndLeftUntouched() throws {
        let root = temporaryLibraryFolder()
        _ = try LibraryStore(at: root).createLoop(source: try Fixture.source)
        let queue = try DatabaseQueue(path: root + "/library.sqlite")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: root + "/library.sqlite"))
        // SQLite's own -wal and -shm files may come and go when it reads; the rest may not change.
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: root).filter {
                !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
            }.sorted()
        }
        let filesBefore = try files()

        #expect { try LibraryStore(at: root) } throws: { error in
            guard let error = error as? LibraryError else { return false }
            return error.kind == .newerSchema && error.message.contains("newer version of loop")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/library.sqlite")) == before)
        #expect(try files() == filesBefore)
    }

    @Test func migrationsAreAppendOnlyAndNeverMentionTheAudioFolder() throws {
        // The shipped migrations, in order. Add new ones at the end; never edit or reorder these.
        #expect(
            LibraryMigrations.migrator.migrations == [
                "v1 loops, groups, phrases, audio, study", "v2 full-text search of phrases",
                "v3 covering index for loop summaries",
                "v4 search inside Chinese, Japanese and other unspaced text",
                "v5 a clip kept when its phrase's text changes", "v6 loop summaries kept on the loop row",
                "v7 loops installed from a Loop Library server", "v8 pictures of loops, groups and phrases",
                "v9 how sure the cutter was of each clip", "v10 study sessions found by loop and start",
                "v11 review schedule of each group", "v12 shadowing attempts",
            ])
        let source = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/LoopStore/LibraryMigrations.swift").path,
            encoding: .utf8)
        let code = source.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }
            .joined(separator: "\n")
        #expect(!code.contains("FileManager") && !code.contains("AudioStore") && !code.contains("removeItem"))
    }
}
