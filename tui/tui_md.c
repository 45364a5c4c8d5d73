/*
 * tui_md.c — Markdown to styled, wrapped lines, with md4c as the parser.
 *
 * md4c calls back with blocks, spans and text; we keep a stack of containers
 * (block quotes, lists, list items) whose prefixes ("│ ", "• ", hanging
 * indents) start every line, gather a leaf block's inline text as one UTF-8
 * string with style runs, and break it into lines with tui_text_break when
 * the block ends. Code blocks are copied line by line, tables are gathered
 * whole and laid out when they end (tui_md_table.c). Every finished line is cut to the width
 * with a marker, so no line is ever wider than the width (unless prefixes
 * alone are).
 *
 * Blank lines: a block that ends asks for one before the next block, except
 * between the items and blocks of a tight list.
 *
 * Lines, their prefixes and the cut to the width are tui_md_line.c's,
 * which the table's file uses too.
 */
#include "tui/tui_md_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- documents ------------------------------------------------------------ */

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

static void emit_blank_if_due(struct tui_md *m)
{
    if (!m->blank)
        return;
    m->blank = false;
    if (!m->doc->n)
        return;
    struct tui_md_lb b = {0};
    tui_md_add_prefix(m, &b, true);
    tui_md_push_line(m, &b);
}

/* After a block ends: a blank line is due unless we are inside a tight
 * list. */
static void block_done(struct tui_md *m)
{
    bool tight = false;
    if (m->depth) {
        const struct tui_md_cont *top = &m->stack[m->depth - 1];
        if (top->type == MD_BLOCK_LI && m->depth >= 2)
            tight = m->stack[m->depth - 2].tight;
        else if (top->type == MD_BLOCK_UL || top->type == MD_BLOCK_OL)
            tight = top->tight;
    }
    if (!tight)
        m->blank = true;
}

/* ---- inline text ---------------------------------------------------------- */

static struct tui_style inline_style(const struct tui_md *m)
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

static void para_raw(struct tui_md_para *p, const char *s, size_t len, struct tui_style st)
{
    if (!len)
        return;
    size_t at = p->text.len;
    core_buf_append(&p->text, s, len);
    if (p->n && p->runs[p->n - 1].end == at && tui_md_same_style(p->runs[p->n - 1].st, st)) {
        p->runs[p->n - 1].end = p->text.len;
        return;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->runs = core_xrealloc(p->runs, p->cap * sizeof *p->runs);
    }
    p->runs[p->n++] = (struct tui_md_run){at, p->text.len, st};
}

/* Appends text, collapsing white space to single spaces and dropping it at
 * the start of the block. */
static void para_text(struct tui_md_para *p, const char *s, size_t len, struct tui_style st)
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

static void para_free(struct tui_md_para *p)
{
    core_buf_fini(&p->text);
    free(p->runs);
    p->runs = NULL;
    p->n = p->cap = 0;
}

/* Breaks the gathered text into lines under the containers' prefixes.
 * Returns the widest line's text columns. */
static int flush_para(struct tui_md *m)
{
    struct tui_md_para *p = &m->para;
    if (!p->text.len)
        return 0;
    int widest = 0;
    size_t at = 0;
    const char *t = p->text.data;
    for (;;) {
        struct tui_md_lb b = {0};
        tui_md_add_prefix(m, &b, false);
        int avail = m->width - tui_md_prefix_width(m);
        size_t len, next;
        int cols;
        bool more = tui_text_break(t + at, avail < 1 ? 1 : avail, &len, &cols, &next);
        tui_md_add_styled(&b, t, p->runs, p->n, at, at + len);
        tui_md_push_line(m, &b);
        tui_md_started(m);
        widest = cols > widest ? cols : widest;
        if (!more)
            break;
        at += next;
    }
    tui_md_para_reset(p);
    return widest;
}

/* Named and numeric character references. */
static void entity(struct tui_md *m, const char *s, size_t len, struct tui_style st)
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

static void flush_heading(struct tui_md *m)
{
    int w = flush_para(m);
    if (m->head_level > 2 || !w)
        return;
    struct tui_md_lb b = {0};
    tui_md_add_prefix(m, &b, false);
    const char *rule =
        m->head_level == 1 ? (tui_md_utf8(m) ? "═" : "=") : (tui_md_utf8(m) ? "─" : "-");
    struct tui_style st = {0, TUI_C_ACCENT};
    for (int i = 0; i < w; i++)
        tui_md_lb_puts(&b, rule, st);
    tui_md_push_line(m, &b);
}

/* Code and raw HTML blocks: verbatim lines, tabs expanded, cut at the width. */
static void flush_code(struct tui_md *m)
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
        struct tui_md_lb b = {0};
        tui_md_add_prefix(m, &b, false);
        tui_md_lb_spaces(&b, 2, S_PLAIN);
        if (line.len)
            tui_md_lb_add(&b, line.data, line.len, S_CODE);
        tui_md_push_line(m, &b);
        tui_md_started(m);
        if (j >= n)
            break;
        i = j + 1;
    }
    core_buf_fini(&line);
    core_buf_reset(&m->code);
}

