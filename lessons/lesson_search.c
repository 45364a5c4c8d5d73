/* lesson_search.c — search of the course: lesson pages, question titles and
 * prompts, and calculators, case-insensitively, each hit with where it was
 * found and a line around it.
 *
 * The index is built once (lesson_search_index_new: every current pack's
 * pages and questions from the store, its calculators from the session's
 * pack cache) and searched per query, so a front end can search as the
 * student types. Matching is a substring test on ASCII-folded text; white
 * space runs count as one space, so a phrase found across a line break in
 * a page is found.
 *
 * Uses db (pages, questions, packs) and the calculators of lesson_calc.c. */
#include "lessons/lesson.h"
#include "lessons/lesson_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct search_doc {
    enum lesson_hit_kind kind;
    char *pack_id, *lesson_id, *lesson_title;
    char *id;    /* question or calculator id; NULL for a page */
    int page;    /* 0-based page index (a page's; a question's or calculator's page) */
    char *title; /* page title, question title, calculator title */
    char *body;  /* page text, question prompt, calculator's inputs */
    char *tags;  /* a question's topics ("roofline, bandwidth"); "" for others */
    char *ltitle, *lbody, *ltags; /* folded: lower-case ASCII, white space runs as one space */
};

struct lesson_search_index {
    struct search_doc *docs;
    size_t n;
};

/* s folded for matching: ASCII lower case, every run of white space one
 * space. Caller frees. */
static char *fold(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    char *o = core_xmalloc(n + 1);
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (!space && k)
                o[k++] = ' ';
            space = true;
            continue;
        }
        space = false;
        o[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    o[k] = '\0';
    return o;
}

static void add_doc(struct lesson_search_index *x, enum lesson_hit_kind kind, const char *pack,
                    const char *lesson, const char *ltitle, const char *id, int page,
                    const char *title, const char *body, const char *tags)
{
    x->docs = core_xrealloc(x->docs, (x->n + 1) * sizeof *x->docs);
    struct search_doc *d = &x->docs[x->n++];
    *d = (struct search_doc){.kind = kind,
                             .pack_id = core_xstrdup(pack),
                             .lesson_id = core_xstrdup(lesson),
                             .lesson_title = core_xstrdup(ltitle ? ltitle : lesson),
                             .id = id ? core_xstrdup(id) : NULL,
                             .page = page,
                             .title = core_xstrdup(title ? title : ""),
                             .body = core_xstrdup(body ? body : ""),
                             .tags = core_xstrdup(tags ? tags : "")};
    d->ltitle = fold(d->title);
    d->lbody = fold(d->body);
    d->ltags = fold(d->tags);
}

void lesson_search_index_free(struct lesson_search_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n; i++) {
        struct search_doc *d = &x->docs[i];
        free(d->pack_id);
        free(d->lesson_id);
        free(d->lesson_title);
        free(d->id);
        free(d->title);
        free(d->body);
        free(d->tags);
        free(d->ltitle);
        free(d->lbody);
        free(d->ltags);
    }
    free(x->docs);
    free(x);
}

/* One topic as words: "arithmetic-intensity" -> "arithmetic intensity". */
static void topic_words_add(const char *name, size_t len, void *arg)
{
    struct core_buf *b = arg;
    if (b->len > strlen("topics: "))
        core_buf_puts(b, ", ");
    for (size_t i = 0; i < len; i++)
        core_buf_putc(b, name[i] == '-' || name[i] == '_' ? ' ' : name[i]);
}

/* A question's topics as people read them: "topics: roofline, arithmetic
 * intensity" for "roofline,arithmetic-intensity". */
static char *topics_words(const char *tags)
{
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, "topics: ");
    lesson_names_each(tags, topic_words_add, &b);
    char *s = core_xasprintf("%.*s", (int)b.len, b.data ? b.data : "");
    core_buf_fini(&b);
    return s;
}

