/*
 * tui_md.c — Markdown to styled, wrapped lines, with md4c as the parser.
 *
 * md4c calls back with blocks, spans and text; we keep a stack of containers
 * (block quotes, lists, list items) whose prefixes ("│ ", "• ", hanging
 * indents) start every line, gather a leaf block's inline text as one UTF-8
 * string with style runs, and break it into lines with tui_text_break when
 * the block ends. Code blocks are copied line by line, tables are gathered
 * whole and laid out when they end. Every finished line is cut to the width
 * with a marker, so no line is ever wider than the width (unless prefixes
 * alone are).
 *
 * Blank lines: a block that ends asks for one before the next block, except
 * between the items and blocks of a tight list.
 */
#include "tui/tui_internal.h"

#include <md4c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines ---------------------------------------------------------------- */

/* A line being built: spans with adjacent same-style text merged. */
struct lb {
    struct tui_span *v;
    size_t n, cap;
};

static bool same_style(struct tui_style a, struct tui_style b)
{
    return a.attr == b.attr && a.color == b.color;
}

static void lb_add(struct lb *b, const char *s, size_t len, struct tui_style st)
{
    if (!len)
        return;
    if (b->n && same_style(b->v[b->n - 1].st, st)) {
        struct tui_span *sp = &b->v[b->n - 1];
        size_t old = strlen(sp->text);
        sp->text = core_xrealloc(sp->text, old + len + 1);
        memcpy(sp->text + old, s, len);
        sp->text[old + len] = '\0';
        return;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4;
        b->v = core_xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n].text = core_xstrndup(s, len);
    b->v[b->n].st = st;
    b->n++;
}

static void lb_puts(struct lb *b, const char *s, struct tui_style st)
{
    lb_add(b, s, strlen(s), st);
}

static void lb_spaces(struct lb *b, int n, struct tui_style st)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        int k = n < 32 ? n : 32;
        lb_add(b, sp, (size_t)k, st);
        n -= k;
    }
}

static void line_free(struct tui_line *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->spans[i].text);
    free(l->spans);
}

