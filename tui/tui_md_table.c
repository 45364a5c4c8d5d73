/*
 * tui_md_table.c — Markdown tables: cells are gathered whole (their inline
 * text with its styles), then laid out when the table ends: columns as
 * wide as their widest cell, the widest shrunk until the table fits (cut
 * cells end with a marker), aligned as the delimiter row says, with box
 * borders in UTF-8 and +-| in ASCII.
 */
#include "tui/tui_md_internal.h"

#include <stdlib.h>
#include <string.h>

void tui_md_table_enter(struct tui_md *m, MD_BLOCKTYPE type)
{
    struct tui_md_table *t = m->table;
    if (!t)
        return;
    if (type != MD_BLOCK_TR) {
        t->in_head = type == MD_BLOCK_THEAD;
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->rows = core_xrealloc(t->rows, t->cap * sizeof *t->rows);
    }
    t->rows[t->n++] = (struct tui_md_row){NULL, 0, t->in_head};
}

void tui_md_table_free(struct tui_md_table *t)
{
    if (!t)
        return;
    for (size_t r = 0; r < t->n; r++) {
        for (size_t c = 0; c < t->rows[r].n; c++) {
            free(t->rows[r].cells[c].text);
            free(t->rows[r].cells[c].runs);
        }
        free(t->rows[r].cells);
    }
    free(t->rows);
    free(t);
}

void tui_md_table_cell_done(struct tui_md *m)
{
    struct tui_md_table *t = m->table;
    if (!t || !t->n) {
        tui_md_para_reset(&m->para);
        return;
    }
    struct tui_md_row *row = &t->rows[t->n - 1];
    row->cells = core_xrealloc(row->cells, (row->n + 1) * sizeof *row->cells);
    struct tui_md_cell *c = &row->cells[row->n++];
    struct tui_md_para *p = &m->para;
    for (size_t i = 0; i < p->text.len; i++) /* hard breaks inside a cell */
        if (p->text.data[i] == '\n')
            p->text.data[i] = ' ';
    c->text = core_xstrndup(p->text.data ? p->text.data : "", p->text.len);
    c->n = p->n;
    c->runs = core_xmalloc((p->n ? p->n : 1) * sizeof *c->runs);
    if (p->n)
        memcpy(c->runs, p->runs, p->n * sizeof *c->runs);
    c->w = tui_text_width(c->text);
    c->align = m->cell_align;
    tui_md_para_reset(p);
}

/* One border line: left, fill, middle and right pieces. */
static void table_border(struct tui_md *m, const int *cw, size_t nc, const char *l, const char *mid,
                         const char *r)
{
    struct tui_md_lb b = {0};
    tui_md_add_prefix(m, &b, false);
    const char *h = tui_md_utf8(m) ? "─" : "-";
    tui_md_lb_puts(&b, l, S_MUTED);
    for (size_t c = 0; c < nc; c++) {
        for (int i = 0; i < cw[c] + 2; i++)
            tui_md_lb_puts(&b, h, S_MUTED);
        tui_md_lb_puts(&b, c + 1 < nc ? mid : r, S_MUTED);
    }
    tui_md_push_line(m, &b);
    tui_md_started(m);
}

void tui_md_flush_table(struct tui_md *m)
{
    struct tui_md_table *t = m->table;
    m->table = NULL;
    if (!t)
        return;
    size_t nc = 0;
    for (size_t r = 0; r < t->n; r++)
        nc = t->rows[r].n > nc ? t->rows[r].n : nc;
    if (!nc) {
        tui_md_table_free(t);
        return;
    }
    int *cw = core_xcalloc(nc, sizeof *cw);
    MD_ALIGN *align = core_xcalloc(nc, sizeof *align);
    for (size_t r = 0; r < t->n; r++) {
        for (size_t c = 0; c < t->rows[r].n; c++) {
            const struct tui_md_cell *cell = &t->rows[r].cells[c];
            if (cell->w > cw[c])
                cw[c] = cell->w;
            if (r == 0)
                align[c] = cell->align;
        }
    }
    /* shrink the widest columns until the table fits, down to 3 columns */
    int avail = m->width - tui_md_prefix_width(m);
    long total = 1;
    for (size_t c = 0; c < nc; c++) {
        if (cw[c] < 1)
            cw[c] = 1;
        total += cw[c] + 3;
    }
    while (total > avail) {
        size_t widest = 0;
        for (size_t c = 1; c < nc; c++)
            if (cw[c] > cw[widest])
                widest = c;
        if (cw[widest] <= 3)
            break; /* still too wide: the lines get cut */
        cw[widest]--;
        total--;
    }
    const char *v = tui_md_utf8(m) ? "│" : "|";
    if (tui_md_utf8(m))
        table_border(m, cw, nc, "┌", "┬", "┐");
    else
        table_border(m, cw, nc, "+", "+", "+");
    for (size_t r = 0; r < t->n; r++) {
        const struct tui_md_row *row = &t->rows[r];
        struct tui_md_lb b = {0};
        tui_md_add_prefix(m, &b, false);
        tui_md_lb_puts(&b, v, S_MUTED);
        for (size_t c = 0; c < nc; c++) {
            tui_md_lb_spaces(&b, 1, S_PLAIN);
            const struct tui_md_cell *cell = c < row->n ? &row->cells[c] : NULL;
            int w = cell ? cell->w : 0;
            if (cell && w > cw[c]) {
                int used;
                size_t keep = tui_text_fit(cell->text, cw[c] - 1, &used);
                tui_md_add_styled(&b, cell->text, cell->runs, cell->n, 0, keep);
                tui_md_lb_spaces(&b, cw[c] - 1 - used, S_PLAIN);
                tui_md_lb_puts(&b, tui_md_utf8(m) ? "…" : ">", S_MUTED);
            } else {
                int pad = cw[c] - w, left = 0;
                if (align[c] == MD_ALIGN_RIGHT)
                    left = pad;
                else if (align[c] == MD_ALIGN_CENTER)
                    left = pad / 2;
                tui_md_lb_spaces(&b, left, S_PLAIN);
                if (cell)
                    tui_md_add_styled(&b, cell->text, cell->runs, cell->n, 0, strlen(cell->text));
                tui_md_lb_spaces(&b, pad - left, S_PLAIN);
            }
            tui_md_lb_spaces(&b, 1, S_PLAIN);
            tui_md_lb_puts(&b, v, S_MUTED);
        }
        tui_md_push_line(m, &b);
        tui_md_started(m);
        if (row->head && (r + 1 >= t->n || !t->rows[r + 1].head)) {
            if (tui_md_utf8(m))
                table_border(m, cw, nc, "├", "┼", "┤");
            else
                table_border(m, cw, nc, "+", "+", "+");
        }
    }
    if (tui_md_utf8(m))
        table_border(m, cw, nc, "└", "┴", "┘");
    else
        table_border(m, cw, nc, "+", "+", "+");
    free(cw);
    free(align);
    tui_md_table_free(t);
}
