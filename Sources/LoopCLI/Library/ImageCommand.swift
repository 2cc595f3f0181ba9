import ArgumentParser
import LoopWorkflows

/// `loop image`: a picture for a loop, a group or a phrase.
struct ImageCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Give a loop, a group or a phrase a picture (PNG, JPEG, WebP or GIF), or take it off.",
        discussion: """
            The picture is checked (its type by its bytes, at most 32 MiB and 16384 pixels a side, \
            whole and decodable), then stored in the library as the audio is; a picture given \
            before replaces it. `loop study` and `loop record` show the phrase's picture, else its \
            group's, else the loop's; bundles and the Loop Library's pages carry them. A loop's \
            text may name pictures too: `# image: FILE`, `# group-image: FILE`, `# phrase-image: \
            FILE` (see README).
            """
    )

    @Argument(help: .loop) var loop: String
    @Argument(help: "The picture file (PNG, JPEG, WebP or GIF).") var file: String?
    @Option(parsing: .unconditional, help: "The group (1-based) to give it to, rather than the loop.") var group: Int?

    @Option(parsing: .unconditional, help: "The phrase (1-based, across the loop; see `loop show`) to give it to.")
    var phrase: Int?

    @Flag(help: "Take the picture off (the file stays in the library until `loop gc`).") var remove = false
    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if group != nil && phrase != nil { throw ValidationError("give --group or --phrase, not both") }
        if remove && file != nil { throw ValidationError("give a picture file, or --remove, not both") }
        if !remove && file == nil { throw ValidationError("give a picture file (or --remove)") }
        if let group, group < 1 { throw ValidationError("--group starts at 1, not \(group)") }
        if let phrase, phrase < 1 { throw ValidationError("--phrase starts at 1, not \(phrase)") }
    }

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        try await EditingWorkflow(library: library).setPicture(
            remove ? nil : file, ofLoop: id, group: group, phrase: phrase)
    }
}