void tui_doc_fini(struct tui_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        line_free(&d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->n = 0;
}

/* ---- the renderer --------------------------------------------------------- */

/* A byte range of gathered text with its style. */
struct run {
    size_t start, end;
    struct tui_style st;
};

/* Inline text of one leaf block. */
struct para {
    struct core_buf text;
    struct run *runs;
    size_t n, cap;
    bool space;                /* a space is due before the next visible character */
    struct tui_style space_st; /* the style where the space was */
};

struct cont {
    MD_BLOCKTYPE type;
    char first[32], rest[32]; /* prefixes of the first and later lines */
    bool started;             /* LI: its first line is out */
    bool tight;               /* UL, OL */
    unsigned next;            /* OL: the next item's number */
    int level;                /* UL, OL: lists around this one */
};

struct tcell {
    char *text;
    struct run *runs;
    size_t n;
    int w;
    MD_ALIGN align;
};

struct trow {
    struct tcell *cells;
    size_t n;
    bool head;
};

struct table {
    struct trow *rows;
    size_t n, cap;
    bool in_head;
};

struct link {
    char *href;
    size_t start;
};

struct md {
    struct tui_doc *doc;
    size_t cap;
    int width;
    enum tui_charset cs;
    struct cont *stack;
    size_t depth, stack_cap;
    struct para para;
    int em, strong, code_span, del, link_depth;
    struct tui_style base; /* the leaf block's style */
    struct link *links;
    size_t nlinks, links_cap;
    bool blank; /* a blank line is due before the next block */
    enum { L_NONE, L_PARA, L_HEAD, L_CODE, L_CELL } leaf;
    unsigned head_level;
    struct core_buf code;
    struct table *table;
    MD_ALIGN cell_align;
};

static const struct tui_style S_PLAIN = {0, 0};
static const struct tui_style S_MUTED = {0, TUI_C_MUTED};
static const struct tui_style S_MARK = {0, TUI_C_ACCENT};
static const struct tui_style S_CODE = {0, TUI_C_CODE};

static bool utf8(const struct md *m)
{
    return m->cs == TUI_CS_UTF8;
}

static void push_line(struct md *m, struct lb *b)
{
    struct tui_doc *d = m->doc;
    if (d->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 32;
        d->lines = core_xrealloc(d->lines, m->cap * sizeof *d->lines);
    }
    struct tui_line *l = &d->lines[d->n++];
    l->indent = 0;
    /* leading plain spaces become the indent */
    size_t skip = 0;
    while (skip < b->n && same_style(b->v[skip].st, S_PLAIN)) {
        char *t = b->v[skip].text;
        size_t k = strspn(t, " ");
        l->indent += (int)k;
        if (t[k]) {
            memmove(t, t + k, strlen(t + k) + 1);
            break;
        }
        free(t);
        skip++;
    }
    l->n = b->n - skip;
    l->spans = core_xmalloc((l->n ? l->n : 1) * sizeof *l->spans);
    if (l->n)
        memcpy(l->spans, b->v + skip, l->n * sizeof *l->spans);
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;

    /* cut to the width with a marker */
    int total = l->indent, max = m->width;
    for (size_t i = 0; i < l->n; i++)
        total += tui_text_width(l->spans[i].text);
    if (total <= max)
        return;
    int keep = max - 1, w = l->indent;
    size_t n = 0;
    if (l->indent > keep) {
        l->indent = keep;
    } else {
        for (; n < l->n; n++) {
            int sw = tui_text_width(l->spans[n].text);
            if (w + sw > keep) {
                l->spans[n].text[tui_text_fit(l->spans[n].text, keep - w, NULL)] = '\0';
                n++;
                break;
            }
            w += sw;
        }
    }
    for (size_t i = n; i < l->n; i++)
        free(l->spans[i].text);
    l->n = n;
    l->spans = core_xrealloc(l->spans, (l->n + 1) * sizeof *l->spans);
    l->spans[l->n].text = core_xstrdup(utf8(m) ? "…" : ">");
    l->spans[l->n].st = S_MUTED;
    l->n++;
}

/* The containers' prefixes for the next line. A blank line drops trailing
 * spaces and does not use up a list item's marker. */
static void add_prefix(struct md *m, struct lb *b, bool blank)
{
    for (size_t i = 0; i < m->depth; i++) {
        struct cont *c = &m->stack[i];
        if (c->type == MD_BLOCK_QUOTE)
            lb_puts(b, c->first, S_MUTED);
        else if (c->type == MD_BLOCK_LI && (c->started || blank))
            lb_puts(b, c->rest, S_PLAIN);
        else if (c->type == MD_BLOCK_LI)
            lb_puts(b, c->first, S_MARK);
    }
    if (!blank)
        return;
    while (b->n) {
        char *t = b->v[b->n - 1].text;
        size_t k = strlen(t);
        while (k && t[k - 1] == ' ')
            k--;
        t[k] = '\0';
        if (k)
            break;
        free(t);
        b->n--;
    }
}

static int prefix_width(const struct md *m)
{
    int w = 0;
    for (size_t i = 0; i < m->depth; i++) {
        const struct cont *c = &m->stack[i];
        if (c->type == MD_BLOCK_QUOTE)
            w += tui_text_width(c->first);
        else if (c->type == MD_BLOCK_LI)
            w += tui_text_width(c->started ? c->rest : c->first);
    }
    return w;
}

static void started(struct md *m)
{
    for (size_t i = 0; i < m->depth; i++)
        if (m->stack[i].type == MD_BLOCK_LI)
            m->stack[i].started = true;
}

static void emit_blank_if_due(struct md *m)
{
    if (!m->blank)
        return;
    m->blank = false;
    if (!m->doc->n)
        return;
    struct lb b = {0};
    add_prefix(m, &b, true);
    push_line(m, &b);
}

/* After a block ends: a blank line is due unless we are inside a tight
 * list. */
static void block_done(struct md *m)
{
    bool tight = false;
    if (m->depth) {
        const struct cont *top = &m->stack[m->depth - 1];
        if (top->type == MD_BLOCK_LI && m->depth >= 2)
            tight = m->stack[m->depth - 2].tight;
        else if (top->type == MD_BLOCK_UL || top->type == MD_BLOCK_OL)
            tight = top->tight;
    }
    if (!tight)
        m->blank = true;
}

/* ---- inline text ---------------------------------------------------------- */

static struct tui_style inline_style(const struct md *m)
{
    struct tui_style st = m->base;
    if (m->em)
        st.attr |= TUI_A_ITALIC;
    if (m->strong)
        st.attr |= TUI_A_BOLD;
    if (m->link_depth)
        st.attr |= TUI_A_UNDER;
    if (m->del)
        st.attr |= TUI_A_DIM;
    if (m->code_span)
        st.color = TUI_C_CODE;
    return st;
}

static void para_raw(struct para *p, const char *s, size_t len, struct tui_style st)
{
    if (!len)
        return;
    size_t at = p->text.len;
    core_buf_append(&p->text, s, len);
    if (p->n && p->runs[p->n - 1].end == at && same_style(p->runs[p->n - 1].st, st)) {
        p->runs[p->n - 1].end = p->text.len;
        return;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->runs = core_xrealloc(p->runs, p->cap * sizeof *p->runs);
    }
    p->runs[p->n++] = (struct run){at, p->text.len, st};
}

/* Appends text, collapsing white space to single spaces and dropping it at
 * the start of the block. */
static void para_text(struct para *p, const char *s, size_t len, struct tui_style st)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            if (p->text.len && p->text.data[p->text.len - 1] != '\n' && !p->space) {
                p->space = true;
                p->space_st = st;
            }
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' &&
               s[j] != '\v' && s[j] != '\f')
            j++;
        if (p->space) {
            para_raw(p, " ", 1, p->space_st);
            p->space = false;
        }
        para_raw(p, s + i, j - i, st);
        i = j;
    }
}

