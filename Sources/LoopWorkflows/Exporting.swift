import Foundation
import LoopExchange
import LoopFoundation
import LoopModel
import LoopStore

/// Taking loops out of the library: into one signed bundle, or one loop as subtitles, an
/// Audacity label track or an Anki deck.
public struct ExportWorkflow: Sendable {
    /// What to write.
    public enum Format: String, Sendable, CaseIterable {
        /// A signed bundle of the loops (`loop import` reads it).
        case bundle
        /// SubRip subtitles over the take (or over the clips joined).
        case srt
        /// WebVTT subtitles, likewise.
        case vtt
        /// An Audacity label track, likewise.
        case labels
        /// An Anki package (.apkg): a note a phrase.
        case anki

        /// Whether it holds one loop only.
        public var isOneLoop: Bool { self != .bundle }
    }

    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    public init(library: Library) {
        self.init(store: library.store)
    }

    /// Writes the loops `ids` as `format` to `path`. With subtitles or labels, `joinedClips`
    /// also writes the clips joined into one FLAC file beside (which the times then follow), and
    /// `translations` adds each phrase's translation as a second line. `progress` follows a
    /// bundle's writing (0...1).
    public func export(
        loops ids: [String], as format: Format, to path: String, joinedClips: Bool = false, translations: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws {
        let store = self.store
        switch format {
        case .bundle:
            try await BundleExporter(store: store).export(loops: ids, to: path, progress: progress)
        case .srt, .vtt, .labels:
            let timed = TimedTextExport.Format(rawValue: format.rawValue) ?? .srt
            let export = TimedTextExport(format: timed, joinedClips: joinedClips, translations: translations)
            _ = try await BlockingWork.run("loop export") { try export.write(try store.loop(id: ids[0]), to: path) }
        case .anki:
            try await BlockingWork.run("loop export") { try AnkiPackage().write(try store.loop(id: ids[0]), to: path) }
        }
    }
}
