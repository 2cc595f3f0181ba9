import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

/// A command of `loop`: its work (``execute()``) runs reporting its failures as every command
/// does (``runReportingErrors(_:)``).
protocol ReportingCommand: AsyncParsableCommand {
    /// The command's work, once its arguments are parsed and valid: one call into the library.
    func execute() async throws
}

extension ReportingCommand {
    func run() async throws { try await runReportingErrors { try await execute() } }
}

/// Runs a command body; a failure prints `error: <message>` on one line and exits non-zero.
public func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch let problem as RequestProblem {
        throw ValidationError(problem.description)
    } catch {
        // Inert: a message may quote a title or a path that came from outside.
        StandardError.write("error: \(Terminal.inert(describe(error)))\n")
        throw ExitCode.failure
    }
}

/// The one-line text for an error, with the next step on the command line where there is one.
func describe(_ error: any Error) -> String { FailureWords.line(for: error) }

/// A request's own checks, as the command line's refusals (`--count takes 1 to 10000 ...`).
func check(_ body: () throws(RequestProblem) -> Void) throws {
    do {
        try body()
    } catch {
        throw ValidationError(error.description)
    }
}

extension LoopCommand {
    /// Parses the command line and runs its command, as ArgumentParser's `main` does, but a
    /// refusal's text is printed inert: it may quote an argument (`--rate $'\e[31m'`), and an
    /// argument's escape sequences must never reach the terminal.
    public static func runInertly() async -> Never {
        do {
            var command = try parseAsRoot(nil)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(EXIT_SUCCESS)
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if code == .success {
                if !text.isEmpty { print(text) }
            } else if !text.isEmpty {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                StandardError.write(lines.map { Terminal.inert(String($0)) }.joined(separator: "\n") + "\n")
            }
            Foundation.exit(code.rawValue)
        }
    }
}