static void para_reset(struct para *p)
{
    core_buf_reset(&p->text);
    p->n = 0;
    p->space = false;
}

static void para_free(struct para *p)
{
    core_buf_fini(&p->text);
    free(p->runs);
    p->runs = NULL;
    p->n = p->cap = 0;
}

/* Adds bytes [a, b) of gathered text to a line with their styles. */
static void add_styled(struct lb *out, const char *text, const struct run *runs, size_t n, size_t a,
                       size_t b)
{
    for (size_t i = 0; i < n && a < b; i++) {
        if (runs[i].end <= a)
            continue;
        size_t s = runs[i].start > a ? runs[i].start : a;
        size_t e = runs[i].end < b ? runs[i].end : b;
        if (s < e)
            lb_add(out, text + s, e - s, runs[i].st);
    }
}

/* Breaks the gathered text into lines under the containers' prefixes.
 * Returns the widest line's text columns. */
static int flush_para(struct md *m)
{
    struct para *p = &m->para;
    if (!p->text.len)
        return 0;
    int widest = 0;
    size_t at = 0;
    const char *t = p->text.data;
    for (;;) {
        struct lb b = {0};
        add_prefix(m, &b, false);
        int avail = m->width - prefix_width(m);
        size_t len, next;
        int cols;
        bool more = tui_text_break(t + at, avail < 1 ? 1 : avail, &len, &cols, &next);
        add_styled(&b, t, p->runs, p->n, at, at + len);
        push_line(m, &b);
        started(m);
        widest = cols > widest ? cols : widest;
        if (!more)
            break;
        at += next;
    }
    para_reset(p);
    return widest;
}

