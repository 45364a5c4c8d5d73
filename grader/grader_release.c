/*
 * grader_release.c — the student edition of a pack (`pack release`): the
 * same pack with its graded and exam lessons sealed.
 *
 * A sealed lesson file keeps what a student needs to answer: lesson{},
 * its pages, and each question rewritten from the model with only the
 * fields a student needs (title, prompt, kind, points, topics, rubric, lab,
 * unit, integer, choices, the items of an ordering question in an order
 * that is not the answer, public hints, the resolved policy, max_answer)
 * plus its `params` function copied from the source. Everything else goes:
 * answer and grade functions, wrong values, bands, why notes, concepts,
 * models, samples, examples, private hints, the lesson's calculators, and
 * every local definition the kept code does not use (a helper that
 * computes a reference would be an oracle in the student's hands). Kept
 * code is copied without its comments. A sealed file may hold only those
 * statements and local definitions: anything else (a loop that makes
 * questions, a top-level call) is refused, since the release could not
 * tell whether it reveals an answer.
 *
 * Practice lessons stay whole, but a calculator that computes the answer
 * of a sealed question from its numbers (grader_calc_reveals) is left out.
 * pack.lua gains release = { salt, source, made }, which marks the pack
 * as a release (grader_pack_info.is_release).
 *
 * The statement splitter follows Lua's grammar as far as top-level
 * statements need: block keywords and brackets nest, and a new statement
 * starts at a name or statement keyword after a token that ends an
 * expression (grader_lex_ends_statement), as grader_slim.c does.
 *
 * Uses the lexer (grader_lualex.c), the model and the reference and
 * calculator APIs; no Lua of its own.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements ---------------------------------------------------------------------------- */

enum rkind { R_CALL, R_DEF, R_OTHER };

struct rstmt {
    size_t start, end; /* bytes of the file */
    int line;
    enum rkind kind;
    char callee[16]; /* R_CALL: question, calculator, page, lesson, pack */
    struct core_strlist defs, uses;
    bool keep;
};

struct rfile {
    struct rstmt *st;
    size_t n;
};

static void rfile_fini(struct rfile *f)
{
    for (size_t i = 0; i < f->n; i++) {
        core_strlist_fini(&f->st[i].defs);
        core_strlist_fini(&f->st[i].uses);
    }
    free(f->st);
    memset(f, 0, sizeof *f);
}

static bool is_starter_kw(const struct grader_lex *x)
{
    static const char *const kws[] = {"local", "function", "return", "if",    "for", "while",
                                      "do",    "repeat",   "goto",   "break", NULL};
    if (x->t != GRADER_TOK_KEYWORD)
        return false;
    for (size_t i = 0; kws[i]; i++)
        if (grader_lex_is(x, kws[i]))
            return true;
    return false;
}

static bool tok_text(const struct grader_lex *x, const char *text)
{
    size_t n = strlen(text);
    return x->end - x->start == n && memcmp(x->s + x->start, text, n) == 0;
}

static void push_name(struct core_strlist *l, const struct grader_lex *x)
{
    char buf[128];
    size_t n = x->end - x->start;
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, x->s + x->start, n);
    buf[n] = '\0';
    core_strlist_push(l, buf);
}

/* What one statement is: a plain call of a constructor, a definition of
 * names (local or global), or anything else; and the names it uses. */
