/* lesson_progress.c — the course's 100-point rubric: graded scores per item
 * rolled up from the questions tagged with it, the student's latest
 * self-ratings beside them, the calibration gap, the proficiency levels,
 * "what to study next", and the certainty-based marking rule.
 *
 * Everything except lesson_standing_load is pure (no I/O, no globals that
 * change), so the roll-up and the levels are tested directly. */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rubric of day5-summary-and-assessment.md, in its order. The ids are
 * the scheme every lesson of the built-in pack tags its questions with
 * (lessons/packs/core/pack.lua). */
static const struct lesson_rubric_item rubric[LESSON_RUBRIC_N] = {
    {"theory.gpu", "theory", "GPU architecture and programming models", 10},
    {"theory.parallel", "theory", "distributed training and parallelization", 10},
    {"theory.memory", "theory", "memory management and optimization", 10},
    {"theory.scheduling", "theory", "resource scheduling and autoscaling", 10},
    {"practice.profiling", "practice", "performance profiling and bottleneck analysis", 10},
    {"practice.optimization", "practice", "optimization technique implementation", 10},
    {"practice.design", "practice", "system design and architecture decisions", 10},
    {"practice.deployment", "practice", "production deployment considerations", 10},
    {"advanced.novel", "advanced", "novel optimization strategies", 5},
    {"advanced.integration", "advanced", "cross-system integration", 5},
    {"advanced.cost", "advanced", "cost-performance trade-off analysis", 5},
    {"advanced.future", "advanced", "future technology adaptation", 5},
};

const struct lesson_rubric_item *lesson_rubric_items(void)
{
    return rubric;
}

static int rubric_index(const char *id, size_t len)
{
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        if (strlen(rubric[i].id) == len && strncmp(rubric[i].id, id, len) == 0)
            return i;
    return -1;
}

const struct lesson_rubric_item *lesson_rubric_find(const char *id)
{
    int i = id ? rubric_index(id, strlen(id)) : -1;
    return i < 0 ? NULL : &rubric[i];
}

/* Levels, highest first; a total at or above `from` has that level. */
static const struct {
    double from;
    const char *name;
    const char *meaning;
} levels[] = {
    {90, "expert", "ready to lead ML infrastructure work"},
    {80, "advanced", "can design and optimize complex ML systems"},
    {70, "intermediate", "can apply the standard optimization techniques"},
    {60, "beginner+", "understands the concepts, needs more practice"},
    {-INFINITY, "review", "review the course material before going on"},
};

static size_t level_of(double total)
{
    size_t i = 0;
    /* A sum of item scores that should be 70 may come out as 69.999...:
     * the tolerance keeps it at the level it prints as. NaN falls through
     * to "review". */
    while (i + 1 < sizeof levels / sizeof levels[0] && !(total + 1e-9 >= levels[i].from))
        i++;
    return i;
}

const char *lesson_level_name(double total)
{
    return levels[level_of(total)].name;
}

const char *lesson_level_meaning(double total)
{
    return levels[level_of(total)].meaning;
}

const char *lesson_gap_word(double gap, double max)
{
    if (fabs(gap) <= 0.1 * max + 1e-9)
        return "well calibrated";
    return gap > 0 ? "over-confident" : "under-confident";
}

double lesson_cbm_fraction(double s, int certainty)
{
    static const double right[] = {0, 1, 2, 3}, wrong[] = {0, 0, -2, -6};
    if (certainty < 1 || certainty > 3)
        return s;
    if (s < 0)
        s = 0;
    if (s > 1)
        s = 1;
    return right[certainty] * s + wrong[certainty] * (1 - s);
}

void lesson_standing_fini(struct lesson_standing *s)
{
    if (!s)
        return;
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        free(s->items[i].rated_at);
    for (size_t i = 0; i < s->n_study; i++) {
        free(s->study[i].pack_id);
        free(s->study[i].lesson_id);
    }
    memset(s, 0, sizeof *s);
}

struct item_walk {
    bool seen[LESSON_RUBRIC_N];
    void (*fn)(int i, void *arg);
    void *arg;
};