/* Named and numeric character references. */
static void entity(struct md *m, const char *s, size_t len, struct tui_style st)
{
    static const struct {
        const char *name, *text;
    } named[] = {
        {"amp", "&"},       {"lt", "<"},     {"gt", ">"},     {"quot", "\""},  {"apos", "'"},
        {"nbsp", "\u00A0"}, {"copy", "©"},   {"reg", "®"},    {"trade", "™"},  {"hellip", "…"},
        {"mdash", "—"},     {"ndash", "–"},  {"times", "×"},  {"divide", "÷"}, {"le", "≤"},
        {"ge", "≥"},        {"ne", "≠"},     {"plusmn", "±"}, {"deg", "°"},    {"micro", "µ"},
        {"middot", "·"},    {"rarr", "→"},   {"larr", "←"},   {"laquo", "«"},  {"raquo", "»"},
        {"lsquo", "‘"},     {"rsquo", "’"},  {"ldquo", "“"},  {"rdquo", "”"},  {"bull", "•"},
        {"sum", "∑"},       {"infin", "∞"},  {"asymp", "≈"},  {"minus", "−"},  {"sup2", "²"},
        {"sup3", "³"},      {"frac12", "½"}, {"alpha", "α"},  {"beta", "β"},   {"mu", "μ"},
        {"sigma", "σ"},     {"pi", "π"},     {"Delta", "Δ"},  {"lambda", "λ"}, {"theta", "θ"},
    };
    if (len >= 4 && s[0] == '&' && s[len - 1] == ';') {
        if (s[1] == '#') {
            bool hex = s[2] == 'x' || s[2] == 'X';
            unsigned long cp = 0;
            bool ok = true;
            for (size_t i = hex ? 3 : 2; i + 1 < len; i++) {
                int d = s[i] >= '0' && s[i] <= '9'          ? s[i] - '0'
                        : hex && s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                        : hex && s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10
                                                            : -1;
                if (d < 0 || cp > 0x10FFFF) {
                    ok = false;
                    break;
                }
                cp = cp * (hex ? 16 : 10) + (unsigned long)d;
            }
            if (!ok || cp == 0 || cp > 0x10FFFF)
                cp = 0xFFFD;
            char u[4];
            size_t n = core_utf8_encode(u, (uint32_t)cp);
            para_text(&m->para, u, n, st);
            return;
        }
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
            if (strlen(named[i].name) == len - 2 && !memcmp(named[i].name, s + 1, len - 2)) {
                para_text(&m->para, named[i].text, strlen(named[i].text), st);
                return;
            }
        }
    }
    para_text(&m->para, s, len, st);
}

/* ---- blocks that are not paragraphs --------------------------------------- */

static void flush_heading(struct md *m)
{
    int w = flush_para(m);
    if (m->head_level > 2 || !w)
        return;
    struct lb b = {0};
    add_prefix(m, &b, false);
    const char *rule = m->head_level == 1 ? (utf8(m) ? "═" : "=") : (utf8(m) ? "─" : "-");
    struct tui_style st = {0, TUI_C_ACCENT};
    for (int i = 0; i < w; i++)
        lb_puts(&b, rule, st);
    push_line(m, &b);
}

/* Code and raw HTML blocks: verbatim lines, tabs expanded, cut at the width. */
static void flush_code(struct md *m)
{
    const char *s = m->code.data ? m->code.data : "";
    size_t n = m->code.len;
    if (n && s[n - 1] == '\n')
        n--;
    if (!m->code.len)
        return;
    struct core_buf line;
    core_buf_init(&line);
    size_t i = 0;
    for (;;) {
        size_t j = i;
        while (j < n && s[j] != '\n')
            j++;
        core_buf_reset(&line);
        int col = 0;
        for (size_t k = i; k < j; k++) {
            if (s[k] == '\t') {
                do
                    core_buf_putc(&line, ' ');
                while (++col % 4);
            } else if (s[k] != '\r') {
                core_buf_putc(&line, s[k]);
                if (((unsigned char)s[k] & 0xC0) != 0x80)
                    col++;
            }
        }
        struct lb b = {0};
        add_prefix(m, &b, false);
        lb_spaces(&b, 2, S_PLAIN);
        if (line.len)
            lb_add(&b, line.data, line.len, S_CODE);
        push_line(m, &b);
        started(m);
        if (j >= n)
            break;
        i = j + 1;
    }
    core_buf_fini(&line);
    core_buf_reset(&m->code);
}

