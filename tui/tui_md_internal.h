/*
 * tui_md_internal.h — what the Markdown renderer's files share
 * (tui_md_line.c: lines, containers' prefixes, styled text; tui_md.c:
 * inline text, blocks and the md4c callbacks; tui_md_table.c: tables).
 * Never included from anywhere else: it is the only header besides those
 * files that sees md4c.
 */
#ifndef WB_TUI_MD_INTERNAL_H
#define WB_TUI_MD_INTERNAL_H

#include "tui/tui_internal.h"

#include <md4c.h>

#include <stdbool.h>
#include <stddef.h>

/* A line being built: spans with adjacent same-style text merged. */
struct tui_md_lb {
    struct tui_span *v;
    size_t n, cap;
};

/* A byte range of gathered text with its style. */
struct tui_md_run {
    size_t start, end;
    struct tui_style st;
};

/* Inline text of one leaf block. */
struct tui_md_para {
    struct core_buf text;
    struct tui_md_run *runs;
    size_t n, cap;
    bool space;                /* a space is due before the next visible character */
    struct tui_style space_st; /* the style where the space was */
};

struct tui_md_cont {
    MD_BLOCKTYPE type;
    char first[32], rest[32]; /* prefixes of the first and later lines */
    bool started;             /* LI: its first line is out */
    bool tight;               /* UL, OL */
    unsigned next;            /* OL: the next item's number */
    int level;                /* UL, OL: lists around this one */
};

struct tui_md_cell {
    char *text;
    struct tui_md_run *runs;
    size_t n;
    int w;
    MD_ALIGN align;
};

struct tui_md_row {
    struct tui_md_cell *cells;
    size_t n;
    bool head;
};

struct tui_md_table {
    struct tui_md_row *rows;
    size_t n, cap;
    bool in_head;
};

struct tui_md_link {
    char *href;
    size_t start;
};

struct tui_md {
    struct tui_doc *doc;
    size_t cap;
    int width;
    enum tui_charset cs;
    struct tui_md_cont *stack;
    size_t depth, stack_cap;
    struct tui_md_para para;
    int em, strong, code_span, del, link_depth;
    struct tui_style base; /* the leaf block's style */
    struct tui_md_link *links;
    size_t nlinks, links_cap;
    bool blank; /* a blank line is due before the next block */
    enum {
        TUI_MD_LEAF_NONE,
        TUI_MD_LEAF_PARA,
        TUI_MD_LEAF_HEAD,
        TUI_MD_LEAF_CODE,
        TUI_MD_LEAF_CELL
    } leaf;
    unsigned head_level;
    struct core_buf code;
    struct tui_md_table *table;
    MD_ALIGN cell_align;
};

static const struct tui_style S_PLAIN = {0, 0};
static const struct tui_style S_MUTED = {0, TUI_C_MUTED};
static const struct tui_style S_MARK = {0, TUI_C_ACCENT};
static const struct tui_style S_CODE = {0, TUI_C_CODE};

/* ---- tui_md_line.c ---------------------------------------------------------- */

bool tui_md_utf8(const struct tui_md *m);
bool tui_md_same_style(struct tui_style a, struct tui_style b);
/* Appends len bytes of s in style st to the line (merged with the last span
 * when the style is the same). */
void tui_md_lb_add(struct tui_md_lb *b, const char *s, size_t len, struct tui_style st);
void tui_md_lb_puts(struct tui_md_lb *b, const char *s, struct tui_style st);
void tui_md_lb_spaces(struct tui_md_lb *b, int n, struct tui_style st);
/* Adds bytes [a, b) of gathered text to a line with their styles. */
void tui_md_add_styled(struct tui_md_lb *out, const char *text, const struct tui_md_run *runs,
                       size_t n, size_t a, size_t b);
/* Moves the line into the document, cut to the width with a marker. */
void tui_md_push_line(struct tui_md *m, struct tui_md_lb *b);
/* The containers' prefixes for the next line (blank: for a blank line). */
void tui_md_add_prefix(struct tui_md *m, struct tui_md_lb *b, bool blank);
int tui_md_prefix_width(const struct tui_md *m);
/* The list items around have their first line out. */
void tui_md_started(struct tui_md *m);
void tui_md_para_reset(struct tui_md_para *p);

/* ---- tui_md_table.c ----------------------------------------------------------- */

/* A table's head, body or row starts. */
void tui_md_table_enter(struct tui_md *m, MD_BLOCKTYPE type);
/* The gathered inline text becomes the current row's next cell. */
void tui_md_table_cell_done(struct tui_md *m);
/* Lays the table out (columns shrunk to fit) and emits its lines. */
void tui_md_flush_table(struct tui_md *m);
void tui_md_table_free(struct tui_md_table *t);

#endif /* WB_TUI_MD_INTERNAL_H */