int lesson_search_index_new(struct db *db, struct lesson_session *s,
                            struct lesson_search_index **out, struct core_err *err)
{
    *out = NULL;
    struct lesson_search_index *x = core_xcalloc(1, sizeof *x);
    struct db_lesson *ls = NULL;
    struct db_question *qs = NULL;
    struct lesson_calc *calcs = NULL;
    size_t nl = 0, nq = 0, nc = 0;
    int rc = db_lesson_list(db, NULL, &ls, &nl, err);
    if (rc == CORE_OK)
        rc = db_question_list(db, NULL, NULL, &qs, &nq, err);
    if (rc == CORE_OK)
        rc = lesson_calc_list(db, s, &calcs, &nc, err);
    for (size_t l = 0; rc == CORE_OK && l < nl; l++) {
        struct db_page *pages = NULL;
        size_t np = 0;
        rc = db_page_list(db, ls[l].pack_id, ls[l].id, &pages, &np, err);
        for (size_t i = 0; rc == CORE_OK && i < np; i++)
            add_doc(x, LESSON_HIT_PAGE, ls[l].pack_id, ls[l].id, ls[l].title, NULL, (int)i,
                    pages[i].title, pages[i].markdown, NULL);
        db_pages_free(pages, np);
        for (size_t i = 0; rc == CORE_OK && i < nq; i++)
            if (strcmp(qs[i].pack_id, ls[l].pack_id) == 0 && strcmp(qs[i].lesson_id, ls[l].id) == 0)
                add_doc(x, LESSON_HIT_QUESTION, qs[i].pack_id, qs[i].lesson_id, ls[l].title,
                        qs[i].id, qs[i].page_after < 0 ? 0 : qs[i].page_after, qs[i].title,
                        qs[i].prompt, qs[i].topics);
        for (size_t i = 0; rc == CORE_OK && i < nc; i++) {
            if (strcmp(calcs[i].pack_id, ls[l].pack_id) != 0 ||
                strcmp(calcs[i].lesson_id, ls[l].id) != 0)
                continue;
            const struct grader_calc *c = calcs[i].calc;
            struct core_buf b;
            core_buf_init(&b);
            for (size_t k = 0; k < c->n_inputs; k++)
                core_buf_printf(&b, "%s%s%s%s", k ? "; " : "",
                                c->inputs[k].label ? c->inputs[k].label : c->inputs[k].name,
                                c->inputs[k].help ? ": " : "",
                                c->inputs[k].help ? c->inputs[k].help : "");
            add_doc(x, LESSON_HIT_CALC, calcs[i].pack_id, calcs[i].lesson_id, ls[l].title, c->id,
                    c->page_after < 0 ? 0 : c->page_after, c->title, b.data ? b.data : "", NULL);
            core_buf_fini(&b);
        }
    }
    db_lessons_free(ls, nl);
    db_questions_free(qs, nq);
    free(calcs);
    if (rc != CORE_OK) {
        lesson_search_index_free(x);
        return rc;
    }
    *out = x;
    return CORE_OK;
}

void lesson_hits_free(struct lesson_hit *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(h[i].pack_id);
        free(h[i].lesson_id);
        free(h[i].lesson_title);
        free(h[i].id);
        free(h[i].title);
        free(h[i].where);
        free(h[i].snippet);
    }
    free(h);
}

const char *lesson_hit_kind_name(enum lesson_hit_kind k)
{
    return k == LESSON_HIT_PAGE ? "page" : k == LESSON_HIT_QUESTION ? "question" : "calculator";
}

/* The words around offset `at` (a match of `len` bytes) of the original
 * text, as one line: about 30 bytes before and 50 after, cut at spaces and
 * UTF-8 boundaries, white space folded, "…" where cut. `folded` is the
 * folded text the offset is in; the original is folded the same way here,
 * so offsets agree. */
static char *snippet(const char *orig, size_t at, size_t len)
{
    /* Fold the original's white space the way fold() does, keeping case. */
    size_t n = strlen(orig);
    char *t = core_xmalloc(n + 1);
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        char c = orig[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (!space && k)
                t[k++] = ' ';
            space = true;
            continue;
        }
        space = false;
        t[k++] = c;
    }
    t[k] = '\0';
    size_t from = at > 30 ? at - 30 : 0, to = at + len + 50 < k ? at + len + 50 : k;
    while (from > 0 && from < at && t[from - 1] != ' ')
        from++; /* start at a word */
    while (from < k && ((unsigned char)t[from] & 0xc0) == 0x80)
        from++;
    while (to < k && to > at + len && t[to] != ' ')
        to--; /* end at a word */
    while (to < k && ((unsigned char)t[to] & 0xc0) == 0x80)
        to++;
    char *s = core_xasprintf("%s%.*s%s", from > 0 ? "…" : "", (int)(to - from), t + from,
                             to < k ? "…" : "");
    free(t);
    return s;
}

int lesson_search_run(const struct lesson_search_index *x, const char *text,
                      struct lesson_hit **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char *q = fold(text);
    size_t ql = strlen(q);
    if (ql == 0) {
        free(q);
        return 0;
    }
    for (size_t i = 0; i < x->n; i++) {
        const struct search_doc *d = &x->docs[i];
        const char *in_title = strstr(d->ltitle, q);
        const char *in_body = in_title ? NULL : strstr(d->lbody, q);
        const char *in_tags = in_title || in_body ? NULL : strstr(d->ltags, q);
        if (!in_title && !in_body && !in_tags)
            continue;
        *out = core_xrealloc(*out, (*n + 1) * sizeof **out);
        struct lesson_hit *h = &(*out)[(*n)++];
        *h = (struct lesson_hit){.kind = d->kind,
                                 .pack_id = core_xstrdup(d->pack_id),
                                 .lesson_id = core_xstrdup(d->lesson_id),
                                 .lesson_title = core_xstrdup(d->lesson_title),
                                 .id = d->id ? core_xstrdup(d->id) : NULL,
                                 .page = d->page,
                                 .title = core_xstrdup(d->title),
                                 .in_title = in_title != NULL};
        const char *field = in_title                         ? "title"
                            : in_tags                        ? "topics"
                            : d->kind == LESSON_HIT_PAGE     ? "text"
                            : d->kind == LESSON_HIT_QUESTION ? "prompt"
                                                             : "inputs";
        h->where = core_xasprintf("%s, page %d: %s %s", d->lesson_title, d->page + 1,
                                  lesson_hit_kind_name(d->kind), field);
        h->snippet = in_title  ? snippet(d->title, (size_t)(in_title - d->ltitle), ql)
                     : in_body ? snippet(d->body, (size_t)(in_body - d->lbody), ql)
                               : topics_words(d->tags);
    }
    free(q);
    return (int)*n;
}