static void flush_rule(struct tui_md *m)
{
    struct tui_md_lb b = {0};
    tui_md_add_prefix(m, &b, false);
    int w = m->width - tui_md_prefix_width(m);
    for (int i = 0; i < w; i++)
        tui_md_lb_puts(&b, tui_md_utf8(m) ? "─" : "-", S_MUTED);
    tui_md_push_line(m, &b);
    tui_md_started(m);
}

/* ---- md4c callbacks ------------------------------------------------------- */

static struct tui_md_cont *push(struct tui_md *m, MD_BLOCKTYPE type)
{
    if (m->depth == m->stack_cap) {
        m->stack_cap = m->stack_cap ? 2 * m->stack_cap : 8;
        m->stack = core_xrealloc(m->stack, m->stack_cap * sizeof *m->stack);
    }
    struct tui_md_cont *c = &m->stack[m->depth++];
    memset(c, 0, sizeof *c);
    c->type = type;
    return c;
}

static int list_level(const struct tui_md *m)
{
    int n = 0;
    for (size_t i = 0; i < m->depth; i++)
        if (m->stack[i].type == MD_BLOCK_UL || m->stack[i].type == MD_BLOCK_OL)
            n++;
    return n;
}

static void start_item(struct tui_md *m, const MD_BLOCK_LI_DETAIL *d)
{
    struct tui_md_cont *list = m->depth ? &m->stack[m->depth - 1] : NULL;
    char mark[32];
    if (d && d->is_task) {
        snprintf(mark, sizeof mark, "[%c] ", d->task_mark == ' ' ? ' ' : 'x');
    } else if (list && list->type == MD_BLOCK_OL) {
        snprintf(mark, sizeof mark, "%u. ", list->next);
        list->next++;
    } else {
        static const char *u8[] = {"•", "◦", "▪"}, *asc[] = {"*", "-", "+"};
        int lv = list ? list->level % 3 : 0;
        snprintf(mark, sizeof mark, "%s ", tui_md_utf8(m) ? u8[lv] : asc[lv]);
    }
    struct tui_md_cont *c = push(m, MD_BLOCK_LI);
    snprintf(c->first, sizeof c->first, "%s", mark);
    int w = tui_text_width(mark);
    memset(c->rest, ' ', (size_t)w);
    c->rest[w] = '\0';
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct tui_md *m = ud;
    if (type == MD_BLOCK_THEAD || type == MD_BLOCK_TBODY || type == MD_BLOCK_TR) {
        tui_md_table_enter(m, type);
        return 0;
    }
    if (type == MD_BLOCK_TH || type == MD_BLOCK_TD) {
        tui_md_para_reset(&m->para);
        m->leaf = TUI_MD_LEAF_CELL;
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
        struct tui_md_cont *c = push(m, MD_BLOCK_QUOTE);
        snprintf(c->first, sizeof c->first, "%s", tui_md_utf8(m) ? "│ " : "| ");
        break;
    }
    case MD_BLOCK_UL:
    case MD_BLOCK_OL: {
        int level = list_level(m);
        struct tui_md_cont *c = push(m, type);
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
        m->leaf = TUI_MD_LEAF_HEAD;
        m->head_level = detail ? ((MD_BLOCK_H_DETAIL *)detail)->level : 1;
        m->base = (struct tui_style){TUI_A_BOLD, m->head_level <= 3 ? TUI_C_ACCENT : 0};
        break;
    case MD_BLOCK_CODE:
    case MD_BLOCK_HTML:
        m->leaf = TUI_MD_LEAF_CODE;
        core_buf_reset(&m->code);
        break;
    case MD_BLOCK_P:
        m->leaf = TUI_MD_LEAF_PARA;
        break;
    case MD_BLOCK_TABLE:
        tui_md_table_free(m->table);
        m->table = core_xcalloc(1, sizeof *m->table);
        break;
    default:
        break;
    }
    return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct tui_md *m = ud;
    (void)detail;
    switch (type) {
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        tui_md_table_cell_done(m);
        m->leaf = TUI_MD_LEAF_NONE;
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
        tui_md_flush_table(m);
        break;
    case MD_BLOCK_HR:
        break;
    case MD_BLOCK_LI: {
        flush_para(m);
        struct tui_md_cont *c = m->depth ? &m->stack[m->depth - 1] : NULL;
        if (c && c->type == MD_BLOCK_LI && !c->started) { /* an empty item */
            struct tui_md_lb b = {0};
            tui_md_add_prefix(m, &b, false);
            tui_md_push_line(m, &b);
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
    m->leaf = TUI_MD_LEAF_NONE;
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
    struct tui_md *m = ud;
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
    struct tui_md *m = ud;
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
        struct tui_md_link *l = &m->links[--m->nlinks];
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
    struct tui_md *m = ud;
    if (m->leaf == TUI_MD_LEAF_CODE) {
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
    struct tui_md m = {.doc = out, .width = out->width, .cs = cs};
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
    tui_md_table_free(m.table);
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
