/* cli_cmd_bench.c — `warpbench bench grader`: grading throughput (each
 * answer a job of its own, as in a fresh sandbox), graded-and-recorded throughput (each attempt a
 * committed transaction), and a batch re-grade of 25,000 stored attempts.
 * `warpbench bench labstream`: how many samples per second the lab metric
 * stream carries into the store and a JSON-line sink, and how much a stream
 * of about 1000 samples/s slows a fixed CPU workload.
 * `warpbench bench packcheck`: pack check of one lesson file of 1,000, 4,000
 * and 20,000 questions (--n sets the largest), to show it is linear.
 * `warpbench bench json`: the JSON reader over a lab summary of 80,000
 * array elements (--n) and of ten times that, in MB/s.
 * Both run against a temporary store, never the user's. */
#include "cli/cli.h"
#include "tui/tui.h"
#include "labs/lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* ---- bench labstream ----------------------------------------------------- */

/* The CLI's --json sample line, written to /dev/null: formatting and stdio
 * are part of what a sample costs. */
struct ls_json_sink {
    FILE *f;
    struct core_buf line;
};

static void ls_sample(void *ud, const struct core_sample *s)
{
    struct ls_json_sink *k = ud;
    cli_json_sample(&k->line, s);
    fwrite(k->line.data, 1, k->line.len, k->f);
}

static int bench_labstream(struct cli_ctx *cx, long n_flood)
{
    struct core_err e = {0};
    char dir[] = "/tmp/warpbench-bench-XXXXXX";
    char *dbpath = NULL;
    struct db *db = NULL;
    int64_t uid = 0;
    int rc = CLI_EXIT_OK;
    struct ls_json_sink js = {0};
    core_buf_init(&js.line);
    if (!mkdtemp(dir)) {
        perror("warpbench: mkdtemp");
        return CLI_EXIT_STORE;
    }
    dbpath = core_path_join(dir, "bench.db");
    js.f = fopen("/dev/null", "w");
    if (!js.f || db_open(&db, dbpath, &e) != CORE_OK ||
        db_user_ensure(db, "bench", &uid, &e) != CORE_OK) {
        if (!js.f)
            core_err_set(&e, CORE_ERR_IO, "cannot open /dev/null");
        rc = cli_fail(&e);
        goto out;
    }
    struct lab_sink sink = {ls_sample, NULL, NULL, NULL, &js};

    struct lab_bench_stream r;
    if (lab_bench_stream(db, uid, &sink, n_flood, &r, &e) != 0) {
        rc = cli_fail(&e);
        goto out;
    }
    double flood_store_s = r.flood_store_s, flood_sink_s = r.flood_sink_s;
    double best_plain = r.work_s, best_stream = r.stream_s, best_run = r.run_s;
    double cpu_plain = r.work_cpu_s, cpu_stream = r.stream_cpu_s;
    const int reps = r.reps;
    double rate = (double)r.chunks / cpu_stream; /* per second the workload computes */
    double slowdown = (cpu_stream - cpu_plain) / cpu_plain * 100;
    double slowdown_wall = (best_stream - best_plain) / best_plain * 100;

    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "flood_samples", n_flood);
        core_json_knum(&j, "store_and_sink_per_s", (double)n_flood / flood_store_s);
        core_json_knum(&j, "sink_only_per_s", (double)n_flood / flood_sink_s);
        core_json_knum(&j, "workload_s", best_plain);
        core_json_knum(&j, "workload_streaming_s", best_stream);
        core_json_knum(&j, "workload_cpu_s", cpu_plain);
        core_json_knum(&j, "workload_streaming_cpu_s", cpu_stream);
        core_json_knum(&j, "slowdown_wall_pct", slowdown_wall);
        core_json_knum(&j, "streaming_samples_per_s", rate);
        core_json_knum(&j, "slowdown_pct", slowdown);
        core_json_knum(&j, "record_open_close_s", best_run);
        cli_json_close(&b, &j);
    } else {
        printf("lab metric stream benchmark (one core; samples committed per 256 or 250 ms, "
               "WAL, synchronous=NORMAL)\n");
        printf("  store + JSON sink  %9ld samples in %6.3f s = %10.0f samples/s\n", n_flood,
               flood_store_s, (double)n_flood / flood_store_s);
        printf("  JSON sink only     %9ld samples in %6.3f s = %10.0f samples/s\n", n_flood,
               flood_sink_s, (double)n_flood / flood_sink_s);
        printf("  workload alone          %6.3f s wall, %6.3f s CPU (best of %d)\n", best_plain,
               cpu_plain, reps);
        printf("  workload + stream       %6.3f s wall, %6.3f s CPU (best of %d), %.0f samples "
               "per CPU second\n",
               best_stream, cpu_stream, reps, rate);
        printf("  slowdown                %+6.2f %% CPU, %+6.2f %% wall  (goal < 2 %%)\n", slowdown,
               slowdown_wall);
        printf("  once per run: opening and closing the record, last batch: %.1f ms\n",
               best_run * 1000);
    }
