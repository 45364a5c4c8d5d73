/*
 * lesson_class_regrade.c — `class regrade`: every current submission of a
 * class store graded again with the instructor's current packs and
 * releases, and what that changes, per student and question, with why:
 * an answer that got another grade ("grader changed"), or the flags and
 * reviews that decide what counts. A dry run works on a copy of the class
 * store, so nothing the instructor has is changed.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- class regrade ---------------------------------------------------------------------- */

void lesson_class_regrade_fini(struct lesson_class_regrade *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_changes; i++) {
        free(r->changes[i].key);
        free(r->changes[i].user);
        free(r->changes[i].pack_id);
        free(r->changes[i].question_id);
        free(r->changes[i].why);
    }
    free(r->changes);
    memset(r, 0, sizeof *r);
}

/* The class's points per student and question, as the gradebook counts them. */
static int points_of(struct db *store, struct db *cs, const char *pack_id,
                     struct lesson_class_progress **p, size_t *n, struct core_err *err)
{
    const struct lesson_grading g = {.flags = true, .late = true};
    return lesson_class_progress_load(store, cs, pack_id, &g, p, n, err);
}

/* The grade of attempt src of student key in a list of class attempts. */
static const struct db_class_attempt *find_att(const struct db_class_attempt *a, size_t n,
                                               const char *pack, int64_t src, int64_t student)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].student == student && a[i].src_id == src && strcmp(a[i].pack_id, pack) == 0)
            return &a[i];
    return NULL;
}

int lesson_class_regrade(struct lesson_session *s, struct db *cs, const char *pack_id, bool dry_run,
                         const struct lesson_class_opts *opts, struct lesson_class_regrade *out,
                         struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct lesson_class_progress *before = NULL, *after = NULL;
    size_t nb = 0, na = 0, n_old = 0, n_new = 0, ns = 0;
    struct db_class_attempt *old_att = NULL, *new_att = NULL;
    struct db_class_student *st = NULL;
    struct db *target = cs;
    char *tmp = NULL;
    int rc = points_of(s->db, cs, pack_id, &before, &nb, err);
    if (rc == CORE_OK)
        rc = db_class_attempt_list(cs, pack_id, NULL, 0, &old_att, &n_old, err);
    if (rc != CORE_OK)
        goto out;
    if (dry_run) { /* a copy takes the re-grade; the class store is only read */
        const char *tmpdir = getenv("TMPDIR");
        char r[33];
        core_random_hex(r);
        tmp = core_xasprintf("%s/warpbench-regrade-%s.db", tmpdir && *tmpdir ? tmpdir : "/tmp", r);
        rc = db_copy_to(cs, tmp, err);
        if (rc == CORE_OK)
            rc = db_class_open(&target, tmp, err);
        if (rc != CORE_OK) {
            target = NULL;
            goto out;
        }
    }
    rc = db_class_students(target, &st, &ns, err);
    for (size_t i = 0; i < ns && rc == CORE_OK; i++) {
        struct db_class_stored sub;
        rc = db_class_stored_load(target, st[i].submission, &sub, err);
        if (rc != CORE_OK)
            break;
        struct lesson_class_report rep;
        rc = lesson_class_import_stored(s, target, &sub, opts, &rep, err);
        out->n_answers += rep.n_attempts;
        out->n_disagree += rep.n_disagree;
        out->n_failed += rep.n_failed;
        out->n_blocking += rep.n_blocking;
        lesson_class_report_fini(&rep);
        db_class_stored_fini(&sub);
        if (rc != CORE_OK)
            core_err_prefix(err, "student %s", st[i].key);
    }
    out->n_students = ns;
    if (rc == CORE_OK)
        rc = points_of(s->db, target, pack_id, &after, &na, err);
    if (rc == CORE_OK)
        rc = db_class_attempt_list(target, pack_id, NULL, 0, &new_att, &n_new, err);
    if (rc != CORE_OK)
        goto out;
    /* Per student and question: what changed, and why. */
    size_t cap = 0;
    for (size_t i = 0; i < na; i++) {
        const struct lesson_class_progress *pa = &after[i], *pb = NULL;
        for (size_t k = 0; k < nb && !pb; k++)
            if (strcmp(before[k].student.key, pa->student.key) == 0)
                pb = &before[k];
        double old_total = 0, new_total = 0, max = 0;
        bool changed = false, graded_only = false;
        for (size_t r = 0; r < pa->n; r++)
            graded_only |= pa->rows[r].graded;
        for (size_t r = 0; r < pa->n; r++) {
            const struct db_progress_row *ra = &pa->rows[r], *rb = NULL;
            if (graded_only && !ra->graded)
                continue; /* as the gradebook counts: its graded lessons */
            for (size_t k = 0; pb && k < pb->n && !rb; k++)
                if (strcmp(pb->rows[k].pack_id, ra->pack_id) == 0 &&
                    strcmp(pb->rows[k].question_id, ra->question_id) == 0)
                    rb = &pb->rows[k];
            double old_pts = rb ? rb->best : 0;
            new_total += ra->best;
            old_total += old_pts;
            max += ra->points;
            if (fabs(ra->best - old_pts) <= 1e-9)
                continue;
            changed = true;
            /* Why: another grade for one of its answers (the grader or the pack
             * changed), else the flags or reviews that decide what counts. */
            const char *why = "flags or reviews changed what counts";
            for (size_t k = 0; k < n_new; k++) {
                const struct db_class_attempt *x = &new_att[k];
                if (x->student != pa->student.id || strcmp(x->pack_id, ra->pack_id) != 0 ||
                    strcmp(x->question_id, ra->question_id) != 0)
                    continue;
                const struct db_class_attempt *y =
                    find_att(old_att, n_old, x->pack_id, x->src_id, pb ? pb->student.id : 0);
                if (!y || y->graded != x->graded || y->valid != x->valid ||
                    fabs(y->score - x->score) > 1e-9)
                    why = "grader changed";
            }
            if (out->n_changes == cap) {
                cap = cap ? 2 * cap : 32;
                out->changes = core_xrealloc(out->changes, cap * sizeof *out->changes);
            }
            out->changes[out->n_changes++] =
                (struct lesson_class_regrade_change){core_xstrdup(pa->student.key),
                                                     core_xstrdup(pa->student.user),
                                                     core_xstrdup(ra->pack_id),
                                                     core_xstrdup(ra->question_id),
                                                     old_pts,
                                                     ra->best,
                                                     ra->points,
                                                     core_xstrdup(why)};
        }
        if (!changed)
            continue;
        out->n_changed_students++;
        if (out->n_changes == cap) {
            cap = cap ? 2 * cap : 32;
            out->changes = core_xrealloc(out->changes, cap * sizeof *out->changes);
        }
        out->changes[out->n_changes++] =
            (struct lesson_class_regrade_change){core_xstrdup(pa->student.key),
                                                 core_xstrdup(pa->student.user),
                                                 NULL,
                                                 NULL,
                                                 old_total,
                                                 new_total,
                                                 max,
                                                 core_xstrdup("total")};
    }
    out->written = !dry_run;
out:
    lesson_class_progress_free(before, nb);
    lesson_class_progress_free(after, na);
    db_class_attempts_free(old_att, n_old);
    db_class_attempts_free(new_att, n_new);
    db_class_students_free(st, ns);
    if (target && target != cs)
        db_close(target);
    if (tmp) {
        static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
        for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
            char *f = core_xasprintf("%s%s", tmp, suffixes[i]);
            unlink(f);
            free(f);
        }
        free(tmp);
    }
    if (rc != CORE_OK)
        lesson_class_regrade_fini(out);
    return rc;
}
