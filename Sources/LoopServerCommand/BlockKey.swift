import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

struct BlockKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block-key",
        abstract: "Block an author's key: its publishes and unpublishes are refused, and its loops are taken down.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The author's key (base64) or its fingerprint (as loop browse --author and the pages show it).")
    var key: String
    @Option(help: ArgumentHelp("Why, in a line: what the author is told when they publish.", valueName: "text"))
    var reason: String

    func run() async throws {
        let reason = try operatorReason(reason)
        let logger = makeLogger(level: .notice)
        let key = key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let taken = try await storage.operatorChange({ try await $0.blockKey(key, reason: reason, now: Date()) })
        else {
            throw operatorFailure("no author with the key or fingerprint '\(key.prefix(80))' has published here")
        }
        logger.notice("blocked key \(key): \(reason); \(taken) loop(s) taken down")
    }
}
