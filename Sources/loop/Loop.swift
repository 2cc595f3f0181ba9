import ArgumentParser
import Foundation
import LoopCLI

/// The `loop` executable: a thin shell over LoopCLI.
@main
enum Loop {
    static func main() async {
        if let (given, meant) = LoopCommand.misspelledCommand(in: Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardError.write(
                Data(
                    "error: '\(given)' is not a loop command; did you mean '\(meant)'? (`loop --help` lists them)\n"
                        .utf8))
            exit(64)
        }
        await LoopCommand.runInertly()
    }
}
