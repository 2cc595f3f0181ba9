import Foundation

/// The program running, and the programs installed beside it (`loop-server` beside `loop`).
public enum ThisProgram {
    /// Its executable file.
    public static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The program `name` in the folder of this one.
    public static func sibling(named name: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs the program at `program` with `arguments` in place of this one (`execv`): this
    /// returns only when it cannot, with why.
    public static func replace(with program: String, arguments: [String]) -> String {
        var cArguments = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, &cArguments)
        return String(cString: strerror(errno))
    }
}
