import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

struct Unfeature: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop featuring a loop on the front page.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String

    func run() async throws { try await setFeatured(loop, false, storage) }
}

func setFeatured(_ loop: String, _ featured: Bool, _ storage: StorageOptions) async throws {
    let changed = try await storage.operatorChange { try await $0.setFeatured(loop, featured: featured) }
    guard changed else { throw operatorFailure("no loop '\(loop)' is published in this library") }
}
