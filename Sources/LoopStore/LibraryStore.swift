import CSQLiteExtensions
import Foundation
import GRDB
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPictures
import LoopText

/// The library: loops in one SQLite database (WAL, so readers never wait for a writer), their
/// audio as content-addressed files beside it.
///
/// Every change is one transaction; audio is on disk, synced, before the row that refers to it
/// commits. A crash at any point leaves a library that opens and checks clean.
package struct LibraryStore: Sendable {
    /// Where its files are.
    public let layout: LibraryLayout
    /// The library folder.
    public var root: String { layout.root }
    /// A pool (WAL: readers never wait for a writer) or, opened for reading only, one
    /// read-only connection.
    let database: any DatabaseWriter
    let audio: AudioStore
    /// How a picture is checked before it is kept: its header by default (type, size, whole); a
    /// library opened by an interface also decodes it (LoopFFmpeg's `PictureDecoder.check`).
    let checkPicture: @Sendable (String) throws(PictureError) -> PictureInfo

    /// What a command will do with the library.
    public enum Access: Sendable {
        /// Read and write: the library is created or brought up to date if needed.
        case readWrite
        /// Read only (listing, showing, searching): an up-to-date library is opened with one
        /// read-only connection, which neither writes nor takes a lock; a library that does not
        /// exist yet or needs updating is opened as for writing.
        case readOnly
        /// Read and write, to free space (`rm`, `gc`): on a full disk the room the library
        /// keeps (``LibraryLayout/room``) is given up first, so that the database can change.
        case freeingSpace
    }

    /// The space a library holds back, and the free space it leaves before holding it back.
    static let roomSize = 1 << 20, roomMargin = 64 << 20

    /// Opens the library at `root`, creating it if needed, and brings its schema up to date.
    /// A library written by a newer version of the tool is refused, untouched. `onUpdate` is
    /// called before an existing library's schema is brought up to date (which may rebuild its
    /// search index: seconds, for a large library).
    public init(
        at root: String, access: Access = .readWrite, onUpdate: (() -> Void)? = nil,
        checkPicture: @escaping @Sendable (String) throws(PictureError) -> PictureInfo = { path throws(PictureError) in
            try PictureFile.checkHeader(path)
        }
    ) throws {
        self.checkPicture = checkPicture
        // SQLite's own temporary files (large sorts during an import) stay in the library's
        // folder rather than /var/tmp; read once, when SQLite starts.
        setenv("SQLITE_TMPDIR", root, 0)
        let layout = LibraryLayout(root: root)
        let path = layout.database
        let migrator = LibraryMigrations.migrator
        // A FIFO or a device where the database goes would block or mislead SQLite's open.
        if let problem = RegularFile.problem(at: path), problem != "no such file" {
            throw LibraryError(.cannotOpen, "\(path): \(problem): not a loop library")
        }
        if access == .readOnly, let reader = try Self.openForReading(path: path, migrator: migrator) {
            self.layout = layout
            self.database = reader
            self.audio = AudioStore(layout: layout)
            return
        }
        let manager = FileManager.default
        // A library that cannot be written is said to be so at once: SQLite could open it (it
        // falls back to reading), and fail at the first change, or wait on its side files.
        if manager.fileExists(atPath: path) {
            try Self.refuseIfReadOnly(root: (path as NSString).deletingLastPathComponent)
        }
        if access == .freeingSpace, (DiskSpace.available(at: root) ?? .max) < Self.roomSize {
            unlink(layout.room)
        }
        // Checked read-only first: opening a pool writes (it sets up WAL mode), and a database
        // that is not ours, or is newer, must not change by a byte, nor its folder gain one.
        if manager.fileExists(atPath: path) {
            try Self.refuseNewerSchema(path: path, migrator: migrator)
        }
        do {
            try manager.createDirectory(atPath: layout.audioFolder, withIntermediateDirectories: true)
        } catch {
            if DiskSpace.isPseudoFileSystem(at: root) {
                throw LibraryError(
                    .cannotOpen,
                    "\(root): is on a file system that stores nothing (such as /proc): give a library folder on a disk")
            }
            try Self.refuseIfDiskFull(root: root, toChange: true)
            // A file where the library or its audio folder should be.
            for folder in [root, layout.audioFolder] {
                var isFolder: ObjCBool = false
                if manager.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
                    throw LibraryError(
                        .cannotOpen,
                        "\(folder): is a file, not a folder: the library \(folder == root ? "is" : "keeps its audio in") a folder of that name; move the file away"
                    )
                }
            }
            throw LibraryError(
                .cannotOpen, "\(root): cannot create the library folder (\(FileSystemError.reason(error)))")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration(readOnly: false))
            // Only a library that needs it is migrated: opening one that is up to date only
            // reads, so readers never queue behind a writer.
            let (upToDate, existing) = try pool.read { db in
                (try migrator.hasCompletedMigrations(db), !(try migrator.appliedIdentifiers(db).isEmpty))
            }
            if !upToDate {
                // One process at a time creates or migrates; the others wait, then find the
                // work done (the migrator skips what is applied).
                let lock = try LibraryLock(layout, exclusive: true)
                if existing { onUpdate?() }
                try migrator.migrate(pool)
                withExtendedLifetime(lock) {}
            }
        } catch let error as DatabaseError {
            try Self.refuseIfDiskFull(root: root, toChange: true)
            throw LibraryError(.cannotOpen, "\(path): cannot open the library (\(error.message ?? "\(error)"))")
        }
        self.database = pool
        self.layout = layout
        self.audio = AudioStore(layout: layout)
        Self.keepRoom(layout)
    }

    /// Holds back ``roomSize`` bytes in the library (written, not sparse), unless it is held
    /// already or the disk has less than ``roomMargin`` free. Ballast: never synced, and a
    /// partial file is as good.
    private static func keepRoom(_ layout: LibraryLayout) {
        guard access(layout.room, F_OK) != 0, (DiskSpace.available(at: layout.root) ?? 0) >= roomMargin else { return }
        _ = FileManager.default.createFile(atPath: layout.room, contents: Data(count: roomSize))
    }

    private static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(30)
        configuration.label = "loop library"
        configuration.prepareDatabase { db in
            db.add(tokenizer: PhraseSearchTokenizer.self)
            let code = loop_register_phrase_rank(db.sqliteConnection)
            guard code == SQLITE_OK else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: "cannot register the search ranking")
            }
        }
        return configuration
    }

    /// Whether the library at `root` cannot be written beside (a read-only mount or folder, or a
    /// full disk): SQLite cannot then make the side files it reads a library with.
    package static func cannotWriteBeside(root: String) -> Bool {
        if access(root, W_OK) != 0 && (errno == EROFS || errno == EACCES || errno == EPERM) { return true }
        return (DiskSpace.available(at: root) ?? Int.max) < 1 << 20
    }

    /// One connection that reads the database at `path` as it is on disk (SQLite's `immutable`:
    /// no side files, no lock), for a library that cannot be written beside; nil when its
    /// write-ahead log holds changes not yet in the database, which such a reading would miss.
    private static func openImmutable(path: String) throws -> DatabaseQueue? {
        let log = path + "-wal"
        if FileManager.default.fileExists(atPath: log), (fileSize(log) ?? 1) > 0 { return nil }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        // A URI (Debian's SQLite reads file names as URIs): its own characters escaped.
        var escaped = ""
        for character in absolute.unicodeScalars {
            switch character {
            case "%", "?", "#": escaped += String(format: "%%%02X", character.value)
            default: escaped.unicodeScalars.append(character)
            }
        }
        return try DatabaseQueue(path: "file:" + escaped + "?immutable=1", configuration: configuration(readOnly: true))
    }

    /// The database at `path` and its log copied into a folder of the temporary files, the log
    /// taken into the copy there, and the copy read as ``openImmutable(path:)`` reads (its files
    /// are gone from the folder once it is open: nothing is left behind).
    private static func openCopy(path: String) throws -> DatabaseQueue {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("loop-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/library.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        let writer = try DatabaseQueue(path: copy, configuration: configuration(readOnly: false))
        _ = try writer.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try writer.close()
        guard let reader = try openImmutable(path: copy) else {
            throw LibraryError(.cannotOpen, "\(path): its log could not be read into a copy")
        }
        return reader
    }

    /// One read-only connection to an existing, up-to-date library; nil when the library must
    /// first be created or updated.
    private static func openForReading(path: String, migrator: DatabaseMigrator) throws -> DatabaseQueue? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let root = (path as NSString).deletingLastPathComponent
        if cannotWriteBeside(root: root) {
            // Reading needs no room and no right to write: on a read-only mount or a full disk the
            // database is read as it is on disk, or, when its log holds changes, from a copy
            // beside the temporary files (SQLite's own reading would need its side files there,
            // or wait on them).
            func upToDate(_ queue: DatabaseQueue) -> Bool {
                (try? queue.read { db in
                    try schemaRefusal(db, path: path, migrator: migrator) == nil && migrator.hasCompletedMigrations(db)
                }) == true
            }
            if let reader = (try? openImmutable(path: path)) ?? (try? openCopy(path: path)), upToDate(reader) {
                return reader
            }
            try refuseIfDiskFull(root: root)
            try refuseIfReadOnly(root: root)
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true))
            let upToDate = try queue.read { db in
                if let refusal = try schemaRefusal(db, path: path, migrator: migrator) { throw refusal }
                return try migrator.hasCompletedMigrations(db)
            }
            if upToDate { return queue }
            try queue.close()
            return nil
        } catch let error as DatabaseError {
            try refuseIfDiskFull(root: (path as NSString).deletingLastPathComponent)
            try refuseIfReadOnly(root: (path as NSString).deletingLastPathComponent)
            throw LibraryError(.cannotOpen, "\(path): not a loop library, or damaged (\(error.message ?? "\(error)"))")
        }
    }

    /// Reads the applied migrations without writing anything (read-only, no journal change).
    private static func refuseNewerSchema(path: String, migrator: DatabaseMigrator) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let refusal = try queue.read { db in try schemaRefusal(db, path: path, migrator: migrator) }
            try queue.close()
            if let refusal { throw refusal }
        } catch let error as DatabaseError {
            try refuseIfDiskFull(root: (path as NSString).deletingLastPathComponent, toChange: true)
            try refuseIfReadOnly(root: (path as NSString).deletingLastPathComponent)
            throw LibraryError(.cannotOpen, "\(path): not a loop library, or damaged (\(error.message ?? "\(error)"))")
        }
    }

    /// Why a database cannot be opened as a library: another application's, or written by a
    /// newer version of loop; nil when it is a library this version reads (or an empty file).
    private static func schemaRefusal(_ db: Database, path: String, migrator: DatabaseMigrator) throws -> LibraryError?
    {
        // Another application's database: tables, but none of our migrations.
        // (A library being created by another process has an empty `grdb_migrations` for a moment.)
        let tables = try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY name"
        )
        let ours =
            try db.tableExists("grdb_migrations")
            && (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")).contains {
                migrator.migrations.contains($0)
            }
        if !tables.isEmpty && !ours {
            let shown = tables.prefix(3).joined(separator: ", ") + (tables.count > 3 ? ", ..." : "")
            return LibraryError(
                .cannotOpen,
                "\(path): not a loop library: the database belongs to something else (tables \(shown)); it was not changed"
            )
        }
        if ours, try migrator.hasBeenSuperseded(db) {
            return LibraryError(
                .newerSchema,
                "\(path): this library was written by a newer version of loop; update loop to open it (it was not changed)"
            )
        }
        return nil
    }

    /// SQLite needs a little room (its shared-memory and log files) even to read a library: on
    /// a full disk, opening fails with an I/O error that says nothing of space. Say it.
    /// A library SQLite cannot open because its folder cannot be written (a read-only mount,
    /// or permissions): SQLite needs to write beside the database even to read it (its
    /// write-ahead log's index), and says only "unable to open database file".
    private static func refuseIfReadOnly(root: String) throws {
        guard access(root, W_OK) != 0, errno == EROFS || errno == EACCES || errno == EPERM else { return }
        throw LibraryError(
            .storageFailed,
            "\(root): the library is read-only (its files, its folder or the disk it is on): loop cannot open it; check their permissions (the library was not changed)"
        )
    }

    private static func refuseIfDiskFull(root: String, toChange: Bool = false) throws {
        let needed = 1 << 20
        if let free = DiskSpace.available(at: root), free < needed {
            throw LibraryError(
                .noSpace,
                DiskSpace.message(at: root, needing: needed)
                    + (toChange
                        ? ": loop needs a little room to change a library (`loop gc` frees what no loop uses)"
                        : ": loop needs a little room to open this library")
                    + "; free some space and try again (the library was not changed)"
            )
        }
    }

    // MARK: Creating

    /// Adds a loop from its source text and, optionally, a take cut into one range per phrase.
    /// `title`, `language` and `tags` override the text's own metadata.
    public func createLoop(
        source: LoopSource, title: String? = nil, language: String? = nil, tags: [String] = [],
        take: CutTake? = nil, sourceText: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> LoopDetail {
        try storing(needing: take.flatMap { Self.fileSize($0.path) }) {
            try Self.checkClipCount(take, source)
            let lock = take == nil && source.pictureFiles.isEmpty ? nil : try LibraryLock(layout, exclusive: false)
            // Pictures first: a refused one stops the work before the take is copied.
            let pictures = try storePictures(namedIn: source)
            let stored = try take.map { try storeTake($0, progress: progress) }
            let detail = try insertLoop(
                source: source, title: title, language: language, tags: tags, take: take, stored: stored,
                pictures: pictures, sourceText: sourceText)
            withExtendedLifetime(lock) {}
            return detail
        }
    }

    /// Writes a loop whose take (if any) and pictures are in the store already, in one transaction.
    func insertLoop(
        source: LoopSource, title: String?, language: String?, tags: [String], take: CutTake?, stored: StoredTake?,
        pictures: [String: PictureAssetRecord], sourceText: String?
    ) throws -> LoopDetail {
        try Self.checkClipCount(take, source)
        try Self.checkFields(
            title: title ?? source.title, language: language ?? source.language, tags: source.tags + tags)
        let phrases = source.phrases
        let now = Date()
        let id = UUID().uuidString.lowercased()
        let finalTitle = title ?? source.title ?? phrases.first?.text ?? "Untitled"
        var ranges = (take?.ranges ?? []).enumerated().makeIterator()
        let rows = NewLoopRows(
            record: LoopRecord(
                id: id, title: finalTitle, titleKey: matchingKey(finalTitle),
                language: (language ?? source.language)?.lowercased(),
                translationLanguage: source.translationLanguage?.lowercased(), sourceText: sourceText ?? source.text,
                createdAt: now, updatedAt: now, revision: 1, ownerKey: nil, originRevision: nil, editedLocally: false,
                pictureSha256: source.picture.flatMap { pictures[$0]?.sha256 }),
            tags: source.tags + tags,
            groups: source.groups.map { group in
                group.phrases.map { phrase in
                    let range = ranges.next()
                    return .init(
                        text: phrase.text, translation: phrase.translation,
                        clip: stored.flatMap { stored in range.map { (stored.asset.sha256, $0.element) } },
                        picture: phrase.picture.flatMap { pictures[$0]?.sha256 },
                        cutConfidence: range.flatMap { take?.confidence(at: $0.offset) })
                }
            },
            groupPictures: source.groups.map { $0.picture.flatMap { pictures[$0]?.sha256 } })
        TestStop.reached("loop.before-commit")
        try database.write { db in
            if let stored { try stored.asset.insert(db, onConflict: .ignore) }
            for picture in pictures.values { try picture.insert(db, onConflict: .ignore) }
            try rows.insert(db)
        }
        TestStop.reached("loop.committed")
        return try loop(id: id)
    }

    /// A title, language or tag is one line of text with no control character (``TextCheck``),
    /// no longer than a bundle carries.
    static func checkFields(title: String?, language: String?, tags: [String]) throws {
        let fields = [("title", title), ("language", language)] + tags.map { ("tag", Optional($0)) }
        for case (let name, let value?) in fields {
            if let problem = TextCheck.problem(inLine: value) {
                throw LibraryError(.invalidText, "the \(name) \(problem)")
            }
            guard value.count <= TextCheck.maxFieldCharacters else {
                throw LibraryError(
                    .invalidText,
                    "the \(name) is \(value.count) characters long; a \(name) holds at most \(TextCheck.maxFieldCharacters)"
                )
            }
        }
        if let language, !language.isEmpty, let problem = LanguageCode.problem(language) {
            throw LibraryError(.invalidText, "the language \(problem)")
        }
    }

    static func checkClipCount(_ take: CutTake?, _ source: LoopSource) throws {
        if let take, take.ranges.count != source.phrases.count {
            throw LibraryError(
                .invalidRange, "the take has \(take.ranges.count) clips for \(source.phrases.count) phrases")
        }
    }

    struct StoredTake {
        var asset: AudioAssetRecord
    }

    /// Copies a take into the audio store and describes it; checks its ranges fit.
    func storeTake(_ take: CutTake, progress: (@Sendable (Double) -> Void)?) throws -> StoredTake {
        let info = try checkRanges(of: take)
        return describe(take, info: info, file: try audio.store(copyOf: take.path, progress: progress))
    }

    /// The take's format, once every range is known to lie inside it.
    func checkRanges(of take: CutTake) throws -> AudioFileInfo {
        let info = try take.info ?? AudioFileReader(path: take.path).info
        // Compressed formats announce an estimated length: allow a clip a tenth of a second past it.
        let limit = info.format.isLossless ? info.frameCount : info.frameCount + info.sampleRate / 10
        for range in take.ranges where range.lowerBound < 0 || range.upperBound > limit || range.isEmpty {
            throw LibraryError(
                .invalidRange,
                "a clip (frames \(range.lowerBound)-\(range.upperBound)) lies outside the take (\(info.frameCount) frames)",
                path: take.path)
        }
        return info
    }

    /// The asset row of a stored take.
    func describe(_ take: CutTake, info: AudioFileInfo, file: AudioStore.StoredFile) -> StoredTake {
        let asset = AudioAssetRecord(
            sha256: file.sha256, path: file.path, format: info.format.rawValue, sampleRate: info.sampleRate,
            channelCount: info.channelCount, frameCount: max(info.frameCount, take.ranges.map(\.upperBound).max() ?? 0),
            byteCount: file.byteCount, createdAt: Date())
        return StoredTake(asset: asset)
    }

    static func insertTags(_ tags: [String], loopId: String, _ db: Database) throws {
        for tag in tags {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            try LoopTagRecord(loopId: loopId, tag: trimmed, tagKey: matchingKey(trimmed)).insert(
                db, onConflict: .ignore)
        }
    }

    // MARK: Reading

    /// Loops, optionally of one language or tag (matched without regard to case or accents),
    /// at most `limit` of them (all when nil).
    public func loops(language: String? = nil, tag: String? = nil, sort: LoopSort = .title, limit: Int? = nil) throws
        -> [LoopSummary]
    {
        try database.read { db in
            let (sql, arguments) = Self.listQuery(language: language, tag: tag, sort: sort, limit: limit)
            return try Self.summaries(db, sql: sql, arguments: arguments)
        }
    }

    /// The query behind ``loops(language:tag:sort:limit:)``: it reads the loop rows in order
    /// from the title or update index, stopping at the limit (a test checks the plan).
    static func listQuery(language: String?, tag: String?, sort: LoopSort, limit: Int?) -> (String, StatementArguments)
    {
        let (filter, arguments) = loopFilter(language: language, tag: tag)
        let order = sort == .title ? "loop.titleKey, loop.id" : "loop.updatedAt DESC, loop.id"
        let bound = limit.map { " LIMIT \(max($0, 0))" } ?? ""
        return ("SELECT \(summaryColumns) FROM loop \(filter) ORDER BY \(order)\(bound)", arguments)
    }

    /// How many loops ``loops(language:tag:sort:limit:)`` would list without a limit.
    public func loopCount(language: String? = nil, tag: String? = nil) throws -> Int {
        try database.read { db in
            let (filter, arguments) = Self.loopFilter(language: language, tag: tag)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM loop \(filter)", arguments: arguments) ?? 0
        }
    }

    /// The WHERE clause that picks loops of a language or a tag.
    static func loopFilter(language: String?, tag: String?) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let language {
            conditions.append("loop.language = ?")
            arguments.append(language.lowercased())
        }
        if let tag {
            conditions.append("EXISTS (SELECT 1 FROM loopTag WHERE loopTag.loopId = loop.id AND loopTag.tagKey = ?)")
            arguments.append(matchingKey(tag))
        }
        return (
            conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), StatementArguments(arguments)
        )
    }

    /// One loop with its groups and phrases.
    public func loop(id: String) throws -> LoopDetail {
        try database.read { db in try Self.detail(db, id: id, root: root) }
    }

    /// The id of the loop `reference` names, tried in this order: a unique start of its id (as
    /// git takes short hashes, 4 characters or more), its whole title, a unique start of its
    /// title. Titles match without regard to case, accents or width, in any script (`übung`,
    /// `Ubung` and `übung m` name "Übung macht"; `駅` names "駅で").
    public func resolve(_ reference: String) throws -> String {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw LibraryError(.loopNotFound, "no loop named: give a start of its id or of its title")
        }
        return try database.read { db in
            let lowered = trimmed.lowercased()
            let byId =
                lowered.count >= 4
                ? try String.fetchAll(
                    db, sql: "SELECT id FROM loop WHERE id >= ? AND id < ? ORDER BY id LIMIT 10",
                    arguments: [lowered, lowered + "\u{FFFF}"])
                : []
            if byId.count == 1 { return byId[0] }
            let key = matchingKey(trimmed)
            let byTitle = try String.fetchAll(
                db, sql: "SELECT id FROM loop WHERE titleKey = ? ORDER BY id LIMIT 10", arguments: [key])
            if byTitle.count == 1 && byId.isEmpty { return byTitle[0] }
            // A start of a title: a range over the title index, never a scan.
            let byTitleStart =
                byTitle.isEmpty && byId.isEmpty
                ? try String.fetchAll(
                    db, sql: "SELECT id FROM loop WHERE titleKey >= ? AND titleKey < ? ORDER BY titleKey, id LIMIT 10",
                    arguments: [key, key + "\u{10FFFF}"])
                : []
            if byTitleStart.count == 1 { return byTitleStart[0] }
            // A start of a word of a title ("café" for "Au café"): the last resort, a scan of
            // the titles, taken only when nothing else matched.
            let byWordStart =
                byTitle.isEmpty && byId.isEmpty && byTitleStart.isEmpty && !key.contains(" ")
                ? try String.fetchAll(
                    db, sql: "SELECT id FROM loop WHERE instr(' ' || titleKey, ?) > 0 ORDER BY titleKey, id LIMIT 10",
                    arguments: [" " + key])
                : []
            if byWordStart.count == 1 { return byWordStart[0] }
            let candidates = byId + byTitle.filter { !byId.contains($0) } + byTitleStart + byWordStart
            // A start of an id too short to be taken as one (as `loop list` shows ids, 8 long).
            if candidates.isEmpty, lowered.count < 4,
                let id = try String.fetchOne(
                    db, sql: "SELECT id FROM loop WHERE id >= ? AND id < ? ORDER BY id LIMIT 1",
                    arguments: [lowered, lowered + "\u{FFFF}"])
            {
                throw LibraryError(
                    .loopNotFound,
                    "'\(trimmed)' is too short a start of an id: give 4 characters or more (such as \(id.prefix(8)))")
            }
            if candidates.isEmpty {
                throw LibraryError(
                    .loopNotFound,
                    "no loop has an id, a title, or a title or title word starting '\(trimmed)' (case and accents aside)"
                )
            }
            let named = try candidates.prefix(5).map { id in
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT title, createdAt, (SELECT count(*) FROM phrase WHERE loopId = loop.id) AS phrases FROM loop WHERE id = ?",
                    arguments: [id])
                return (
                    id: id, title: row?["title"] as String? ?? "", added: row.flatMap { StoredDate.read($0, 1) },
                    phrases: row?["phrases"] as Int? ?? 0
                )
            }
            let more = candidates.count > 5 ? ", ..." : ""
            let count = candidates.count >= 10 ? "10 or more" : "\(candidates.count)"
            // Loops of one title: more of it cannot tell them apart, their ids do.
            if Set(named.map(\.title)).count == 1 {
                let added = DateFormatter()
                added.locale = Locale(identifier: "en_US_POSIX")
                added.dateFormat = "yyyy-MM-dd HH:mm"
                let shown = named.map { loop in
                    "\(loop.id.prefix(8)) (\(loop.phrases) phrase\(loop.phrases == 1 ? "" : "s")"
                        + (loop.added.map { ", added \(added.string(from: $0))" } ?? "") + ")"
                }.joined(separator: ", ")
                throw LibraryError(
                    .ambiguousLoop,
                    "'\(trimmed)' names \(count) loops of the same title, '\(named[0].title)': give the id of the one you mean, \(shown)\(more)"
                )
            }
            let shown = named.map { "\($0.title) (\($0.id.prefix(8)))" }.joined(separator: ", ")
            throw LibraryError(
                .ambiguousLoop, "'\(trimmed)' names \(count) loops: \(shown)\(more); give more of the title or the id")
        }
    }

    /// The ids of the loops whose title is `title`, case and accents aside.
    public func loopIDs(titled title: String) throws -> [String] {
        try database.read { db in try Self.loopIDs(titled: title, db) }
    }

    static func loopIDs(titled title: String, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT id FROM loop WHERE titleKey = ? ORDER BY id", arguments: [matchingKey(title)])
    }

    /// The loop `id`, whole, and the other loops titled as it is, in one read.
    public func loopAndNamesakes(id: String) throws -> (LoopDetail, Namesakes) {
        try database.read { db in
            let detail = try Self.detail(db, id: id, root: root)
            let title = detail.summary.title
            let others = try Self.loopIDs(titled: title, db).filter { $0 != id }
            var number = others.count + 1
            while !others.isEmpty, try !Self.loopIDs(titled: "\(title) \(number)", db).isEmpty { number += 1 }
            return (detail, Namesakes(others: others, distinctTitle: others.isEmpty ? nil : "\(title) \(number)"))
        }
    }

    // MARK: Search

    /// Matches ranked at most, for a very common word (see ``search(_:inLoop:limit:)``).
    static let rankedMatchLimit = 2_000

    /// An FTS5 pattern for the phrases holding every word of `query` as a word or the start of
    /// one: accents folded (also those typed as combining marks), words split at ASCII spaces and
    /// punctuation (as SQLite's `ascii` tokenizer splits), each quoted so that none is read as
    /// query syntax (`OR`, `NEAR`, `^`), and left to the index's own tokenizer to fold case and
    /// to cut a run of Chinese into a phrase of characters. Nil when nothing is left to search for.
    ///
    /// GRDB's `FTS5Pattern(matchingAllPrefixesIn:)` splits the same way, but opens two in-memory
    /// databases to do it (one to tokenize, one to check the pattern): a millisecond of every search.
    static func prefixPattern(_ query: String) -> String? {
        let words = query.folding(options: [.diacriticInsensitive], locale: nil).split {
            $0.isASCII && !$0.isLetter && !$0.isNumber
        }
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// Phrases whose text or translation holds every word of `query` (as a word or the start of
    /// one), case and accents aside, best matches first (for a word in more than 2,000 phrases:
    /// the best of its first 2,000).
    public func search(_ query: String, inLoop loopId: String? = nil, limit: Int = 50) throws -> [SearchHit] {
        guard let pattern = Self.prefixPattern(query) else {
            throw LibraryError(.invalidQuery, "nothing to search for in '\(query)': give a word or the start of one")
        }
        return try database.read { db in
            // Rank inside the full-text index first, then look up only the phrases kept. A word
            // in so many phrases that ranking them all would be slow (and mean little) is ranked
            // among its first `rankedMatchLimit` matches: one pass along the index in rowid
            // order, scoring each match as it goes (no second pass to find where to stop, and no
            // sort of every match by rank inside the index). The score is bm25's order, without
            // the walk over every match of a lone word that bm25 makes to weigh it (CSQLiteExtensions).
            let restriction = loopId == nil ? "" : "AND rowid IN (SELECT id FROM phrase WHERE loopId = ?)"
            var matchArguments: [(any DatabaseValueConvertible)?] = [pattern]
            if let loopId { matchArguments.append(loopId) }
            let sql = """
                SELECT phrase.loopId, loop.title, phraseGroup.position, phrase.position, phrase.text, phrase.translation
                FROM (SELECT rowid, score FROM (
                        SELECT rowid, loop_rank(phraseSearch) AS score FROM phraseSearch WHERE phraseSearch MATCH ? \(restriction)
                        ORDER BY rowid LIMIT \(Self.rankedMatchLimit))
                      ORDER BY score LIMIT ?) AS hit
                JOIN phrase ON phrase.id = hit.rowid
                JOIN loop ON loop.id = phrase.loopId
                JOIN phraseGroup ON phraseGroup.id = phrase.groupId
                ORDER BY hit.score, phrase.loopId, phrase.position
                """
            let arguments = matchArguments + [limit]
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
                SearchHit(
                    loopId: row[0], loopTitle: row[1], group: (row[2] as Int) + 1, number: (row[3] as Int) + 1,
                    text: row[4], translation: row[5])
            }
        }
    }

    // MARK: Assembling

    static let summaryColumns = """
        loop.id, loop.title, loop.language, loop.translationLanguage, loop.createdAt, loop.updatedAt, loop.revision,
        loop.groupCount, loop.phraseCount, loop.phrasesNeedingAudio
        """

    /// Summaries of the loops `sql` selects (``summaryColumns``, in that order). The counts are
    /// kept on the loop row (migration v6), so a listing reads one covering index and the tags.
    static func summaries(_ db: Database, sql: String, arguments: StatementArguments) throws -> [LoopSummary] {
        // Cursors: each row is decoded where it lies, never copied (10,000 loops at a time).
        var summaries: [LoopSummary] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            summaries.append(
                LoopSummary(
                    id: row[0], title: row[1], language: row[2], translationLanguage: row[3], tags: [],
                    groupCount: row[7], phraseCount: row[8], phrasesNeedingAudio: row[9],
                    createdAt: StoredDate.read(row, 4) ?? .distantPast,
                    updatedAt: StoredDate.read(row, 5) ?? .distantPast, revision: row[6]))
        }
        guard !summaries.isEmpty else { return [] }
        let filtered = summaries.count < 200
        let index = Dictionary(uniqueKeysWithValues: summaries.enumerated().map { ($1.id, $0) })
        let restriction = filtered ? "WHERE loopId IN (\(databaseQuestionMarks(count: summaries.count)))" : ""
        let idArguments = filtered ? StatementArguments(summaries.map(\.id)) : StatementArguments()
        let tags = try Row.fetchCursor(
            db, sql: "SELECT loopId, tag FROM loopTag \(restriction) ORDER BY tagKey", arguments: idArguments)
        while let row = try tags.next() {
            guard let position = index[row[0] as String] else { continue }
            summaries[position].tags.append(row[1])
        }
        return summaries
    }

    /// One loop, read with plain rows (no record decoding: `loop show` is a whole command, and
    /// its time is mostly the process's own).
    static func detail(_ db: Database, id: String, root: String) throws -> LoopDetail {
        guard
            let loop = try Row.fetchOne(
                db,
                sql: """
                    SELECT \(summaryColumns), loop.sourceText, loop.pictureSha256 FROM loop WHERE loop.id = ?
                    """, arguments: [id])
        else {
            throw LibraryError(.loopNotFound, "no loop with id \(id)")
        }
        let groupRows = try Row.fetchAll(
            db, sql: "SELECT id, pictureSha256 FROM phraseGroup WHERE loopId = ? ORDER BY position", arguments: [id])
        let groupIds = groupRows.map { $0[0] as Int64 }
        let assets = try Row.fetchAll(
            db,
            sql: """
                SELECT sha256, path, sampleRate, channelCount, frameCount FROM audioAsset
                WHERE sha256 IN (SELECT audioSha256 FROM phrase WHERE loopId = ?)
                """, arguments: [id])
        var assetsByHash: [String: Row] = [:]
        for asset in assets { assetsByHash[asset[0]] = asset }
        let tags = try String.fetchAll(
            db, sql: "SELECT tag FROM loopTag WHERE loopId = ? ORDER BY tagKey", arguments: [id])
        let groupNumber = Dictionary(uniqueKeysWithValues: groupIds.enumerated().map { ($1, $0 + 1) })
        var grouped = [[StoredPhrase]](repeating: [], count: groupIds.count)
        var needingAudio = 0
        let phrases = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, groupId, text, translation, audioSha256, startFrame, endFrame, recordedText, pictureSha256, cutConfidence FROM phrase WHERE loopId = ? ORDER BY position
                """, arguments: [id])
        var number = 0
        var phrasePictures: [(group: Int, index: Int, sha256: String)] = []
        while let phrase = try phrases.next() {
            number += 1
            let group = groupNumber[phrase[1] as Int64] ?? 1
            var audio: PhraseAudio?
            if let hash: String = phrase[4], let asset = assetsByHash[hash], let start: Int = phrase[5],
                let end: Int = phrase[6]
            {
                audio = PhraseAudio(
                    sha256: hash, path: LibraryLayout(root: root).absolute(asset[1]), sampleRate: asset[2],
                    channelCount: asset[3],
                    takeFrameCount: asset[4], startFrame: start, endFrame: end, cutConfidence: phrase[9])
            }
            if (phrase[4] as String?) == nil { needingAudio += 1 }
            if let picture: String = phrase[8] { phrasePictures.append((group - 1, grouped[group - 1].count, picture)) }
            grouped[group - 1].append(
                StoredPhrase(
                    id: phrase[0], number: number, group: group, text: phrase[2], translation: phrase[3], audio: audio,
                    recordedText: audio == nil ? nil : phrase[7]))
        }
        let loopPicture: String? = loop[11]
        let groupPictureHashes = groupRows.map { $0[1] as String? }
        let pictures = try Self.pictures(
            Set([loopPicture].compactMap { $0 } + groupPictureHashes.compactMap { $0 } + phrasePictures.map(\.sha256)),
            db, root: root)
        for picture in phrasePictures { grouped[picture.group][picture.index].picture = pictures[picture.sha256] }
        let summary = LoopSummary(
            id: loop[0], title: loop[1], language: loop[2], translationLanguage: loop[3], tags: tags,
            groupCount: groupIds.count, phraseCount: number, phrasesNeedingAudio: needingAudio,
            createdAt: loop[4], updatedAt: loop[5], revision: loop[6])
        return LoopDetail(
            summary: summary, sourceText: loop[10], groups: grouped, picture: loopPicture.flatMap { pictures[$0] },
            groupPictures: groupPictureHashes.map { $0.flatMap { pictures[$0] } })
    }
}

extension LibraryStore {
    /// Adds many loops without audio in one transaction (bulk imports, benchmarks).
    public func createLoops(_ sources: [LoopSource]) throws {
        let now = Date()
        try database.write { db in
            for source in sources {
                let id = UUID().uuidString.lowercased()
                let title = source.title ?? source.phrases.first?.text ?? "Untitled"
                try NewLoopRows(
                    record: LoopRecord(
                        id: id, title: title, titleKey: matchingKey(title), language: source.language?.lowercased(),
                        translationLanguage: source.translationLanguage?.lowercased(), sourceText: source.text,
                        createdAt: now,
                        updatedAt: now, revision: 1, ownerKey: nil, originRevision: nil, editedLocally: false),
                    tags: source.tags,
                    groups: source.groups.map {
                        $0.phrases.map { .init(text: $0.text, translation: $0.translation, clip: nil) }
                    }
                ).insert(db)
            }
        }
    }
}
