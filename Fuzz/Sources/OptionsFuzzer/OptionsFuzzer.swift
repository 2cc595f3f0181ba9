import ArgumentParser
import Foundation
import LibFuzzerDriver
import LoopCLI

/// Any text as the value of a numeric option, through the real command: parsing and validation
/// refuse it or the command runs to its end (on a scratch library with the fixture loop). A trap
/// (an Int conversion of nan, an overflow) crashes the fuzzer, which is what it looks for.
/// The first byte picks the option; the rest is its value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOptions(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let value = String(decoding: UnsafeBufferPointer(start: bytes + 1, count: count - 1), as: UTF8.self)
    let library = ["--library", Scratch.library]
    let (arguments, runs): ([String], Bool) =
        switch bytes[0] % 8 {
        case 0: (["adjust", "fixture", "1", "--shift=" + value] + library, true)
        case 1: (["adjust", "fixture", "2", "--start=" + value] + library, true)
        case 2: (["adjust", "fixture", "3", "--end=" + value] + library, true)
        case 3: (["adjust", "fixture", value, "--shift", "10"] + library, true)
        case 4: (["segment", Scratch.take, "--count=" + value], true)
        case 5: (["search", "cafe", "--limit=" + value] + library, true)
        case 6: (["study", "fixture", "--once", "--output", "null", "--repeats=" + value] + library, false)
        default:
            (
                ["study", "fixture", "--once", "--output", "null", "--gap-factor=" + value, "--speed", value] + library,
                false
            )
        }
    guard let command = try? LoopCommand.parseAsRoot(arguments) else { return 0 }
    if runs, let runnable = command as? any AsyncParsableCommand { runToEnd(runnable) }
    return 0
}

/// Runs a command from libFuzzer's synchronous callback; its failure (an error line) is fine.
func runToEnd(_ command: any AsyncParsableCommand) {
    // Handed to the task and only touched there, while this thread waits.
    nonisolated(unsafe) var running = command
    let done = DispatchSemaphore(value: 0)
    Task {
        _ = try? await running.run()
        done.signal()
    }
    done.wait()
}

/// A library with the fixture loop, made once per fuzzing process.
enum Scratch {
    static let fixtures = FileManager.default.currentDirectoryPath + "/../Tests/Fixtures"
    static let take = fixtures + "/clean.flac"
    static let library: String = {
        let folder = NSTemporaryDirectory() + "loop-fuzz-options-\(getpid())"
        let arguments = ["new", "--text", fixtures + "/phrases.txt", "--audio", take, "--library", folder]
        guard let command = try? LoopCommand.parseAsRoot(arguments) as? any AsyncParsableCommand else {
            fatalError("cannot set up: \(arguments)")
        }
        runToEnd(command)
        guard FileManager.default.fileExists(atPath: folder + "/library.sqlite") else {
            fatalError("cannot set up the fuzzing library in \(folder)")
        }
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "loop-fuzz-options-\(getpid())") }
        return folder
    }()
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("OptionsFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzOptions)
}
