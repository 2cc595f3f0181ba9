import Foundation
import LoopFFmpeg
import LoopFoundation

/// Which picture a full-screen view shows for a place in a loop: the phrase's own, else its
/// group's, else the loop's.
public struct PictureChoice: Sendable {
    /// The loop's picture.
    public var loop: String?
    /// By group index (from 0).
    public var groups: [String?]
    /// By phrase number (from 1).
    public var phrases: [Int: String]

    /// A choice from the loop's, its groups' and its phrases' pictures.
    public init(loop: String?, groups: [String?], phrases: [Int: String]) {
        self.loop = loop
        self.groups = groups
        self.phrases = phrases
    }

    /// The picture for group `group` (from 0), and phrase `phrase` (from 1) when one is current.
    public func path(group: Int, phrase: Int?) -> String? {
        phrase.flatMap { phrases[$0] } ?? (groups.indices.contains(group) ? groups[group] : nil) ?? loop
    }

    /// Every picture file it can show.
    public var files: Set<String> { Set([loop].compactMap { $0 } + groups.compactMap { $0 } + phrases.values) }
}

/// How this terminal shows pictures, from what it says about itself.
public enum TerminalGraphicsDetection {
    /// Kitty graphics where the environment names a terminal that has them; sixel where the
    /// terminal's answer to the Primary Device Attributes query (`ESC [ c`) lists 4 (sixel);
    /// else character art, in 24-bit colour where `COLORTERM` says so, without colour under
    /// `NO_COLOR`.
    public static func detect(environment: [String: String], askDeviceAttributes: () -> String?) -> TerminalGraphics {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let colors: TerminalGraphics.Colors =
            noColor
            ? .none
            : ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "") ? .trueColor : .palette256
        if noColor { return .symbols(.none) }
        let term = environment["TERM"] ?? ""
        if term.contains("kitty") || environment["KITTY_WINDOW_ID"] != nil || term == "xterm-ghostty" { return .kitty }
        if let reply = askDeviceAttributes(), supportsSixel(deviceAttributes: reply) { return .sixel }
        return .symbols(colors)
    }

    /// Whether a Primary Device Attributes reply (`ESC [ ? 62 ; 4 ; 22 c`) lists sixel (4).
    public static func supportsSixel(deviceAttributes reply: String) -> Bool {
        guard let start = reply.range(of: "\u{1B}[?"), let end = reply[start.upperBound...].firstIndex(of: "c") else {
            return false
        }
        return reply[start.upperBound..<end].split(separator: ";").dropFirst().contains("4")
    }
}

/// A pixel picture's place in a frame: the rows left blank for it and what draws it.
public struct PixelPlacement: Equatable {
    /// The first row left blank for it.
    public var row: Int
    /// The rows it takes.
    public var rows: Int
    /// The column it starts at.
    public var column: Int
    /// What draws it at its place.
    public var sequence: String
    /// What is shown where: a new key means drawing again.
    public var key: String
}

/// Pictures decoded for a view, by file: what ``PictureShelf/decode(_:)`` gives and a shelf
/// draws (the pixels stay inside).
public struct DecodedPictures: Sendable {
    let pictures: [String: RGBAPicture]

    init(_ pictures: [String: RGBAPicture]) { self.pictures = pictures }

    /// Whether no picture could be decoded.
    public var isEmpty: Bool { pictures.isEmpty }
}

/// The pictures of a full-screen view: decoded once before the view starts (off the terminal's
/// loop), drawn for the space a frame leaves, and, for sixel or kitty graphics, written only
/// when what the screen shows changes (text never overwrites them, and a frame a tenth of a
/// second does not resend them).
public final class PictureShelf {
    /// How this terminal shows pictures.
    public let graphics: TerminalGraphics
    private let decoded: [String: RGBAPicture]
    private var drawn: [String: TerminalPicture] = [:]
    private var shownKey: String?
    /// The size of a character cell in pixels (for sixel and kitty).
    private let cell: (width: Int, height: Int)