out:
    if (js.f)
        fclose(js.f);
    core_buf_fini(&js.line);
    db_close(db);
    if (dbpath) {
        const char *suffix[] = {"", "-wal", "-shm"};
        for (size_t i = 0; i < 3; i++) {
            char *f = core_xasprintf("%s%s", dbpath, suffix[i]);
            unlink(f);
            free(f);
        }
        free(dbpath);
    }
    rmdir(dir);
    return rc;
}

/* ---- the command ----------------------------------------------------------- */

/* ---- bench tui ----------------------------------------------------------- */

/* CPU time to draw the lab screen's frame (four live charts) into the
 * in-memory canvas, at the minimum size and a large terminal. */
static int bench_tui(struct cli_ctx *cx, int frames)
{
    static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 50}};
    struct core_buf b;
    struct core_json j;
    if (cx->json) {
        cli_json_open(&b, &j);
        core_json_kint(&j, "frames", frames);
        core_json_key(&j, "sizes");
        core_json_arr_begin(&j);
    } else {
        printf("TUI lab frame: 4 charts x (600-point live series + reference), progress, log;\n"
               "drawn %d times into the canvas, process CPU time per frame\n",
               frames);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double ms = 0;
        struct core_err e = {0};
        if (tui_bench_lab_frame(frames, sizes[i][0], sizes[i][1], &ms, NULL) != 0) {
            e.code = CORE_ERR_USAGE;
            snprintf(e.msg, sizeof e.msg, "tui benchmark failed at %dx%d", sizes[i][0],
                     sizes[i][1]);
            if (cx->json)
                core_buf_fini(&b);
            return cli_fail(&e);
        }
        if (cx->json) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "w", sizes[i][0]);
            core_json_kint(&j, "h", sizes[i][1]);
            core_json_knum(&j, "cpu_ms_per_frame", ms);
            core_json_obj_end(&j);
        } else {
            printf("  %3dx%-3d  %.3f ms/frame  (%.2f%% of one core at 10 Hz)\n", sizes[i][0],
                   sizes[i][1], ms, ms * 10 / 1000 * 100);
        }
    }
    if (cx->json) {
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    }
    return CLI_EXIT_OK;
}

/* ---- bench paramserver ---------------------------------------------------- */

/* The ceiling the paramserver lab's transport is compared with: plain
 * blocking write()/read() of 4 MB chunks through a Unix socketpair to a
 * forked child (lab_bench_socketpair). (The lab's own push/pull rates come
 * from lab runs: scripts/bench-paramserver.sh.) */
static int bench_paramserver(struct cli_ctx *cx, int mb)
{
    long long bytes = (long long)mb << 20;
    double best = 0;
    struct core_err e = {0};
    if (lab_bench_socketpair(mb, &best, &e) != 0)
        return cli_fail(&e);
    double mbs = (double)bytes / best / 1e6;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "bytes", bytes);
        core_json_knum(&j, "raw_socketpair_mb_s", mbs);
        cli_json_close(&b, &j);
    } else {
        printf("raw socketpair: %d MiB in 4 MiB write()s to a forked reader, best of 3: %.3f s = "
               "%.0f MB/s\n",
               mb, best, mbs);
    }
    return CLI_EXIT_OK;
}

