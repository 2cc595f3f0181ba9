import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

struct Feature: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Feature a loop on the front page.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String

    func run() async throws { try await setFeatured(loop, true, storage) }
}
