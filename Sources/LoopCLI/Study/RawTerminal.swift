import Foundation

/// A key the study view understands.
enum Key: Equatable {
    case character(Character)
    case up, down, left, right
    case interrupt      // Ctrl-C
    case escape
}

/// The terminal in raw mode on the alternate screen, cursor hidden, for as long as this lives;
/// ``restore()`` (also run on deinit) puts everything back, so the shell is never left broken.
final class RawTerminal {
    private var original = termios()
    private var restored = false

    init() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw CLIError("the study view needs a terminal") }
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { throw CLIError("cannot read the terminal's settings") }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { throw CLIError("cannot put the terminal in raw mode") }
        Self.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    deinit { restore() }

    func restore() {
        guard !restored else { return }
        restored = true
        Self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
    }

    /// Rows and columns.
    var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (24, 80) }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// The next key, waiting at most `timeout` milliseconds.
    func readKey(timeout: Int32) -> Key? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeout) > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else { return nil }
        return Self.parse(Array(bytes[0..<count]))
    }

    static func parse(_ bytes: [UInt8]) -> Key? {
        if bytes == [3] { return .interrupt }
        if bytes.count >= 3, bytes[0] == 0x1B, bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") {
            switch bytes[2] {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return nil
            }
        }
        if bytes == [0x1B] { return .escape }
        guard let text = String(bytes: bytes, encoding: .utf8), let first = text.first else { return nil }
        return .character(first)
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
