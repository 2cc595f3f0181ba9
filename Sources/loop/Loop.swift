import LoopCLI
import ArgumentParser

/// The `loop` executable: a thin shell over LoopCLI.
@main
enum Loop {
    static func main() async {
        await LoopCommand.main(nil)
    }
}