/* ---- bench packcheck ---------------------------------------------------- */

/* A pack of n numeric questions in one lesson file, each with an example,
 * and every fifth with params drawn from 5 values: pack check's whole work
 * (load, per-question check, self-tests, the sweep) grows with n. */
static void big_pack(size_t n, struct core_buf *lesson)
{
    core_buf_reset(lesson);
    core_buf_puts(lesson,
                  "lesson { id = \"big\", title = \"Big\", rubric = { \"theory.parallel\" } }\n");
    for (size_t i = 1; i <= n; i++) {
        if (i % 5 == 0)
            core_buf_printf(
                lesson,
                "question {\n  id = \"q%zu\",\n  kind = \"numeric\",\n"
                "  prompt = \"What is {k} + %zu?\",\n"
                "  params = function(rng) return { k = rng:pick({ 1, 2, 3, 4, 5 }) } end,\n"
                "  answer = function(p) return p.k + %zu end,\n"
                "  examples = { { answer = function(p) return tostring(p.k + %zu) end, "
                "score = 1 } },\n}\n",
                i, i, i, i);
        else
            core_buf_printf(lesson,
                            "question {\n  id = \"q%zu\",\n  kind = \"numeric\",\n"
                            "  prompt = \"What is %zu + 1?\",\n  answer = %zu,\n"
                            "  examples = { { \"%zu\", 1 } },\n}\n",
                            i, i, i + 1, i + 1);
    }
}

static int bench_packcheck(struct cli_ctx *cx, long n_max)
{
    static const char pack_lua[] = "pack { id = \"bench.big\", title = \"Big\", version = \"1\", "
                                   "lessons = { \"big.lua\" } }\n";
    long sizes[] = {1000, 4000, n_max};
    size_t n_sizes = n_max > 4000 ? 3 : n_max > 1000 ? 2 : 1;
    if (n_max <= 1000)
        sizes[0] = n_max;
    else if (n_max <= 4000)
        sizes[1] = n_max;
    struct core_buf lesson;
    core_buf_init(&lesson);
    struct core_buf jb;
    struct core_json j;
    if (cx->json) {
        cli_json_open(&jb, &j);
        core_json_key(&j, "runs");
        core_json_arr_begin(&j);
    } else {
        printf("pack check of one lesson file of n numeric questions (one in five with params "
               "from 5 values; default sweep)\n");
    }
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < n_sizes; i++) {
        big_pack((size_t)sizes[i], &lesson);
        struct lesson_src src = {0};
        struct grader_file files[2] = {{"pack.lua", pack_lua, sizeof pack_lua - 1},
                                       {"big.lua", lesson.data, lesson.len}};
        src.files = files;
        src.n = 2;
        struct lesson_check c;
        struct core_err e = {0};
        double t0 = core_time_mono();
        int crc = lesson_pack_check_with(&src, GRADER_SWEEP_VARIANTS, &c, NULL, &e);
        double secs = core_time_mono() - t0;
        if (crc != CORE_OK) {
            fprintf(stderr, "warpbench: the benchmark pack failed its check: %s\n", cli_tx(e.msg));
            rc = CLI_EXIT_PACK;
        }
        if (cx->json) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "questions", sizes[i]);
            core_json_kint(&j, "checks", (long long)c.n_checks);
            core_json_knum(&j, "seconds", secs);
            core_json_obj_end(&j);
        } else {
            printf("  %6ld questions  %7zu checks  %7.3f s  = %6.1f us per question%s\n", sizes[i],
                   c.n_checks, secs, 1e6 * secs / (double)sizes[i],
                   sizes[i] == 20000 ? "  (goal < 5 s)" : "");
        }
        lesson_check_fini(&c);
        if (rc)
            break;
    }
    if (cx->json) {
        core_json_arr_end(&j);
        cli_json_close(&jb, &j);
    }
    core_buf_fini(&lesson);
    return rc;
}

