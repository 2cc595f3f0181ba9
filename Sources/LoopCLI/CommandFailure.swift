import ArgumentParser
import Foundation
import LoopAudio
import LoopAuthoring
import LoopShare
import LoopStore

/// Runs a command body; a failure prints `error: <message>` on one line and exits non-zero.
func runReportingErrors(_ body: () async throws -> Void) async throws {
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

/// The one-line text for an error from any of the libraries.
func describe(_ error: any Error) -> String {
    switch error {
    case let error as AudioError: error.description
    case let error as LoopSourceError: error.description
    case let error as SegmentationError: error.description
    case let error as CLIError: error.message
    case let error as LibraryError: error.description
    case let error as ShareError: error.description
    case let error as FileSystemError: error.description
    default: String(describing: error)
    }
}

/// A failure found by the command line itself.
struct CLIError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Unbuffered writes to standard error.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
