import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal

/// A command of `loop`: its work (``execute()``) runs reporting its failures as every command
/// does (``runReportingErrors(_:)``).
protocol ReportingCommand: AsyncParsableCommand {
    /// The command's work, once its arguments are parsed and valid.
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
    } catch {
        // Inert: a message may quote a title or a path that came from outside.
        StandardError.write("error: \(Terminal.inert(describe(error)))\n")
        throw ExitCode.failure
    }
}

/// The one-line text for an error, with the next step on the command line where there is one.
func describe(_ error: any Error) -> String { NextStep.line(for: error) }
