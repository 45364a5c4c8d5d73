/* cli_cmd_bench_class.c — `warpbench bench class [--n STUDENTS]`: a class of
 * STUDENTS (default 300) students who each answer the whole built-in
 * course (right and wrong answers, second tries, give-ups, design
 * self-scores, a sat exam), write their submissions, and an instructor who
 * imports them all and writes the gradebook. Prints the time of each step
 * and the import's re-grading rate. Everything lives in a temporary
 * folder, removed at the end; never the user's store.
 *
 * The students' attempts are graded by the same grader and stored in one
 * transaction per student (db_attempt_insert_batch), so setting up the
 * class is not what is measured; submit, import and the gradebook go
 * through the same calls as the commands. */
#include "cli/cli.h"
#include "labs/lab.h"

#include <dirent.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64: a fixed, seeded stream, so every run is the same class. */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* CPU seconds of this process (the machine may be shared: wall time
 * includes waiting for a core). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = core_path_join(dir, de->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

/* An answer to q: right with probability `right` when the grader states
 * an accepted interval (numeric) or a letter is guessed (choice), else a
 * plausible wrong one. */
static char *pick_answer(struct grader_pack *gp, const struct grader_question *q,
                         const struct grader_ctx *ctx, uint64_t *rng, double right)
{
    bool want_right = (double)(mix(rng) % 1000) / 1000.0 < right;
    switch (q->kind) {
    case GRADER_NUMERIC: {
        struct grader_result r;
        if (want_right && grader_question_grade(gp, q->id, ctx, "0", &r, NULL) == CORE_OK) {
            double lo, hi;
            char *out = NULL;
            if (r.accepted && sscanf(r.accepted, "%lf to %lf", &lo, &hi) == 2)
                out = core_xasprintf("%.9g", (lo + hi) / 2);
            grader_result_fini(&r);
            if (out)
                return out;
        }
        return core_xasprintf("%d", (int)(mix(rng) % 50) + 1);
    }
    case GRADER_CHOICE:
        return core_xasprintf("%c", (char)('a' + mix(rng) % (q->n_choices ? q->n_choices : 1)));
    case GRADER_MULTI:
        return core_xasprintf("a %c", (char)('a' + mix(rng) % (q->n_choices ? q->n_choices : 1)));
    case GRADER_ORDERING: {
        struct core_buf b;
        core_buf_init(&b);
        size_t n = q->n_choices ? q->n_choices : 1;
        char order[26];
        for (size_t i = 0; i < n && i < 26; i++)
            order[i] = (char)('a' + i);
        for (size_t i = n - 1; i > 0 && i < 26; i--) {
            size_t j = mix(rng) % (i + 1);
            char t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < n && i < 26; i++)
            core_buf_printf(&b, "%s%c", i ? " " : "", order[i]);
        return core_buf_steal(&b);
    }
    case GRADER_TEXT:
        return core_xstrdup(want_right ? "memory bandwidth" : "more threads");
    case GRADER_DESIGN:
        return core_xstrdup(want_right
                                ? "Shard the parameters across servers so each holds a part, and "
                                  "overlap communication with computation; measure the speedup "
                                  "against the serial fraction before scaling out."
                                : "Buy a bigger machine and hope it goes faster.");
    }
    return core_xstrdup("1");
}

struct pending {
    struct db_attempt_in *rows;
    struct grader_result *res;
    char **answers;
    size_t n, cap;
};

static void pending_reset(struct pending *p)
{
    for (size_t i = 0; i < p->n; i++) {
        grader_result_fini(&p->res[i]);
        free(p->answers[i]);
    }
    p->n = 0;
}

static void pending_fini(struct pending *p)
{
    pending_reset(p);
    free(p->rows);
    free(p->res);
    free(p->answers);
}

/* Grades answer `ans` (taken) and queues the attempt. */
static int queue(struct pending *p, struct grader_pack *gp, const struct grader_question *q,
                 const struct grader_ctx *ctx, int64_t uid, const char *pack_id, int64_t rev,
                 char *ans, struct core_err *e)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 512;
        p->rows = core_xrealloc(p->rows, p->cap * sizeof *p->rows);
        p->res = core_xrealloc(p->res, p->cap * sizeof *p->res);
        p->answers = core_xrealloc(p->answers, p->cap * sizeof *p->answers);
    }
    struct grader_result *r = &p->res[p->n];
    if (grader_question_grade(gp, q->id, ctx, ans, r, e) != CORE_OK) {
        free(ans);
        return e->code;
    }
    p->answers[p->n] = ans;
    p->rows[p->n] = (struct db_attempt_in){.user_id = uid,
                                           .pack_id = pack_id,
                                           .question_id = q->id,
                                           .variant = ctx->variant,
                                           .answer = ans,
                                           .parsed = r->parsed,
                                           .value = r->value,
                                           .has_value = r->has_value,
                                           .valid = r->valid,
                                           .score = r->score,
                                           .max = r->max,
                                           .correct = r->correct,
                                           .feedback = r->feedback,
                                           .rev_id = rev,
                                           .params_json = r->params_json,
                                           .grader_rev = grader_revision()};
    p->n++;
    return CORE_OK;
}

