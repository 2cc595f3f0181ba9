import Foundation
import Hummingbird
import LoopFoundation
import Testing

@testable import LoopLibraryServer

/// What the server answers each error with: a refusal its status and its words, the server's
/// own failure a 500 (507 when the disk is full) that keeps its words in the log.
struct ErrorAnswerTests {
    struct Unforeseen: Error, CustomStringConvertible {
        var description: String { "connection to /var/run/secret.sock refused" }
    }

    @Test func aRefusalIsAnsweredWithItsStatusAndWords() throws {
        let rate = ErrorAnswer(for: PublishError(.rateLimited, "too many changes from this key"))
        #expect(rate.status == .tooManyRequests && rate.retryAfter == 60 && rate.cause == "rateLimited")
        #expect(rate.message == "too many changes from this key")
        #expect(ErrorAnswer(for: PublishError(.busy, "busy")).retryAfter == 5)
        #expect(ErrorAnswer(for: CatalogError(.staleRevision, "revision 2 is published")).status == .conflict)
        #expect(ErrorAnswer(for: APIError.noSuchLoop("x")).status == .notFound)
        #expect(ErrorAnswer(for: HTTPError(.methodNotAllowed)).status == .methodNotAllowed)
    }

    @Test func theServersOwnFailureKeepsItsWordsOutOfTheAnswer() throws {
        let unforeseen = ErrorAnswer(for: Unforeseen())
        #expect(unforeseen.status == .internalServerError && unforeseen.message == "internal error")
        let catalog = ErrorAnswer(for: CatalogError(.database, "SQLITE_CORRUPT at /srv/catalog.sqlite"))
        #expect(catalog.status == .internalServerError && !catalog.message.contains("/srv"))
        let full = ErrorAnswer(for: FileSystemError(code: ENOSPC, path: "/srv/blobs/ab"))
        #expect(full.status.code == 507 && full.cause == "diskFull" && !full.message.contains("/srv"))
        #expect(full.response.headers[.contentType] == "application/json")
    }
}