static void classify(const char *src, struct rstmt *st)
{
    struct grader_lex x, prev;
    grader_lex_init(&x, src, st->end);
    x.i = st->start;
    grader_lex_next(&x);
    struct grader_lex first = x;
    st->kind = R_OTHER;
    if (grader_lex_is(&first, "local")) {
        grader_lex_next(&x);
        if (grader_lex_is(&x, "function")) {
            grader_lex_next(&x);
            if (x.t == GRADER_TOK_NAME) {
                push_name(&st->defs, &x);
                st->kind = R_DEF;
            }
        } else {
            while (x.t == GRADER_TOK_NAME) {
                push_name(&st->defs, &x);
                grader_lex_next(&x);
                if (x.t == GRADER_TOK_OP && x.c == '<') { /* <const>, <close> */
                    grader_lex_next(&x);
                    grader_lex_next(&x);
                    grader_lex_next(&x);
                }
                if (!(x.t == GRADER_TOK_OP && tok_text(&x, ",")))
                    break;
                grader_lex_next(&x);
            }
            if (st->defs.n)
                st->kind = R_DEF;
        }
    } else if (grader_lex_is(&first, "function")) {
        grader_lex_next(&x);
        struct grader_lex name = x;
        grader_lex_next(&x);
        if (name.t == GRADER_TOK_NAME && x.t == GRADER_TOK_OPEN && x.c == '(') {
            push_name(&st->defs, &name);
            st->kind = R_DEF;
        }
    } else if (first.t == GRADER_TOK_NAME) {
        static const char *const ctors[] = {"question", "calculator", "page",
                                            "lesson",   "pack",       NULL};
        bool ctor = false;
        for (size_t i = 0; ctors[i] && !ctor; i++)
            if (grader_lex_is(&first, ctors[i])) {
                ctor = true;
                snprintf(st->callee, sizeof st->callee, "%s", ctors[i]);
            }
        grader_lex_next(&x);
        if (ctor && (x.t == GRADER_TOK_STRING || (x.t == GRADER_TOK_OPEN && x.c != '['))) {
            /* the call must be the whole statement */
            int b = 0;
            if (x.t == GRADER_TOK_STRING) {
                grader_lex_next(&x);
            } else {
                do {
                    if (x.t == GRADER_TOK_OPEN)
                        b++;
                    else if (x.t == GRADER_TOK_CLOSE)
                        b--;
                    grader_lex_next(&x);
                } while (b > 0 && x.t != GRADER_TOK_EOF && x.t != GRADER_TOK_BAD);
            }
            if (x.t == GRADER_TOK_EOF)
                st->kind = R_CALL;
        } else if (!ctor) {
            /* NAME {, NAME} = ...: a global definition */
            struct core_strlist names;
            core_strlist_init(&names);
            push_name(&names, &first);
            while (x.t == GRADER_TOK_OP && tok_text(&x, ",")) {
                grader_lex_next(&x);
                if (x.t != GRADER_TOK_NAME)
                    break;
                push_name(&names, &x);
                grader_lex_next(&x);
            }
            if (x.t == GRADER_TOK_OP && tok_text(&x, "=")) {
                for (size_t i = 0; i < names.n; i++)
                    core_strlist_push(&st->defs, names.items[i]);
                st->kind = R_DEF;
            }
            core_strlist_fini(&names);
        }
    }
    /* Every name the statement reads, but a field (after . or :). */
    grader_lex_init(&x, src, st->end);
    x.i = st->start;
    prev = x;
    prev.t = GRADER_TOK_EOF;
    for (grader_lex_next(&x); x.t != GRADER_TOK_EOF && x.t != GRADER_TOK_BAD; grader_lex_next(&x)) {
        bool field = prev.t == GRADER_TOK_OP && (tok_text(&prev, ".") || tok_text(&prev, ":"));
        if (x.t == GRADER_TOK_NAME && !field)
            push_name(&st->uses, &x);
        prev = x;
    }
}

/* Cuts a file into its top-level statements. False when the lexer cannot
 * follow it (an unfinished string, unbalanced blocks). */
