/*
 * lesson_submit.c — a student's submission: everything they did in a pack,
 * read from their store and written as one new file (db_submit.c). The
 * store is only read; the file is built under a temporary name beside the
 * target and then linked to its name, so the name never holds half a file
 * and never replaces one unless asked.
 */
#include "lessons/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef WB_VERSION
#define WB_VERSION "unknown"
#endif

void lesson_submit_report_fini(struct lesson_submit_report *r)
{
    if (!r)
        return;
    free(r->uid);
    free(r->student_id);
    memset(r, 0, sizeof *r);
}

static int submission_write(const char *tmp, void *sub, struct core_err *err)
{
    return db_submission_write(tmp, sub, err);
}

int lesson_submit_write(struct db *db, int64_t user_id, const char *user, const char *pack_id,
                        const char *student_id, const char *path, bool force,
                        struct lesson_submit_report *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (student_id && !db_student_id_ok(student_id))
        return core_err_set(err, CORE_ERR_USAGE,
                            "a student id is 1 to %d characters, without spaces or control "
                            "characters",
                            DB_STUDENT_ID_MAX);
    /* The store's student id is the one graded answers were drawn for: a
     * submission under another would be graded against other numbers. */
    char *stored = NULL, store_uid[33];
    int rc = db_user_student_id(db, user_id, &stored, err);
    if (rc == CORE_OK && stored && student_id && strcmp(stored, student_id) != 0)
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "your student id is %s (warpbench init shows it): submit under it, not "
                          "%s",
                          stored, student_id);
    if (rc == CORE_OK)
        rc = db_store_uid(db, store_uid, err);
    if (rc != CORE_OK) {
        free(stored);
        return rc;
    }
    if (!student_id)
        student_id = stored;
    struct db_submission sub;
    rc = db_submission_gather(db, user_id, pack_id, &sub, err);
    if (rc != CORE_OK) {
        free(stored);
        return rc;
    }
    sub.store_uid = core_xstrdup(store_uid);
    char uid[33], now[32];
    core_random_hex(uid);
    core_time_iso(core_time_wall(), now);
    sub.uid = core_xstrdup(uid);
    sub.user = core_xstrdup(user);
    sub.student_id = student_id ? core_xstrdup(student_id) : NULL;
    sub.created_at = core_xstrdup(now);
    sub.warpbench = core_xstrdup(WB_VERSION);

    rc = core_file_build(path, force, submission_write, &sub, err);
    if (rc == CORE_OK) {
        out->uid = core_xstrdup(uid);
        out->n_packs = sub.n_packs;
        out->n_attempts = sub.n_attempts;
        out->n_giveups = sub.n_giveups;
        out->n_selfscores = sub.n_selfscores;
        out->n_ratings = sub.n_ratings;
        out->n_exams = sub.n_exams;
        out->n_runs = sub.n_runs;
        for (size_t i = 0; i < sub.n_runs; i++)
            out->n_samples += sub.runs[i].n_samples;
    }
    out->student_id = student_id ? core_xstrdup(student_id) : NULL;
    db_submission_fini(&sub);
    free(stored);
    return rc;
}