static void flush_rule(struct md *m)
{
    struct lb b = {0};
    add_prefix(m, &b, false);
    int w = m->width - prefix_width(m);
    for (int i = 0; i < w; i++)
        lb_puts(&b, utf8(m) ? "─" : "-", S_MUTED);
    push_line(m, &b);
    started(m);
}

/* ---- tables ---------------------------------------------------------------- */

static void table_free(struct table *t)
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

static void table_cell_done(struct md *m)
{
    struct table *t = m->table;
    if (!t || !t->n) {
        para_reset(&m->para);
        return;
    }
    struct trow *row = &t->rows[t->n - 1];
    row->cells = core_xrealloc(row->cells, (row->n + 1) * sizeof *row->cells);
    struct tcell *c = &row->cells[row->n++];
    struct para *p = &m->para;
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
    para_reset(p);
}

/* One border line: left, fill, middle and right pieces. */
static void table_border(struct md *m, const int *cw, size_t nc, const char *l, const char *mid,
                         const char *r)
{
    struct lb b = {0};
    add_prefix(m, &b, false);
    const char *h = utf8(m) ? "─" : "-";
    lb_puts(&b, l, S_MUTED);
    for (size_t c = 0; c < nc; c++) {
        for (int i = 0; i < cw[c] + 2; i++)
            lb_puts(&b, h, S_MUTED);
        lb_puts(&b, c + 1 < nc ? mid : r, S_MUTED);
    }
    push_line(m, &b);
    started(m);
}

static void flush_table(struct md *m)
{
    struct table *t = m->table;
    m->table = NULL;
    if (!t)
        return;
    size_t nc = 0;
    for (size_t r = 0; r < t->n; r++)
        nc = t->rows[r].n > nc ? t->rows[r].n : nc;
    if (!nc) {
        table_free(t);
        return;
    }
    int *cw = core_xcalloc(nc, sizeof *cw);
    MD_ALIGN *align = core_xcalloc(nc, sizeof *align);
    for (size_t r = 0; r < t->n; r++) {
        for (size_t c = 0; c < t->rows[r].n; c++) {
            const struct tcell *cell = &t->rows[r].cells[c];
            if (cell->w > cw[c])
                cw[c] = cell->w;
            if (r == 0)
                align[c] = cell->align;
        }
    }
    /* shrink the widest columns until the table fits, down to 3 columns */
    int avail = m->width - prefix_width(m);
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
    const char *v = utf8(m) ? "│" : "|";
    if (utf8(m))
        table_border(m, cw, nc, "┌", "┬", "┐");
    else
        table_border(m, cw, nc, "+", "+", "+");
    for (size_t r = 0; r < t->n; r++) {
        const struct trow *row = &t->rows[r];
        struct lb b = {0};
        add_prefix(m, &b, false);
        lb_puts(&b, v, S_MUTED);
        for (size_t c = 0; c < nc; c++) {
            lb_spaces(&b, 1, S_PLAIN);
            const struct tcell *cell = c < row->n ? &row->cells[c] : NULL;
            int w = cell ? cell->w : 0;
            if (cell && w > cw[c]) {
                int used;
                size_t keep = tui_text_fit(cell->text, cw[c] - 1, &used);
                add_styled(&b, cell->text, cell->runs, cell->n, 0, keep);
                lb_spaces(&b, cw[c] - 1 - used, S_PLAIN);
                lb_puts(&b, utf8(m) ? "…" : ">", S_MUTED);
            } else {
                int pad = cw[c] - w, left = 0;
                if (align[c] == MD_ALIGN_RIGHT)
                    left = pad;
                else if (align[c] == MD_ALIGN_CENTER)
                    left = pad / 2;
                lb_spaces(&b, left, S_PLAIN);
                if (cell)
                    add_styled(&b, cell->text, cell->runs, cell->n, 0, strlen(cell->text));
                lb_spaces(&b, pad - left, S_PLAIN);
            }
            lb_spaces(&b, 1, S_PLAIN);
            lb_puts(&b, v, S_MUTED);
        }
        push_line(m, &b);
        started(m);
        if (row->head && (r + 1 >= t->n || !t->rows[r + 1].head)) {
            if (utf8(m))
                table_border(m, cw, nc, "├", "┼", "┤");
            else
                table_border(m, cw, nc, "+", "+", "+");
        }
    }
    if (utf8(m))
        table_border(m, cw, nc, "└", "┴", "┘");
    else
        table_border(m, cw, nc, "+", "+", "+");
    free(cw);
    free(align);
    table_free(t);
}

