import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

struct CollectBlobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract:
            "Remove the blobs no listed loop refers to (unpublished, taken down or replaced loops'), once older than the grace period.",
        discussion: """
            Safe while servers run, from any machine that shares the data folder: a blob stored \
            within the grace period is kept (a publish stores its blobs before its catalog \
            change), and each is looked at again just before it goes. Prints what it removed.
            """)

    @OptionGroup var storage: StorageOptions
    @Option(
        parsing: .unconditional, help: ArgumentHelp("Keep blobs stored within this many hours.", valueName: "hours"))
    var grace: Double = 24
    @Flag(help: "Say what would go, and remove nothing.") var dryRun = false
    @Flag(help: "Print the figures as JSON.") var json = false

    func validate() throws {
        guard grace >= 0.25, grace <= 24 * 365 else {
            throw ValidationError("--grace takes 0.25 to 8760 hours, not \(grace)")
        }
    }

    func run() async throws {
        let blobs = BlobStore(layout: ServerLayout(root: storage.dataFolder))
        let storedBefore = Date().addingTimeInterval(-grace * 3600)
        let collection = try await storage.operatorChange { catalog in
            try await blobs.collect(
                storedBefore: storedBefore, dryRun: dryRun, referenced: { try await catalog.listedBlobs() })
        }
        if json {
            let figures: [String: Int] = [
                "removed": collection.removed, "removedBytes": collection.removedBytes, "kept": collection.kept,
            ]
            let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let verb = dryRun ? "would remove" : "removed"
        print("\(verb) \(collection.removed) blob(s), \(collection.removedBytes >> 20) MiB; kept \(collection.kept)")
    }
}

/// An operator's reason, in one line of at most 300 characters.
func operatorReason(_ text: String) throws -> String {
    let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !reason.isEmpty, reason.count <= 300,
        !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
        throw ValidationError("--reason takes one line of 1 to 300 characters")
    }
    return reason
}