/* Grading alone: a job per answer, n answers to q. */
static int time_grading(struct grader_pack *p, const struct grader_question *q, int n, double *secs,
                        struct core_err *e)
{
    char ans[64];
    double t0 = core_time_mono();
    for (int i = 0; i < n; i++) {
        struct grader_ctx ctx = {.user = "bench", .variant = 1 + i % 50, .lab = NULL};
        struct grader_result r;
        answer_text(ans, sizeof ans, i);
        int rc = grader_question_grade(p, q->id, &ctx, ans, &r, e);
        if (rc != CORE_OK)
            return rc;
        grader_result_fini(&r);
    }
    *secs = core_time_mono() - t0;
    return CORE_OK;
}

/* Design answers: a 120-word answer to the built-in course's CPU-versus-GPU
 * question, graded with the parse cache emptied before each, so every
 * grading parses its sentences (the worst case of a class import, where no
 * two students write the same sentence); the dictionary's one-time load is
 * left out. Then the cache: the same answer graded again parses nothing. */
#define DESIGN_QID "assessment.cpu-gpu"
static const char design_answer[] =
    "A CPU spends its transistors on a few fast cores with big caches, branch prediction and "
    "out-of-order execution, so that one thread finishes quickly: it is built for low latency. "
    "A GPU is built for throughput instead. It has thousands of simple cores that run threads "
    "in groups of 32, called warps, in lockstep (SIMT). When a warp waits for memory, the GPU "
    "switches to another ready warp, which hides the latency, so high occupancy matters. Its "
    "HBM gives it far more memory bandwidth than a CPU has. Deep learning is mostly matrix "
    "multiplication, which GPUs run on tensor cores, and the same operation is applied to "
    "millions of independent elements, which suits thousands of cores.";

struct design_figures {
    int n;
    double secs, worst_s;
    uint64_t parses_first, parses_again, hits_again;
};

static int time_design(struct grader_pack *p, int n, struct design_figures *f, struct core_err *e)
{
    f->n = n;
    /* the grammar's dictionary loads once per process (about 0.2 s): not timed */
    for (int i = -1; i < n; i++) {
        struct grader_ctx ctx = {.user = "bench", .variant = 1, .lab = NULL};
        struct grader_result r;
        grader_parse_cache_clear();
        double t0 = core_time_mono();
        int rc = grader_question_grade(p, DESIGN_QID, &ctx, design_answer, &r, e);
        double dt = core_time_mono() - t0;
        if (rc != CORE_OK)
            return rc;
        grader_result_fini(&r);
        if (i < 0)
            continue;
        f->secs += dt;
        if (dt > f->worst_s)
            f->worst_s = dt;
    }
    /* the cache: parsed once, then answered from the cache */
    struct grader_parse_stats a, b, c;
    grader_parse_cache_clear();
    grader_parse_stats_get(&a);
    for (int k = 0; k < 2; k++) {
        struct grader_ctx ctx = {.user = k ? "bench2" : "bench1", .variant = 1, .lab = NULL};
        struct grader_result r;
        int rc = grader_question_grade(p, DESIGN_QID, &ctx, design_answer, &r, e);
        if (rc != CORE_OK)
            return rc;
        grader_result_fini(&r);
        grader_parse_stats_get(k ? &c : &b);
    }
    f->parses_first = b.parses - a.parses;
    f->parses_again = c.parses - b.parses;
    f->hits_again = c.hits - b.hits;
    return CORE_OK;
}

/* Graded and recorded through the session, each attempt committed. One
 * student answering one question 2,000 times would be refused after its
 * tries: this answers 20 questions of a small pack with unlimited tries,
 * each as the built-in one (the same grading work), n / 20 times each. */