static bool split(const char *src, size_t len, struct rfile *out)
{
    memset(out, 0, sizeof *out);
    struct grader_lex x, prev;
    grader_lex_init(&x, src, len);
    prev = x;
    prev.t = GRADER_TOK_EOF;
    int depth = 0, brackets = 0;
    bool bof = true, open = false;
    size_t cap = 0;
    for (grader_lex_next(&x); x.t != GRADER_TOK_EOF; grader_lex_next(&x)) {
        if (x.t == GRADER_TOK_BAD)
            return false;
        bool top = depth == 0 && brackets == 0;
        if (top && x.t == GRADER_TOK_OP && x.c == ';') {
            if (open)
                out->st[out->n - 1].end = prev.end;
            open = false;
            prev = x;
            continue;
        }
        if (top && (x.t == GRADER_TOK_NAME || is_starter_kw(&x)) &&
            (!open || grader_lex_ends_statement(&prev, bof))) {
            if (open)
                out->st[out->n - 1].end = prev.end;
            if (out->n == cap) {
                cap = cap ? 2 * cap : 32;
                out->st = core_xrealloc(out->st, cap * sizeof *out->st);
            }
            struct rstmt *s = &out->st[out->n++];
            memset(s, 0, sizeof *s);
            core_strlist_init(&s->defs);
            core_strlist_init(&s->uses);
            s->start = x.start;
            s->line = x.tline;
            open = true;
        } else if (!open) {
            return false; /* code that starts no statement we can name */
        }
        grader_lex_nest(&x, &depth, &brackets);
        if (depth < 0 || brackets < 0)
            return false;
        prev = x;
        bof = false;
    }
    if (open)
        out->st[out->n - 1].end = prev.end;
    if (depth != 0 || brackets != 0)
        return false;
    for (size_t i = 0; i < out->n; i++)
        classify(src, &out->st[i]);
    return true;
}

/* Keeps every definition a kept statement uses, to a fixed point. */
static size_t keep_needed(struct rfile *f)
{
    struct core_strlist needed;
    core_strlist_init(&needed);
    for (size_t i = 0; i < f->n; i++)
        if (f->st[i].keep)
            for (size_t k = 0; k < f->st[i].uses.n; k++)
                core_strlist_push(&needed, f->st[i].uses.items[k]);
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < f->n; i++) {
            struct rstmt *s = &f->st[i];
            if (s->keep || s->kind != R_DEF)
                continue;
            bool want = false;
            for (size_t d = 0; d < s->defs.n && !want; d++)
                for (size_t k = 0; k < needed.n && !want; k++)
                    want = strcmp(needed.items[k], s->defs.items[d]) == 0;
            if (want) {
                s->keep = changed = true;
                for (size_t k = 0; k < s->uses.n; k++)
                    core_strlist_push(&needed, s->uses.items[k]);
            }
        }
    }
    core_strlist_fini(&needed);
    size_t dropped = 0;
    for (size_t i = 0; i < f->n; i++)
        dropped += f->st[i].kind == R_DEF && !f->st[i].keep;
    return dropped;
}

/* ---- writing Lua ------------------------------------------------------------------------- */

/* s as a Lua string literal: "...", with \\ \" \n \r \t and \ddd for the
 * other control bytes; other bytes as they are. */
static void lua_quote(struct core_buf *b, const char *s)
{
    core_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '\\':
            core_buf_puts(b, "\\\\");
            break;
        case '"':
            core_buf_puts(b, "\\\"");
            break;
        case '\n':
            core_buf_puts(b, "\\n");
            break;
        case '\r':
            core_buf_puts(b, "\\r");
            break;
        case '\t':
            core_buf_puts(b, "\\t");
            break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                core_buf_printf(b, "\\%03u", (unsigned)*p);
            else
                core_buf_putc(b, (char)*p);
        }
    }
    core_buf_putc(b, '"');
}

/* v in the shortest form that reads back as the same double. */
static void lua_num(struct core_buf *b, double v)
{
    char num[40];
    for (int sig = 15; sig <= 17; sig++) {
        core_num_format(num, sizeof num, v, sig);
        double back = 0;
        size_t used = 0;
        if (core_num_parse(num, strlen(num), 0, &back, &used, NULL) == 0 && back == v)
            break;
    }
    core_buf_puts(b, num);
}

static void lua_strs(struct core_buf *b, const char *field, char *const *v, size_t n)
{
    core_buf_printf(b, "  %s = {", field);
    for (size_t i = 0; i < n; i++) {
        core_buf_puts(b, i ? ", " : " ");
        lua_quote(b, v[i]);
    }
    core_buf_puts(b, n ? " },\n" : "},\n");
}

/* Copies src[start..end) without its comments: white space between tokens
 * keeps its line breaks, a comment becomes a space. */
