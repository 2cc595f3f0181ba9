import ArgumentParser
import LoopCLI

/// The `loop` executable: a thin shell over LoopCLI.
@main
enum Loop {
    static func main() async {
        await LoopCommand.main(nil)
    }
}
