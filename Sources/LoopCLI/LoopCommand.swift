import ArgumentParser
import LoopReports

/// `loop`: author and study looping audio phrases.
public struct LoopCommand: AsyncParsableCommand {
    /// The command's name, help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Learn a language from short looping audio phrases.",
        discussion: CommandHelp.loop,
        version: LoopCommand.version,
        subcommands: [
            SplitCommand.self, SegmentCommand.self, CutCommand.self,
            NewCommand.self, ListCommand.self, ShowCommand.self, SearchCommand.self, EditCommand.self,
            AdjustCommand.self, AttachCommand.self, ImageCommand.self, RemoveCommand.self, GarbageCommand.self,
            DoctorCommand.self,
            RecordCommand.self, StudyCommand.self, ReviewCommand.self, PlayCommand.self, StatsCommand.self,
            CompareCommand.self,
            IdentityCommand.self, ExportCommand.self, ImportCommand.self, InspectCommand.self, PublishCommand.self,
            UnpublishCommand.self, UpdateCommand.self, BrowseCommand.self, ServeCommand.self,
            DecodeMediaCommand.self,
        ]
    )

    /// The command, before its arguments are parsed.
    public init() {}

    /// The command meant by a first argument that is none but is close to one (`studdy`, as
    /// git answers a mistyped command): nil when it is a command, an option, or near none.
    public static func misspelledCommand(in arguments: [String]) -> (given: String, meant: String)? {
        guard let given = arguments.first, (1...40).contains(given.count), given.allSatisfy({ $0.isLetter })
        else { return nil }
        let names = configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        guard !names.contains(given) else { return nil }
        let scored = names.map { ($0, editDistance(given.lowercased(), $0)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }.map { (given, $0.0) }
    }

    /// Insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitution = rows[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }

    /// What `loop --version` prints: the version, the licence and where the notices are.
    public static let version = """
        loop 0.1.0
        Copyright (C) 2026 the LoopLearn authors.
        License GPL-3.0-or-later <https://www.gnu.org/licenses/gpl-3.0.html>: this is free
        software, you are free to change and redistribute it; there is NO WARRANTY.
        Third-party libraries and their licences: NOTICE.md (installed in share/doc/loop).
        """
}
