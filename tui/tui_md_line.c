/*
 * tui_md_line.c — what the Markdown renderer's files share (tui_md.c: the
 * blocks and md4c's callbacks; tui_md_table.c: tables): lines built of
 * styled spans, finished lines cut to the width with a marker, the
 * containers' prefixes of a line, and a leaf block's gathered text added to
 * a line with its styles. Below both files, so neither calls the other but
 * through tui_md.c calling the table's.
 */
#include "tui/tui_md_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tui_md_same_style(struct tui_style a, struct tui_style b)
{
    return a.attr == b.attr && a.color == b.color;
}

void tui_md_lb_add(struct tui_md_lb *b, const char *s, size_t len, struct tui_style st)
{
    if (!len)
        return;
    if (b->n && tui_md_same_style(b->v[b->n - 1].st, st)) {
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

void tui_md_lb_puts(struct tui_md_lb *b, const char *s, struct tui_style st)
{
    tui_md_lb_add(b, s, strlen(s), st);
}

void tui_md_lb_spaces(struct tui_md_lb *b, int n, struct tui_style st)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        int k = n < 32 ? n : 32;
        tui_md_lb_add(b, sp, (size_t)k, st);
        n -= k;
    }
}

bool tui_md_utf8(const struct tui_md *m)
{
    return m->cs == TUI_CS_UTF8;
}

void tui_md_push_line(struct tui_md *m, struct tui_md_lb *b)
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
    while (skip < b->n && tui_md_same_style(b->v[skip].st, S_PLAIN)) {
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
    l->spans[l->n].text = core_xstrdup(tui_md_utf8(m) ? "…" : ">");
    l->spans[l->n].st = S_MUTED;
    l->n++;
}

/* The containers' prefixes for the next line. A blank line drops trailing
 * spaces and does not use up a list item's marker. */
void tui_md_add_prefix(struct tui_md *m, struct tui_md_lb *b, bool blank)
{
    for (size_t i = 0; i < m->depth; i++) {
        struct tui_md_cont *c = &m->stack[i];
        if (c->type == MD_BLOCK_QUOTE)
            tui_md_lb_puts(b, c->first, S_MUTED);
        else if (c->type == MD_BLOCK_LI && (c->started || blank))
            tui_md_lb_puts(b, c->rest, S_PLAIN);
        else if (c->type == MD_BLOCK_LI)
            tui_md_lb_puts(b, c->first, S_MARK);
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

int tui_md_prefix_width(const struct tui_md *m)
{
    int w = 0;
    for (size_t i = 0; i < m->depth; i++) {
        const struct tui_md_cont *c = &m->stack[i];
        if (c->type == MD_BLOCK_QUOTE)
            w += tui_text_width(c->first);
        else if (c->type == MD_BLOCK_LI)
            w += tui_text_width(c->started ? c->rest : c->first);
    }
    return w;
}

void tui_md_started(struct tui_md *m)
{
    for (size_t i = 0; i < m->depth; i++)
        if (m->stack[i].type == MD_BLOCK_LI)
            m->stack[i].started = true;
}

void tui_md_para_reset(struct tui_md_para *p)
{
    core_buf_reset(&p->text);
    p->n = 0;
    p->space = false;
}

/* Adds bytes [a, b) of gathered text to a line with their styles. */
void tui_md_add_styled(struct tui_md_lb *out, const char *text, const struct tui_md_run *runs,
                       size_t n, size_t a, size_t b)
{
    for (size_t i = 0; i < n && a < b; i++) {
        if (runs[i].end <= a)
            continue;
        size_t s = runs[i].start > a ? runs[i].start : a;
        size_t e = runs[i].end < b ? runs[i].end : b;
        if (s < e)
            tui_md_lb_add(out, text + s, e - s, runs[i].st);
    }
}
