/* cli_cmd_bench.c — `warpbench bench grader`: grading throughput with a
 * fresh sandbox per answer, graded-and-recorded throughput (each attempt a
 * committed transaction), and a batch re-grade of 25,000 stored attempts.
 * Runs against a temporary store, never the user's. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first numeric question with per-student numbers in the pack. */
static const struct grader_question *pick_numeric(const struct grader_pack_info *info,
                                                  const char **lesson)
{
    const struct grader_question *fallback = NULL;
    for (size_t i = 0; i < info->n_lessons; i++)
        for (size_t k = 0; k < info->lessons[i].n_questions; k++) {
            const struct grader_question *q = &info->lessons[i].questions[k];
            if (q->kind != GRADER_NUMERIC || q->lab)
                continue;
            *lesson = info->lessons[i].id;
            if (q->has_params)
                return q;
            if (!fallback)
                fallback = q;
        }
    return fallback;
}

static void answer_text(char *buf, size_t n, int i)
{
    /* Varied numbers, expressions and units, as students type them. */
    switch (i % 4) {
    case 0:
        snprintf(buf, n, "%.3f", 1.0 + (i % 97) * 0.05);
        break;
    case 1:
        snprintf(buf, n, "1/(0.%d+0.8/4)", 1 + i % 9);
        break;
    case 2:
        snprintf(buf, n, "%.2fx", 2.0 + (i % 13) * 0.1);
        break;
    default:
        snprintf(buf, n, "%de-1", 20 + i % 30);
        break;
    }
}

int cli_cmd_bench(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("bench");
    const char *nv = NULL;
    bool missing = false;
    int n = 20000, n_regrade = 25000, n_rec = 2000;
    if (cli_take_flag(a, "--n", true, &nv, &missing) || missing)
        if (missing || !cli_parse_int(nv, 10000000, &n))
            return cli_usage(cmd, "--n needs a number of answers");
    int rc = cli_check_args(cmd, a, 1, 1);
    if (rc != 0)
        return rc;
    if (strcmp(a->argv[0], "grader") != 0)
        return cli_usage(cmd, "unknown benchmark \"%s\" (have: grader)", a->argv[0]);

    struct core_err e = {0};
    struct lesson_src src;
    lesson_src_builtin(&src);
    struct grader_limits lim;
    grader_limits_default(&lim);
    struct grader_pack *p = NULL;
    char dir[] = "/tmp/warpbench-bench-XXXXXX";
    char *dbpath = NULL;
    struct db *db = NULL;
    struct lesson_session *s = NULL;
    struct db_attempt_in *batch = NULL;
    double t0, graded_s, rec_s, regrade_s, insert_s;
    size_t n_done = 0;
    char ans[64];

    if (grader_pack_open(&p, src.files, src.n, &lim, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    const char *lesson = NULL;
    const struct grader_question *q = pick_numeric(grader_pack_info(p), &lesson);
    if (!q) {
        fprintf(stderr, "warpbench: the built-in pack has no numeric question to time\n");
        rc = CLI_EXIT_PACK;
        goto out;
    }
    const char *pack_id = grader_pack_info(p)->id;

    /* 1. Grading alone: a fresh sandbox per answer. */
    t0 = core_time_mono();
    for (int i = 0; i < n; i++) {
        struct grader_ctx ctx = {.user = "bench", .variant = 1 + i % 50, .lab = NULL};
        struct grader_result r;
        answer_text(ans, sizeof ans, i);
        if (grader_question_grade(p, q->id, &ctx, ans, &r, &e) != CORE_OK) {
            rc = cli_fail(&e);
            goto out;
        }
        grader_result_fini(&r);
    }
    graded_s = core_time_mono() - t0;

    /* 2. Graded and recorded through the session, each attempt committed. */
    if (!mkdtemp(dir)) {
        perror("warpbench: mkdtemp");
        rc = CLI_EXIT_STORE;
        goto out;
    }
    dbpath = core_path_join(dir, "bench.db");
    if (db_open(&db, dbpath, &e) != CORE_OK || lesson_builtin_ensure(db, NULL, &e) != CORE_OK ||
        lesson_session_new(&s, db, "bench", &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    char *qid = core_xasprintf("%s:%s", pack_id, q->id);
    t0 = core_time_mono();
    for (int i = 0; i < n_rec; i++) {
        struct lesson_answer_result r;
        answer_text(ans, sizeof ans, i);
        if (lesson_answer(s, qid, 1 + i % 50, ans, &r, &e) != CORE_OK) {
            free(qid);
            rc = cli_fail(&e);
            goto out;
        }
        lesson_answer_result_fini(&r);
    }
    rec_s = core_time_mono() - t0;
    free(qid);

    /* 3. Re-grade 25,000 stored attempts (written as one batch). */
    struct db_pack dp = {0};
    if (db_pack_get(db, pack_id, &dp, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    int64_t rev = dp.rev_id;
    db_pack_fini(&dp);
    batch = core_xcalloc((size_t)n_regrade, sizeof *batch);
    static char answers[25000][24];
    for (int i = 0; i < n_regrade; i++) {
        answer_text(answers[i], sizeof answers[i], i);
        batch[i] = (struct db_attempt_in){.user_id = lesson_session_user_id(s),
                                          .pack_id = pack_id,
                                          .question_id = q->id,
                                          .variant = 1 + i % 50,
                                          .answer = answers[i],
                                          .valid = true,
                                          .max = 1,
                                          .feedback = "",
                                          .rev_id = rev};
    }
    t0 = core_time_mono();
    if (db_attempt_insert_batch(db, batch, (size_t)n_regrade - (size_t)n_rec, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    insert_s = core_time_mono() - t0;
    t0 = core_time_mono();
    if (lesson_regrade(s, pack_id, &n_done, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    regrade_s = core_time_mono() - t0;

    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", q->id);
        core_json_knum(&j, "graded_per_s", n / graded_s);
        core_json_knum(&j, "recorded_per_s", n_rec / rec_s);
        core_json_kint(&j, "regraded", (long long)n_done);
        core_json_knum(&j, "regrade_s", regrade_s);
        cli_json_close(&b, &j);
    } else {
        printf("grader benchmark (question %s:%s, one core, fresh sandbox per answer)\n", pack_id,
               q->id);
        printf(
            "  graded only            %8d answers in %6.3f s  = %9.0f graded/s  (goal >= 20000)\n",
            n, graded_s, n / graded_s);
        printf("  graded + recorded      %8d answers in %6.3f s  = %9.0f /s  (each attempt one "
               "durable commit)\n",
               n_rec, rec_s, n_rec / rec_s);
        printf("  batch insert           %8d attempts in %6.3f s\n", n_regrade - n_rec, insert_s);
        printf("  re-grade + write batch %8zu attempts in %6.3f s  = %9.0f /s  (goal < 3 s)\n",
               n_done, regrade_s, n_done / regrade_s);
    }
    rc = CLI_EXIT_OK;
out:
    free(batch);
    lesson_session_free(s);
    db_close(db);
    if (dbpath) {
        char *side;
        unlink(dbpath);
        side = core_xasprintf("%s-wal", dbpath);
        unlink(side);
        free(side);
        side = core_xasprintf("%s-shm", dbpath);
        unlink(side);
        free(side);
        rmdir(dir);
        free(dbpath);
    }
    grader_pack_free(p);
    lesson_src_fini(&src);
    return rc;
}
