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

    var path: String { Library.path(flag: library) }

    func validate() throws {
        if let library, library.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError(
                "--library is empty: name the library folder, or leave the option out for the default")
        }
    }

    /// The library, for a command that changes it.
    func open() throws -> Library {
        prepare()
        return try Library.open(at: path, onUpdate: Self.sayUpdating)
    }

    /// The library, for a command that frees space (`rm`, `gc`): it works on a full disk.
    func openFreeingSpace() throws -> Library {
        prepare()
        return try Library.openFreeingSpace(at: path, onUpdate: Self.sayUpdating)
    }

    /// The library, for a command that changes it, and the id of the loop `reference` names.
    func open(resolving reference: String) throws -> (Library, String) {
        let library = try open()
        return (library, try library.resolve(reference))
    }

    /// The library, for a command that reads it and would keep what it did (`study`): for
    /// writing, else (a read-only library, a full disk) for reading, saying so once.
    func openForStudy() throws -> Library {
        prepare()
        let library = try Library.openForStudy(at: path, onUpdate: Self.sayUpdating)
        library.readOnlyReason.map { StandardError.write(readOnlyStudyNote(path: library.path, reason: $0)) }
        return library
    }

    /// The library, for a command that only reads it: one read-only connection, no write and
    /// no lock (unless the library must first be created or brought up to date).
    func openForReading() throws -> Library {
        prepare()
        return try Library.openForReading(at: path, onUpdate: Self.sayUpdating)
    }

    /// SQLite's own temporary files (large sorts during an import) stay in the library's folder
    /// rather than /var/tmp; read once, when SQLite starts.
    private func prepare() { setenv("SQLITE_TMPDIR", path, 0) }

    /// Quiet unless someone is watching: a migration may take a few seconds, once.
    private static func sayUpdating() {
        if Terminal.standardError().isInteractive {
            StandardError.write("Updating the library for this version of loop...\n")
        }
    }
}

extension ArgumentHelp {
    /// The help of every command's LOOP argument.
    static let loop = ArgumentHelp(
        "The loop: a start of its id, its title, or a start of its title or of a word of it.")
}
