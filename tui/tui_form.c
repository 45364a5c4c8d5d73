/*
 * tui_form.c — the rows of an input form, as the lab and calculator screens
 * draw them: the selection (reverse video and a ▶ marker, the video left
 * plain while the row is being edited, so the input stands out) and the value
 * cell, which turns into the line editor with the terminal cursor in it.
 */
#include "tui/tui_screen.h"

#include <stdlib.h>

uint8_t tui_view_form_row(struct tui_canvas *c, struct tui_rect r, int y, bool sel, bool editing)
{
    uint8_t ra = sel && !editing ? TUI_A_REVERSE : 0;
    if (ra)
        tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', TUI_ST(ra, 0));
    if (sel)
        tui_canvas_put(c, y, r.x + 1, tui_glyph(c->cs, "▶", ">"),
                       TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), -1);
    return ra;
}

void tui_view_form_value(struct tui_canvas *c, int y, int x, int w, const char *value,
                         struct tui_style st, struct tui_input *in, bool editing,
                         struct tui_cursor *cur)
{
    if (!editing) {
        tui_canvas_put(c, y, x, value, st, w);
        return;
    }
    int col = tui_input_draw(c, y, x, w, in, TUI_ST(TUI_A_UNDER, 0));
    cur->on = true;
    cur->y = y;
    cur->x = x + col;
}

void tui_form_fields_free(struct tui_form_field *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) {
        free(f[i].label);
        free(f[i].value);
        free(f[i].range);
        free(f[i].help);
    }
    free(f);
}
