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
    if (student_id && (!*student_id || strlen(student_id) > 64))
        return core_err_set(err, CORE_ERR_USAGE, "a student id is 1 to 64 characters");
    struct db_submission sub;
    int rc = db_submission_gather(db, user_id, pack_id, &sub, err);
    if (rc != CORE_OK)
        return rc;
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
    db_submission_fini(&sub);
    return rc;
}
