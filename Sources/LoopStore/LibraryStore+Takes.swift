import Foundation
import LoopFoundation
import LoopModel
import LoopText

/// A take copied into the library's incoming folder, hashed and synced on the way, and not yet
/// in its place: ``LibraryStore/createLoop(source:title:language:tags:take:received:sourceText:)``
/// or ``LibraryStore/attach(loop:phraseIds:take:received:)`` puts it there with the rows that
/// refer to it, or ``LibraryStore/discard(_:)`` removes it.
public struct ReceivedTake: Sendable {
    /// Where the copy is (inside the library).
    public let path: String
    /// Its SHA-256 (hex), computed while copying.
    public let sha256: String
    /// Its size in bytes.
    public let byteCount: Int
}

extension LibraryStore {
    /// Copies a take into the library while the caller does other work with it (cutting it):
    /// hold ``whileInFlight(_:)-5hl7y`` from here until the rows that refer to it commit, so
    /// that `gc` never takes the copy.
    public func receiveTake(copyOf path: String, progress: (@Sendable (Double) -> Void)? = nil) throws -> ReceivedTake {
        let file = try storing(needing: Self.fileSize(path)) { try audio.receive(copyOf: path, progress: progress) }
        return ReceivedTake(path: file.path, sha256: file.sha256, byteCount: file.byteCount)
    }

    /// Removes a received take that will not be used.
    public func discard(_ take: ReceivedTake) {
        try? FileManager.default.removeItem(atPath: take.path)
    }

    /// Adds a loop whose take was received already: the take moves into its place, then one
    /// transaction adds the loop. `take.path` names the original (for the ranges' check, unless
    /// `take.info` says its format). Call it inside ``whileInFlight(_:)-5hl7y``, whose lock
    /// keeps `gc` away from the received take and the pictures until the rows commit.
    public func createLoop(
        source: LoopSource, title: String? = nil, language: String? = nil, tags: [String] = [],
        take: CutTake, received: ReceivedTake, sourceText: String? = nil
    ) throws -> LoopDetail {
        try storing(needing: received.byteCount) {
            let pictures = try storePictures(namedIn: source)
            let stored = try adopt(received, for: take)
            return try insertLoop(
                source: source, title: title, language: language, tags: tags, take: take, stored: stored,
                pictures: pictures, sourceText: sourceText)
        }
    }

    /// The take's format checked against its ranges, then the received copy moved into place.
    func adopt(_ received: ReceivedTake, for take: CutTake) throws -> StoredTake {
        let info = try checkRanges(of: take)
        return describe(
            take, info: info,
            file: try audio.adopt(verifiedFile: received.path, sha256: received.sha256, byteCount: received.byteCount))
    }

    /// Runs storage work, reporting a full disk as such (with the device and what was needed).
    public func reportingFullDisk<T>(needing bytes: Int? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error where !(error is LibraryError) && DiskSpace.isOutOfSpace(error) {
            throw LibraryError(
                .noSpace,
                DiskSpace.message(at: root, needing: bytes)
                    + "; free some space and try again (the library was not changed)")
        }
    }

    /// Runs `body` as work in flight: `gc` waits until it returns, so the files it keeps in the
    /// library's incoming folder are never taken for the leftovers of an interrupted copy.
    public func whileInFlight<T>(_ body: () async throws -> T) async throws -> T {
        let lock = try LibraryLock(layout, exclusive: false)
        defer { withExtendedLifetime(lock) {} }
        return try await body()
    }
}