static void copy_code(struct core_buf *b, const char *src, size_t start, size_t end)
{
    struct grader_lex x;
    grader_lex_init(&x, src, end);
    x.i = start;
    size_t at = start;
    for (grader_lex_next(&x); x.t != GRADER_TOK_EOF && x.t != GRADER_TOK_BAD; grader_lex_next(&x)) {
        if (x.start > at) {
            bool nl = false;
            for (size_t i = at; i < x.start; i++)
                if (src[i] == '\n')
                    core_buf_putc(b, '\n'), nl = true;
            size_t ind = x.start; /* the indentation before the token, when plain */
            while (ind > at && (src[ind - 1] == ' ' || src[ind - 1] == '\t'))
                ind--;
            if (nl && (ind == at || src[ind - 1] == '\n'))
                core_buf_append(b, src + ind, x.start - ind);
            else
                core_buf_putc(b, ' ');
        }
        core_buf_append(b, src + x.start, x.end - x.start);
        at = x.end;
    }
}

/* The source of the `params` field of the question{} call at st: the span
 * of its value, or false when the call has none. */
static bool params_span(const char *src, const struct rstmt *st, size_t *vs, size_t *ve)
{
    struct grader_lex x, prev;
    grader_lex_init(&x, src, st->end);
    x.i = st->start;
    int brackets = 0, depth = 0, fields = -1;
    prev = x;
    prev.t = GRADER_TOK_EOF;
    for (grader_lex_next(&x); x.t != GRADER_TOK_EOF && x.t != GRADER_TOK_BAD; grader_lex_next(&x)) {
        if (fields < 0 && x.t == GRADER_TOK_OPEN && x.c == '{')
            fields = brackets + 1;
        bool at_field = brackets == fields && depth == 0 &&
                        (prev.t == GRADER_TOK_OPEN ||
                         (prev.t == GRADER_TOK_OP && (tok_text(&prev, ",") || prev.c == ';')));
        if (at_field && x.t == GRADER_TOK_NAME && grader_lex_is(&x, "params")) {
            struct grader_lex eq = x;
            grader_lex_next(&eq);
            if (!(eq.t == GRADER_TOK_OP && tok_text(&eq, "=")))
                return false;
            grader_lex_next(&eq);
            *vs = eq.start;
            size_t last = eq.end;
            int b = 0, d = 0;
            for (; eq.t != GRADER_TOK_EOF && eq.t != GRADER_TOK_BAD; grader_lex_next(&eq)) {
                if (b == 0 && d == 0 &&
                    ((eq.t == GRADER_TOK_OP && (tok_text(&eq, ",") || eq.c == ';')) ||
                     eq.t == GRADER_TOK_CLOSE))
                    break;
                grader_lex_nest(&eq, &d, &b);
                last = eq.end;
            }
            *ve = last;
            return *ve > *vs;
        }
        grader_lex_nest(&x, &depth, &brackets);
        prev = x;
    }
    return false;
}

/* The names the params source reads (the helpers it needs). */
static void span_uses(const char *src, size_t vs, size_t ve, struct core_strlist *uses)
{
    struct rstmt tmp = {.start = vs, .end = ve};
    core_strlist_init(&tmp.defs);
    core_strlist_init(&tmp.uses);
    classify(src, &tmp);
    for (size_t i = 0; i < tmp.uses.n; i++)
        core_strlist_push(uses, tmp.uses.items[i]);
    core_strlist_fini(&tmp.defs);
    core_strlist_fini(&tmp.uses);
}

/* A uniformly random permutation of n items: release item k is source
 * item perm[k]. Any permutation may come, the identity included: ruling
 * one out would tell a student something about the right order (with two
 * items, everything). */
static void shuffle_items(uint64_t seed, size_t n, int *perm)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = (int)i;
    struct grader_rng r;
    grader_rng_init(&r, seed);
    for (size_t i = n - 1; n > 1 && i > 0; i--) {
        size_t k = (size_t)grader_rng_int(&r, 0, (int64_t)i);
        int t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
}

/* The question{} of a sealed question, from the model, with the params
 * source copied. */