/* ---- md4c callbacks ------------------------------------------------------- */

static struct cont *push(struct md *m, MD_BLOCKTYPE type)
{
    if (m->depth == m->stack_cap) {
        m->stack_cap = m->stack_cap ? 2 * m->stack_cap : 8;
        m->stack = core_xrealloc(m->stack, m->stack_cap * sizeof *m->stack);
    }
    struct cont *c = &m->stack[m->depth++];
    memset(c, 0, sizeof *c);
    c->type = type;
    return c;
}

static int list_level(const struct md *m)
{
    int n = 0;
    for (size_t i = 0; i < m->depth; i++)
        if (m->stack[i].type == MD_BLOCK_UL || m->stack[i].type == MD_BLOCK_OL)
            n++;
    return n;
}

static void start_item(struct md *m, const MD_BLOCK_LI_DETAIL *d)
{
    struct cont *list = m->depth ? &m->stack[m->depth - 1] : NULL;
    char mark[32];
    if (d && d->is_task) {
        snprintf(mark, sizeof mark, "[%c] ", d->task_mark == ' ' ? ' ' : 'x');
    } else if (list && list->type == MD_BLOCK_OL) {
        snprintf(mark, sizeof mark, "%u. ", list->next);
        list->next++;
    } else {
        static const char *u8[] = {"•", "◦", "▪"}, *asc[] = {"*", "-", "+"};
        int lv = list ? list->level % 3 : 0;
        snprintf(mark, sizeof mark, "%s ", utf8(m) ? u8[lv] : asc[lv]);
    }
    struct cont *c = push(m, MD_BLOCK_LI);
    snprintf(c->first, sizeof c->first, "%s", mark);
    int w = tui_text_width(mark);
    memset(c->rest, ' ', (size_t)w);
    c->rest[w] = '\0';
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    if (type == MD_BLOCK_THEAD || type == MD_BLOCK_TBODY) {
        if (m->table)
            m->table->in_head = type == MD_BLOCK_THEAD;
        return 0;
    }
    if (type == MD_BLOCK_TR) {
        struct table *t = m->table;
        if (t) {
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 8;
                t->rows = core_xrealloc(t->rows, t->cap * sizeof *t->rows);
            }
            t->rows[t->n++] = (struct trow){NULL, 0, t->in_head};
        }
        return 0;
    }
    if (type == MD_BLOCK_TH || type == MD_BLOCK_TD) {
        para_reset(&m->para);
        m->leaf = L_CELL;
        m->base = type == MD_BLOCK_TH ? (struct tui_style){TUI_A_BOLD, 0} : S_PLAIN;
        m->cell_align = detail ? ((MD_BLOCK_TD_DETAIL *)detail)->align : MD_ALIGN_DEFAULT;
        return 0;
    }
    /* text straight inside a tight list item ends where a block starts */
    m->base = S_PLAIN;
    flush_para(m);
    if (type == MD_BLOCK_DOC)
        return 0;
    emit_blank_if_due(m);
    switch (type) {
    case MD_BLOCK_QUOTE: {
        struct cont *c = push(m, MD_BLOCK_QUOTE);
        snprintf(c->first, sizeof c->first, "%s", utf8(m) ? "│ " : "| ");
        break;
    }
    case MD_BLOCK_UL:
    case MD_BLOCK_OL: {
        int level = list_level(m);
        struct cont *c = push(m, type);
        c->level = level;
        if (type == MD_BLOCK_UL) {
            c->tight = detail && ((MD_BLOCK_UL_DETAIL *)detail)->is_tight;
        } else {
            const MD_BLOCK_OL_DETAIL *d = detail;
            c->tight = d && d->is_tight;
            c->next = d ? d->start : 1;
        }
        break;
    }
    case MD_BLOCK_LI:
        start_item(m, detail);
        break;
    case MD_BLOCK_HR:
        flush_rule(m);
        break;
    case MD_BLOCK_H:
        m->leaf = L_HEAD;
        m->head_level = detail ? ((MD_BLOCK_H_DETAIL *)detail)->level : 1;
        m->base = (struct tui_style){TUI_A_BOLD, m->head_level <= 3 ? TUI_C_ACCENT : 0};
        break;
    case MD_BLOCK_CODE:
    case MD_BLOCK_HTML:
        m->leaf = L_CODE;
        core_buf_reset(&m->code);
        break;
    case MD_BLOCK_P:
        m->leaf = L_PARA;
        break;
    case MD_BLOCK_TABLE:
        table_free(m->table);
        m->table = core_xcalloc(1, sizeof *m->table);
        break;
    default:
        break;
    }
    return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    (void)detail;
    switch (type) {
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        table_cell_done(m);
        m->leaf = L_NONE;
        m->base = S_PLAIN;
        return 0;
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
    case MD_BLOCK_TR:
    case MD_BLOCK_DOC:
        return 0;
    case MD_BLOCK_H:
        flush_heading(m);
        break;
    case MD_BLOCK_CODE:
    case MD_BLOCK_HTML:
        flush_code(m);
        break;
    case MD_BLOCK_TABLE:
        flush_table(m);
        break;
    case MD_BLOCK_HR:
        break;
    case MD_BLOCK_LI: {
        flush_para(m);
        struct cont *c = m->depth ? &m->stack[m->depth - 1] : NULL;
        if (c && c->type == MD_BLOCK_LI && !c->started) { /* an empty item */
            struct lb b = {0};
            add_prefix(m, &b, false);
            push_line(m, &b);
        }
        if (m->depth)
            m->depth--;
        break;
    }
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
    case MD_BLOCK_QUOTE:
        flush_para(m);
        if (m->depth)
            m->depth--;
        break;
    default:
        flush_para(m);
        break;
    }
    m->leaf = L_NONE;
    m->base = S_PLAIN;
    block_done(m);
    return 0;
}

