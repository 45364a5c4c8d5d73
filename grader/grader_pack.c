/*
 * grader_pack.c — the C model of a pack handed to the rest of Warpbench: its
 * life cycle, the question index, and the cut-down files graders load.
 * (Building it from the pack's files: grader_eval.c; running calculators:
 * grader_calc.c.)
 *
 * Uses core and the slim cutter (grader_slim.c).
 */
#include "grader_lua_internal.h"

#include <stdlib.h>
#include <string.h>

void *grader_grow(void *a, size_t n, size_t size)
{
    if (n == 0)
        return core_xrealloc(a, 4 * size);
    if (n >= 4 && (n & (n - 1)) == 0)
        return core_xrealloc(a, 2 * n * size);
    return a;
}

void grader_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

char **grader_strv_dup(char *const *v, size_t n)
{
    if (!n)
        return NULL;
    char **o = core_xcalloc(n, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = core_xstrdup(v[i]);
    return o;
}

static void question_fini(struct grader_question *q)
{
    free(q->id);
    free(q->title);
    free(q->prompt);
    grader_strv_free(q->topics, q->n_topics);
    grader_strv_free(q->rubric, q->n_rubric);
    free(q->lab);
    free(q->unit);
    free(q->file);
    grader_strv_free(q->hints, q->n_hints);
    free(q->hint_public);
    grader_strv_free(q->choices, q->n_choices);
    grader_code_free(q->code);
}

static void calc_fini(struct grader_calc *c)
{
    free(c->id);
    free(c->title);
    for (size_t i = 0; i < c->n_inputs; i++) {
        free(c->inputs[i].name);
        free(c->inputs[i].label);
        free(c->inputs[i].unit);
        free(c->inputs[i].help);
    }
    free(c->inputs);
    free(c->file);
}

static void lesson_fini(struct grader_lesson *l)
{
    free(l->id);
    free(l->title);
    free(l->file);
    for (size_t i = 0; i < l->n_pages; i++) {
        free(l->pages[i].title);
        free(l->pages[i].markdown);
    }
    free(l->pages);
    for (size_t i = 0; i < l->n_questions; i++)
        question_fini(&l->questions[i]);
    free(l->questions);
    for (size_t i = 0; i < l->n_calcs; i++)
        calc_fini(&l->calcs[i]);
    free(l->calcs);
}

void grader_pack_free(struct grader_pack *p)
{
    if (!p)
        return;
    free(p->info.id);
    free(p->info.title);
    free(p->info.version);
    free(p->info.description);
    grader_strv_free(p->info.assets, p->info.n_assets);
    grader_strv_free(p->info.rubric, p->info.n_rubric);
    free(p->info.release_salt);
    free(p->info.release_source);
    free(p->info.release_made);
    free(p->info.deadline);
    for (size_t i = 0; i < p->info.n_lessons; i++)
        lesson_fini(&p->info.lessons[i]);
    free(p->info.lessons);
    for (size_t i = 0; i < p->info.n_formulas; i++)
        grader_formula_fini(&p->info.formulas[i]);
    free(p->info.formulas);
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].path);
        free(p->files[i].data);
        free(p->files[i].chunkname);
        core_buf_fini(&p->files[i].bc);
        grader_slim_plan_free(p->files[i].plan);
    }
    free(p->files);
    for (size_t i = 0; i < p->n_qx; i++) {
        core_buf_fini(&p->qx[i].slim);
        grader_linemap_fini(&p->qx[i].map);
    }
    free(p->qx);
    for (size_t i = 0; i < p->n_cx; i++)
        grader_cx_fini(&p->cx[i]);
    free(p->cx);
    free(p->index);
    grader_sb_pool_free(p->pool);
    free(p);
}

const struct grader_pack_info *grader_pack_info(const struct grader_pack *p)
{
    return &p->info;
}

static uint64_t hash_id(const char *s)
{
    return core_fnv1a(CORE_FNV_OFFSET, s, strlen(s));
}

