import ArgumentParser
import Foundation
import LoopCLI
import Testing

/// Every command line `loop` suggests to its user (in an error's next step, a report's hint, a
/// note) is one the parser takes: a hint never names a command or an option that does not exist.
struct SuggestedCommandTests {
    /// The backticked `loop ...` command lines in the string literals of `Sources/`, with the
    /// file each is in. Doc comments and command help (which describe, not suggest) are read too:
    /// a help text that names a command names a real one.
    static func suggestions() throws -> [(file: String, line: String)] {
        let sources = LoopProcess.packageRoot.appendingPathComponent("Sources")
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files
        where file.hasSuffix(".swift") && !file.hasPrefix("LoopBenchmarks") && !file.hasPrefix("LoopServerCommand") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                // Backticked spans: `loop ...`.
                let parts = line.split(separator: "`", omittingEmptySubsequences: false)
                for (index, part) in parts.enumerated() where index % 2 == 1 && part.hasPrefix("loop ") {
                    found.append((file, String(part)))
                }
            }
        }
        return found
    }

    /// The arguments of a suggested command line, placeholders (LOOP, TAKE, an interpolation)
    /// given a value of their kind.
    static func arguments(of line: String) -> [String] {
        var text = line
        while let start = text.range(of: "\\("), let end = text[start.upperBound...].firstIndex(of: ")") {
            text.replaceSubrange(start.lowerBound...end, with: "abc123")
        }
        return text.split(separator: " ").dropFirst().map { word in
            switch word {
            case "TAKE", "FILE", "AUDIO": "take.wav"
            case "DIR": "/tmp"
            case "URL", "LINK", "SOURCE": "http://localhost:8040/abc"
            case "MS", "N", "G", "S", "E", "PHRASE": "1"
            default: String(word)
            }
        }
    }

    /// The subcommand of `loop` named `name`, if there is one.
    static func subcommand(_ name: String) -> (any ParsableCommand.Type)? {
        LoopCommand.configuration.subcommands.first {
            $0.configuration.commandName == name
                || ($0.configuration.commandName == nil && String(describing: $0).lowercased() == name + "command")
        }
    }

    /// Every backticked `loop ...` names a command that exists and only options it has; one with
    /// a placeholder (`LOOP`, `TAKE`, an id filled in) is a command line to type, and parses whole.
    /// A mistyped command is answered as git answers one: with the command meant; a word near
    /// no command gets the parser's own error.
    @Test func aMistypedCommandIsAnsweredWithTheOneMeant() throws {
        let mistyped = try LoopProcess.run(["studdy", "1cec"])
        #expect(mistyped.status == 64)
        #expect(
            mistyped.error
                == "error: 'studdy' is not a loop command; did you mean 'study'? (`loop --help` lists them)\n")
        #expect(try LoopProcess.run(["imprt", "x.loop"]).error.contains("did you mean 'import'?"))
        #expect(try LoopProcess.run(["Lsit"]).error.contains("did you mean 'list'?"))
        let far = try LoopProcess.run(["xyzzy"])
        #expect(far.status == 64 && !far.error.contains("did you mean"))
        #expect(try LoopProcess.run(["study", "--help"]).status == 0, "a command itself is left to the parser")
    }

    @Test func everySuggestedCommandExistsAndEachCommandLineParses() throws {
        let suggestions = try Self.suggestions()
        #expect(suggestions.count > 20, "the scan found the hints: \(suggestions.count)")
        var commandLines = 0
        for (file, line) in suggestions {
            let words = line.split(separator: " ").map(String.init)
            // `loop --version`; a span broken over two lines of a help text.
            guard words.count >= 2, !words[1].hasPrefix("-"), words[1] != "\\" else { continue }
            guard let command = Self.subcommand(words[1]) else {
                Issue.record("\(file): `\(line)` names no command of loop")
                continue
            }
            let help = LoopCommand.helpMessage(for: command)
            // `loop serve` hands its options to loop-server, whose own tests cover them.
            for option in words.dropFirst(2) where option.hasPrefix("--") && option != "--help" && words[1] != "serve" {
                let name = String(option.prefix { $0 != "=" })
                #expect(
                    help.contains(name + " ") || help.contains(name + ","),
                    "\(file): `\(line)`: \(words[1]) has no \(name)")
            }
            let placeholders = words.dropFirst(2).contains { word in
                word.contains("\\(") || (word.count > 1 && word.allSatisfy { $0.isUppercase || $0 == "_" })
            }
            let arguments = Self.arguments(of: line)
            // A synopsis ("...", alternatives) is not a command line.
            guard placeholders,
                !arguments.contains(where: { $0.contains("...") || $0.contains("|") || $0.hasPrefix("[") })
            else { continue }
            commandLines += 1
            #expect(throws: Never.self, "\(file): `\(line)` does not parse") {
                _ = try LoopCommand.parseAsRoot(arguments)
            }
        }
        #expect(commandLines > 10, "command lines with placeholders checked: \(commandLines)")
    }

    /// A next step after a failure names an option only inside a command line, so that it is
    /// never suggested to a command that lacks it (`loop update` once suggested `--as-copy`).
    /// The sound device's hints are the exception: only the commands that play or record, all
    /// of which have `--device` (and `--output` or `--input`), meet those failures; and the
    /// shadowing device's, which only `loop study --shadow` (with `--capture-device`) meets.
    @Test func theNextStepsNameOptionsOnlyInsideACommandLine() throws {
        let source = try String(
            contentsOf: LoopProcess.packageRoot.appendingPathComponent("Sources/LoopReports/NextStep.swift"),
            encoding: .utf8)
        // (A hint too long for its case's line is on the next: joined to it first.)
        let joined = source.replacingOccurrences(of: #":\n\s+""#, with: ": \"", options: .regularExpression)
        let hints = joined.split(separator: "\n").filter { $0.contains("case .") && $0.contains(": \"") }
        #expect(hints.count > 10)
        for hint in hints {
            let outside = hint.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 0
            }.map(\.element).joined()
            let options = outside.split(separator: " ").filter { $0.hasPrefix("--") }.map {
                String($0.prefix { $0 != "," && $0 != ")" })
            }
            let bare = options.filter { !["--device", "--output", "--input", "--capture-device"].contains($0) }
            #expect(bare.isEmpty, "an option outside a command line: \(hint.trimmingCharacters(in: .whitespaces))")
        }
    }
}
