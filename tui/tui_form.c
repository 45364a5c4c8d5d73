/*
 * tui_form.c — the rows of an input form, as the lab and calculator screens
 * draw them: the value cell, which turns into the line editor with the
 * terminal cursor in it (the row itself is a list row, tui_view_list_row).
 */
#include "tui/tui_screen.h"

#include <stdlib.h>

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
