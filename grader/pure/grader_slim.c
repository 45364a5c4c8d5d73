/*
 * grader_slim.c — a lesson file cut down to one question, so that grading
 * loads and runs a few lines instead of the whole lesson.
 *
 * A small Lua lexer finds the top-level statements that are a plain call
 * of `question`, `calculator` or `page` (`question { ... }`,
 * `question(...)`, `calculator { ... }`, `page [[ ... ]]`, `page "..."`,
 * `page { ... }`): outside every block and bracket, at the start of a
 * statement, and not followed by more suffixes. It does so once per file
 * (grader_slim_plan_new). A cut for one question (or calculator) is then
 * the file's other code — lesson{}, local helpers, anything that is not
 * such a statement — with that one statement in its place, and every other
 * such statement left out. The pieces are joined by newlines and a line
 * map says, for each piece, which line of the file its first line is, so
 * every "file:line" the sandbox reports is translated back to the file
 * (grader_sb_load_mapped). Gaps between two left-out statements that hold
 * only white space and comments are left out too, so a cut costs the size
 * of the file's other code plus the statement, not the size of the file:
 * checking or grading every question of a file of n questions is linear in
 * n. What remains runs exactly as in the full file for any file whose
 * questions and pages do not feed each other. The pack check verifies the
 * cut still declares the question and runs every self-test against it;
 * when anything is unclear the caller keeps the full file.
 *
 * Pure C: no Lua, no I/O.
 */
#include "grader_pure.h"

#include <stdlib.h>
#include <string.h>

struct stmt {
    size_t start, end;
    int line;     /* line of its first token */
    int end_line; /* line of its last token */
    bool question;
};

/* A stretch of the file between two cut statements (or before the first,
 * after the last) that holds code. */
struct gap {
    size_t start, end;
    int line;
    size_t after; /* number of statements before it */
};

struct grader_slim_plan {
    struct stmt *st;
    size_t n_st;
    struct gap *gaps; /* only those holding a token, in file order */
    size_t n_gaps;
};

void grader_slim_plan_free(struct grader_slim_plan *pl)
{
    if (!pl)
        return;
    free(pl->st);
    free(pl->gaps);
    free(pl);
}

/* Marks gap number `after` (the one before statement `after`) as holding a
 * token. */
static void mark_gap(bool **has, size_t *cap, size_t after)
{
    if (after >= *cap) {
        size_t n = *cap ? *cap : 32;
        while (n <= after)
            n *= 2;
        *has = core_xrealloc(*has, n);
        memset(*has + *cap, 0, n - *cap);
        *cap = n;
    }
    (*has)[after] = true;
}

struct grader_slim_plan *grader_slim_plan_new(const char *src, size_t len)
{
    struct grader_lex x;
    grader_lex_init(&x, src, len);
    struct stmt *st = NULL;
    size_t n_st = 0, cap = 0;
    bool *has = NULL; /* per gap: holds a token */
    size_t has_cap = 0;
    int depth = 0, brackets = 0;
    bool bof = true;
    struct grader_lex prev = x;
    prev.t = GRADER_TOK_EOF;
    struct grader_slim_plan *pl = NULL;
    grader_lex_next(&x);
    while (x.t != GRADER_TOK_EOF) {
        if (x.t == GRADER_TOK_BAD)
            goto out;
        if (depth == 0 && brackets == 0 && x.t == GRADER_TOK_NAME &&
            (grader_lex_is(&x, "question") || grader_lex_is(&x, "calculator") ||
             grader_lex_is(&x, "page")) &&
            grader_lex_ends_statement(&prev, bof)) {
            bool is_q = !grader_lex_is(&x, "page"); /* a question or a calculator */
            struct grader_lex name = x;
            size_t start = x.start;
            int line = x.tline, end_line = x.tline;
            grader_lex_next(&x);
            size_t end;
            if (x.t == GRADER_TOK_STRING && !is_q) {
                end = x.end;
                end_line = x.line;
                grader_lex_next(&x);
            } else if (x.t == GRADER_TOK_OPEN && (x.c == '{' || x.c == '(')) {
                int b = 0;
                do {
                    if (x.t == GRADER_TOK_BAD || x.t == GRADER_TOK_EOF)
                        goto out;
                    if (x.t == GRADER_TOK_OPEN)
                        b++;
                    else if (x.t == GRADER_TOK_CLOSE)
                        b--;
                    end = x.end;
                    end_line = x.line;
                    grader_lex_next(&x);
                } while (b > 0);
            } else {
                prev = name; /* not a call statement: leave it */
                bof = false;
                mark_gap(&has, &has_cap, n_st);
                continue;
            }
            /* a plain call only: nothing may follow that extends it */
            bool plain = !(x.t == GRADER_TOK_OPEN || x.t == GRADER_TOK_STRING ||
                           (x.t == GRADER_TOK_OP && (x.c == '.' || x.c == ':')));
            if (plain) {
                if (n_st == cap) {
                    cap = cap ? cap * 2 : 32;
                    st = core_xrealloc(st, cap * sizeof *st);
                }
                st[n_st++] = (struct stmt){start, end, line, end_line, is_q};
            } else {
                mark_gap(&has, &has_cap, n_st);
            }
            prev.t = GRADER_TOK_CLOSE; /* the call ended an expression */
            prev.c = ')';
            bof = false;
            continue;
        }
        grader_lex_nest(&x, &depth, &brackets);
        mark_gap(&has, &has_cap, n_st);
        prev = x;
        bof = false;
        grader_lex_next(&x);
    }
    if (depth != 0 || brackets != 0)
        goto out;
    pl = core_xcalloc(1, sizeof *pl);
    pl->st = st;
    pl->n_st = n_st;
    st = NULL;
    size_t n_gaps = 0;
    for (size_t g = 0; g <= n_st && g < has_cap; g++)
        n_gaps += has[g];
    pl->gaps = n_gaps ? core_xcalloc(n_gaps, sizeof *pl->gaps) : NULL;
    for (size_t g = 0; g <= n_st && g < has_cap; g++) {
        if (!has[g])
            continue;
        struct gap *gp = &pl->gaps[pl->n_gaps++];
        gp->after = g;
        gp->start = g == 0 ? 0 : pl->st[g - 1].end;
        gp->end = g == n_st ? len : pl->st[g].start;
        gp->line = g == 0 ? 1 : pl->st[g - 1].end_line;
    }
out:
    free(st);
    free(has);
    return pl;
}

