import ArgumentParser

/// `loop`: author and study looping audio phrases.
public struct LoopCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Learn a language from short looping audio phrases.",
        discussion: """
            Author a loop from a text (a phrase per line, a blank line between groups) and one take \
            of audio read with pauses: the take is cut at the pauses into one clip per phrase. \
            Keep loops in a library (`loop new`, `list`, `search`), record them live (`loop \
            record`), study them in the terminal (`loop study`), and share them as signed bundles \
            (`loop export`, `import`, `publish`). Data lives in $XDG_DATA_HOME/loop unless \
            --library or $LOOP_LIBRARY says otherwise.
            """,
        version: LoopCommand.version,
        subcommands: [
            SplitCommand.self, SegmentCommand.self, CutCommand.self,
            NewCommand.self, ListCommand.self, ShowCommand.self, SearchCommand.self, EditCommand.self,
            AdjustCommand.self, AttachCommand.self, ImageCommand.self, RemoveCommand.self, GarbageCommand.self,
            DoctorCommand.self,
            RecordCommand.self, StudyCommand.self, PlayCommand.self, StatsCommand.self,
            IdentityCommand.self, ExportCommand.self, ImportCommand.self, InspectCommand.self, PublishCommand.self,
            UnpublishCommand.self, UpdateCommand.self, BrowseCommand.self, ServeCommand.self,
            DecodeMediaCommand.self,
        ]
    )

    public init() {}

    /// What `loop --version` prints: the version, the licence and where the notices are.
    public static let version = """
        loop 0.1.0
        Copyright (C) 2026 the LoopLearn authors.
        License GPL-3.0-or-later <https://www.gnu.org/licenses/gpl-3.0.html>: this is free
        software, you are free to change and redistribute it; there is NO WARRANTY.
        Third-party libraries and their licences: NOTICE.md (installed in share/doc/loop).
        """
}

/// Options every command that reads a loop's text shares.
struct TextOptions: ParsableArguments {
    @Flag(name: .long, help: "Also split long lines into sentences (at . ! ? … and 。！？).") var sentences = false
}