static void write_sealed(struct core_buf *b, const struct grader_question *q, const char *src,
                         const struct rstmt *st, const int *perm, size_t *dropped_hints,
                         struct core_strlist *uses)
{
    core_buf_puts(b, "question {\n  id = ");
    lua_quote(b, q->id);
    core_buf_puts(b, ",\n  kind = ");
    lua_quote(b, grader_kind_name(q->kind));
    core_buf_puts(b, ",\n");
    if (q->title) {
        core_buf_puts(b, "  title = ");
        lua_quote(b, q->title);
        core_buf_puts(b, ",\n");
    }
    core_buf_puts(b, "  prompt = ");
    lua_quote(b, q->prompt);
    core_buf_puts(b, ",\n  points = ");
    lua_num(b, q->points);
    core_buf_puts(b, ",\n");
    lua_strs(b, "topics", q->topics, q->n_topics);
    lua_strs(b, "rubric", q->rubric, q->n_rubric);
    if (q->lab) {
        core_buf_puts(b, "  lab = ");
        lua_quote(b, q->lab);
        core_buf_puts(b, ",\n");
    }
    if (q->kind == GRADER_NUMERIC && q->unit && q->unit[0]) {
        core_buf_puts(b, "  unit = ");
        lua_quote(b, q->unit);
        core_buf_puts(b, ",\n");
    }
    if (q->integer)
        core_buf_puts(b, "  integer = true,\n");
    if (q->kind == GRADER_CODE && q->code) /* what the student writes and runs */
        grader_code_lua(b, q->code, lua_quote);
    if (q->kind == GRADER_CHOICE || q->kind == GRADER_MULTI) {
        lua_strs(b, "choices", q->choices, q->n_choices);
    } else if (q->kind == GRADER_ORDERING) {
        char **items = core_xcalloc(q->n_choices ? q->n_choices : 1, sizeof *items);
        for (size_t k = 0; k < q->n_choices; k++)
            items[k] = q->choices[perm[k]];
        lua_strs(b, "items", items, q->n_choices);
        free(items);
    }
    size_t pub = 0;
    for (size_t i = 0; i < q->n_hints; i++)
        pub += q->hint_public[i];
    *dropped_hints += q->n_hints - pub;
    if (pub) {
        core_buf_puts(b, "  hints = {");
        for (size_t i = 0, k = 0; i < q->n_hints; i++) {
            if (!q->hint_public[i])
                continue;
            core_buf_puts(b, k++ ? ",\n    " : "\n    ");
            lua_quote(b, q->hints[i]);
        }
        core_buf_puts(b, "\n  },\n");
    }
    const struct grader_policy *pol = &q->policy;
    core_buf_printf(b, "  policy = { tries = %d, ", pol->tries);
    if (pol->n_per_try) {
        core_buf_puts(b, "per_try = {");
        for (int i = 0; i < pol->n_per_try; i++) {
            core_buf_puts(b, i ? ", " : " ");
            lua_num(b, pol->per_try[i]);
        }
        core_buf_puts(b, " } },\n");
    } else {
        core_buf_puts(b, "penalty = ");
        lua_num(b, pol->penalty);
        core_buf_puts(b, " },\n");
    }
    core_buf_printf(b, "  max_answer = %zu,\n", q->max_answer);
    size_t vs, ve;
    if (q->has_params && params_span(src, st, &vs, &ve)) {
        core_buf_puts(b, "  params = ");
        copy_code(b, src, vs, ve);
        core_buf_puts(b, ",\n");
        span_uses(src, vs, ve, uses);
    }
    core_buf_puts(b, "}");
}

/* ---- the release -------------------------------------------------------------------------- */

void grader_release_fini(struct grader_release *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_files; i++) {
        free(r->files[i].path);
        free(r->files[i].data);
    }
    free(r->files);
    for (size_t i = 0; i < r->n_perms; i++)
        free(r->perms[i].qid);
    free(r->perms);
    core_strlist_fini(&r->notes);
    memset(r, 0, sizeof *r);
}

static const struct grader_lesson *lesson_of_file(const struct grader_pack *p, const char *path)
{
    for (size_t i = 0; i < p->info.n_lessons; i++)
        if (strcmp(p->info.lessons[i].file, path) == 0)
            return &p->info.lessons[i];
    return NULL;
}

