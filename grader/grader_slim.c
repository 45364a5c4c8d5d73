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
#include "grader_internal.h"

#include <stdlib.h>
#include <string.h>

enum tok { T_EOF, T_NAME, T_KEYWORD, T_STRING, T_NUMBER, T_OPEN, T_CLOSE, T_OP, T_BAD };

struct lexer {
    const char *s;
    size_t n, i;
    int line;
    /* the current token */
    enum tok t;
    size_t start, end;
    int tline;
    char c; /* T_OPEN / T_CLOSE / T_OP: its first character */
};

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* Lua counts \n, \r, \r\n and \n\r as one line break each. */
static bool newline(struct lexer *x)
{
    char c = x->s[x->i];
    if (c != '\n' && c != '\r')
        return false;
    x->i++;
    if (x->i < x->n && (x->s[x->i] == '\n' || x->s[x->i] == '\r') && x->s[x->i] != c)
        x->i++;
    x->line++;
    return true;
}

/* At '[': the level of a long bracket ([[ = 0, [==[ = 2), or -1. */
static int long_level(const struct lexer *x, size_t i)
{
    size_t k = i + 1;
    int level = 0;
    while (k < x->n && x->s[k] == '=')
        k++, level++;
    return k < x->n && x->s[k] == '[' ? level : -1;
}

/* Skips a long bracket of `level` starting at x->i ('['). */
static bool skip_long(struct lexer *x, int level)
{
    x->i += (size_t)level + 2;
    while (x->i < x->n) {
        if (newline(x))
            continue;
        if (x->s[x->i] == ']') {
            size_t k = x->i + 1;
            int l = 0;
            while (k < x->n && x->s[k] == '=')
                k++, l++;
            if (l == level && k < x->n && x->s[k] == ']') {
                x->i = k + 1;
                return true;
            }
        }
        x->i++;
    }
    return false;
}

static const char *const keywords[] = {"and",   "break", "do",       "else",  "elseif", "end",
                                       "false", "for",   "function", "goto",  "if",     "in",
                                       "local", "nil",   "not",      "or",    "repeat", "return",
                                       "then",  "true",  "until",    "while", NULL};

static bool is_keyword(const char *s, size_t n)
{
    for (int k = 0; keywords[k]; k++)
        if (strlen(keywords[k]) == n && memcmp(keywords[k], s, n) == 0)
            return true;
    return false;
}

static bool tok_is(const struct lexer *x, const char *word)
{
    size_t n = strlen(word);
    return (x->t == T_NAME || x->t == T_KEYWORD) && x->end - x->start == n &&
           memcmp(x->s + x->start, word, n) == 0;
}

static void next(struct lexer *x)
{
    for (;;) { /* white space and comments */
        if (x->i >= x->n)
            break;
        if (newline(x))
            continue;
        char c = x->s[x->i];
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            x->i++;
            continue;
        }
        if (c == '-' && x->i + 1 < x->n && x->s[x->i + 1] == '-') {
            x->i += 2;
            int level = x->i < x->n && x->s[x->i] == '[' ? long_level(x, x->i) : -1;
            if (level >= 0) {
                if (!skip_long(x, level)) {
                    x->t = T_BAD;
                    return;
                }
            } else {
                while (x->i < x->n && x->s[x->i] != '\n' && x->s[x->i] != '\r')
                    x->i++;
            }
            continue;
        }
        break;
    }
    x->start = x->i;
    x->tline = x->line;
    if (x->i >= x->n) {
        x->t = T_EOF;
        x->end = x->i;
        return;
    }
    char c = x->s[x->i];
    x->c = c;
    if (name_start(c)) {
        while (x->i < x->n && name_char(x->s[x->i]))
            x->i++;
        x->t = is_keyword(x->s + x->start, x->i - x->start) ? T_KEYWORD : T_NAME;
    } else if ((c >= '0' && c <= '9') ||
               (c == '.' && x->i + 1 < x->n && x->s[x->i + 1] >= '0' && x->s[x->i + 1] <= '9')) {
        while (x->i < x->n) {
            char d = x->s[x->i];
            if (name_char(d) || d == '.' ||
                ((d == '+' || d == '-') && x->i > x->start && strchr("eEpP", x->s[x->i - 1])))
                x->i++;
            else
                break;
        }
        x->t = T_NUMBER;
    } else if (c == '"' || c == '\'') {
        x->i++;
        for (;;) {
            if (x->i >= x->n || x->s[x->i] == '\n' || x->s[x->i] == '\r') {
                x->t = T_BAD;
                return;
            }
            char d = x->s[x->i];
            if (d == c) {
                x->i++;
                break;
            }
            if (d == '\\') {
                x->i++;
                if (x->i < x->n && !newline(x))
                    x->i++;
                continue;
            }
            x->i++;
        }
        x->t = T_STRING;
    } else if (c == '[' && long_level(x, x->i) >= 0) {
        if (!skip_long(x, long_level(x, x->i))) {
            x->t = T_BAD;
            return;
        }
        x->t = T_STRING;
    } else if (c == '(' || c == '{' || c == '[') {
        x->i++;
        x->t = T_OPEN;
    } else if (c == ')' || c == '}' || c == ']') {
        x->i++;
        x->t = T_CLOSE;
    } else {
        /* operators: the ones that matter here are single characters; the
         * rest only need to be consumed ("..." "::" "==" ...). */
        x->i++;
        while (x->i < x->n && strchr(".:=<>/~", x->s[x->i]) && strchr(".:=<>/~", c))
            x->i++;
        x->t = T_OP;
    }
    x->end = x->i;
}

