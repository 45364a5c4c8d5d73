/*
 * fuzz_files.c — fuzz target for the files students and instructors hand
 * each other: the input is a whole SQLite file, read as a submission
 * (db_submission_read, then lab_run_plausible on every run, as class
 * import does) and as a feedback file (db_feedback_read, as feedback
 * import does). The corpus (corpus/files/) is real `warpbench submit` and
 * `class feedback` output and the crafted files of issue 25 made from it
 * (tests/fuzz/make_files_corpus.sh): NOT NULLs dropped with NULLs written,
 * tables replaced by recursive views, a 300 MB view answer, triggers,
 * NULs inside texts, values and rows over the limits.
 *
 * Checks, besides "no crash, no hang, no leak": a refusal has a message
 * naming the file; an accepted file keeps every promise of the readers —
 * no NULL where the format forbids it, every text within its cap and
 * without a NUL (strlen equals what was stored is not knowable here, but
 * a text longer than its cap is), scores finite, every attempt's pack
 * listed; and the same file with a -wal beside it is refused.
 */
#include "labs/lab.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void need(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_files: %s\n", what);
        abort();
    }
}

static void text_ok(const char *s, size_t max, bool null_ok, const char *what)
{
    need(s || null_ok, what);
    need(!s || strlen(s) <= max, what);
}

static void check_submission(const struct db_submission *s)
{
    text_ok(s->uid, DB_FILE_MAX_LINE, false, "uid");
    text_ok(s->user, DB_FILE_MAX_ID, false, "user");
    need(core_text_clean(s->user, 0), "user has control characters");
    need(s->n_attempts <= DB_FILE_MAX_ATTEMPTS, "too many attempts");
    for (size_t i = 0; i < s->n_packs; i++) {
        text_ok(s->packs[i].id, DB_FILE_MAX_ID, false, "pack id");
        text_ok(s->packs[i].digest, DB_FILE_MAX_LINE, false, "pack digest");
        text_ok(s->packs[i].version, DB_FILE_MAX_LINE, false, "pack version");
    }
    for (size_t i = 0; i < s->n_attempts; i++) {
        const struct db_sub_attempt *a = &s->attempts[i];
        text_ok(a->pack_id, DB_FILE_MAX_ID, false, "attempt pack");
        text_ok(a->question_id, DB_FILE_MAX_ID, false, "attempt question");
        text_ok(a->answer, DB_FILE_MAX_ANSWER, false, "answer");
        text_ok(a->feedback, DB_FILE_MAX_TEXT, false, "feedback");
        text_ok(a->pack_digest, DB_FILE_MAX_LINE, false, "attempt digest");
        text_ok(a->params_json, DB_FILE_MAX_TEXT, true, "params");
        need(isfinite(a->score) && isfinite(a->max) && a->variant >= 1, "attempt numbers");
        bool listed = false;
        for (size_t k = 0; k < s->n_packs && !listed; k++)
            listed = strcmp(s->packs[k].id, a->pack_id) == 0;
        need(listed, "an attempt's pack is not listed");
    }
    for (size_t i = 0; i < s->n_giveups; i++) {
        text_ok(s->giveups[i].pack_id, DB_FILE_MAX_ID, false, "give-up pack");
        text_ok(s->giveups[i].question_id, DB_FILE_MAX_ID, false, "give-up question");
        text_ok(s->giveups[i].created_at, DB_FILE_MAX_LINE, false, "give-up time");
    }
    size_t samples = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const struct db_sub_run *r = &s->runs[i];
        text_ok(r->lab, DB_FILE_MAX_ID, false, "run lab");
        text_ok(r->status, DB_FILE_MAX_ID, false, "run status");
        text_ok(r->summary_json, DB_FILE_MAX_JSON, true, "run summary");
        need(r->n_samples <= DB_FILE_MAX_SAMPLES_PER_RUN, "samples per run");
        samples += r->n_samples;
        for (size_t k = 0; k < r->n_samples; k++) {
            text_ok(r->samples[k].series, DB_FILE_MAX_ID, false, "sample series");
            need(isfinite(r->samples[k].t), "sample time");
        }
        struct core_strlist problems;
        core_strlist_init(&problems);
        lab_run_plausible(r, &problems); /* what class import runs on it */
        core_strlist_fini(&problems);
    }
    need(samples <= DB_FILE_MAX_SAMPLES, "samples per file");
}

static void check_feedback(const struct db_feedback *f)
{
    text_ok(f->user, DB_FILE_MAX_LINE, false, "feedback user");
    text_ok(f->class_uid, DB_FILE_MAX_LINE, false, "class uid");
    for (size_t i = 0; i < f->n_reviews; i++) {
        const struct db_fb_review *r = &f->reviews[i];
        text_ok(r->answer_sha, 64, false, "answer digest");
        text_ok(r->pack_id, DB_FILE_MAX_ID, false, "review pack");
        text_ok(r->question_id, DB_FILE_MAX_ID, false, "review question");
        text_ok(r->comment, DB_FILE_MAX_TEXT, false, "review comment");
        text_ok(r->uid, DB_FILE_MAX_LINE, false, "review uid");
        need(isfinite(r->score) && r->max > 0 && r->score >= 0 && r->score <= r->max + 1e-9,
             "review score");
        for (size_t k = 0; k < r->n_scores; k++)
            text_ok(r->scores[k].concept, DB_FILE_MAX_LINE, false, "concept");
    }
}

/* Reads path both ways; returns whether either accepted it. */
static bool read_both(const char *path)
{
    struct core_err err;
    bool any = false;
    struct db_submission s;
    core_err_clear(&err);
    if (db_submission_read(path, &s, &err) == CORE_OK) {
        check_submission(&s);
        any = true;
    } else {
        need(err.msg[0] != '\0', "a refusal without a message");
        need(s.n_attempts == 0 && !s.attempts, "a refusal left rows");
    }
    db_submission_fini(&s);
    struct db_feedback f;
    core_err_clear(&err);
    if (db_feedback_read(path, &f, &err) == CORE_OK) {
        check_feedback(&f);
        any = true;
    } else {
        need(err.msg[0] != '\0', "a refusal without a message");
    }
    db_feedback_fini(&f);
    return any;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *tmp = getenv("WB_TEST_TMP");
    char *path = core_xasprintf("%s/wbfuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    need(fd >= 0, "mkstemp");
    need(write(fd, data, size) == (ssize_t)size, "writing the input");
    close(fd);
    bool accepted = read_both(path);
    if (accepted) { /* the file with something beside it is not the file that was written */
        char *wal = core_xasprintf("%s-wal", path);
        FILE *w = fopen(wal, "w");
        need(w != NULL, "creating the -wal");
        fclose(w);
        need(!read_both(path), "a file with a -wal beside it was accepted");
        unlink(wal);
        free(wal);
    }
    unlink(path);
    free(path);
    return 0;
}