/* A sealed lesson's file, rewritten. */
static int seal_file(const struct grader_pack *p, const struct grader_lesson *l,
                     const struct grader_pfile *f, const struct grader_release_opts *o,
                     struct grader_release *out, struct core_buf *b, struct core_err *err)
{
    struct rfile rf;
    if (!split(f->data, f->len, &rf)) {
        rfile_fini(&rf);
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: the release cannot cut this sealed lesson file into statements "
                            "(write each lesson{}, page, question{} and local definition as a "
                            "statement of its own)",
                            f->path);
    }
    int rc = CORE_OK;
    /* each sealed question of the model is exactly one statement */
    for (size_t qi = 0; qi < l->n_questions && rc == CORE_OK; qi++) {
        const struct grader_question *q = &l->questions[qi];
        size_t hits = 0;
        for (size_t i = 0; i < rf.n; i++)
            hits += rf.st[i].kind == R_CALL && strcmp(rf.st[i].callee, "question") == 0 &&
                    rf.st[i].line == q->line;
        if (hits != 1)
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s:%d: question %s: a sealed question must be a question{} "
                              "statement of its own (not made in a loop or by a helper) for the "
                              "release to rewrite it",
                              f->path, q->line, q->id);
    }
    struct core_buf *pieces = core_xcalloc(rf.n ? rf.n : 1, sizeof *pieces);
    for (size_t i = 0; i < rf.n && rc == CORE_OK; i++) {
        struct rstmt *s = &rf.st[i];
        core_buf_init(&pieces[i]);
        if (s->kind == R_DEF)
            continue; /* kept only when needed, below */
        if (s->kind == R_OTHER) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s:%d: a sealed lesson may hold only lesson{}, page, question{} "
                              "and calculator{} statements and local definitions: the release "
                              "cannot tell whether this code reveals an answer (move it into a "
                              "function the questions call, or out of the graded lesson)",
                              f->path, s->line);
            break;
        }
        if (strcmp(s->callee, "calculator") == 0) {
            core_strlist_pushf(&out->notes,
                               "%s:%d: calculator left out: the calculators of a sealed lesson "
                               "are not in the release",
                               f->path, s->line);
            out->dropped_calcs++;
            continue;
        }
        s->keep = true;
        if (strcmp(s->callee, "question") != 0) {
            copy_code(&pieces[i], f->data, s->start, s->end);
            continue;
        }
        const struct grader_question *q = NULL;
        for (size_t qi = 0; qi < l->n_questions && !q; qi++)
            if (l->questions[qi].line == s->line)
                q = &l->questions[qi];
        if (!q) {
            rc = core_err_set(err, CORE_ERR_INVALID, "%s:%d: a question the pack did not declare",
                              f->path, s->line);
            break;
        }
        int perm[GRADER_MAX_PICKS];
        if (q->kind == GRADER_ORDERING) {
            size_t n = q->n_choices < GRADER_MAX_PICKS ? q->n_choices : GRADER_MAX_PICKS;
            shuffle_items(o->seed ^ grader_rng_seed(p->info.id, q->id, "release", 1), n, perm);
            out->perms = grader_grow(out->perms, out->n_perms, sizeof *out->perms);
            struct grader_release_perm *rp = &out->perms[out->n_perms++];
            memset(rp, 0, sizeof *rp);
            rp->qid = core_xstrdup(q->id);
            rp->n = n;
            memcpy(rp->perm, perm, n * sizeof *perm);
        }
        core_strlist_fini(&s->uses);
        core_strlist_init(&s->uses);
        write_sealed(&pieces[i], q, f->data, s, perm, &out->dropped_hints, &s->uses);
        out->sealed_questions++;
    }
    if (rc == CORE_OK) {
        out->dropped_defs += keep_needed(&rf);
        for (size_t i = 0; i < rf.n; i++) {
            struct rstmt *s = &rf.st[i];
            if (s->kind == R_DEF && s->keep)
                copy_code(&pieces[i], f->data, s->start, s->end);
            if (!s->keep)
                continue;
            core_buf_append(b, pieces[i].data, pieces[i].len);
            core_buf_puts(b, "\n\n");
        }
    }
    for (size_t i = 0; i < rf.n; i++)
        core_buf_fini(&pieces[i]);
    free(pieces);
    rfile_fini(&rf);
    return rc;
}

