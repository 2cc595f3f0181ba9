import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

/// A reason the server cannot start, said in one line (without the usage a ValidationError adds).
struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func makeLogger(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "loop-library")
}