static char *attr_text(const MD_ATTRIBUTE *a)
{
    return a && a->text ? core_xstrndup(a->text, a->size) : core_xstrdup("");
}

static int enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    switch (type) {
    case MD_SPAN_EM:
    case MD_SPAN_U:
        m->em++;
        break;
    case MD_SPAN_STRONG:
        m->strong++;
        break;
    case MD_SPAN_CODE:
    case MD_SPAN_LATEXMATH:
    case MD_SPAN_LATEXMATH_DISPLAY:
        m->code_span++;
        break;
    case MD_SPAN_DEL:
        m->del++;
        break;
    case MD_SPAN_A:
    case MD_SPAN_WIKILINK:
        if (m->nlinks == m->links_cap) {
            m->links_cap = m->links_cap ? 2 * m->links_cap : 4;
            m->links = core_xrealloc(m->links, m->links_cap * sizeof *m->links);
        }
        m->links[m->nlinks].href = type == MD_SPAN_A && detail
                                       ? attr_text(&((MD_SPAN_A_DETAIL *)detail)->href)
                                       : core_xstrdup("");
        m->links[m->nlinks].start = m->para.text.len;
        m->nlinks++;
        m->link_depth++;
        break;
    case MD_SPAN_IMG:
        para_text(&m->para, "[image: ", 8, inline_style(m));
        break;
    }
    return 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    (void)detail;
    switch (type) {
    case MD_SPAN_EM:
    case MD_SPAN_U:
        m->em--;
        break;
    case MD_SPAN_STRONG:
        m->strong--;
        break;
    case MD_SPAN_CODE:
    case MD_SPAN_LATEXMATH:
    case MD_SPAN_LATEXMATH_DISPLAY:
        m->code_span--;
        break;
    case MD_SPAN_DEL:
        m->del--;
        break;
    case MD_SPAN_A:
    case MD_SPAN_WIKILINK: {
        if (!m->nlinks)
            break;
        struct link *l = &m->links[--m->nlinks];
        m->link_depth--;
        const char *text = m->para.text.data ? m->para.text.data + l->start : "";
        while (*text == ' ') /* the space before the link, added late */
            text++;
        const char *h = l->href;
        bool same = !strcmp(text, h) || (!strncmp(h, "mailto:", 7) && !strcmp(text, h + 7)) ||
                    (!strncmp(h, "http://", 7) && !strcmp(text, h + 7));
        if (*h && !same) {
            para_text(&m->para, " <", 2, S_MUTED);
            para_text(&m->para, h, strlen(h), S_MUTED);
            para_raw(&m->para, ">", 1, S_MUTED);
        }
        free(l->href);
        break;
    }
    case MD_SPAN_IMG:
        para_raw(&m->para, "]", 1, inline_style(m));
        break;
    }
    return 0;
}

