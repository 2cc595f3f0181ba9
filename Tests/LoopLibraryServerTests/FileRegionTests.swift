import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import LoopLibraryServer

/// A download's notes (``FileRegions``) become ranges of files the kernel sends, next to the
/// socket; every other byte goes out as it was written.
struct FileRegionTests {
    static func file(bytes: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString)").path
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aNoteIsSentAsTheRangeOfTheFileItNamesAndTheFileClosedAfter() throws {
        let path = try Self.file(bytes: 10_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let channel = EmbeddedChannel(handler: FileRegionSender())
        let note = FileRegions.note(path: path, offset: 1_234, count: 5_000)
        #expect(FileRegions.bytesSent(by: note) == 5_000, "what the access log and the metrics count")
        try channel.writeOutbound(IOData.byteBuffer(note))
        guard case .fileRegion(let region) = try channel.readOutbound(as: IOData.self) else {
            Issue.record("the note went out as bytes")
            return
        }
        #expect(region.readerIndex == 1_234 && region.endIndex == 6_234)
        #expect(!region.fileHandle.isOpen, "closed once written")
        if region.fileHandle.isOpen { try region.fileHandle.close() }
        #expect(try channel.finish().isClean)
    }

    @Test func bytesThatAreNotANoteGoOutAsTheyAre() throws {
        let channel = EmbeddedChannel(handler: FileRegionSender())
        let page = ByteBuffer(string: "<html>a page</html>")
        // A note of another process (another key): bytes like any others.
        var foreign = FileRegions.note(path: "/etc/hostname", offset: 0, count: 10)
        foreign.setInteger(~(foreign.getInteger(at: 0, as: UInt8.self) ?? 0), at: 0)
        for buffer in [page, foreign, ByteBuffer()] {
            #expect(FileRegions.bytesSent(by: buffer) == buffer.readableBytes)
            try channel.writeOutbound(IOData.byteBuffer(buffer))
            #expect(try channel.readOutbound(as: IOData.self) == .byteBuffer(buffer))
        }
        #expect(try channel.finish().isClean)
    }

    @Test(arguments: [false, true])
    func aFileThatCannotBeOpenedOrIsTooShortClosesTheConnectionRatherThanSendOtherBytes(exists: Bool) throws {
        let path = exists ? try Self.file(bytes: 100) : "/no/such/blob-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let channel = EmbeddedChannel(handler: FileRegionSender())
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(IOData.byteBuffer(FileRegions.note(path: path, offset: 50, count: 51)), promise: written)
        #expect(throws: IOError.self) { try written.futureResult.wait() }
        #expect(try channel.readOutbound(as: IOData.self) == nil)
        #expect(!channel.isActive)
    }
}
