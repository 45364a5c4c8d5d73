/*
 * lesson_class_items.c — item analysis: how each question behaved across
 * the class. Facility (the mean score, under the attempt policy), two
 * measures of discrimination (point-biserial against the rest of the
 * total, and the upper-lower 27% index), give-up rate, tries used, and the
 * most common wrong answers with the feedback they got: a common wrong
 * answer that no declared mistake explains is what a pack author should
 * add a `wrong` value or a `why` note for next.
 *
 * The statistics (lesson_item_stats) and the sort are pure.
 */
#include "lessons/lesson.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lesson_items_free(struct lesson_item *it, size_t n)
{
    if (!it)
        return;
    for (size_t i = 0; i < n; i++) {
        free(it[i].pack_id);
        free(it[i].question_id);
        free(it[i].kind);
        free(it[i].title);
        for (size_t k = 0; k < it[i].n_wrong; k++) {
            free(it[i].wrong[k].answer);
            free(it[i].wrong[k].feedback);
        }
    }
    free(it);
}

/* ---- statistics (pure) ----------------------------------------------------------------- */

struct scored {
    double total, item;
    size_t at; /* original position: ties keep it */
};

static int by_total_desc(const void *a, const void *b)
{
    const struct scored *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

void lesson_item_stats(const double *item, const double *total, size_t n, double item_points,
                       double *r_pb, double *d_ul)
{
    *r_pb = NAN;
    *d_ul = NAN;
    if (n < 2)
        return;
    /* Point-biserial: Pearson's r of the item with the rest of the total,
     * so an item does not correlate with itself. */
    double mi = 0, mr = 0;
    for (size_t i = 0; i < n; i++) {
        mi += item[i];
        mr += total[i] - item[i] * item_points;
    }
    mi /= (double)n;
    mr /= (double)n;
    double sii = 0, srr = 0, sir = 0;
    for (size_t i = 0; i < n; i++) {
        double di = item[i] - mi, dr = total[i] - item[i] * item_points - mr;
        sii += di * di;
        srr += dr * dr;
        sir += di * dr;
    }
    if (sii > 1e-12 && srr > 1e-12)
        *r_pb = sir / sqrt(sii * srr);
    /* Upper-lower: the top and bottom 27% by total (at least one each). */
    struct scored *v = core_xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (struct scored){total[i], item[i], i};
    qsort(v, n, sizeof *v, by_total_desc);
    size_t k = (size_t)floor(0.27 * (double)n + 0.5);
    if (k < 1)
        k = 1;
    if (2 * k > n)
        k = n / 2;
    double up = 0, low = 0;
    for (size_t i = 0; i < k; i++) {
        up += v[i].item;
        low += v[n - 1 - i].item;
    }
    *d_ul = (up - low) / (double)k;
    free(v);
}

int lesson_item_sort_find(const char *name)
{
    static const char *const names[] = {"order",   "facility", "discrimination",
                                        "giveups", "tries",    "attempts"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

/* The sort key of an item, smaller first; NaN (undefined) goes last. */
static double sort_key(const struct lesson_item *it, enum lesson_item_sort key)
{
    switch (key) {
    case LESSON_ITEM_FACILITY:
        return it->facility;
    case LESSON_ITEM_DISCRIMINATION:
        return it->discrimination;
    case LESSON_ITEM_GIVEUPS:
        return -it->giveup_rate;
    case LESSON_ITEM_TRIES:
        return -it->tries;
    case LESSON_ITEM_ATTEMPTS:
        return -(double)it->attempts;
    case LESSON_ITEM_ORDER:
        break;
    }
    return (double)it->ordinal;
}

struct sortable {
    struct lesson_item it;
    double key;
    bool reverse;
};

static int by_sort_key(const void *a, const void *b)
{
    const struct sortable *x = a, *y = b;
    bool xn = isnan(x->key), yn = isnan(y->key);
    if (xn != yn)
        return xn ? 1 : -1;
    if (!xn && x->key != y->key) {
        int c = x->key < y->key ? -1 : 1;
        return x->reverse ? -c : c;
    }
    return x->it.ordinal < y->it.ordinal ? -1 : x->it.ordinal > y->it.ordinal;
}

void lesson_items_sort(struct lesson_item *it, size_t n, enum lesson_item_sort key, bool reverse)
{
    struct sortable *v = core_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (struct sortable){it[i], sort_key(&it[i], key), reverse};
    qsort(v, n, sizeof *v, by_sort_key);
    for (size_t i = 0; i < n; i++)
        it[i] = v[i].it;
    free(v);
}

/* ---- wrong answers ----------------------------------------------------------------------- */

struct wrong {
    size_t q;  /* item index */
    char *key; /* as the grader read it, else the answer normalised */
    const char *feedback;
    bool mistake;
};

static int by_wrong(const void *a, const void *b)
{
    const struct wrong *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return strcmp(x->feedback ? x->feedback : "", y->feedback ? y->feedback : "");
}

/* The answer as a key: trimmed, blanks collapsed, lower case (ASCII). */
static char *answer_key(const char *parsed, const char *answer)
{
    const char *s = parsed && *parsed ? parsed : answer;
    struct core_buf b;
    core_buf_init(&b);
    bool space = false;
    for (const char *p = s; *p; p++) {
        if (isspace((unsigned char)*p)) {
            space = b.len > 0;
            continue;
        }
        if (space)
            core_buf_putc(&b, ' ');
        space = false;
        core_buf_putc(&b, (char)tolower((unsigned char)*p));
        if (b.len > 200)
            break;
    }
    return core_buf_steal(&b);
}

/* Fills each item's most common wrong answers from the sorted list. */
static void fill_wrong(struct lesson_item *items, struct wrong *w, size_t nw)
{
    size_t i = 0;
    while (i < nw) {
        size_t j = i;
        while (j < nw && w[j].q == w[i].q && strcmp(w[j].key, w[i].key) == 0)
            j++;
        /* One answer, rows [i, j): its count, its commonest feedback. */
        struct lesson_item *it = &items[w[i].q];
        int count = (int)(j - i);
        size_t best = i, run_best = 0;
        bool explained = false;
        for (size_t k = i; k < j;) {
            size_t m = k;
            while (m < j && strcmp(w[m].feedback ? w[m].feedback : "",
                                   w[k].feedback ? w[k].feedback : "") == 0)
                m++;
            if (m - k > run_best) {
                run_best = m - k;
                best = k;
            }
            k = m;
        }
        for (size_t k = i; k < j; k++)
            explained = explained || w[k].mistake;
        /* Keep the LESSON_ITEM_WRONG_MAX commonest, ties to the first seen. */
        size_t at = it->n_wrong;
        while (at > 0 && it->wrong[at - 1].count < count)
            at--;
        if (at < LESSON_ITEM_WRONG_MAX) {
            if (it->n_wrong == LESSON_ITEM_WRONG_MAX) {
                free(it->wrong[LESSON_ITEM_WRONG_MAX - 1].answer);
                free(it->wrong[LESSON_ITEM_WRONG_MAX - 1].feedback);
                it->n_wrong--;
            }
            memmove(&it->wrong[at + 1], &it->wrong[at], (it->n_wrong - at) * sizeof *it->wrong);
            it->wrong[at] = (struct lesson_item_wrong){
                core_xstrdup(w[i].key), count,
                core_xstrdup(w[best].feedback ? w[best].feedback : ""), explained};
            it->n_wrong++;
        }
        i = j;
    }
}

/* ---- loading ---------------------------------------------------------------------------- */

int lesson_items_load(struct db *store, struct db *cs, const char *pack_id,
                      struct lesson_item **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct lesson_class_progress *p = NULL;
    struct db_class_attempt *att = NULL;
    struct db_question *qs = NULL;
    size_t np = 0, na = 0, nq = 0;
    struct lesson_item *items = NULL;
    size_t ni = 0;
    int rc = lesson_class_progress_load(store, cs, pack_id, NULL, &p, &np, err);
    if (rc == CORE_OK)
        rc = db_class_attempt_list(cs, pack_id, NULL, 0, &att, &na, err);
    if (rc == CORE_OK)
        rc = db_question_list(store, pack_id, NULL, &qs, &nq, err);
    if (rc != CORE_OK)
        goto out;
    const struct db_progress_row *rows0 = np ? p[0].rows : NULL;
    ni = np ? p[0].n : 0;
    items = core_xcalloc(ni ? ni : 1, sizeof *items);
    double *totals = core_xcalloc(np ? np : 1, sizeof *totals);
    for (size_t s = 0; s < np; s++)
        for (size_t k = 0; k < p[s].n; k++)
            totals[s] += p[s].rows[k].best;
    double *iv = core_xcalloc(np ? np : 1, sizeof *iv);
    double *tv = core_xcalloc(np ? np : 1, sizeof *tv);
    for (size_t k = 0; k < ni; k++) {
        struct lesson_item *it = &items[k];
        const struct db_progress_row *r0 = &rows0[k];
        it->pack_id = core_xstrdup(r0->pack_id);
        it->question_id = core_xstrdup(r0->question_id);
        it->kind = core_xstrdup(r0->kind ? r0->kind : "");
        it->ordinal = (int)k;
        it->points = r0->points;
        for (size_t q = 0; q < nq; q++)
            if (strcmp(qs[q].pack_id, r0->pack_id) == 0 && strcmp(qs[q].id, r0->question_id) == 0 &&
                qs[q].title)
                it->title = core_xstrdup(qs[q].title);
        size_t seen = 0, answered = 0, gave = 0, tries = 0;
        for (size_t s = 0; s < np; s++) {
            const struct db_progress_row *r = &p[s].rows[k];
            it->attempts += r->attempts;
            if (!r->answered && !r->gave_up)
                continue;
            iv[seen] = r->points > 0 ? r->best / r->points : 0;
            tv[seen] = totals[s];
            seen++;
            gave += r->gave_up;
            if (r->answered) {
                answered++;
                tries += (size_t)r->attempts;
            }
        }
        it->students = (int)seen;
        it->facility = NAN;
        it->giveup_rate = NAN;
        it->tries = NAN;
        if (seen) {
            double sum = 0;
            for (size_t i = 0; i < seen; i++)
                sum += iv[i];
            it->facility = sum / (double)seen;
            it->giveup_rate = (double)gave / (double)seen;
        }
        if (answered)
            it->tries = (double)tries / (double)answered;
        lesson_item_stats(iv, tv, seen, r0->points, &it->discrimination, &it->upper_lower);
    }
    free(totals);
    free(iv);
    free(tv);

    /* Wrong answers: readable, re-graded, not full marks (reviewed design
     * answers aside: a person's score is not a wrong answer), design
     * answers aside (each is its own text). Grouped per item by answer. */
    struct wrong *w = core_xcalloc(na ? na : 1, sizeof *w);
    size_t nw = 0;
    size_t k = 0;
    for (size_t j = 0; j < na; j++) {
        const struct db_class_attempt *a = &att[j];
        if (!a->graded || !a->valid || a->correct || a->reviewed)
            continue;
        /* Attempts come by student, then pack and question: find the item. */
        if (!(k < ni && strcmp(items[k].pack_id, a->pack_id) == 0 &&
              strcmp(items[k].question_id, a->question_id) == 0)) {
            for (k = 0; k < ni; k++)
                if (strcmp(items[k].pack_id, a->pack_id) == 0 &&
                    strcmp(items[k].question_id, a->question_id) == 0)
                    break;
        }
        if (k == ni || strcmp(items[k].kind, "design") == 0)
            continue;
        w[nw++] = (struct wrong){k, answer_key(a->parsed, a->answer), a->feedback, a->mistake};
    }
    qsort(w, nw, sizeof *w, by_wrong);
    fill_wrong(items, w, nw);
    for (size_t i = 0; i < nw; i++)
        free(w[i].key);
    free(w);
    *out = items;
    *n = ni;
    items = NULL;
out:
    lesson_items_free(items, ni);
    lesson_class_progress_free(p, np);
    db_class_attempts_free(att, na);
    db_questions_free(qs, nq);
    return rc;
}
