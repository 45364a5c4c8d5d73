/*
 * lesson_policy.c — what a question's tries earn under its attempt policy,
 * the policy as stored with a question row, and the value of guessing.
 *
 * Everything but lesson_progress_load is pure. The score of a question is
 * the best over its credited tries k of (the try's score fraction) times
 * (what try k can earn, grader_policy_available): a later, worse try never
 * lowers a grade, a right answer found by trying costs what the policy
 * says, and a try after a give-up earns nothing.
 */
#include "lessons/lesson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_policy_apply(const struct grader_policy *p, const double *fracs, int n, int credited,
                         bool gave_up, struct lesson_tries *out)
{
    memset(out, 0, sizeof *out);
    out->used = n;
    out->limit = p->tries;
    out->gave_up = gave_up || credited < n;
    if (credited > n)
        credited = n;
    for (int k = 1; k <= credited; k++) {
        double f = fracs[k - 1];
        if (f >= 1 - 1e-12)
            out->solved = true;
        double earned = f * grader_policy_available(p, k);
        if (earned > out->frac + 1e-12) {
            out->frac = earned;
            out->best_try = k;
        }
    }
    out->closed = p->tries > 0 && n >= p->tries;
    out->next_available = out->closed || out->gave_up ? 0 : grader_policy_available(p, n + 1);
}

void lesson_policy_of(int tries, double penalty, const char *per_try, struct grader_policy *out)
{
    memset(out, 0, sizeof *out);
    out->tries = tries > 0 ? tries : 0;
    out->penalty = penalty >= 0 && penalty <= 1 ? penalty : 0;
    if (!per_try)
        return;
    const char *s = per_try;
    while (*s && out->n_per_try < GRADER_PER_TRY_MAX) {
        double f;
        size_t used;
        if (core_num_parse(s, strlen(s), 0, &f, &used, NULL) != CORE_OK)
            break;
        out->per_try[out->n_per_try++] = f < 0 ? 0 : f > 1 ? 1 : f;
        s += used;
        while (*s == ' ')
            s++;
    }
}

char *lesson_policy_per_try_text(const struct grader_policy *p)
{
    if (p->n_per_try <= 0)
        return NULL;
    struct core_buf b;
    core_buf_init(&b);
    struct core_json j;
    for (int i = 0; i < p->n_per_try; i++) {
        if (i)
            core_buf_putc(&b, ' ');
        core_json_init(&j, &b); /* a number written the same in every locale */
        core_json_num(&j, p->per_try[i]);
    }
    return core_buf_steal(&b);
}

/* ---- the value of guessing ------------------------------------------------------------ */

/* A small deterministic generator for the simulations (splitmix64). */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int below(uint64_t *s, int n)
{
    return (int)(mix(s) % (uint64_t)n);
}

/* multi: the grader's rule, (right picks - wrong picks) / right ones, >= 0. */
static double multi_score(unsigned picks, unsigned right, int n_right)
{
    int r = __builtin_popcount(picks & right), w = __builtin_popcount(picks & ~right);
    double s = (double)(r - w) / n_right;
    return s > 0 ? s : 0;
}

/* ordering: 1 - 2 * (pairs out of order) / (all pairs), >= 0. */
static double order_score(const int *perm, int n)
{
    int inv = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            inv += perm[i] > perm[j];
    double s = 1 - 2.0 * inv / (n * (n - 1) / 2.0);
    return s > 0 ? s : 0;
}

#define TRIALS 20000
#define MAX_TRIES_SIMULATED 64

/* One simulated try t scoring sc: what a single guess earns (try 1) adds to
 * *single, the best a try earned so far in *best. True when right. */
static bool guess_try(const struct grader_policy *p, int t, double sc, double *single, double *best)
{
    if (t == 1)
        *single += sc * grader_policy_available(p, 1);
    double e = sc * grader_policy_available(p, t);
    if (e > *best)
        *best = e;
    return sc >= 1;
}

void lesson_policy_guess(enum grader_kind k, int n, int n_right, const struct grader_policy *p,
                         double *single, double *brute)
{
    *single = *brute = 0;
    int limit = p->tries > 0 ? p->tries : MAX_TRIES_SIMULATED;
    if (k == GRADER_CHOICE && n >= 1) {
        /* The right one is equally likely to come at each of tries 1..n. */
        *single = grader_policy_available(p, 1) / n;
        for (int t = 1; t <= n && t <= limit; t++)
            *brute += grader_policy_available(p, t) / n;
        return;
    }
    uint64_t seed = 0x6775657373ULL; /* fixed: the same figures every time */
    if (k == GRADER_MULTI && n >= 1 && n <= 20 && n_right >= 1 && n_right <= n) {
        unsigned all = (1u << n) - 1, right = (1u << n_right) - 1;
        double s1 = 0, sb = 0;
        for (int trial = 0; trial < TRIALS; trial++) {
            unsigned tried[MAX_TRIES_SIMULATED];
            int nt = 0;
            double best = 0;
            for (int t = 1; t <= limit && t <= MAX_TRIES_SIMULATED; t++) {
                unsigned g;
                bool again;
                do { /* a non-empty subset not tried before */
                    g = (unsigned)(mix(&seed) & all);
                    again = g == 0;
                    for (int i = 0; i < nt && !again; i++)
                        again = tried[i] == g;
                } while (again && nt < (int)all);
                tried[nt++] = g;
                double sc = multi_score(g, right, n_right);
                if (guess_try(p, t, sc, &s1, &best))
                    break;
            }
            sb += best;
        }
        *single = s1 / TRIALS;
        *brute = sb / TRIALS;
        return;
    }
    if (k == GRADER_ORDERING && n >= 2 && n <= 26) {
        double s1 = 0, sb = 0;
        int perm[26];
        for (int trial = 0; trial < TRIALS; trial++) {
            double best = 0;
            for (int t = 1; t <= limit && t <= MAX_TRIES_SIMULATED; t++) {
                for (int i = 0; i < n; i++)
                    perm[i] = i;
                for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
                    int j = below(&seed, i + 1), tmp = perm[i];
                    perm[i] = perm[j];
                    perm[j] = tmp;
                }
                double sc = order_score(perm, n);
                if (guess_try(p, t, sc, &s1, &best))
                    break;
            }
            sb += best;
        }
        *single = s1 / TRIALS;
        *brute = sb / TRIALS;
    }
}