static int text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE size, void *ud)
{
    struct md *m = ud;
    if (m->leaf == L_CODE) {
        if (type == MD_TEXT_NULLCHAR)
            core_buf_puts(&m->code, "\xEF\xBF\xBD");
        else
            core_buf_append(&m->code, s, size);
        return 0;
    }
    struct tui_style st = inline_style(m);
    switch (type) {
    case MD_TEXT_NULLCHAR:
        para_text(&m->para, "\xEF\xBF\xBD", 3, st);
        break;
    case MD_TEXT_BR:
        if (m->para.text.len) {
            para_raw(&m->para, "\n", 1, st);
            m->para.space = false;
        }
        break;
    case MD_TEXT_SOFTBR:
        para_text(&m->para, " ", 1, st);
        break;
    case MD_TEXT_ENTITY:
        entity(m, s, size, st);
        break;
    default:
        para_text(&m->para, s, size, st);
        break;
    }
    return 0;
}

void tui_md_render(const char *md, int width, enum tui_charset cs, struct tui_doc *out)
{
    out->lines = NULL;
    out->n = 0;
    out->width = width < 1 ? 1 : width;
    struct md m = {.doc = out, .width = out->width, .cs = cs};
    core_buf_init(&m.para.text);
    core_buf_init(&m.code);
    MD_PARSER p = {0};
    p.abi_version = 0;
    p.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS | MD_FLAG_NOHTML |
              MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_PERMISSIVEEMAILAUTOLINKS;
    p.enter_block = enter_block;
    p.leave_block = leave_block;
    p.enter_span = enter_span;
    p.leave_span = leave_span;
    p.text = text;
    size_t n = md ? strlen(md) : 0;
    if (n > 0xFFFFFFF0u)
        n = 0xFFFFFFF0u; /* md4c sizes are 32-bit */
    md_parse(md ? md : "", (MD_SIZE)n, &p, &m);
    /* whatever a failed parse left half-done */
    flush_para(&m);
    table_free(m.table);
    for (size_t i = 0; i < m.nlinks; i++)
        free(m.links[i].href);
    free(m.links);
    free(m.stack);
    para_free(&m.para);
    core_buf_fini(&m.code);
    if (m.cap > out->n && out->n) /* give back the slack */
        out->lines = core_xrealloc(out->lines, out->n * sizeof *out->lines);
}

void tui_doc_draw(struct tui_canvas *c, struct tui_rect r, const struct tui_doc *d, size_t first)
{
    tui_canvas_fill(c, r, ' ', S_PLAIN);
    for (int y = 0; y < r.h; y++) {
        size_t i = first + (size_t)y;
        if (i >= d->n)
            break;
        const struct tui_line *l = &d->lines[i];
        int x = r.x + l->indent, end = r.x + r.w;
        for (size_t k = 0; k < l->n && x < end; k++) {
            int w = tui_text_width(l->spans[k].text);
            tui_canvas_put(c, r.y + y, x, l->spans[k].text, l->spans[k].st, end - x);
            x += w;
        }
    }
}
