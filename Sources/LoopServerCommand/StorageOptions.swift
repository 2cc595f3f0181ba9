import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

/// Where the library's data lives, and its catalog.
struct StorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data folder: the SQLite catalog and the blobs.", valueName: "folder"))
    var data: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep the catalog in PostgreSQL instead (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).",
            valueName: "url"))
    var database: String?

    /// `--data`, or `$XDG_DATA_HOME/loop/server` (`~/.local/share/loop/server`).
    var dataFolder: String {
        if let data, !data.isEmpty { return data }
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.local/share")
        return base + "/loop/server"
    }

    /// The catalog for an operator's command: the database's own warnings (a connection leased
    /// before its pool has started) are not the operator's business.
    func openCatalogForOperator() throws -> any Catalog {
        var logger = Logger(label: "loop-library-catalog")
        logger.logLevel = .error
        return try openCatalog(logger: logger)
    }

    func openCatalog(logger: Logger) throws -> any Catalog {
        try FileManager.default.createDirectory(atPath: dataFolder, withIntermediateDirectories: true)
        if let database { return try PostgresCatalog(url: database, logger: logger) }
        return try SQLiteCatalog(path: ServerLayout(root: dataFolder).catalog)
    }
}