static int time_recording(struct db *db, struct lesson_session *s, int n, double *secs,
                          struct core_err *e)
{
    static const char bench_pack[] =
        "pack { id = 'bench.record', title = 'Bench', version = '1', lessons = { 'b.lua' } }\n";
    struct core_buf bl;
    core_buf_init(&bl);
    core_buf_puts(&bl, "lesson { id = 'b', title = 'Bench' }\n");
    for (int k = 1; k <= 20; k++)
        core_buf_printf(&bl,
                        "question { id = 'speedup%d', kind = 'numeric', unit = 'x',\n"
                        "  prompt = 'A job is {f} serial. Its speedup on {p} processors?',\n"
                        "  policy = { tries = 0, penalty = 0 },\n"
                        "  params = function(rng) return { f = rng:pick({ 0.1, 0.2, 0.25 }),\n"
                        "                                  p = rng:pick({ 2, 4, 8 }) } end,\n"
                        "  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end }\n",
                        k);
    struct grader_file bench_files[] = {{"pack.lua", bench_pack, sizeof bench_pack - 1},
                                        {"b.lua", bl.data, bl.len}};
    struct lesson_src bench_src = {.files = bench_files, .n = 2};
    int rc = lesson_pack_import(db, &bench_src, false, NULL, NULL, e);
    core_buf_fini(&bl);
    if (rc != CORE_OK)
        return rc;
    char ans[64];
    double t0 = core_time_mono();
    for (int i = 0; i < n && rc == CORE_OK; i++) {
        struct lesson_answer_result r;
        char qid[48];
        snprintf(qid, sizeof qid, "bench.record:speedup%d", 1 + i % 20);
        answer_text(ans, sizeof ans, i);
        rc = lesson_answer(s, qid, 1 + i % 50, ans, &r, e);
        if (rc == CORE_OK)
            lesson_answer_result_fini(&r);
    }
    *secs = core_time_mono() - t0;
    return rc;
}

/* What re-grading stored attempts costs. */
struct regrade_figures {
    double insert_s, regrade_s;
    size_t n_done, n_changed;
};

#define N_REGRADE 25000

