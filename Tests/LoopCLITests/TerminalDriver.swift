import Foundation
import LoopTestSupport
import Testing

/// A tmux session that runs a command in a real terminal, for tests that press keys as a person would.
///
/// tmux is started with `posix_spawn` and every descriptor above standard error closed, not with
/// Foundation's `Process`: the first tmux command forks a server that outlives it, and `Process`
/// only sees its child exit once every holder of its own descriptors has closed them, so a server
/// started through it keeps `waitUntilExit` waiting for as long as the server lives.
struct TerminalDriver: ~Copyable {
    let session: String

    /// Opens a detached session `columns` x `rows` running a plain bash.
    init(name: String, columns: Int, rows: Int) throws {
        session = "\(name)-\(UUID().uuidString.prefix(8))"
        try Self.tmux([
            "new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", "bash", "--norc", "--noprofile",
        ])
    }

    deinit { _ = try? Self.tmux(["kill-session", "-t", session]) }

    /// Types `command` into the shell and presses Enter.
    func type(_ command: String) throws { try Self.tmux(["send-keys", "-t", session, command, "Enter"]) }

    /// Presses keys, in tmux's names (`Down`, `C-c`, `Enter`, or plain characters).
    func press(_ keys: String...) throws { try Self.tmux(["send-keys", "-t", session] + keys) }

    /// What the terminal shows now.
    func screen() throws -> String { try Self.tmux(["capture-pane", "-p", "-t", session]) }

    /// What the terminal shows now, with the escape sequences of its colours.
    func screen(escapes: Bool) throws -> String {
        try Self.tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", session])
    }

    /// Waits until the screen shows `text`; records an issue with the last screen if it never does.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("'\(text)' never appeared; the screen:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// Waits until the screen satisfies `condition`; records an issue with the last screen if it never does.
    @discardableResult
    func waitUntil(
        seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, _ condition: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the screen never showed what was waited for:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not show.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed")
        }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Runs tmux to its end and returns what it printed.
    @discardableResult
    static func tmux(_ arguments: [String]) throws -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        guard closeFrom(&actions, 3) == 0 else { throw POSIXError(.ENOSYS) }

        let argv = (["tmux"] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, "tmux", &actions, nil, argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { throw POSIXError(.init(rawValue: spawned) ?? .ENOENT) }

        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count > 0 {
                output.append(contentsOf: buffer[..<count])
                continue
            }
            if count < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }
}
