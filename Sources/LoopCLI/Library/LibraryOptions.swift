import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

/// `--library`, shared by every command that uses the library.
struct LibraryOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The library folder.",
            discussion: "Default: $LOOP_LIBRARY, else $XDG_DATA_HOME/loop, else ~/.local/share/loop.", valueName: "path"
        ))
    var library: String?

    func validate() throws {
        if let library, library.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError(
                "--library is empty: name the library folder, or leave the option out for the default")
        }
    }

    /// The library, opened for what the command does with it; opened for study but only
    /// readable (a read-only library, a full disk), it says so once.
    func open(_ access: Library.Access = .readWrite) throws -> Library {
        let library = try Library.open(at: Library.path(flag: self.library), access: access) {
            // Quiet unless someone is watching: a migration may take a few seconds, once.
            if Terminal.standardError().isInteractive {
                StandardError.write("Updating the library for this version of loop...\n")
            }
        }
        library.readOnlyReason.map { StandardError.write(readOnlyStudyNote(path: library.path, reason: $0)) }
        return library
    }
}

extension ArgumentHelp {
    /// The help of every command's LOOP argument.
    static let loop = ArgumentHelp(
        "The loop: a start of its id, its title, or a start of its title or of a word of it.")
}