/* ---- progress ---------------------------------------------------------------------- */

void lesson_progress_tries(const struct db_progress_row *r, struct lesson_tries *out)
{
    struct grader_policy p;
    lesson_policy_of(r->tries, r->penalty, r->per_try, &p);
    lesson_policy_apply(&p, r->fracs, r->n_fracs, r->helped_from, r->gave_up, out);
}

enum lesson_help lesson_help_of(const struct db_progress_row *r)
{
    if (!r->gave_up)
        return LESSON_HELP_NONE;
    struct lesson_tries t;
    lesson_progress_tries(r, &t);
    if (t.solved)
        return LESSON_HELP_RIGHT_BEFORE;
    if (t.frac > 0)
        return LESSON_HELP_PARTLY_BEFORE;
    return r->n_fracs > r->helped_from ? LESSON_HELP_AFTER : LESSON_HELP_UNANSWERED;
}

const char *lesson_help_text(enum lesson_help h)
{
    switch (h) {
    case LESSON_HELP_RIGHT_BEFORE:
        return "answered right before the give-up: it counts";
    case LESSON_HELP_PARTLY_BEFORE:
        return "partly right before the give-up: that part counts";
    case LESSON_HELP_AFTER:
        return "answered with help, after the give-up: earns nothing";
    case LESSON_HELP_UNANSWERED:
        return "not answered: the solution was shown";
    default:
        return "";
    }
}

const char *lesson_help_name(enum lesson_help h)
{
    switch (h) {
    case LESSON_HELP_RIGHT_BEFORE:
        return "right_before";
    case LESSON_HELP_PARTLY_BEFORE:
        return "partly_before";
    case LESSON_HELP_AFTER:
        return "with_help";
    case LESSON_HELP_UNANSWERED:
        return "not_answered";
    default:
        return "none";
    }
}

void lesson_progress_apply(struct db_progress_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct db_progress_row *r = &rows[i];
        if (r->sealed) { /* the instructor's grade, when it came */
            r->best = r->has_official && !r->official_pending ? r->official : 0;
            r->first = 0;
            continue;
        }
        if (r->exam && !r->exam_over) { /* nothing is told before the exam is submitted */
            r->best = 0;
            r->first = 0;
            continue;
        }
        struct lesson_tries t;
        lesson_progress_tries(r, &t);
        r->best = t.frac * r->points;
    }
}

int lesson_progress_load(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_progress_row **out, size_t *n, struct core_err *err)
{
    int rc = db_progress(db, user_id, pack_id, out, n, err);
    if (rc != CORE_OK)
        return rc;
    lesson_progress_apply(*out, *n);
    return CORE_OK;
}

void lesson_answer_headline(const struct lesson_answer_result *res, char *head, size_t hn,
                            char *note, size_t nn)
{
    const struct grader_result *r = &res->r;
    const char *verdict = r->correct ? "correct" : r->score > 0 ? "partly right" : "not right";
    char sc[32], mx[32], earned[32], qs[32];
    lesson_score_format(r->score, sc, sizeof sc);
    lesson_score_format(r->max, mx, sizeof mx);
    lesson_score_format(res->earned * r->max, earned, sizeof earned);
    lesson_score_format(res->tries.frac * r->max, qs, sizeof qs);
    const char *pts = r->max == 1 ? "point" : "points";
    if (note && nn)
        note[0] = '\0';
    if (res->practice) {
        snprintf(head, hn, "%s (practice: %s/%s, earns nothing)", verdict, sc, mx);
        if (note && nn)
            snprintf(note, nn, "practice on new numbers; the question keeps %s/%s", qs, mx);
        return;
    }
    if (res->after_giveup) {
        snprintf(head, hn, "%s, after your give-up: earns nothing", verdict);
        if (note && nn)
            snprintf(note, nn, "the answer had been shown; the question scores %s/%s", qs, mx);
        return;
    }
    if (r->score <= 0 || res->available >= 1 - 1e-9) {
        snprintf(head, hn, "%s: %s/%s %s", verdict, r->score > 0 ? earned : sc, mx, pts);
        if (note && nn && res->tries.closed)
            snprintf(note, nn, "no tries left: the question scores %s/%s", qs, mx);
        return;
    }
    /* A try the policy discounts: the heading says what it earns, so it
     * never reads "1/1" beside "counts 0.9". */
    if (res->earned * r->max > 1e-9)
        snprintf(head, hn, "%s on try %d: earns %s of %s %s", verdict, res->attempt_no, earned, mx,
                 pts);
    else
        snprintf(head, hn, "%s, but try %d earns nothing under this question's policy", verdict,
                 res->attempt_no);
    if (note && nn)
        snprintf(note, nn, "try %d can earn %.0f%% of the points; the question scores %s/%s%s",
                 res->attempt_no, 100 * res->available, qs, mx,
                 res->tries.closed ? "; no tries left" : "");
}
