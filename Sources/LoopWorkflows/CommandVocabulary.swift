import Foundation
import LoopFoundation
import LoopLibraryAPI
import LoopModel
import LoopPlayback
import LoopStudy
import LoopText

// The values an interface parses into, named by the workflow that takes them, with the default
// each workflow takes: an interface names them and passes them on, and reads nothing of them.

extension Library {
    /// The orders the library lists its loops in.
    public typealias Order = LoopSort
    /// By title.
    public static let defaultOrder = Order.title

    /// Why `code` cannot be a language (a code: letters, digits and `-`), or nil when it can.
    public static func languageProblem(_ code: String) -> String? { LanguageCode.problem(code) }

    /// The text at `path` (`-`: standard input) split into groups and phrases, as a loop's is.
    public static func readText(_ path: String, splitSentences: Bool) throws -> LoopSource {
        try LoopSource(contentsOf: path, options: .init(splitSentences: splitSentences))
    }

    /// The title of loop `id`.
    public func title(ofLoop id: String) throws -> String { try loop(id: id).summary.title }
}

extension StudyWorkflow {
    /// How a session plays: repeat with me, or listen and repeat.
    public typealias Mode = StudyMode
    /// Repeat with me.
    public static let defaultMode = Mode.repeatWithMe
    /// The mode whose gaps shadowing records (a gap after each phrase).
    public static let shadowingMode = Mode.repeatWithMe
    /// The speeds a session plays at (pitch kept).
    public static let speeds = StudySettings.speeds

    /// A session's settings, as a command gives them.
    public static func settings(mode: Mode, repeats: Int, gapFactor: Double, speed: Double) -> StudySettings {
        StudySettings(mode: mode, repeats: repeats, gapFactor: gapFactor, speed: speed)
    }

    /// Why `groups` (`1,3-4`) cannot name groups, or nil when it can.
    public static func groupsProblem(_ groups: String) -> String? {
        do {
            _ = try GroupSelection.ranges(groups)
            return nil
        } catch {
            return error.message
        }
    }

    /// The player of a session over `prepared`, of the groups `groups` names (`1,3-4`; nil: all),
    /// with these settings: see ``player(for:groups:settings:selection:destination:realTime:shadowing:)``.
    public func player(
        for prepared: PreparedStudy, mode: Mode, repeats: Int, gapFactor: Double, speed: Double, rounds: Int?,
        groups: String?, destination: SoundDestination, realTime: Bool, shadowing: ShadowingSession? = nil
    ) throws -> StudyPlayer {
        let selection = try groups.map { try GroupSelection.groups($0, groupCount: prepared.groups.count) } ?? []
        let settings = StudySettings(mode: mode, repeats: repeats, gapFactor: gapFactor, speed: speed, rounds: rounds)
        return try player(
            for: prepared, settings: settings, selection: selection, destination: destination, realTime: realTime,
            shadowing: shadowing)
    }

    /// Plays phrase `phrase`, or group `group` (1-based), or all of `prepared` once (`loop play`).
    public func playOnce(
        _ prepared: PreparedStudy, phrase: Int?, group: Int?, speed: Double, destination: SoundDestination
    ) async throws {
        var groups = prepared.groups
        if let phrase {
            guard let found = groups.joined().first(where: { $0.number == phrase }) else {
                throw WorkflowError(.refused, "the loop has \(groups.joined().count) phrases, not \(phrase)")
            }
            groups = [[found]]
        } else if let group {
            guard groups.indices.contains(group - 1) else {
                throw WorkflowError(.refused, "the loop has \(groups.count) groups, not \(group)")
            }
            groups = [groups[group - 1]]
        }
        try await playOnce(prepared, groups: groups, speed: speed, destination: destination)
    }
}

extension LoopLibrarySharing {
    /// The orders a Loop Library lists its loops in: latest, hot.
    public typealias Order = CatalogQuery.Sort
    /// Newest update first.
    public static let defaultOrder = Order.latest

    /// Runs `loop-server`, the Loop Library server installed beside this program, with
    /// `arguments`, in place of this process: returns only by throwing, when it cannot.
    public static func runServer(arguments: [String]) throws {
        let server = ThisProgram.sibling(named: "loop-server")
        guard FileManager.default.isExecutableFile(atPath: server) else {
            throw WorkflowError(
                .refused,
                "no such program: the Loop Library server is built with `swift build --product loop-server` and installed beside `loop`",
                path: server)
        }
        let failure = ThisProgram.replace(with: server, arguments: arguments)
        throw WorkflowError(.refused, "cannot run it (\(failure))", path: server)
    }

    /// Whether `text` is a server's address rather than a file or a folder.
    public static func isAddress(_ text: String) -> Bool { text.hasPrefix("http://") || text.hasPrefix("https://") }

    /// A page (from 1) of `limit` loops of the catalog of the server at `address` (or the
    /// configured one) that hold `words` and match the filters, and each loop's link there.
    public static func browse(
        words: String, language: String?, translation: String?, tag: String?, author: String?, featured: Bool,
        order: Order, page: Int, limit: Int, server address: String?
    ) async throws -> (page: CatalogPage, link: @Sendable (String) -> String) {
        let query = CatalogQuery(
            text: words, language: language, translationLanguage: translation, tag: tag, author: author,
            featuredOnly: featured, sort: order, offset: (page - 1) * limit, limit: limit)
        return try await browse(query, server: address)
    }
}

extension EditingWorkflow {
    /// Gives the picture at `file` (nil: takes it off) to phrase `phrase`, else group `group`
    /// (1-based), else the loop.
    public func setPicture(_ file: String?, ofLoop id: String, group: Int?, phrase: Int?) async throws {
        let place: PicturePlace = group.map { .group($0) } ?? phrase.map { .phrase($0) } ?? .loop
        _ = try await setPicture(file, ofLoop: id, at: place)
    }
}