int grader_linemap_orig(const struct grader_linemap *m, int line)
{
    if (!m || m->n == 0 || line < m->slim[0])
        return line;
    size_t lo = 0, hi = m->n; /* the last entry whose slim line is <= line */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->slim[mid] <= line)
            lo = mid;
        else
            hi = mid;
    }
    return m->orig[lo] + (line - m->slim[lo]);
}

void grader_linemap_fini(struct grader_linemap *m)
{
    if (!m)
        return;
    free(m->slim);
    free(m->orig);
    memset(m, 0, sizeof *m);
}

/* Lines a piece of source adds: Lua's count (\n, \r, \r\n, \n\r each one). */
static int count_lines(const char *s, size_t n)
{
    int lines = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\n' && s[i] != '\r')
            continue;
        if (i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r') && s[i + 1] != s[i])
            i++;
        lines++;
    }
    return lines;
}

struct cut {
    struct core_buf out;
    struct grader_linemap *map;
    size_t map_cap;
    int line; /* the cut's current line */
};

static void cut_piece(struct cut *c, const char *src, size_t start, size_t end, int orig_line)
{
    if (c->out.len) {
        core_buf_putc(&c->out, '\n');
        c->line++;
    }
    struct grader_linemap *m = c->map;
    if (m->n == c->map_cap) {
        c->map_cap = c->map_cap ? c->map_cap * 2 : 8;
        m->slim = core_xrealloc(m->slim, c->map_cap * sizeof *m->slim);
        m->orig = core_xrealloc(m->orig, c->map_cap * sizeof *m->orig);
    }
    m->slim[m->n] = c->line;
    m->orig[m->n] = orig_line;
    m->n++;
    core_buf_append(&c->out, src + start, end - start);
    c->line += count_lines(src + start, end - start);
}

char *grader_slim_cut(const struct grader_slim_plan *pl, const char *src, int keep_line,
                      size_t *len, struct grader_linemap *map)
{
    memset(map, 0, sizeof *map);
    *len = 0;
    if (!pl)
        return NULL;
    /* the statements on keep_line: exactly one question or calculator */
    size_t lo = 0, hi = pl->n_st;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->st[mid].line < keep_line)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t keep = SIZE_MAX, kept = 0;
    for (size_t i = lo; i < pl->n_st && pl->st[i].line == keep_line; i++)
        if (pl->st[i].question) {
            keep = i;
            kept++;
        }
    if (kept != 1)
        return NULL;
    struct cut c = {.map = map, .line = 1};
    core_buf_init(&c.out);
    size_t g = 0;
    for (; g < pl->n_gaps && pl->gaps[g].after <= keep; g++)
        cut_piece(&c, src, pl->gaps[g].start, pl->gaps[g].end, pl->gaps[g].line);
    const struct stmt *s = &pl->st[keep];
    cut_piece(&c, src, s->start, s->end, s->line);
    for (; g < pl->n_gaps; g++)
        cut_piece(&c, src, pl->gaps[g].start, pl->gaps[g].end, pl->gaps[g].line);
    *len = c.out.len;
    return core_buf_steal(&c.out);
}
