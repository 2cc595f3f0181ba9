import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

extension StorageOptions {
    /// Opens the catalog for an operator's command, makes `change`, and closes it.
    func operatorChange<Result: Sendable>(_ change: (any Catalog) async throws -> Result) async throws -> Result {
        let catalog = try openCatalogForOperator()
        try await catalog.prepare()
        let result = try await change(catalog)
        try await catalog.close()
        return result
    }
}

/// An operator's command that found nothing to change: one line on stderr, exit status 1.
func operatorFailure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(1)
}
