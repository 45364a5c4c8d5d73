/*
 * lesson_class_checks.c — the integrity checks an instructor's import runs
 * on a submission's graded work: what the attempt log and the exam
 * sittings say must hold together, since the student's store is a file the
 * student can edit.
 *
 * Each finding is named (enum lesson_flag_kind) and handed to the caller,
 * which stores it as a flag; a blocking one withholds the credit it names
 * until the instructor clears it. The checks, for every answer to a graded
 * question of a pack the instructor hands out as releases:
 *   - made after the import's clock (future), or before the release was
 *     made (early);
 *   - answered from a lab run that failed a plausibility check;
 *   - exam lessons: a sitting must exist, its deadline must be its start
 *     plus the source pack's minutes, every answer must fall within it (not
 *     before the start, not after the submission or the deadline), and a
 *     question takes one answer;
 *   - other graded lessons: no more tries than the source's policy allows;
 *   - per pack, the student's attempts carry places 1, 2, ... n: a gap is an
 *     attempt taken out of the log.
 * Pure over its inputs: no store, no grader call.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slack on the student's clock against the import's (seconds). */
#define CLOCK_SLACK 300.0
/* Slack at an exam's edges (seconds): an answer stored as the clock ran out. */
#define EXAM_SLACK 2.0

/* The lesson of question qid of p (the pack's index finds the question;
 * the lesson is the one whose array holds it). */
static const struct grader_lesson *lesson_of(const struct grader_pack *p, const char *qid,
                                             const struct grader_question **q)
{
    const struct grader_question *found = grader_pack_question(p, qid);
    if (!found)
        return NULL;
    const struct grader_pack_info *info = grader_pack_info(p);
    for (size_t li = 0; li < info->n_lessons; li++) {
        const struct grader_lesson *l = &info->lessons[li];
        if (l->n_questions && found >= l->questions && found < l->questions + l->n_questions) {
            if (q)
                *q = found;
            return l;
        }
    }
    return NULL;
}

static const struct db_sub_exam *sitting_of(const struct db_submission *s, const char *pack,
                                            const char *lesson)
{
    for (size_t i = 0; i < s->n_exams; i++)
        if (strcmp(s->exams[i].pack_id, pack) == 0 && strcmp(s->exams[i].lesson_id, lesson) == 0)
            return &s->exams[i];
    return NULL;
}

static const struct lesson_checks_pack *pack_of(const struct lesson_checks_pack *packs, size_t n,
                                                const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(packs[i].pack_id, id) == 0)
            return &packs[i];
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* An exam lesson's sitting and every answer to it. */
static void check_exam(const struct db_submission *s, const struct lesson_checks_pack *pk,
                       const struct grader_lesson *l, lesson_finding_fn fn, void *ctx)
{
    const struct db_sub_exam *x = sitting_of(s, pk->pack_id, l->id);
    bool any = false;
    for (size_t i = 0; i < s->n_attempts && !any; i++) {
        const struct grader_lesson *al = NULL;
        if (strcmp(s->attempts[i].pack_id, pk->pack_id) == 0)
            al = lesson_of(pk->src, s->attempts[i].question_id, NULL);
        any = al == l && s->attempts[i].valid;
    }
    if (!any)
        return;
    if (!x) {
        fn(ctx, LESSON_FLAG_SITTING, pk->pack_id, l->id, NULL, 0,
           core_xasprintf("answers to the exam '%s' without a sitting of it", l->id));
        return;
    }
    double start = core_time_from_iso(x->started_at);
    double end = INFINITY;
    if (l->time_limit_s > 0) {
        end = start + l->time_limit_s;
        double dl = x->deadline ? core_time_from_iso(x->deadline) : NAN;
        if (!(fabs(dl - end) <= 1.0))
            fn(ctx, LESSON_FLAG_SITTING, pk->pack_id, l->id, NULL, 0,
               core_xasprintf("the sitting of '%s' started %s records the deadline %s, but the "
                              "exam's %d minutes end it at %.0f s after the start: the sitting "
                              "was changed",
                              l->id, x->started_at, x->deadline ? x->deadline : "none",
                              l->time_limit_s / 60, (double)l->time_limit_s));
    }
    double submitted = x->submitted_at ? core_time_from_iso(x->submitted_at) : INFINITY;
    if (submitted < end)
        end = submitted;
    /* Each answer within the sitting; one per question. */
    for (size_t i = 0; i < s->n_attempts; i++) {
        const struct db_sub_attempt *a = &s->attempts[i];
        if (strcmp(a->pack_id, pk->pack_id) != 0 || !a->valid ||
            lesson_of(pk->src, a->question_id, NULL) != l)
            continue;
        double made = core_time_from_iso(a->created_at);
        if (!isfinite(made) || made < start - EXAM_SLACK || made > end + EXAM_SLACK)
            fn(ctx, LESSON_FLAG_EXAM_TIME, a->pack_id, l->id, a->question_id, a->id,
               core_xasprintf("made %s, outside the sitting of '%s' (started %s, %s %s)",
                              a->created_at, l->id, x->started_at,
                              x->submitted_at ? "submitted" : "deadline",
                              x->submitted_at ? x->submitted_at
                              : x->deadline   ? x->deadline
                                              : "none"));
        for (size_t k = 0; k < i; k++) {
            const struct db_sub_attempt *b = &s->attempts[k];
            if (b->valid && strcmp(b->pack_id, a->pack_id) == 0 &&
                strcmp(b->question_id, a->question_id) == 0) {
                fn(ctx, LESSON_FLAG_DUPLICATE, a->pack_id, l->id, a->question_id, a->id,
                   core_xasprintf("a second answer to exam question %s (the first is attempt "
                                  "%lld): an exam takes one",
                                  a->question_id, (long long)b->id));
                break;
            }
        }
    }
}

