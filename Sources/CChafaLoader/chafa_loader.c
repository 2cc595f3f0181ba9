/* The chafa functions LoopLearn calls (and GLib's g_string_free, for what chafa prints), defined
 * here and forwarded to libchafa, which is opened with dlopen on the first call instead of being
 * linked. */
#include "chafa_loader.h"

#include <chafa.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                               \
    X(chafa_calc_canvas_geometry) X(chafa_canvas_config_new) X(chafa_canvas_config_unref)          \
    X(chafa_canvas_config_set_geometry) X(chafa_canvas_config_set_cell_geometry)                   \
    X(chafa_canvas_config_set_canvas_mode) X(chafa_canvas_config_set_pixel_mode)                   \
    X(chafa_canvas_config_set_symbol_map) X(chafa_symbol_map_new) X(chafa_symbol_map_unref)        \
    X(chafa_symbol_map_add_by_tags) X(chafa_symbol_map_remove_by_tags) X(chafa_canvas_new)         \
    X(chafa_canvas_unref) X(chafa_canvas_draw_all_pixels) X(chafa_canvas_print)                    \
    X(chafa_term_db_get_default) X(chafa_term_db_get_fallback_info) X(chafa_term_info_unref)       \
    X(g_string_free)
LOOP_DYNAMIC_LIBRARY(loop_chafa_load_error, "libchafa.so.0", "chafa's library", "libchafa0", FUNCTIONS)

/* Each function: load on first use. The caller asks loop_chafa_load_error() before drawing, so
 * without the library only the guards below are reached. */
#define READY (loop_chafa_load_error() == NULL)

void chafa_calc_canvas_geometry(gint src_width, gint src_height, gint *dest_width_inout, gint *dest_height_inout,
                                gfloat font_ratio, gboolean zoom, gboolean stretch) {
    if (READY) CALL(chafa_calc_canvas_geometry)(src_width, src_height, dest_width_inout, dest_height_inout, font_ratio, zoom, stretch);
}
ChafaCanvasConfig *chafa_canvas_config_new(void) { return READY ? CALL(chafa_canvas_config_new)() : NULL; }
void chafa_canvas_config_unref(ChafaCanvasConfig *config) { if (READY) CALL(chafa_canvas_config_unref)(config); }
void chafa_canvas_config_set_geometry(ChafaCanvasConfig *config, gint width, gint height) {
    if (READY) CALL(chafa_canvas_config_set_geometry)(config, width, height);
}
void chafa_canvas_config_set_cell_geometry(ChafaCanvasConfig *config, gint cell_width, gint cell_height) {
    if (READY) CALL(chafa_canvas_config_set_cell_geometry)(config, cell_width, cell_height);
}
void chafa_canvas_config_set_canvas_mode(ChafaCanvasConfig *config, ChafaCanvasMode mode) {
    if (READY) CALL(chafa_canvas_config_set_canvas_mode)(config, mode);
}
void chafa_canvas_config_set_pixel_mode(ChafaCanvasConfig *config, ChafaPixelMode pixel_mode) {
    if (READY) CALL(chafa_canvas_config_set_pixel_mode)(config, pixel_mode);
}
void chafa_canvas_config_set_symbol_map(ChafaCanvasConfig *config, const ChafaSymbolMap *symbol_map) {
    if (READY) CALL(chafa_canvas_config_set_symbol_map)(config, symbol_map);
}
ChafaSymbolMap *chafa_symbol_map_new(void) { return READY ? CALL(chafa_symbol_map_new)() : NULL; }
void chafa_symbol_map_unref(ChafaSymbolMap *symbol_map) { if (READY) CALL(chafa_symbol_map_unref)(symbol_map); }
void chafa_symbol_map_add_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags) {
    if (READY) CALL(chafa_symbol_map_add_by_tags)(symbol_map, tags);
}
void chafa_symbol_map_remove_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags) {
    if (READY) CALL(chafa_symbol_map_remove_by_tags)(symbol_map, tags);
}
ChafaCanvas *chafa_canvas_new(const ChafaCanvasConfig *config) { return READY ? CALL(chafa_canvas_new)(config) : NULL; }
void chafa_canvas_unref(ChafaCanvas *canvas) { if (READY) CALL(chafa_canvas_unref)(canvas); }
void chafa_canvas_draw_all_pixels(ChafaCanvas *canvas, ChafaPixelType src_pixel_type, const guint8 *src_pixels,
                                  gint src_width, gint src_height, gint src_rowstride) {
    if (READY) CALL(chafa_canvas_draw_all_pixels)(canvas, src_pixel_type, src_pixels, src_width, src_height, src_rowstride);
}
GString *chafa_canvas_print(ChafaCanvas *canvas, ChafaTermInfo *term_info) { return READY ? CALL(chafa_canvas_print)(canvas, term_info) : NULL; }
ChafaTermDb *chafa_term_db_get_default(void) { return READY ? CALL(chafa_term_db_get_default)() : NULL; }
ChafaTermInfo *chafa_term_db_get_fallback_info(ChafaTermDb *term_db) { return READY ? CALL(chafa_term_db_get_fallback_info)(term_db) : NULL; }
void chafa_term_info_unref(ChafaTermInfo *term_info) { if (READY) CALL(chafa_term_info_unref)(term_info); }
/* In parentheses: newer GLib headers make g_string_free a macro as well. */
gchar *(g_string_free)(GString *string, gboolean free_segment) { return READY ? CALL(g_string_free)(string, free_segment) : NULL; }
