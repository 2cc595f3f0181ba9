import Foundation
import LoopFoundation

/// A key the study view understands.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case interrupt // Ctrl-C
    case escape
}

/// The terminal in raw mode on the alternate screen, cursor hidden, for as long as this lives;
/// ``restore()`` (also run on deinit) puts everything back, so the shell is never left broken.
public final class RawTerminal {
    private var original = termios()
    private var restored = false

    /// Puts the terminal in raw mode; fails when standard input or output is not a terminal.
    public init() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(.notATerminal, "the study view needs a terminal")
        }
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw TerminalError(.unusable, "cannot read the terminal's settings")
        }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            throw TerminalError(.unusable, "cannot put the terminal in raw mode")
        }
        Self.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    deinit { restore() }

    /// Puts the terminal back as it was (once).
    public func restore() {
        guard !restored else { return }
        restored = true
        Self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
    }

    /// Rows and columns.
    public var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (24, 80) }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// The size of a character cell in pixels, when the terminal says (else nil).
    public var cellPixels: (width: Int, height: Int)? {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0,
            window.ws_xpixel > 0, window.ws_ypixel > 0
        else { return nil }
        return (Int(window.ws_xpixel) / Int(window.ws_col), Int(window.ws_ypixel) / Int(window.ws_row))
    }

    /// Sends a query to the terminal and reads its answer up to `terminator`, waiting at most
    /// `timeout` milliseconds in all; nil when it does not answer (in raw mode only).
    public func ask(_ query: String, until terminator: UInt8, timeout: Int) -> String? {
        Self.write(query)
        var reply: [UInt8] = []
        let deadline = Date().addingTimeInterval(Double(timeout) / 1000)
        while Date() < deadline {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { break }
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &bytes, bytes.count)
            guard count > 0 else { break }
            reply += bytes[0..<count]
            if let escape = reply.lastIndex(of: 0x1B), reply[escape...].contains(terminator) {
                return String(decoding: reply, as: UTF8.self)
            }
        }
        return nil
    }

    /// The next key from standard input, waiting at most `timeout` milliseconds. Keys that
    /// arrive together (fast typing, a paste, a busy machine) are all kept in `pending` and
    /// handed out one at a time.
    public static func readKey(from pending: inout [UInt8], timeout: Int32) -> Key? {
        if let key = Self.nextKey(in: &pending) { return key }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeout) > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else { return nil }
        pending += bytes[0..<count]
        return Self.nextKey(in: &pending)
    }

    /// Takes the first key off the front of `bytes`; nil when they hold no whole key yet (an
    /// unfinished character stays for the next read). Escape sequences other than the arrows
    /// are dropped whole.
    public static func nextKey(in bytes: inout [UInt8]) -> Key? {
        while let first = bytes.first {
            if first == 3 {
                bytes.removeFirst()
                return .interrupt
            }
            if first == 0x1B {
                guard bytes.count >= 2, bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else {
                    bytes.removeFirst()
                    return .escape
                }
                // A control sequence ends at its first byte in @...~ after the introducer.
                guard let end = bytes.indices.dropFirst(2).first(where: { (0x40...0x7E).contains(bytes[$0]) }) else {
                    return nil
                }
                let final = bytes[end]
                let plain = end == 2
                bytes.removeFirst(end + 1)
                switch (plain, final) {
                case (true, UInt8(ascii: "A")): return .up
                case (true, UInt8(ascii: "B")): return .down
                case (true, UInt8(ascii: "C")): return .right
                case (true, UInt8(ascii: "D")): return .left
                default: continue
                }
            }
            let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            guard bytes.count >= length else { return nil }
            let character = String(bytes: bytes[0..<length], encoding: .utf8)?.first
            bytes.removeFirst(length)
            if let character { return .character(character) }
        }
        return nil
    }

    /// Writes text to standard output at once.
    public static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// The ways the terminal can refuse a full-screen view.
public enum TerminalFailure: String, LoopErrorKind {
    /// Standard input or output is not a terminal.
    case notATerminal
    /// The terminal's settings cannot be read or changed.
    case unusable
    /// The person's editor ($VISUAL, $EDITOR) could not start, or failed.
    case editorFailed

    /// Where these errors come from: the terminal.
    public static let domain = ErrorDomain.terminal
}

/// Why a full-screen view cannot start.
public typealias TerminalError = LoopError<TerminalFailure>

extension ErrorDomain {
    /// The terminal.
    public static let terminal = ErrorDomain(rawValue: "terminal")
}
