import ArgumentParser
import Foundation
import Logging
import LoopFoundation
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --database: connections to PostgreSQL at most, one of them listening for the catalog's changes (default: 6 a core, at least 12).",
            valueName: "count"))
    var databaseConnections: Int?

    func validate() throws {
        guard let databaseConnections else { return }
        guard database != nil else {
            throw ValidationError("--database-connections is for a PostgreSQL catalog: give --database as well")
        }
        guard databaseConnections >= PostgresCatalog.fewestConnections else {
            throw ValidationError(
                "--database-connections \(databaseConnections): at least \(PostgresCatalog.fewestConnections) (one listens for the catalog's changes, one answers)"
            )
        }
    }

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
        try checkExistingLibrary()
        var logger = Logger(label: "loop-library-catalog")
        logger.logLevel = .error
        return try openCatalog(logger: logger)
    }

    /// An operator's command works on a Loop Library that is there: a mistyped `--data` is
    /// said to be one, never made into a new, empty library.
    func checkExistingLibrary() throws {
        let folder = dataFolder
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw operatorFailure(
                "\(folder): no Loop Library here (no such folder): give the data folder `loop serve --data` uses")
        }
        guard isFolder.boolValue else {
            throw operatorFailure("\(folder): is a file, not a Loop Library's data folder")
        }
        if database == nil, !FileManager.default.fileExists(atPath: ServerLayout(root: folder).catalog) {
            throw operatorFailure(
                "\(folder): no Loop Library here (it holds no catalog.sqlite): give the data folder `loop serve --data` uses, or --database for one whose catalog is PostgreSQL"
            )
        }
    }

    /// The catalog; `mirroringSearch`: a server's, whose searches read a mirror of PostgreSQL's
    /// on this machine.
    func openCatalog(logger: Logger, mirroringSearch: Bool = false) throws -> any Catalog {
        do {
            try FileManager.default.createDirectory(atPath: dataFolder, withIntermediateDirectories: true)
        } catch {
            var isFolder: ObjCBool = false
            let what =
                FileManager.default.fileExists(atPath: dataFolder, isDirectory: &isFolder) && !isFolder.boolValue
                ? "is a file, not a folder" : "cannot be made (\(FileSystemError.reason(error)))"
            throw ValidationError("--data \(dataFolder): \(what): give a Loop Library's data folder")
        }
        if let database {
            return try PostgresCatalog(
                url: database, connections: databaseConnections ?? PostgresCatalog.defaultConnections,
                mirroringSearch: mirroringSearch, logger: logger)
        }
        return try SQLiteCatalog(path: ServerLayout(root: dataFolder).catalog)
    }
}