    /// A shelf of decoded pictures; `cell` is a character cell's size in pixels.
    public init(graphics: TerminalGraphics, decoded: [String: RGBAPicture], cell: (width: Int, height: Int)) {
        self.graphics = graphics
        self.decoded = decoded
        self.cell = cell
    }

    /// The shelf for the terminal the view runs in, asking it what it shows (when there is
    /// anything to show).
    public convenience init(terminal: RawTerminal, decoded pictures: DecodedPictures) {
        let decoded = pictures.pictures
        let graphics =
            decoded.isEmpty
            ? .symbols(.none)
            : TerminalGraphicsDetection.detect(environment: ProcessInfo.processInfo.environment) {
                terminal.ask("\u{1B}[c", until: UInt8(ascii: "c"), timeout: 400)
            }
        self.init(graphics: graphics, decoded: decoded, cell: terminal.cellPixels ?? (10, 20))
    }

    /// Decodes the pictures at `files`, scaled to at most 640 pixels a side, off the caller's
    /// thread. A picture that no longer decodes is left out (the view shows none for it).
    public static func decode(_ files: Set<String>) async -> DecodedPictures {
        guard !files.isEmpty else { return DecodedPictures([:]) }
        return DecodedPictures(
            (try? await BlockingWork.run("loop pictures") {
                var decoded: [String: RGBAPicture] = [:]
                for file in files { decoded[file] = try? PictureDecoder.decode(file, fitting: 640) }
                return decoded
            }) ?? [:])
    }

    /// Adds the picture at `path` to `lines`, in at most `rows` rows and `columns` columns:
    /// character art as lines, a pixel picture as blank lines and the placement that draws it.
    public func place(_ path: String?, in lines: inout [String], rows: Int, columns: Int) -> PixelPlacement? {
        guard let path, rows >= 3, columns >= 8, let picture = decoded[path] else { return nil }
        if let missing = TerminalPicture.unavailable {
            lines.append(String("  (no picture: \(missing))".prefix(columns)))
            return nil
        }
        let key = "\(path) \(rows)x\(columns)"
        let drawing =
            drawn[key] ?? TerminalPicture(picture, columns: columns - 2, rows: rows, graphics: graphics, cell: cell)
        drawn[key] = drawing
        if !graphics.isPixels {
            lines += drawing.lines.map { "  " + $0 }
            return nil
        }
        let placement = PixelPlacement(
            row: lines.count, rows: drawing.rows, column: 3, sequence: drawing.sequence, key: "\(key) at \(lines.count)"
        )
        lines += Array(repeating: "", count: drawing.rows)
        return placement
    }

    /// The frame to write: home, each line cleared to its end (except the rows a pixel picture
    /// shows already), the rest of the screen cleared, then the pixel picture if it changed.
    public func frame(_ lines: [String], placement: PixelPlacement?) -> String {
        let showing = placement.map { $0.key == shownKey } ?? false
        var frame = "\u{1B}[H"
        for (index, line) in lines.enumerated() {
            if index > 0 { frame += "\r\n" }
            let underPicture = placement.map { ($0.row..<($0.row + $0.rows)).contains(index) } ?? false
            frame += underPicture && showing ? line : line + "\u{1B}[K"
        }
        frame += "\u{1B}[J"
        if let placement, !showing {
            // Kitty keeps images apart from the text: the one shown before goes first.
            if graphics == .kitty { frame += "\u{1B}_Ga=d,d=A\u{1B}\\" }
            frame += "\u{1B}[\(placement.row + 1);\(placement.column)H" + placement.sequence
        } else if placement == nil, shownKey != nil, graphics == .kitty {
            frame += "\u{1B}_Ga=d,d=A\u{1B}\\"
        }
        shownKey = placement?.key
        return frame
    }
}
