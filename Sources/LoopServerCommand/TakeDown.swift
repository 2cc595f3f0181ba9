import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

struct TakeDown: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "takedown",
        abstract:
            "Take a loop down (copyright, abuse): off its pages, search, feed and downloads at once; its author cannot publish it again."
    )

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String
    @Option(
        help: ArgumentHelp("Why, in a line: what its author is told when they publish it again.", valueName: "text"))
    var reason: String

    func run() async throws {
        let reason = try operatorReason(reason)
        let logger = makeLogger(level: .notice)
        guard let id = try await storage.operatorChange({ try await $0.takeDown(loop, reason: reason, now: Date()) })
        else {
            throw operatorFailure("no loop '\(loop)' is in this library")
        }
        logger.notice("took down loop \(id): \(reason)")
    }
}
