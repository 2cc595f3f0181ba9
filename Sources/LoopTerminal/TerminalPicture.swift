import LoopFFmpeg

/// How a terminal shows pictures.
public enum TerminalGraphics: Sendable, Equatable, Hashable {
    /// Colours of character art.
    public enum Colors: Sendable, Equatable, Hashable { case trueColor, palette256, none }

    /// Sixel graphics (xterm -ti vt340, mlterm, foot, WezTerm, ...).
    case sixel
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty).
    case kitty
    /// Character art: block characters in colour (or without, for `NO_COLOR`).
    case symbols(Colors)

    /// Whether the picture is pixels drawn over cells (which text must not overwrite).
    public var isPixels: Bool { self == .sixel || self == .kitty }
}

/// A picture drawn for a terminal, in a box of cells.
public struct TerminalPicture: Sendable, Equatable {
    /// The cells it takes.
    public var columns: Int
    /// See ``columns``.
    public var rows: Int
    /// Character art: one string per row (with colour sequences). Empty for pixel graphics.
    public var lines: [String]
    /// Pixel graphics: the sequence that draws the picture at the cursor. Empty for character art.
    public var sequence: String

    /// Why no picture can be drawn here (chafa's library is not installed), or nil.
    public static var unavailable: String? { ChafaCalls.loadError }

    /// `picture` drawn to fit within `columns`×`rows` cells, aspect kept; `cell` is the size of
    /// a cell in pixels (the terminal's, when it says; 10×20 otherwise).
    public init(
        _ picture: RGBAPicture, columns: Int, rows: Int, graphics: TerminalGraphics,
        cell: (width: Int, height: Int) = (10, 20)
    ) {
        let box = ChafaCalls.fit(
            width: picture.width, height: picture.height, columns: max(1, columns), rows: max(1, rows), cell: cell)
        let printed = ChafaCalls.draw(picture, columns: box.columns, rows: box.rows, graphics: graphics, cell: cell)
        self.columns = box.columns
        self.rows = box.rows
        if graphics.isPixels {
            lines = []
            sequence = printed
        } else {
            lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter {
                !$0.isEmpty
            }
            sequence = ""
        }
    }
}
