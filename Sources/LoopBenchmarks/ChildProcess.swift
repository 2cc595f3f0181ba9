import Foundation
import LoopCLI
import LoopFoundation
import LoopReports

/// A finished child process: its status, wall time and peak memory.
struct ChildProcessReport {
    var status: Int32
    var seconds: Double
    /// Peak resident memory (bytes), from `wait4`'s resource usage.
    var peakMemory: Int
    /// CPU time used, user and system.
    var cpuSeconds: Double = 0
}

/// Runs a program with its output discarded and measures it. The benchmark's only use of
/// `posix_spawn`: Foundation's `Process` does not report resource usage.
enum ChildProcess {
    static func run(_ executable: String, _ arguments: [String]) throws -> ChildProcessReport {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw CommandRefusal("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            if errno != EINTR {
                throw CommandRefusal("cannot wait for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
                usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return ChildProcessReport(
            status: exitStatus, seconds: Date().timeIntervalSince(started), peakMemory: Int(usage.ru_maxrss) * 1024,
            cpuSeconds: cpu)
    }

    /// What a program prints, run to its end; its error output in the error when it fails.
    static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandRefusal(
                "\(([executable] + arguments).joined(separator: " ")) failed: \(String(decoding: said, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self)
    }

    /// Whether `name` is a program on the PATH.
    static func exists(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}