const struct grader_qx *grader_pack_qx(const struct grader_pack *p, const char *qid)
{
    if (!p || !qid || !p->index_cap)
        return NULL;
    size_t mask = p->index_cap - 1;
    for (size_t i = hash_id(qid) & mask;; i = (i + 1) & mask) {
        size_t k = p->index[i];
        if (k == SIZE_MAX)
            return NULL;
        if (strcmp(p->qx[k].q->id, qid) == 0)
            return &p->qx[k];
    }
}

const struct grader_question *grader_pack_question(const struct grader_pack *p, const char *qid)
{
    const struct grader_qx *x = grader_pack_qx(p, qid);
    return x ? x->q : NULL;
}

void grader_pack_index_init(struct grader_pack *p, size_t n)
{
    p->qx = n ? core_xcalloc(n, sizeof *p->qx) : NULL;
    p->index_cap = 16;
    while (p->index_cap < n * 2)
        p->index_cap *= 2;
    p->index = core_xmalloc(p->index_cap * sizeof *p->index);
    for (size_t i = 0; i < p->index_cap; i++)
        p->index[i] = SIZE_MAX;
}

void grader_pack_index_add(struct grader_pack *p, size_t i)
{
    size_t mask = p->index_cap - 1;
    size_t h = hash_id(p->qx[i].q->id) & mask;
    while (p->index[h] != SIZE_MAX)
        h = (h + 1) & mask;
    p->index[h] = i;
}

void grader_slim_prepare(struct grader_pack *p, size_t file, int line, bool *tried, bool *has,
                         struct core_buf *slim, struct grader_linemap *map)
{
    if (*tried || file == SIZE_MAX)
        return;
    *tried = true;
    struct grader_pfile *f = &p->files[file];
    if (!f->plan_tried) { /* one lexer pass per file, not one per question */
        f->plan_tried = true;
        f->plan = grader_slim_plan_new(f->data, f->len);
    }
    size_t len;
    char *src = grader_slim_cut(f->plan, f->data, line, &len, map);
    if (src) {
        struct core_err cerr;
        *has = grader_compile(src, len, f->chunkname, slim, &cerr) == 0;
        if (!*has) {
            core_buf_reset(slim);
            grader_linemap_fini(map);
        }
        free(src);
    }
}

void grader_qx_slim(struct grader_pack *p, struct grader_qx *x)
{
    /* Grading loads only the question's part of its file. */
    grader_slim_prepare(p, x->file, x->q->line, &x->slim_tried, &x->has_slim, &x->slim, &x->map);
}

void grader_cx_fini(struct grader_cx *x)
{
    core_buf_fini(&x->slim);
    grader_linemap_fini(&x->map);
    for (size_t i = 0; i < x->n_examples; i++) {
        struct grader_calc_example *e = &x->examples[i];
        free(e->inputs);
        free(e->values);
        for (size_t k = 0; e->texts && k < e->n_outputs; k++)
            free(e->texts[k]);
        free(e->texts);
    }
    free(x->examples);
    memset(x, 0, sizeof *x);
}

void grader_formula_fini(struct grader_formula *f)
{
    free(f->id);
    free(f->name);
    free(f->formula);
    free(f->symbols);
    free(f->note);
    free(f->lesson);
    free(f->page_title);
    free(f->calc);
    free(f->file);
    memset(f, 0, sizeof *f);
}

/* grader.h's view of the design reader's parse counts (grader_lg.c, in
 * the pure layer, keeps them). */
void grader_parse_stats_get(struct grader_parse_stats *s)
{
    struct grader_lg_stats st;
    grader_lg_stats_get(&st);
    *s = (struct grader_parse_stats){.parses = st.parses,
                                     .hits = st.hits,
                                     .words = st.words,
                                     .parse_s = (double)st.parse_ns / 1e9,
                                     .worst_s = (double)st.worst_ns / 1e9};
}

void grader_parse_cache_clear(void)
{
    grader_lg_cache_clear();
}
