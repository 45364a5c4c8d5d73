/*
 * grader_sweep.c — pack check beyond one path: every question on many
 * variants, and every design question against its graded samples.
 *
 * A variant is known by its params written out as text (grader_params.c
 * writes them with sorted keys), so a question whose params draw from
 * three values has three variants however often it is drawn. The sweep
 * draws variants 1, 2, ... of the example student and runs
 * grader_variant_check on each until it has seen the number asked for, or
 * until as many draws in a row as that number (at most PATIENCE) brought
 * nothing new, or after MAX_DRAWS times that number of draws. Seen
 * variants are kept as 64-bit hashes of their text in an open-addressing
 * set, so the sweep costs one sandbox run per draw and nothing per pair.
 *
 * Samples: each is graded like an answer and compared with the score a
 * person gave it.
 *
 * Uses the per-variant and per-sample jobs of grader_selftest.c; no Lua here.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATIENCE_MIN 20 /* draws in a row without a new variant that end the search... */
#define PATIENCE_MAX 50 /* ...at least, and at most */
#define MAX_DRAWS 4     /* times the variants asked for */
#define SHOWN 3         /* failing variants reported in full, per question */

/* ---- a set of 64-bit hashes ---------------------------------------------------------- */

struct hset {
    uint64_t *slot; /* 0 = empty (a hash of 0 is stored as 1) */
    size_t cap, n;
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h ? h : 1;
}

/* Adds h; true when it was new. */
static bool hset_add(struct hset *s, uint64_t h)
{
    if ((s->n + 1) * 2 > s->cap) {
        struct hset g = {core_xcalloc(s->cap ? s->cap * 2 : 64, sizeof *g.slot),
                         s->cap ? s->cap * 2 : 64, 0};
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                hset_add(&g, s->slot[i]);
        free(s->slot);
        *s = g;
    }
    size_t mask = s->cap - 1, i = h & mask;
    while (s->slot[i]) {
        if (s->slot[i] == h)
            return false;
        i = (i + 1) & mask;
    }
    s->slot[i] = h;
    s->n++;
    return true;
}

/* ---- the sweep ------------------------------------------------------------------------ */

/* How many draws in a row may bring nothing new before the space counts as
 * exhausted: three times the variants seen, between PATIENCE_MIN and
 * PATIENCE_MAX (a space of 5 values is done after 20 dry draws; a rare
 * value among 100 still has 50 chances), never more than asked. */
static size_t patience(size_t seen, size_t want)
{
    size_t p = 3 * seen;
    if (p < PATIENCE_MIN)
        p = PATIENCE_MIN;
    if (p > PATIENCE_MAX)
        p = PATIENCE_MAX;
    return p < want ? p : want;
}

void grader_sweep_fini(struct grader_sweep *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->q[i].qid);
        free(s->q[i].file);
        free(s->q[i].attack_worst);
    }
    free(s->q);
    memset(s, 0, sizeof *s);
}

static void sweep_question(struct grader_pack *p, size_t qi, size_t variants,
                           struct grader_sweep_q *r, struct grader_sweep *out,
                           struct core_strlist *problems)
{
    const struct grader_question *q = p->qx[qi].q;
    if (!q->has_params) { /* one variant, checked when the pack was loaded */
        r->variants = r->tried = 1;
        return;
    }
    size_t want = variants ? variants : 1;
    size_t max_draws = want * MAX_DRAWS;
    struct hset seen = {0};
    size_t dry = 0, failing = 0;
    struct core_strlist quiet; /* problems of failing variants past the first few */
    core_strlist_init(&quiet);
    for (size_t v = 1; v <= max_draws && seen.n < want && dry < patience(seen.n, want) &&
                       !grader_pack_budget_spent(p, NULL, 0);
         v++) {
        char *key = NULL;
        size_t ex = 0;
        int n = grader_variant_check(p, qi, (int)v, failing < SHOWN ? problems : &quiet, &key, &ex);
        if (n > 0 && failing++ < SHOWN)
            out->failures += n;
        r->tried++;
        r->examples += ex;
        out->checks += 1 + ex;
        if (key && hset_add(&seen, fnv(key)))
            dry = 0;
        else
            dry++;
        free(key);
    }
    if (failing > SHOWN) {
        core_strlist_pushf(problems, "%s:%d: question %s: %zu more variants fail (%zu tried)",
                           q->file, q->line, q->id, failing - SHOWN, r->tried);
        out->failures++;
    }
    core_strlist_fini(&quiet);
    r->variants = seen.n;
    free(seen.slot);
}

