internal import CTerminal
import Foundation

/// What the terminal we write to can do.
public struct Terminal: Sendable {
    /// Standard output is a terminal.
    public var isInteractive: Bool
    /// Colours are allowed: a terminal, no `NO_COLOR`, not `TERM=dumb`.
    public var usesColor: Bool
    /// Columns available for output.
    public var width: Int
    /// Lines on the screen (24 when it cannot be told).
    public var rows: Int = 24

    /// Standard output, as it is now.
    public static func standardOutput() -> Terminal { describe(descriptor: STDOUT_FILENO) }
    /// Standard error, as it is now.
    public static func standardError() -> Terminal { describe(descriptor: STDERR_FILENO) }

    private static func describe(descriptor: Int32) -> Terminal {
        let environment = ProcessInfo.processInfo.environment
        let interactive = isatty(descriptor) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let dumb = environment["TERM"] == "dumb"
        var size = winsize()
        var width = 80
        var rows = 24
        if interactive, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            width = Int(size.ws_col)
            if size.ws_row > 0 { rows = Int(size.ws_row) }
        } else if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            width = columns
        }
        if !interactive, let lines = environment["LINES"].flatMap(Int.init), lines > 0 { rows = lines }
        return Terminal(
            isInteractive: interactive, usesColor: interactive && !noColor && !dumb, width: width, rows: rows)
    }

    /// Text from a library, a bundle or a server, safe to print: every control character (ESC
    /// among them, which would start a terminal escape sequence) and every bidirectional
    /// override or isolate (U+202A-U+202E, U+2066-U+2069, which would make text read in
    /// another order than it is stored) shown as `\u{1B}` instead.
    public static func inert(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.flatMap { scalar -> [Unicode.Scalar] in
                    isControl(scalar)
                        ? Array("\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars) : [scalar]
                }))
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// The text in `style`, when colours are allowed.
    public func paint(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// A way of showing text.
    public enum Style: String {
        case bold = "1"
        case dim = "2"
        case inverse = "7"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }
}

/// Text for standard output, written in 64 KB blocks as it grows (a listing of 10,000 loops
/// is one write per block, not one per line).
public struct StandardOutputBuffer {
    private var pending: [UInt8] = []

    /// An empty buffer.
    public init() { pending.reserveCapacity(1 << 16) }

    /// Adds text, writing a block once 64 KB are pending.
    public mutating func append(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 16 { flush() }
    }

    /// Writes what is pending.
    public mutating func flush() {
        guard !pending.isEmpty else { return }
        FileHandle.standardOutput.write(Data(pending))
        pending.removeAll(keepingCapacity: true)
    }
}

/// How many columns text takes on a terminal: Chinese, Japanese and Korean characters and most
/// emoji take two, combining marks none (the C library's `wcwidth`, in a UTF-8 locale).
/// Escape sequences (colours) take none.
public enum DisplayWidth {
    /// `wcwidth` answers for a multibyte locale only; ours is UTF-8 whatever the environment's.
    private static let utf8Locale: Bool = setlocale(LC_CTYPE, "C.UTF-8") != nil

    /// The columns of one scalar.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        _ = utf8Locale
        let width = loop_wcwidth(scalar.value)
        return width < 0 ? (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? 0 : 1) : Int(width)
    }

    /// The columns `text` takes, escape sequences left out.
    public static func of(_ text: String) -> Int {
        var columns = 0
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                skipEscape(&scalars)
                continue
            }
            columns += of(scalar)
        }
        return columns
    }

    /// `line` cut to `columns` (with `…` where it was cut, and colours reset), escape sequences
    /// kept whole.
    public static func fit(_ line: String, columns: Int) -> String {
        guard of(line) > columns else { return line }
        var result = String.UnicodeScalarView()
        var used = 0
        var coloured = false
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                var sequence = String.UnicodeScalarView([scalar])
                sequence.append(contentsOf: skipEscape(&scalars))
                result.append(contentsOf: sequence)
                coloured = true
                continue
            }
            let width = of(scalar)
            if used + width > max(columns - 1, 0) { break }
            result.append(scalar)
            used += width
        }
        return String(result) + "…" + (coloured ? "\u{1B}[0m" : "")
    }

    /// `items` joined by `separator` into as few lines as fit `columns`, an item never split
    /// (one wider than the screen has a line of its own, cut by ``fit(_:columns:)`` later).
    public static func wrap(_ items: [String], separator: String = " · ", columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if line.isEmpty {
                line = item
            } else if of(line) + of(separator) + of(item) <= columns {
                line += separator + item
            } else {
                lines.append(line)
                line = item
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `entries` in as many aligned columns as fit `columns` (read down, then across, as `ls`
    /// lays out names), `gap` spaces between columns.
    public static func table(_ entries: [String], columns: Int, gap: Int = 3) -> [String] {
        guard !entries.isEmpty else { return [] }
        let widths = entries.map { of($0) }
        for count in stride(from: entries.count, through: 1, by: -1) {
            let rows = (entries.count + count - 1) / count
            let used = (entries.count + rows - 1) / rows
            let columnWidths = (0..<used).map { column in
                widths[(column * rows)..<min(entries.count, (column + 1) * rows)].max() ?? 0
            }
            guard count == 1 || columnWidths.reduce(0, +) + gap * (used - 1) <= columns else { continue }
            return (0..<rows).map { row in
                var line = ""
                for column in 0..<used where column * rows + row < entries.count {
                    let index = column * rows + row
                    if column > 0 {
                        line += String(repeating: " ", count: gap + columnWidths[column - 1] - widths[index - rows])
                    }
                    line += entries[index]
                }
                return line
            }
        }
        return entries
    }

    /// Consumes a CSI sequence (`ESC [ ... final`) after its ESC; returns what it consumed.
    @discardableResult
    private static func skipEscape(_ scalars: inout String.UnicodeScalarView.Iterator) -> [Unicode.Scalar] {
        var consumed: [Unicode.Scalar] = []
        guard let introducer = scalars.next() else { return consumed }
        consumed.append(introducer)
        guard introducer == "[" else { return consumed }
        while let next = scalars.next() {
            consumed.append(next)
            if (0x40...0x7E).contains(next.value) { break }
        }
        return consumed
    }
}

/// Unbuffered writes to standard error.
public enum StandardError {
    /// Writes text to standard error at once.
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