static void item_named(const char *name, size_t len, void *arg)
{
    struct item_walk *w = arg;
    int i = rubric_index(name, len);
    if (i >= 0 && !w->seen[i]) {
        w->seen[i] = true;
        w->fn(i, w->arg);
    }
}

/* Calls fn(index, arg) once for each distinct course item named in the
 * comma-separated list (spaces around names ignored). */
static void each_item(const char *list, void (*fn)(int i, void *arg), void *arg)
{
    struct item_walk w = {.fn = fn, .arg = arg};
    lesson_names_each(list, item_named, &w);
}

struct row_ctx {
    const struct db_progress_row *row;
    struct lesson_standing *st;
};

static void add_row(int i, void *arg)
{
    const struct row_ctx *c = arg;
    const struct db_progress_row *r = c->row;
    struct lesson_item_standing *it = &c->st->items[i];
    it->questions++;
    it->answered += r->answered;
    it->points += r->points;
    it->earned += r->best;
    if (r->answered) {
        it->answered_points += r->points;
        it->answered_earned += r->best;
    }
}

/* Per-lesson unearned rubric points while scanning rows. */
struct lesson_gain {
    const char *pack_id; /* borrowed from the rows */
    const char *lesson_id;
    bool exam; /* an exam lesson: suggested after the others */
    double unearned;
    double per_item[LESSON_RUBRIC_N];
    double lost; /* points the student's own answers missed (given up, wrong, an exam's) */
    int missed;  /* questions they missed */
};

struct gain_ctx {
    const struct db_progress_row *row;
    const struct lesson_standing *st;
    struct lesson_gain *g;
};

static void add_gain(int i, void *arg)
{
    struct gain_ctx *c = arg;
    const struct lesson_item_standing *it = &c->st->items[i];
    if (it->points <= 0)
        return;
    double left = c->row->points - c->row->best;
    if (left <= 0)
        return;
    double v = it->item->max * left / it->points;
    c->g->unearned += v;
    c->g->per_item[i] += v;
}