/* Quadratic weighted kappa of a (automatic) against h (person), scores in
 * 0..1: 1 - sum (a_i - h_i)^2 / ((1/n) sum_i sum_j (a_i - h_j)^2), the
 * form Cohen's weighted kappa with squared weights takes for scores on a
 * continuous scale. NAN when it cannot be told (fewer than two samples, or
 * every pair at the same distance, as when both gave one score). */
double grader_qwk(const double *a, const double *h, size_t n)
{
    if (n < 2)
        return NAN;
    double obs = 0, exp = 0;
    for (size_t i = 0; i < n; i++) {
        obs += (a[i] - h[i]) * (a[i] - h[i]);
        for (size_t j = 0; j < n; j++)
            exp += (a[i] - h[j]) * (a[i] - h[j]);
    }
    exp /= (double)n;
    return exp > 1e-12 ? 1 - obs / exp : NAN;
}

#define MAX_KAPPA 256

static void sample_question(struct grader_pack *p, size_t qi, struct grader_sweep_q *r,
                            struct grader_sweep *out, struct core_strlist *problems)
{
    const struct grader_question *q = p->qx[qi].q;
    double sum = 0, autos[MAX_KAPPA], persons[MAX_KAPPA];
    size_t nk = 0;
    r->good_min = 1;
    for (size_t k = 1; k <= q->n_samples; k++) {
        struct grader_sample_out so;
        struct core_err err;
        char prefix[300], label[200];
        snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", q->file, q->line, q->id);
        out->checks++;
        r->samples++;
        if (grader_sample_grade(p, qi, k, &so, &err) != 0) {
            snprintf(label, sizeof label, "sample %zu", k);
            grader_problem_push(problems, prefix, NULL, label, err.msg);
            out->failures++;
            r->samples_off++;
            continue;
        }
        const char *rl = so.role[0] ? so.role : NULL;
        int role = grader_sample_role(rl);
        double diff = fabs(so.got - so.want);
        bool bad = role == GRADER_ROLE_KEYWORDS || role == GRADER_ROLE_REVERSED ||
                   role == GRADER_ROLE_WRONG_FLUENT;
        switch (role) {
        case GRADER_ROLE_GOOD:
            r->good++;
            break;
        case GRADER_ROLE_TERSE:
            r->terse++;
            break;
        case GRADER_ROLE_OWN_WORDS:
            r->own_words++;
            break;
        case GRADER_ROLE_PARTIAL:
            r->partial++;
            break;
        case GRADER_ROLE_KEYWORDS:
            r->keywords++;
            break;
        case GRADER_ROLE_REVERSED:
            r->reversed++;
            break;
        case GRADER_ROLE_WRONG_FLUENT:
            r->wrong_fluent++;
            break;
        default:
            break;
        }
        if ((role == GRADER_ROLE_GOOD || role == GRADER_ROLE_TERSE ||
             role == GRADER_ROLE_OWN_WORDS) &&
            so.got < r->good_min)
            r->good_min = so.got;
        if (bad && so.got > r->bad_max)
            r->bad_max = so.got;
        if (nk < MAX_KAPPA) {
            autos[nk] = so.got;
            persons[nk++] = so.want;
        }
        sum += diff;
        if (diff > r->worst)
            r->worst = diff;
        snprintf(label, sizeof label, "sample %zu (%s%s'%.40s%s')", k, rl ? rl : "", rl ? ", " : "",
                 so.answer ? so.answer : "", so.answer && strlen(so.answer) > 40 ? "..." : "");
        char msg[512];
        msg[0] = '\0';
        if (!so.valid)
            snprintf(msg, sizeof msg, "the grader found it invalid (%s); a person gave it %.3g",
                     so.feedback, so.want);
        else if (diff > so.tol + 1e-9)
            snprintf(msg, sizeof msg,
                     "the grader gives %.3g, a person gave it %.3g: off by %.3g, more than its "
                     "tolerance %.3g (%s)",
                     so.got, so.want, diff, so.tol, so.feedback);
        else if (bad && so.got > GRADER_ATTACK_MAX + 1e-9)
            snprintf(msg, sizeof msg,
                     "the grader gives %.3g to a %s answer; it must earn at most a quarter of "
                     "the points (%s)",
                     so.got, rl, so.feedback);
        if (msg[0]) {
            grader_problem_push(problems, prefix, NULL, label, msg);
            out->failures++;
            r->samples_off++;
        }
        free(so.answer);
        free(so.feedback);
    }
    r->mean = r->samples ? sum / (double)r->samples : 0;
    r->kappa = grader_qwk(autos, persons, nk);
}