/* A practice lesson's file, with the calculators at the listed lines left out. */
static int practice_file(const struct grader_pfile *f, const int *drop, size_t n_drop,
                         struct core_buf *b, struct core_err *err)
{
    if (n_drop == 0) {
        core_buf_append(b, f->data, f->len);
        return CORE_OK;
    }
    struct rfile rf;
    if (!split(f->data, f->len, &rf)) {
        rfile_fini(&rf);
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: a calculator here computes a sealed answer, but the release "
                            "cannot cut this file into statements to leave it out",
                            f->path);
    }
    size_t at = 0;
    for (size_t i = 0; i < rf.n; i++) {
        const struct rstmt *s = &rf.st[i];
        bool out = false;
        for (size_t k = 0; k < n_drop && !out; k++)
            out = s->kind == R_CALL && strcmp(s->callee, "calculator") == 0 && s->line == drop[k];
        if (!out)
            continue;
        core_buf_append(b, f->data + at, s->start - at);
        core_buf_puts(b, "-- (a calculator of the source pack is not in this release)");
        at = s->end;
    }
    core_buf_append(b, f->data + at, f->len - at);
    rfile_fini(&rf);
    return CORE_OK;
}

/* pack.lua with release = { ... } as the pack{} call's first field. */
static int mark_pack(const struct grader_pfile *f, const struct grader_release_opts *o,
                     struct core_buf *b, struct core_err *err)
{
    struct rfile rf;
    bool ok = split(f->data, f->len, &rf);
    const struct rstmt *pk = NULL;
    for (size_t i = 0; ok && i < rf.n; i++)
        if (rf.st[i].kind == R_CALL && strcmp(rf.st[i].callee, "pack") == 0)
            pk = &rf.st[i];
    size_t brace = 0;
    if (pk) {
        struct grader_lex x;
        grader_lex_init(&x, f->data, pk->end);
        x.i = pk->start;
        for (grader_lex_next(&x); x.t != GRADER_TOK_EOF; grader_lex_next(&x))
            if (x.t == GRADER_TOK_OPEN && x.c == '{') {
                brace = x.end;
                break;
            }
    }
    rfile_fini(&rf);
    if (!brace)
        return core_err_set(err, CORE_ERR_INVALID,
                            "pack.lua: pack { ... } must be a statement of its own for the "
                            "release to mark it");
    core_buf_append(b, f->data, brace);
    core_buf_puts(b, "\n  release = { salt = ");
    lua_quote(b, o->salt);
    core_buf_puts(b, ", source = ");
    lua_quote(b, o->source);
    core_buf_puts(b, ", made = ");
    lua_quote(b, o->made ? o->made : "");
    core_buf_puts(b, " },");
    core_buf_append(b, f->data + brace, f->len - brace);
    return CORE_OK;
}

/* Sample students the calculator check draws numbers for. */
static const char *const probe_users[] = {"release-probe-1", "release-probe-2", "release-probe-3",
                                          "release-probe-4"};

int grader_calc_reveals(struct grader_pack *calcs, const char *calc_id, struct grader_pack *src,
                        const char *qid, char **why)
{
    *why = NULL;
    const struct grader_calc *c = grader_pack_calc(calcs, calc_id);
    const struct grader_question *q = grader_pack_question(src, qid);
    if (!c || !q || q->kind != GRADER_NUMERIC || !q->has_params || c->n_inputs == 0)
        return 0;
    int hits = 0;
    for (size_t u = 0; u < sizeof probe_users / sizeof probe_users[0] && !hits; u++) {
        struct grader_ctx ctx = {.user = probe_users[u], .variant = 1};
        struct grader_reference ref;
        struct core_err e = {0};
        if (grader_question_reference(src, qid, &ctx, &ref, &e) != CORE_OK)
            continue;
        struct core_kv *kv = NULL;
        size_t nkv = 0;
        double *in = core_xcalloc(c->n_inputs, sizeof *in);
        size_t matched = 0;
        if (ref.has_value && ref.params_json &&
            core_json_parse_flat(ref.params_json, &kv, &nkv, &e) == CORE_OK) {
            for (size_t i = 0; i < c->n_inputs; i++) {
                in[i] = c->inputs[i].def;
                const struct core_kv *hit = core_kv_find(kv, nkv, c->inputs[i].name);
                if (hit && hit->is_num) {
                    in[i] = hit->num;
                    matched++;
                }
            }
        }
        struct grader_calc_output *outs = NULL;
        size_t n_outs = 0;
        if (matched && grader_calc_run(calcs, calc_id, in, &outs, &n_outs, &e) == CORE_OK) {
            for (size_t k = 0; k < n_outs && !hits; k++) {
                double v = outs[k].value, r = ref.value;
                if (!outs[k].text && isfinite(v) && fabs(v - r) <= 1e-6 * fmax(1e-12, fabs(r))) {
                    hits++;
                    *why =
                        core_xasprintf("calculator %s ('%s') gives %s = %.6g, the reference "
                                       "of question %s for the numbers %s",
                                       c->id, c->title, outs[k].label, v, q->id, ref.params_json);
                }
            }
            grader_calc_outputs_free(outs, n_outs);
        }
        free(in);
        core_kv_free(kv, nkv);
        grader_reference_fini(&ref);
    }
    return hits;
}

