internal import CChafa
internal import CChafaLoader
import LoopFFmpeg

/// The chafa calls of the package: a picture drawn for a terminal. C types stay in this file.
enum ChafaCalls {
    /// What is missing to draw pictures (chafa's library), or nil once it is loaded.
    static var loadError: String? { loop_chafa_load_error().map { String(cString: $0) } }

    /// `picture` drawn in a canvas of `columns`×`rows` cells, as the terminal text chafa prints.
    static func draw(
        _ picture: RGBAPicture, columns: Int, rows: Int, graphics: TerminalGraphics, cell: (width: Int, height: Int)
    ) -> String {
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cell.width), Int32(cell.height))
        let symbols = chafa_symbol_map_new()
        defer { chafa_symbol_map_unref(symbols) }
        // Blocks and half blocks: every terminal font has them, each one column wide.
        chafa_symbol_map_add_by_tags(
            symbols,
            ChafaSymbolTags(
                rawValue: CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue
                    | CHAFA_SYMBOL_TAG_HALF.rawValue))
        chafa_symbol_map_remove_by_tags(symbols, CHAFA_SYMBOL_TAG_WIDE)
        chafa_canvas_config_set_symbol_map(config, symbols)
        switch graphics {
        case .sixel:
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
            chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        case .kitty:
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
            chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        case .symbols(let colors):
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            switch colors {
            case .trueColor: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
            case .palette256: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_INDEXED_240)
            case .none: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_FGBG)
            }
        }
        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        picture.pixels.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(picture.width), Int32(picture.height),
                Int32(picture.width * 4))
        }
        // The fallback terminal description knows every sequence (sixel, kitty, colours).
        let info = chafa_term_db_get_fallback_info(chafa_term_db_get_default())
        defer { chafa_term_info_unref(info) }
        guard let printed = chafa_canvas_print(canvas, info) else { return "" }
        let text = String(cString: printed.pointee.str)
        g_string_free(printed, 1)
        return text
    }

    /// The canvas (columns, rows) that shows a `width`×`height` picture whole within
    /// `columns`×`rows` cells of the given cell shape.
    static func fit(width: Int, height: Int, columns: Int, rows: Int, cell: (width: Int, height: Int)) -> (
        columns: Int, rows: Int
    ) {
        var outColumns = Int32(columns)
        var outRows = Int32(rows)
        chafa_calc_canvas_geometry(
            Int32(width), Int32(height), &outColumns, &outRows, Float(cell.width) / Float(cell.height), 1, 0)
        return (max(1, Int(outColumns)), max(1, Int(outRows)))
    }
}