/* Re-grades N_REGRADE stored attempts at q (written as one batch). */
static int time_regrading(struct db *db, struct lesson_session *s, const char *pack_id,
                          const struct grader_question *q, struct regrade_figures *f,
                          struct core_err *e)
{
    struct db_pack dp = {0};
    int rc = db_pack_get(db, pack_id, &dp, e);
    int64_t rev = dp.rev_id;
    db_pack_fini(&dp);
    if (rc != CORE_OK)
        return rc;
    struct db_attempt_in *batch = core_xcalloc(N_REGRADE, sizeof *batch);
    static char answers[N_REGRADE][24];
    for (int i = 0; i < N_REGRADE; i++) {
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
    double t0 = core_time_mono();
    rc = db_attempt_insert_batch(db, batch, N_REGRADE, e);
    f->insert_s = core_time_mono() - t0;
    free(batch);
    if (rc != CORE_OK)
        return rc;
    t0 = core_time_mono();
    struct lesson_regrade_report rep;
    rc = lesson_regrade_run(s, pack_id, NULL, &rep, e);
    f->regrade_s = core_time_mono() - t0;
    if (rc != CORE_OK)
        return rc;
    f->n_done = rep.n_checked;
    f->n_changed = rep.n_changed;
    lesson_regrade_report_fini(&rep);
    return CORE_OK;
}

/* Removes the store at path and its side files, and the folder dir. */
static void remove_store(const char *dir, const char *path)
{
    static const char *const sides[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        char *f = core_xasprintf("%s%s", path, sides[i]);
        unlink(f);
        free(f);
    }
    rmdir(dir);
}

/* `bench grader`: grading alone, graded and recorded, and re-grading. */
static int bench_grader(struct cli_ctx *cx, int n)
{
    const int n_rec = 2000;
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
    double graded_s = 0, rec_s = 0;
    struct regrade_figures f = {0};
    struct design_figures df = {0};
    const int n_design = 100;
    int rc = CLI_EXIT_OK;
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
    if (!mkdtemp(dir)) {
        perror("warpbench: mkdtemp");
        rc = CLI_EXIT_STORE;
        goto out;
    }
    dbpath = core_path_join(dir, "bench.db");
    if (time_grading(p, q, n, &graded_s, &e) != CORE_OK || db_open(&db, dbpath, &e) != CORE_OK ||
        lesson_builtin_ensure(db, NULL, &e) != CORE_OK ||
        lesson_session_new(&s, db, "bench", &e) != CORE_OK ||
        time_recording(db, s, n_rec, &rec_s, &e) != CORE_OK ||
        time_regrading(db, s, pack_id, q, &f, &e) != CORE_OK ||
        time_design(p, n_design, &df, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", q->id);
        core_json_knum(&j, "graded_per_s", n / graded_s);
        core_json_knum(&j, "recorded_per_s", n_rec / rec_s);
        core_json_kint(&j, "regraded", (long long)f.n_done);
        core_json_kint(&j, "changed", (long long)f.n_changed);
        core_json_knum(&j, "regrade_s", f.regrade_s);
        core_json_kstr(&j, "design_question", DESIGN_QID);
        core_json_knum(&j, "design_graded_per_s", df.n / df.secs);
        core_json_knum(&j, "design_worst_s", df.worst_s);
        core_json_kint(&j, "design_parses", (long long)df.parses_first);
        core_json_kint(&j, "design_parses_again", (long long)df.parses_again);
        core_json_kint(&j, "design_cache_hits_again", (long long)df.hits_again);
        cli_json_close(&b, &j);
    } else {
        printf("grader benchmark (question %s:%s, one core, a job per answer)\n", pack_id, q->id);
        printf(
            "  graded only            %8d answers in %6.3f s  = %9.0f graded/s  (goal >= 20000)\n",
            n, graded_s, n / graded_s);
        printf("  graded + recorded      %8d answers in %6.3f s  = %9.0f /s  (each attempt one "
               "durable commit, policy checked)\n",
               n_rec, rec_s, n_rec / rec_s);
        printf("  batch insert           %8d attempts in %6.3f s\n", N_REGRADE, f.insert_s);
        printf("  re-grade + write       %8zu attempts in %6.3f s  = %9.0f /s  (goal < 3 s; "
               "%zu changed and written)\n",
               f.n_done, f.regrade_s, f.n_done / f.regrade_s, f.n_changed);
        printf("  design answers         %8d answers in %6.3f s  = %9.1f graded/s  (goal >= 20; "
               "%s, 120 words, parsing included)\n",
               df.n, df.secs, df.n / df.secs, DESIGN_QID);
        printf("  slowest design answer  %8.3f s  (goal <= 0.5 s)\n", df.worst_s);
        printf("  parse cache            %8llu parses the first time, %llu the second (%llu "
               "answered by the cache)\n",
               (unsigned long long)df.parses_first, (unsigned long long)df.parses_again,
               (unsigned long long)df.hits_again);
    }
out:
    lesson_session_free(s);
    db_close(db);
    if (dbpath)
        remove_store(dir, dbpath);
    free(dbpath);
    grader_pack_free(p);
    lesson_src_fini(&src);
    return rc;
}

/* Parses text `reps` times with core_json_parse_flat; the best time of
 * three rounds in *secs. *members gets the member count. */
static int time_json(const char *text, int reps, double *secs, size_t *members, struct core_err *e)
{
    *secs = INFINITY;
    for (int round = 0; round < 3; round++) {
        double t0 = core_time_mono();
        for (int i = 0; i < reps; i++) {
            struct core_kv *kv;
            size_t n;
            int rc = core_json_parse_flat(text, &kv, &n, e);
            if (rc != CORE_OK)
                return rc;
            *members = n;
            core_kv_free(kv, n);
        }
        double t = core_time_mono() - t0;
        if (t < *secs)
            *secs = t;
    }
    return CORE_OK;
}

/* `bench json`: the JSON reader over a lab summary of n array elements:
 * small integers (80,000 by default, about 230 KB: the shape of the
 * summary that took the old quadratic reader 15 s), the same count of
 * decimals (slower: jansson's strtod), and ten times as many integers, to
 * show the rate does not fall with the size. */
static int bench_json(struct cli_ctx *cx, long n)
{
    enum { RUNS = 3 };
    const long count[RUNS] = {n, n, 10 * n};
    const bool decimals[RUNS] = {false, true, false};
    double mbs[RUNS] = {0}, secs[RUNS] = {0};
    size_t bytes[RUNS] = {0}, members[RUNS] = {0};
    for (int k = 0; k < RUNS; k++) {
        struct core_buf b;
        core_buf_init(&b);
        core_buf_puts(&b, "{\"lab\":\"amdahl\",\"speedup\":[");
        for (long i = 0; i < count[k]; i++) {
            if (decimals[k])
                core_buf_printf(&b, "%s%.3f", i ? "," : "", 1.0 + (double)(i % 997) / 1000.0);
            else
                core_buf_printf(&b, "%s%ld", i ? "," : "", i % 100);
        }
        core_buf_puts(&b, "]}");
        bytes[k] = b.len;
        /* about 20 MB parsed per round: long enough to time */
        int reps = (int)(20e6 / (double)b.len) + 1;
        struct core_err e = {0};
        int rc = time_json(b.data, reps, &secs[k], &members[k], &e);
        core_buf_fini(&b);
        if (rc != CORE_OK)
            return cli_fail(&e);
        secs[k] /= reps;
        mbs[k] = (double)bytes[k] / secs[k] / 1e6;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_key(&j, "runs");
        core_json_arr_begin(&j);
        for (int k = 0; k < RUNS; k++) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "elements", count[k]);
            core_json_kstr(&j, "numbers", decimals[k] ? "decimals" : "integers");
            core_json_kint(&j, "bytes", (long long)bytes[k]);
            core_json_kint(&j, "members", (long long)members[k]);
            core_json_knum(&j, "seconds", secs[k]);
            core_json_knum(&j, "mb_per_s", mbs[k]);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        printf("JSON reader (core_json_parse_flat: jansson, then flattened to dotted keys)\n");
        for (int k = 0; k < RUNS; k++)
            printf("  summary of %7ld %-8s %8zu bytes: %8.3f ms = %6.1f MB/s%s\n", count[k],
                   decimals[k] ? "decimals" : "integers", bytes[k], secs[k] * 1e3, mbs[k],
                   k == 0 ? "  (goal >= 50 MB/s)" : "");
    }
    return CLI_EXIT_OK;
}

int cli_cmd_bench(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("bench");
    const char *nv = NULL;
    bool missing = false;
    bool n_given = false;
    int n = 20000;
    if (cli_take_flag(a, "--n", true, &nv, &missing) || missing) {
        if (missing || !cli_parse_int(nv, 10000000, &n))
            return cli_usage(cmd, "--n needs a number of answers");
        n_given = true;
    }
    int rc = cli_check_args(cmd, a, 1, 1);
    if (rc != 0)
        return rc;
    if (strcmp(a->argv[0], "labstream") == 0)
        return bench_labstream(cx, n_given ? n : 200000);
    if (strcmp(a->argv[0], "tui") == 0)
        return bench_tui(cx, n_given ? n : 2000);
    if (strcmp(a->argv[0], "paramserver") == 0)
        return bench_paramserver(cx, n_given ? n : 1024);
    if (strcmp(a->argv[0], "class") == 0)
        return cli_bench_class(cx, n_given ? n : 300);
    if (strcmp(a->argv[0], "packcheck") == 0)
        return bench_packcheck(cx, n_given ? n : 20000);
    if (strcmp(a->argv[0], "grader") == 0)
        return bench_grader(cx, n);
    if (strcmp(a->argv[0], "json") == 0)
        return bench_json(cx, n_given ? n : 80000);
    if (strcmp(a->argv[0], "code") == 0)
        return cli_bench_code(cx, n_given ? n : 16384);
    return cli_usage(cmd,
                     "unknown benchmark \"%s\" (have: grader, labstream, tui, paramserver, "
                     "packcheck, class, json, code)",
                     a->argv[0]);
}