/* An attempt and its place in the submission, for sorting. */
struct placed {
    const struct db_sub_attempt *a;
    size_t i;
};

/* By pack, question, then place in the log. */
static int by_question(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    int c = strcmp(a->a->pack_id, b->a->pack_id);
    if (!c)
        c = strcmp(a->a->question_id, b->a->question_id);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* before[i]: the valid attempts at attempt i's question that come before
 * it in s (n log n, where counting back from each would be n²). */
static int *tries_before(const struct db_submission *s)
{
    size_t n = s->n_attempts;
    int *before = core_xcalloc(n ? n : 1, sizeof *before);
    struct placed *v = core_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (struct placed){&s->attempts[i], i};
    qsort(v, n, sizeof *v, by_question);
    int run = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || by_question(&(struct placed){v[k].a, 0}, &(struct placed){v[k - 1].a, 0}))
            run = 0;
        before[v[k].i] = run;
        run += v[k].a->valid;
    }
    free(v);
    return before;
}

void lesson_class_checks(const struct db_submission *s, const struct lesson_checks_pack *packs,
                         size_t n_packs, const char *const *released_at,
                         const char *const *run_problems, double now, lesson_finding_fn fn,
                         void *ctx)
{
    int *before = tries_before(s);
    for (size_t i = 0; i < s->n_attempts; i++) {
        const struct db_sub_attempt *a = &s->attempts[i];
        const struct lesson_checks_pack *pk = pack_of(packs, n_packs, a->pack_id);
        const struct grader_question *q = NULL;
        const struct grader_lesson *l =
            pk && pk->src ? lesson_of(pk->src, a->question_id, &q) : NULL;
        if (!l || !(l->graded || l->exam))
            continue;
        double made = core_time_from_iso(a->created_at);
        if (!isfinite(made) || made > now + CLOCK_SLACK)
            fn(ctx, LESSON_FLAG_FUTURE, a->pack_id, NULL, a->question_id, a->id,
               core_xasprintf("made %s, after this import's clock: the student's clock or the "
                              "record is wrong",
                              a->created_at));
        const char *rel_made = released_at ? released_at[i] : NULL;
        double released = rel_made ? core_time_from_iso(rel_made) : NAN;
        if (isfinite(released) && isfinite(made) && made < released - CLOCK_SLACK)
            fn(ctx, LESSON_FLAG_EARLY, a->pack_id, NULL, a->question_id, a->id,
               core_xasprintf("made %s, before the release it names was made (%s)", a->created_at,
                              rel_made));
        for (size_t r = 0; a->lab_run && r < s->n_runs; r++)
            if (s->runs[r].id == a->lab_run && run_problems && run_problems[r])
                fn(ctx, LESSON_FLAG_RUN, a->pack_id, NULL, a->question_id, a->id,
                   core_xasprintf("graded against lab run %lld, which fails a plausibility "
                                  "check: %s",
                                  (long long)a->lab_run, run_problems[r]));
        /* Tries beyond the policy (an exam's one answer is checked below). */
        if (!l->exam && a->valid && q->policy.tries > 0 && before[i] >= q->policy.tries)
            fn(ctx, LESSON_FLAG_TRIES, a->pack_id, NULL, a->question_id, a->id,
               core_xasprintf("try %d of a question that allows %d", before[i] + 1,
                              q->policy.tries));
    }
    free(before);
    for (size_t p = 0; p < n_packs; p++) {
        const struct lesson_checks_pack *pk = &packs[p];
        if (!pk->src)
            continue;
        const struct grader_pack_info *info = grader_pack_info(pk->src);
        for (size_t li = 0; li < info->n_lessons; li++)
            if (info->lessons[li].exam)
                check_exam(s, pk, &info->lessons[li], fn, ctx);
        /* The log's places: 1, 2, ... n with no gap. */
        int64_t *seq = core_xcalloc(s->n_attempts + 1, sizeof *seq);
        size_t n = 0;
        bool known = true;
        for (size_t i = 0; i < s->n_attempts; i++) {
            if (strcmp(s->attempts[i].pack_id, pk->pack_id) != 0)
                continue;
            known = known && s->attempts[i].seq > 0;
            seq[n++] = s->attempts[i].seq;
        }
        qsort(seq, n, sizeof *seq, cmp_i64);
        for (size_t i = 0; known && i < n; i++)
            if (seq[i] != (int64_t)i + 1) {
                fn(ctx, LESSON_FLAG_GAP, pk->pack_id, NULL, NULL, 0,
                   core_xasprintf("the student's attempts at %s skip from place %lld to %lld: "
                                  "an attempt was taken out of the log",
                                  pk->pack_id, i ? (long long)seq[i - 1] : 0LL, (long long)seq[i]));
                break;
            }
        if (!known && n)
            fn(ctx, LESSON_FLAG_GAP, pk->pack_id, NULL, NULL, 0,
               core_xasprintf("attempts at %s without their place in the log", pk->pack_id));
        free(seq);
    }
}
