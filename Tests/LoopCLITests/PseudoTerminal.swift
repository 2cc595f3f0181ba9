import Foundation
import LoopTestSupport
import Testing

/// `loop` run on a pseudo-terminal whose other end the test plays: it reads what `loop` writes
/// (escape sequences and all) and answers the terminal's queries as a real terminal would, for
/// terminals tmux cannot stand in for (one that says it draws sixel graphics).
final class PseudoTerminal {
    private let master: Int32
    private let process: Process
    private(set) var written = Data()

    /// Starts `loop arguments` on a `columns`×`rows` terminal of `cellWidth`×`cellHeight`-pixel cells.
    init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 40) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(
            ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: UInt16(columns * 10), ws_ypixel: UInt16(rows * 20)
        )
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw CLITestError("openpty failed") }
        self.master = master
        process = Process()
        process.executableURL = LoopProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: LoopProcess.fixtures)
        var merged = ProcessInfo.processInfo.environment
        merged["TMPDIR"] = Scratch.folder
        // The terminal is the test's: whatever the runner's own says of colours does not apply.
        for key in ["NO_COLOR", "COLORTERM", "KITTY_WINDOW_ID", "TERM_PROGRAM"] { merged.removeValue(forKey: key) }
        merged.merge(environment) { $1 }
        process.environment = merged
        let end = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardInput = end
        process.standardOutput = end
        process.standardError = end
        try process.run()
        try end.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// What `loop` wrote, as text.
    var text: String { String(decoding: written, as: UTF8.self) }

    /// Reads what `loop` writes until `condition` holds of all of it, answering `answers`' queries
    /// (a query's bytes → the reply) each time they appear; false after `seconds`.
    @discardableResult
    func read(until condition: (String) -> Bool, answering answers: [String: String] = [:], seconds: Double = 15)
        -> Bool
    {
        let deadline = Date().addingTimeInterval(seconds)
        var answered: [String: Int] = [:]
        while Date() < deadline {
            for (query, reply) in answers {
                let asked = text.components(separatedBy: query).count - 1
                if asked > answered[query, default: 0] {
                    _ = reply.utf8CString.withUnsafeBufferPointer {
                        Foundation.write(master, $0.baseAddress, $0.count - 1)
                    }
                    answered[query] = asked
                }
            }
            if condition(text) { return true }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) >= 0 else { return false }
            if descriptor.revents & Int16(POLLIN) != 0 {
                var bytes = [UInt8](repeating: 0, count: 65_536)
                let count = Foundation.read(master, &bytes, bytes.count)
                if count > 0 {
                    written.append(contentsOf: bytes[0..<count])
                } else if !process.isRunning {
                    return condition(text)
                }
            }
        }
        return false
    }

    /// Types `keys`.
    func type(_ keys: String) {
        _ = keys.utf8CString.withUnsafeBufferPointer { Foundation.write(master, $0.baseAddress, $0.count - 1) }
    }

    /// Waits for `loop` to end (reading what it still writes); its exit status.
    func waitForExit(seconds: Double = 15) -> Int32? {
        read(until: { _ in !self.process.isRunning }, seconds: seconds)
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct CLITestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