int cli_bench_class(struct cli_ctx *cx, int students)
{
    struct core_err e = {0};
    char dir[] = "/tmp/warpbench-bench-class-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("warpbench: mkdtemp");
        return CLI_EXIT_STORE;
    }
    char *spath = core_path_join(dir, "students.db"), *ipath = core_path_join(dir, "teacher.db"),
         *cpath = core_path_join(dir, "class.db"), *csv = core_path_join(dir, "grades.csv");
    struct db *sdb = NULL, *idb = NULL, *cs = NULL;
    struct lesson_session *ss = NULL, *is = NULL;
    struct pending pq = {0};
    char **files = core_xcalloc((size_t)students, sizeof *files);
    struct db_pack pk = {0};
    int rc = CLI_EXIT_OK;
    size_t n_att = 0, n_files = 0, n_regraded = 0, n_disagree = 0;
    double t_setup = 0, t_submit = 0, t_import = 0, t_grades = 0, t_items = 0;
    double c_submit = 0, c_import = 0, c_grades = 0, c0, t_import2 = 0, c_import2 = 0;
    size_t n_hits = 0, n_misses = 0;
    struct db *cs2 = NULL;
    char *cpath2 = core_path_join(dir, "class-nocache.db");

    double t0 = core_time_mono();
    if (db_open(&sdb, spath, &e) != CORE_OK || lesson_builtin_ensure(sdb, NULL, &e) != CORE_OK ||
        db_open(&idb, ipath, &e) != CORE_OK || lesson_builtin_ensure(idb, NULL, &e) != CORE_OK ||
        lesson_session_new(&ss, sdb, "bench-setup", &e) != CORE_OK ||
        lesson_session_new(&is, idb, "instructor", &e) != CORE_OK ||
        db_class_open(&cs, cpath, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    struct db_pack *packs = NULL;
    size_t np = 0;
    if (db_pack_list(sdb, &packs, &np, &e) != CORE_OK || np == 0) {
        rc = np == 0 ? CLI_EXIT_STORE : cli_fail(&e);
        goto out;
    }
    pk = packs[0];
    for (size_t i = 1; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    struct grader_pack *gp;
    if (lesson_session_pack(ss, pk.rev_id, &gp, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    const struct grader_pack_info *info = grader_pack_info(gp);

    /* The class answers. */
    uint64_t rng = 0x636c617373ULL;
    for (int s = 0; s < students; s++) {
        char user[32];
        snprintf(user, sizeof user, "student%03d", s + 1);
        int64_t uid;
        if (db_user_ensure(sdb, user, &uid, &e) != CORE_OK) {
            rc = cli_fail(&e);
            goto out;
        }
        double skill = 0.3 + 0.6 * (double)(mix(&rng) % 1000) / 1000.0;
        for (size_t l = 0; l < info->n_lessons; l++) {
            const struct grader_lesson *ls = &info->lessons[l];
            for (size_t k = 0; k < ls->n_questions; k++) {
                const struct grader_question *q = &ls->questions[k];
                struct grader_ctx ctx = {.user = user, .variant = 1};
                int tries = ls->exam ? 1 : 1 + (int)(mix(&rng) % 2);
                for (int t = 0; t < tries; t++) {
                    char *ans = pick_answer(gp, q, &ctx, &rng, skill);
                    if (queue(&pq, gp, q, &ctx, uid, pk.id, pk.rev_id, ans, &e) != CORE_OK) {
                        rc = cli_fail(&e);
                        goto out;
                    }
                    if (pq.res[pq.n - 1].correct)
                        break;
                }
            }
        }
        n_att += pq.n;
        if (db_attempt_insert_batch(sdb, pq.rows, pq.n, &e) != CORE_OK) {
            rc = cli_fail(&e);
            goto out;
        }
        pending_reset(&pq);
        /* A give-up and a submitted exam per student. */
        const struct grader_lesson *l0 = &info->lessons[mix(&rng) % info->n_lessons];
        if (l0->n_questions && db_giveup_insert(sdb, uid, pk.id, l0->questions[0].id, 1, pk.rev_id,
                                                NULL, &e) != CORE_OK) {
            rc = cli_fail(&e);
            goto out;
        }
        for (size_t l = 0; l < info->n_lessons; l++) {
            if (!info->lessons[l].exam)
                continue;
            struct db_exam x;
            if (db_exam_start(sdb, uid, pk.id, info->lessons[l].id, pk.rev_id, 0, &x, &e) !=
                    CORE_OK ||
                db_exam_submit(sdb, uid, pk.id, info->lessons[l].id, NULL, &e) != CORE_OK) {
                db_exam_fini(&x);
                rc = cli_fail(&e);
                goto out;
            }
            db_exam_fini(&x);
        }
    }
    t_setup = core_time_mono() - t0;

    /* Every student submits. */
    t0 = core_time_mono();
    c0 = cpu_now();
    for (int s = 0; s < students; s++) {
        char user[32], name[64];
        snprintf(user, sizeof user, "student%03d", s + 1);
        snprintf(name, sizeof name, "%s.wbsub", user);
        int64_t uid;
        struct lesson_submit_report rep;
        files[s] = core_path_join(dir, name);
        if (db_user_ensure(sdb, user, &uid, &e) != CORE_OK ||
            lesson_submit_write(sdb, uid, user, pk.id, NULL, files[s], false, &rep, &e) !=
                CORE_OK) {
            rc = cli_fail(&e);
            goto out;
        }
        n_files++;
        lesson_submit_report_fini(&rep);
    }
    t_submit = core_time_mono() - t0;
    c_submit = cpu_now() - c0;

    /* The instructor imports them all: as `class import` does, each
     * distinct answer to a question that cannot depend on the student
     * graded once (lesson_grade_cache); then again into a second class
     * store with every answer graded, to show what the cache saves. */
    struct lesson_class_opts opts = {.run_check = lab_run_plausible,
                                     .cache = lesson_grade_cache_new()};
    t0 = core_time_mono();
    c0 = cpu_now();
    for (size_t f = 0; f < n_files && rc == CLI_EXIT_OK; f++) {
        struct lesson_class_report rep;
        if (lesson_class_import(is, cs, files[f], &opts, &rep, &e) != CORE_OK)
            rc = cli_fail(&e);
        n_regraded += rep.n_agree + rep.n_disagree;
        n_disagree += rep.n_disagree;
        lesson_class_report_fini(&rep);
    }
    t_import = core_time_mono() - t0;
    c_import = cpu_now() - c0;
    lesson_grade_cache_stats(opts.cache, &n_hits, &n_misses);
    lesson_grade_cache_free(opts.cache);
    if (rc != CLI_EXIT_OK)
        goto out;
    opts.cache = NULL;
    if (db_class_open(&cs2, cpath2, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    t0 = core_time_mono();
    c0 = cpu_now();
    for (size_t f = 0; f < n_files && rc == CLI_EXIT_OK; f++) {
        struct lesson_class_report rep;
        if (lesson_class_import(is, cs2, files[f], &opts, &rep, &e) != CORE_OK)
            rc = cli_fail(&e);
        lesson_class_report_fini(&rep);
    }
    t_import2 = core_time_mono() - t0;
    c_import2 = cpu_now() - c0;
    if (rc != CLI_EXIT_OK)
        goto out;

    /* The gradebook, to CSV; and the item analysis. */
    t0 = core_time_mono();
    c0 = cpu_now();
    struct lesson_gradebook gb;
    if (lesson_gradebook_load(idb, cs, NULL, &gb, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    struct core_buf b;
    core_buf_init(&b);
    lesson_gradebook_csv(&gb, &b);
    size_t gb_rows = gb.n_rows;
    lesson_gradebook_fini(&gb);
    int wrc = core_file_create(csv, b.data ? b.data : "", b.len, false, NULL, &e);
    core_buf_fini(&b);
    t_grades = core_time_mono() - t0;
    c_grades = cpu_now() - c0;
    if (wrc != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    t0 = core_time_mono();
    struct lesson_item *items = NULL;
    size_t ni = 0;
    if (lesson_items_load(idb, cs, NULL, &items, &ni, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    lesson_items_free(items, ni);
    t_items = core_time_mono() - t0;

    double rate = t_import > 0 ? (double)n_regraded / t_import : 0;
    double cpu_rate = c_import > 0 ? (double)n_regraded / c_import : 0;
    double rate2 = t_import2 > 0 ? (double)n_regraded / t_import2 : 0;
    double cpu_rate2 = c_import2 > 0 ? (double)n_regraded / c_import2 : 0;
    if (cx->json) {
        struct core_buf jb;
        struct core_json j;
        cli_json_open(&jb, &j);
        core_json_kint(&j, "students", students);
        core_json_kint(&j, "questions", (long long)(n_att ? n_att : 0) / (students ? students : 1));
        core_json_kint(&j, "attempts", (long long)n_att);
        core_json_knum(&j, "setup_s", t_setup);
        core_json_knum(&j, "submit_s", t_submit);
        core_json_knum(&j, "import_s", t_import);
        core_json_kint(&j, "regraded", (long long)n_regraded);
        core_json_kint(&j, "disagree", (long long)n_disagree);
        core_json_knum(&j, "regraded_per_s", rate);
        core_json_knum(&j, "submit_cpu_s", c_submit);
        core_json_knum(&j, "import_cpu_s", c_import);
        core_json_knum(&j, "regraded_per_cpu_s", cpu_rate);
        core_json_knum(&j, "gradebook_cpu_s", c_grades);
        core_json_kint(&j, "cache_hits", (long long)n_hits);
        core_json_knum(&j, "import_uncached_s", t_import2);
        core_json_knum(&j, "import_uncached_cpu_s", c_import2);
        core_json_knum(&j, "regraded_uncached_per_s", rate2);
        core_json_knum(&j, "regraded_uncached_per_cpu_s", cpu_rate2);
        core_json_knum(&j, "gradebook_s", t_grades);
        core_json_kint(&j, "gradebook_rows", (long long)gb_rows);
        core_json_knum(&j, "items_s", t_items);
        core_json_knum(&j, "import_and_gradebook_s", t_import + t_grades);
        cli_json_close(&jb, &j);
    } else {
        printf("class benchmark: %d students x the built-in course (%zu attempts in all)\n",
               students, n_att);
        printf("  set up the class (grade, store every answer) %7.2f s\n", t_setup);
        printf("  %d students submit                %7.2f s (%.2f s CPU; %.1f ms each)\n", students,
               t_submit, c_submit, 1000 * t_submit / (students ? students : 1));
        printf("  import all %zu submissions        %7.2f s (%.2f s CPU): %zu attempts "
               "re-graded = %.0f per second, %.0f per CPU second (goal >= 20,000); %zu disagree\n",
               n_files, t_import, c_import, n_regraded, rate, cpu_rate, n_disagree);
        printf("    %zu of them graded, %zu taken from the grade of the same answer to the same "
               "question (no per-student numbers) earlier in the class\n",
               n_regraded - n_hits, n_hits);
        printf("  the same, every answer graded     %7.2f s (%.2f s CPU): %.0f per second, %.0f "
               "per CPU second\n",
               t_import2, c_import2, rate2, cpu_rate2);
        printf("  gradebook of %zu students to CSV   %7.2f s (%.2f s CPU)\n", gb_rows, t_grades,
               c_grades);
        printf("  item analysis                     %7.2f s\n", t_items);
        printf("  import + gradebook                %7.2f s (goal < 30 s)\n", t_import + t_grades);
    }
out:
    pending_fini(&pq);
    for (int s = 0; s < students; s++)
        free(files[s]);
    free(files);
    db_pack_fini(&pk);
    lesson_session_free(ss);
    lesson_session_free(is);
    db_close(sdb);
    db_close(idb);
    db_close(cs);
    db_close(cs2);
    /* WARPBENCH_BENCH_KEEP=1 keeps the class for a closer look. */
    if (getenv("WARPBENCH_BENCH_KEEP"))
        fprintf(stderr, "warpbench: kept the class in %s\n", dir);
    else
        rm_tree(dir);
    free(spath);
    free(ipath);
    free(cpath);
    free(cpath2);
    free(csv);
    return rc;
}
