import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopPictures
import LoopText

/// A picture a bundle brings: where it was extracted and what it is.
public struct SharedPicture: Sendable {
    /// The picture's SHA-256 (hex).
    public var sha256: String
    /// The verified file; when it lies inside the library folder it is moved into the store.
    public var path: String
    /// Its format and size, as checked.
    public var info: PictureInfo

    /// A picture from its hash, file and what it is.
    public init(sha256: String, path: String, info: PictureInfo) {
        self.sha256 = sha256
        self.path = path
        self.info = info
    }
}

extension LibraryStore {
    /// Gives the loop, one of its groups or one of its phrases the picture at `file` (checked
    /// as hostile input, then stored), replacing any it had; with nil, takes it off. The file
    /// stays in the store until `loop gc`.
    public func setPicture(_ file: String?, ofLoop id: String, at place: PicturePlace) throws -> LoopDetail {
        try storing(needing: file.flatMap(Self.fileSize)) {
            let lock = try LibraryLock(layout, exclusive: false)
            let asset = try file.map(storePicture)
            try database.write { db in
                guard var loop = try LoopRecord.fetchOne(db, key: id) else {
                    throw LibraryError(.loopNotFound, "no loop with id \(id)")
                }
                try asset?.insert(db, onConflict: .ignore)
                let hash = asset?.sha256
                switch place {
                case .loop:
                    loop.pictureSha256 = hash
                case .group(let number):
                    try db.execute(
                        sql: "UPDATE phraseGroup SET pictureSha256 = ? WHERE loopId = ? AND position = ?",
                        arguments: [hash, id, number - 1])
                    guard db.changesCount == 1 else {
                        throw LibraryError(.phraseNotFound, "the loop has no group \(number)")
                    }
                case .phrase(let number):
                    try db.execute(
                        sql: "UPDATE phrase SET pictureSha256 = ? WHERE loopId = ? AND position = ?",
                        arguments: [hash, id, number - 1])
                    guard db.changesCount == 1 else {
                        throw LibraryError(.phraseNotFound, "the loop has no phrase \(number)")
                    }
                }
                try Self.touch(&loop, db)
            }
            withExtendedLifetime(lock) {}
            return try self.loop(id: id)
        }
    }

    /// Checks the picture at `path` (``checkPicture``) and copies it into the store; its row is
    /// for the caller to insert (in the transaction that refers to it). Call with the library
    /// lock held shared.
    func storePicture(_ path: String) throws -> PictureAssetRecord {
        let info = try checkPicture(path)
        let file = try audio.store(copyOf: path, as: .picture)
        return PictureAssetRecord(
            sha256: file.sha256, path: file.path, format: info.format.rawValue, width: info.width, height: info.height,
            byteCount: file.byteCount, createdAt: Date())
    }

    /// Stores a verified picture a bundle brought (moved when it lies in the library already).
    func storeShared(_ picture: SharedPicture) throws -> PictureAssetRecord {
        let file =
            layout.isIncoming(picture.path)
            ? try audio.adopt(
                verifiedFile: picture.path, sha256: picture.sha256, byteCount: picture.info.byteCount, as: .picture)
            : try audio.store(copyOf: picture.path, as: .picture)
        return PictureAssetRecord(
            sha256: file.sha256, path: file.path, format: picture.info.format.rawValue, width: picture.info.width,
            height: picture.info.height, byteCount: file.byteCount, createdAt: Date())
    }

    /// Every picture a loop's text names, checked and stored, by file name.
    func storePictures(namedIn source: LoopSource) throws -> [String: PictureAssetRecord] {
        var stored: [String: PictureAssetRecord] = [:]
        for file in source.pictureFiles where stored[file] == nil { stored[file] = try storePicture(file) }
        return stored
    }

    /// The pictures with these hashes, by hash.
    static func pictures(_ hashes: Set<String>, _ db: Database, root: String) throws -> [String: StoredPicture] {
        guard !hashes.isEmpty else { return [:] }
        let layout = LibraryLayout(root: root)
        var found: [String: StoredPicture] = [:]
        for record in try PictureAssetRecord.fetchAll(db, keys: Array(hashes)) {
            guard let format = PictureFormat(rawValue: record.format) else { continue }
            found[record.sha256] = StoredPicture(
                sha256: record.sha256, path: layout.absolute(record.path), format: format, width: record.width,
                height: record.height, byteCount: record.byteCount)
        }
        return found
    }
}