void lesson_standing_compute(const struct db_progress_row *rows, size_t n_rows,
                             const struct db_selfassess *self, size_t n_self,
                             struct lesson_standing *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        out->items[i].item = &rubric[i];

    /* Graded: sums per item, then item max × earned / points. */
    for (size_t k = 0; k < n_rows; k++) {
        struct row_ctx c = {&rows[k], out};
        each_item(rows[k].rubric, add_row, &c);
    }
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        struct lesson_item_standing *it = &out->items[i];
        double frac = it->points > 0 ? it->earned / it->points : 0;
        if (frac > 1)
            frac = 1;
        it->graded = it->item->max * frac;
        double fa = it->answered_points > 0 ? it->answered_earned / it->answered_points : 0;
        it->graded_answered = it->item->max * (fa > 1 ? 1 : fa);
        out->graded_total += it->graded;
    }
    out->graded_level = lesson_level_name(out->graded_total);

    /* Self-ratings: the later element for an item wins; a rating stored out
     * of another maximum is put on the item's scale. */
    for (size_t k = 0; k < n_self; k++) {
        int i = self[k].item ? rubric_index(self[k].item, strlen(self[k].item)) : -1;
        if (i < 0 || !(self[k].max > 0))
            continue;
        struct lesson_item_standing *it = &out->items[i];
        double v = rubric[i].max * self[k].score / self[k].max;
        it->self = v < 0 ? 0 : v > rubric[i].max ? rubric[i].max : v;
        free(it->rated_at);
        it->rated_at = self[k].created_at ? core_xstrdup(self[k].created_at) : NULL;
        it->rated = true;
    }
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        struct lesson_item_standing *it = &out->items[i];
        if (!it->rated)
            continue;
        it->gap = it->self - (it->answered > 0 ? it->graded_answered : it->graded);
        out->n_rated++;
        out->self_total += it->self;
        if (it->answered > 0) {
            out->n_compared++;
            out->self_compared += it->self;
            out->graded_compared += it->graded_answered;
            out->max_compared += it->item->max;
        }
    }
    out->self_level = out->n_rated == LESSON_RUBRIC_N ? lesson_level_name(out->self_total) : NULL;

    /* What to study next: unearned rubric points per lesson, in the order
     * lessons first appear in the rows. */
    struct lesson_gain *gains = NULL;
    size_t n_gains = 0;
    for (size_t k = 0; k < n_rows; k++) {
        const struct db_progress_row *r = &rows[k];
        struct lesson_gain *g = NULL;
        for (size_t j = n_gains; j-- > 0;)
            if (strcmp(gains[j].pack_id, r->pack_id) == 0 &&
                strcmp(gains[j].lesson_id, r->lesson_id) == 0) {
                g = &gains[j];
                break;
            }
        if (!g) {
            gains = core_xrealloc(gains, (n_gains + 1) * sizeof *gains);
            g = &gains[n_gains++];
            memset(g, 0, sizeof *g);
            g->pack_id = r->pack_id;
            g->lesson_id = r->lesson_id;
            g->exam = r->exam;
        }
        struct gain_ctx c = {r, out, g};
        each_item(r->rubric, add_gain, &c);
        /* Points lost in the student's own answers: a question answered (or
         * given up on) that earns less than its points, or one a submitted
         * exam missed. An exam not yet submitted has lost nothing yet. */
        bool counts = r->exam ? r->exam_over : (r->answered || r->gave_up);
        if (counts && !r->sealed && r->points - r->best > 1e-9) {
            g->lost += r->points - r->best;
            g->missed++;
        }
    }
    /* Pick the top ones by selection: stable, so ties keep lesson order.
     * First the lessons where the student's own answers lost points, most
     * first (an exam's misses among them); then the rubric points still
     * open, the exam after the lessons that teach what it tests. */
    bool *taken = core_xcalloc(n_gains ? n_gains : 1, sizeof *taken);
    while (out->n_study < LESSON_STUDY_MAX) {
        size_t best = n_gains;
        for (size_t j = 0; j < n_gains; j++)
            if (!taken[j] && gains[j].lost > 1e-9 &&
                (best == n_gains || gains[j].lost > gains[best].lost + 1e-12))
                best = j;
        for (int exams = 0; exams < 2 && best == n_gains; exams++) /* other lessons first */
            for (size_t j = 0; j < n_gains; j++)
                if (!taken[j] && gains[j].exam == (exams == 1) && gains[j].unearned > 1e-9 &&
                    (best == n_gains || gains[j].unearned > gains[best].unearned + 1e-12))
                    best = j;
        if (best == n_gains)
            break;
        taken[best] = true;
        int top = 0;
        for (int i = 1; i < LESSON_RUBRIC_N; i++)
            if (gains[best].per_item[i] > gains[best].per_item[top] + 1e-12)
                top = i;
        struct lesson_study *sd = &out->study[out->n_study++];
        sd->pack_id = core_xstrdup(gains[best].pack_id);
        sd->lesson_id = core_xstrdup(gains[best].lesson_id);
        sd->unearned = gains[best].unearned;
        sd->lost = gains[best].lost;
        sd->missed = gains[best].missed;
        sd->exam = gains[best].exam;
        sd->item = &rubric[top];
    }
    free(taken);
    free(gains);
}

int lesson_standing_load(struct db *db, int64_t user_id, const char *pack_id,
                         struct lesson_standing *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_progress_row *rows = NULL;
    struct db_selfassess *self = NULL;
    size_t n_rows = 0, n_self = 0;
    int rc = lesson_progress_load(db, user_id, pack_id, &rows, &n_rows, err);
    if (rc != CORE_OK)
        goto out;
    rc = db_selfassess_latest(db, user_id, &self, &n_self, err);
    if (rc != CORE_OK)
        goto out;
    lesson_standing_compute(rows, n_rows, self, n_self, out);
out:
    db_progress_free(rows, n_rows);
    db_selfassess_free(self, n_self);
    return rc;
}