/* Does the previous token end an expression or statement, so that a name
 * after it starts a new statement? */
static bool ends_statement(enum tok t, const struct lexer *prev_kw, bool bof, char c)
{
    if (bof)
        return true;
    switch (t) {
    case T_NAME:
    case T_STRING:
    case T_NUMBER:
    case T_CLOSE:
        return true;
    case T_OP:
        return c == ';';
    case T_KEYWORD:
        return tok_is(prev_kw, "end") || tok_is(prev_kw, "true") || tok_is(prev_kw, "false") ||
               tok_is(prev_kw, "nil") || tok_is(prev_kw, "break");
    default:
        return false;
    }
}

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
    struct lexer x = {.s = src, .n = len, .line = 1};
    struct stmt *st = NULL;
    size_t n_st = 0, cap = 0;
    bool *has = NULL; /* per gap: holds a token */
    size_t has_cap = 0;
    int depth = 0, brackets = 0;
    bool bof = true;
    struct lexer prev = x;
    prev.t = T_EOF;
    struct grader_slim_plan *pl = NULL;
    next(&x);
    while (x.t != T_EOF) {
        if (x.t == T_BAD)
            goto out;
        if (depth == 0 && brackets == 0 && x.t == T_NAME &&
            (tok_is(&x, "question") || tok_is(&x, "calculator") || tok_is(&x, "page")) &&
            ends_statement(prev.t, &prev, bof, prev.c)) {
            bool is_q = !tok_is(&x, "page"); /* a question or a calculator */
            struct lexer name = x;
            size_t start = x.start;
            int line = x.tline, end_line = x.tline;
            next(&x);
            size_t end;
            if (x.t == T_STRING && !is_q) {
                end = x.end;
                end_line = x.line;
                next(&x);
            } else if (x.t == T_OPEN && (x.c == '{' || x.c == '(')) {
                int b = 0;
                do {
                    if (x.t == T_BAD || x.t == T_EOF)
                        goto out;
                    if (x.t == T_OPEN)
                        b++;
                    else if (x.t == T_CLOSE)
                        b--;
                    end = x.end;
                    end_line = x.line;
                    next(&x);
                } while (b > 0);
            } else {
                prev = name; /* not a call statement: leave it */
                bof = false;
                mark_gap(&has, &has_cap, n_st);
                continue;
            }
            /* a plain call only: nothing may follow that extends it */
            bool plain =
                !(x.t == T_OPEN || x.t == T_STRING || (x.t == T_OP && (x.c == '.' || x.c == ':')));
            if (plain) {
                if (n_st == cap) {
                    cap = cap ? cap * 2 : 32;
                    st = core_xrealloc(st, cap * sizeof *st);
                }
                st[n_st++] = (struct stmt){start, end, line, end_line, is_q};
            } else {
                mark_gap(&has, &has_cap, n_st);
            }
            prev.t = T_CLOSE; /* the call ended an expression */
            prev.c = ')';
            bof = false;
            continue;
        }
        if (x.t == T_KEYWORD) {
            if (tok_is(&x, "function") || tok_is(&x, "do") || tok_is(&x, "if") ||
                tok_is(&x, "repeat"))
                depth++;
            else if (tok_is(&x, "end") || tok_is(&x, "until"))
                depth--;
        } else if (x.t == T_OPEN) {
            brackets++;
        } else if (x.t == T_CLOSE) {
            brackets--;
        }
        mark_gap(&has, &has_cap, n_st);
        prev = x;
        bof = false;
        next(&x);
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