int grader_pack_release(struct grader_pack *p, const struct grader_release_opts *o,
                        struct grader_release *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->notes);
    if (p->info.is_release)
        return core_err_set(err, CORE_ERR_USAGE,
                            "pack %s is a release already: make a release from the source pack",
                            p->info.id);
    /* Practice calculators that compute a sealed answer. */
    struct {
        const char *file;
        int line;
    } *drop = NULL;
    size_t n_drop = 0;
    for (size_t li = 0; li < p->info.n_lessons; li++) {
        const struct grader_lesson *l = &p->info.lessons[li];
        bool sealed = l->graded || l->exam;
        out->sealed_lessons += sealed;
        if (sealed)
            continue;
        for (size_t ci = 0; ci < l->n_calcs; ci++) {
            const struct grader_calc *c = &l->calcs[ci];
            char *why = NULL;
            for (size_t lj = 0; lj < p->info.n_lessons && !why; lj++) {
                const struct grader_lesson *sl = &p->info.lessons[lj];
                if (!(sl->graded || sl->exam))
                    continue;
                for (size_t qi = 0; qi < sl->n_questions && !why; qi++)
                    grader_calc_reveals(p, c->id, p, sl->questions[qi].id, &why);
            }
            if (why) {
                drop = grader_grow(drop, n_drop, sizeof *drop);
                drop[n_drop].file = c->file;
                drop[n_drop++].line = c->line;
                core_strlist_pushf(&out->notes, "%s:%d: calculator left out: %s", c->file, c->line,
                                   why);
                out->dropped_calcs++;
                free(why);
            }
        }
    }
    int rc = CORE_OK;
    out->files = core_xcalloc(p->n_files ? p->n_files : 1, sizeof *out->files);
    for (size_t i = 0; i < p->n_files && rc == CORE_OK; i++) {
        const struct grader_pfile *f = &p->files[i];
        struct core_buf b;
        core_buf_init(&b);
        const struct grader_lesson *l = f->is_lua ? lesson_of_file(p, f->path) : NULL;
        if (strcmp(f->path, "pack.lua") == 0) {
            rc = mark_pack(f, o, &b, err);
        } else if (l && (l->graded || l->exam)) {
            struct grader_lesson sealed = *l;
            rc = seal_file(p, &sealed, f, o, out, &b, err);
        } else {
            int lines[64];
            size_t n = 0;
            for (size_t k = 0; k < n_drop && n < 64; k++)
                if (strcmp(drop[k].file, f->path) == 0)
                    lines[n++] = drop[k].line;
            rc = practice_file(f, lines, n, &b, err);
        }
        out->files[out->n_files].path = core_xstrdup(f->path);
        out->files[out->n_files].len = b.len;
        out->files[out->n_files++].data = core_buf_steal(&b);
    }
    free(drop);
    if (rc == CORE_OK && out->sealed_lessons == 0)
        core_strlist_push(&out->notes, "no lesson is graded (graded = true) or an exam: the "
                                       "release seals nothing");
    if (rc)
        grader_release_fini(out);
    return rc;
}
