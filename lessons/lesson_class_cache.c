/*
 * lesson_class_cache.c — grades computed once per distinct answer during a
 * class import, for the questions whose grade cannot depend on who answers
 * (see lesson_grade_cache in lesson.h for the rule). An open-addressing
 * hash table of owned grader results; the rows of an import point into it,
 * so it lives until the caller frees it after the imports.
 */
#include "lessons/lesson_internal.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_MAX 262144 /* entries; beyond, answers are graded every time */

struct cache_entry {
    uint64_t hash;
    int64_t rev;
    int variant;
    char *question, *params, *answer; /* params NULL: drawn */
    struct grader_result r;
};

struct lesson_grade_cache {
    struct cache_entry *v; /* cap slots, hash 0: empty */
    size_t n, cap;
    size_t hits, misses;
};

struct lesson_grade_cache *lesson_grade_cache_new(void)
{
    return core_xcalloc(1, sizeof(struct lesson_grade_cache));
}

void lesson_grade_cache_free(struct lesson_grade_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++) {
        struct cache_entry *e = &c->v[i];
        if (!e->hash)
            continue;
        free(e->question);
        free(e->params);
        free(e->answer);
        grader_result_fini(&e->r);
    }
    free(c->v);
    free(c);
}

void lesson_grade_cache_stats(const struct lesson_grade_cache *c, size_t *hits, size_t *misses)
{
    *hits = c ? c->hits : 0;
    *misses = c ? c->misses : 0;
}

static uint64_t key_hash(int64_t rev, const char *q, int variant, const char *params,
                         const char *answer)
{
    uint64_t h = CORE_FNV_OFFSET;
    h = core_fnv1a(h, &rev, sizeof rev);
    h = core_fnv1a(h, q, strlen(q) + 1);
    h = core_fnv1a(h, &variant, sizeof variant);
    h = params ? core_fnv1a(h, params, strlen(params) + 1) : core_fnv1a(h, "\xff", 1);
    h = core_fnv1a(h, answer, strlen(answer) + 1);
    return h ? h : 1;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static struct cache_entry *slot(struct lesson_grade_cache *c, uint64_t h, int64_t rev,
                                const char *q, int variant, const char *params, const char *answer)
{
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        struct cache_entry *e = &c->v[i];
        if (!e->hash || (e->hash == h && e->rev == rev && e->variant == variant &&
                         strcmp(e->question, q) == 0 && same(e->params, params) &&
                         strcmp(e->answer, answer) == 0))
            return e;
    }
}

static void grow(struct lesson_grade_cache *c)
{
    size_t cap = c->cap ? 2 * c->cap : 1024;
    struct cache_entry *old = c->v;
    size_t old_cap = c->cap;
    c->v = core_xcalloc(cap, sizeof *c->v);
    c->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].hash)
            continue;
        size_t k = old[i].hash & (cap - 1);
        while (c->v[k].hash)
            k = (k + 1) & (cap - 1);
        c->v[k] = old[i];
    }
    free(old);
}

int lesson_grade_cached(struct lesson_grade_cache *c, struct grader_pack *gp, int64_t rev,
                        const char *qid, const struct grader_ctx *ctx, const char *answer,
                        const struct grader_result **out, struct grader_result *own,
                        struct core_err *err)
{
    *out = NULL;
    if (!c || c->n >= CACHE_MAX) {
        int rc = grader_question_grade(gp, qid, ctx, answer, own, err);
        if (rc == CORE_OK)
            *out = own;
        return rc;
    }
    uint64_t h = key_hash(rev, qid, ctx->variant, ctx->params_json, answer);
    if (c->cap == 0 || 2 * (c->n + 1) > c->cap)
        grow(c);
    struct cache_entry *e = slot(c, h, rev, qid, ctx->variant, ctx->params_json, answer);
    if (e->hash) {
        c->hits++;
        *out = &e->r;
        return CORE_OK;
    }
    struct grader_result r;
    int rc = grader_question_grade(gp, qid, ctx, answer, &r, err);
    if (rc != CORE_OK)
        return rc; /* a failure is not kept: it may be the machine's, not the answer's */
    c->misses++;
    *e = (struct cache_entry){h,
                              rev,
                              ctx->variant,
                              core_xstrdup(qid),
                              ctx->params_json ? core_xstrdup(ctx->params_json) : NULL,
                              core_xstrdup(answer),
                              r};
    c->n++;
    *out = &e->r;
    return CORE_OK;
}