/* Attacks the design rubric of question qi (grader_attack.c). */
static void attack_question(struct grader_pack *p, size_t qi, struct grader_sweep_q *r,
                            struct grader_sweep *out, struct core_strlist *problems)
{
    const struct grader_question *q = p->qx[qi].q;
    struct grader_attack_out *a = NULL;
    size_t n = 0;
    struct core_err err;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", q->file, q->line, q->id);
    if (grader_attacks_run(p, qi, &a, &n, &err) != 0) {
        grader_problem_push(problems, prefix, NULL, "attacks", err.msg);
        out->failures++;
        return;
    }
    r->attacks = n;
    for (size_t i = 0; i < n; i++) {
        out->checks++;
        if (!r->attack_worst || a[i].score > r->attack_max) {
            r->attack_max = a[i].score;
            free(r->attack_worst);
            r->attack_worst = core_xstrdup(a[i].name);
        }
        r->attacks_reported = a[i].report;
        if (a[i].score <= GRADER_ATTACK_MAX + 1e-9 || a[i].report)
            continue;
        char label[300], msg[900];
        snprintf(label, sizeof label, "attack '%s'", a[i].name);
        snprintf(msg, sizeof msg,
                 "earns %.3g of the points, more than a quarter: it matched %s (answer: '%.80s%s')",
                 a[i].score, a[i].matched[0] ? a[i].matched : "nothing it could name", a[i].answer,
                 strlen(a[i].answer) > 80 ? "..." : "");
        grader_problem_push(problems, prefix, NULL, label, msg);
        out->failures++;
    }
    grader_attacks_free(a, n);
}

int grader_pack_sweep(struct grader_pack *p, size_t variants, struct grader_sweep *out,
                      struct core_strlist *problems)
{
    memset(out, 0, sizeof *out);
    out->q = p->n_qx ? core_xcalloc(p->n_qx, sizeof *out->q) : NULL;
    for (size_t i = 0; i < p->n_qx && !grader_pack_budget_spent(p, NULL, 0); i++) {
        const struct grader_qx *x = &p->qx[i];
        if (x->bad || x->file == SIZE_MAX)
            continue;
        struct grader_sweep_q *r = &out->q[out->n++];
        r->qid = core_xstrdup(x->q->id);
        r->file = core_xstrdup(x->q->file);
        r->line = x->q->line;
        sweep_question(p, i, variants, r, out, problems);
        out->tried += r->tried;
        r->kappa = NAN;
        if (x->q->n_samples)
            sample_question(p, i, r, out, problems);
        if (x->q->kind == GRADER_DESIGN && !x->q->has_grade)
            attack_question(p, i, r, out, problems);
    }
    return out->failures;
}
