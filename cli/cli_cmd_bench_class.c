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
 * through the same calls as the commands.
 *
 * Then a sealed class of the same size: an instructor's pack of its own
 * (a term's graded work, below: eight homework lessons of numeric questions
 * with per-student numbers, choices, an ordering and a text answer, and an
 * exam) is released, every student imports the release under a student id and
 * answers through the same call as `warpbench answer` (recorded ungraded),
 * submits, and the instructor imports the class with every sealed answer
 * graded with the source (no class-wide cache): answers per CPU second. */
#include "cli/cli.h"
#include "labs/lab.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
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
        if (unlink(p) != 0 && errno == EISDIR)
            rm_tree(p); /* the sealed class's pack and release folders */
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
    case GRADER_CODE: /* answered by `code run`, not by text */
        return core_xstrdup("void f(void) {}");
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

/* The class being benchmarked and what was measured. */
struct bench {
    int students;
    char dir[40];
    struct db *sdb, *idb; /* the students' store, the instructor's */
    struct lesson_session *ss, *is;
    struct db_pack pk; /* the built-in course */
    struct grader_pack *gp;
    struct pending pq;
    char **files; /* the submissions */
    size_t n_att, n_files, n_regraded, n_disagree, n_hits, n_misses, gb_rows;
    double t_setup, t_submit, t_import, t_import2, t_grades, t_items; /* wall seconds */
    double c_submit, c_import, c_import2, c_grades;                   /* CPU seconds */
};

/* Opens both stores with the course, the sessions and the course's grader. */
static int bench_open(struct bench *b, struct core_err *e)
{
    char *spath = core_path_join(b->dir, "students.db"),
         *ipath = core_path_join(b->dir, "teacher.db");
    int rc = db_open(&b->sdb, spath, e);
    if (rc == CORE_OK)
        rc = lesson_builtin_ensure(b->sdb, NULL, e);
    if (rc == CORE_OK)
        rc = db_open(&b->idb, ipath, e);
    if (rc == CORE_OK)
        rc = lesson_builtin_ensure(b->idb, NULL, e);
    if (rc == CORE_OK)
        rc = lesson_session_new(&b->ss, b->sdb, "bench-setup", e);
    if (rc == CORE_OK)
        rc = lesson_session_new(&b->is, b->idb, "instructor", e);
    free(spath);
    free(ipath);
    struct db_pack *packs = NULL;
    size_t np = 0;
    if (rc == CORE_OK)
        rc = db_pack_list(b->sdb, &packs, &np, e);
    if (rc == CORE_OK && np == 0)
        rc = core_err_set(e, CORE_ERR_STORE, "the built-in course is missing");
    if (rc == CORE_OK) {
        b->pk = packs[0];
        memset(&packs[0], 0, sizeof packs[0]); /* handed over */
        rc = lesson_session_pack(b->ss, b->pk.rev_id, &b->gp, e);
    }
    for (size_t i = 0; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    return rc;
}

/* Student s answers the whole course (one or two tries a question, fewer
 * right the less skilled), gives up once and sits the exams. */
static int student_answers(struct bench *b, int s, uint64_t *rng, struct core_err *e)
{
    const struct grader_pack_info *info = grader_pack_info(b->gp);
    char user[32];
    snprintf(user, sizeof user, "student%03d", s + 1);
    int64_t uid;
    int rc = db_user_ensure(b->sdb, user, &uid, e);
    if (rc != CORE_OK)
        return rc;
    double skill = 0.3 + 0.6 * (double)(mix(rng) % 1000) / 1000.0;
    for (size_t l = 0; l < info->n_lessons; l++) {
        const struct grader_lesson *ls = &info->lessons[l];
        for (size_t k = 0; k < ls->n_questions; k++) {
            const struct grader_question *q = &ls->questions[k];
            struct grader_ctx ctx = {.user = user, .variant = 1};
            int tries = ls->exam ? 1 : 1 + (int)(mix(rng) % 2);
            for (int t = 0; t < tries; t++) {
                char *ans = pick_answer(b->gp, q, &ctx, rng, skill);
                rc = queue(&b->pq, b->gp, q, &ctx, uid, b->pk.id, b->pk.rev_id, ans, e);
                if (rc != CORE_OK)
                    return rc;
                if (b->pq.res[b->pq.n - 1].correct)
                    break;
            }
        }
    }
    b->n_att += b->pq.n;
    rc = db_attempt_insert_batch(b->sdb, b->pq.rows, b->pq.n, e);
    pending_reset(&b->pq);
    if (rc != CORE_OK)
        return rc;
    /* A give-up and a submitted exam per student. */
    const struct grader_lesson *l0 = &info->lessons[mix(rng) % info->n_lessons];
    if (l0->n_questions)
        rc = db_giveup_insert(b->sdb, uid, b->pk.id, l0->questions[0].id, 1, b->pk.rev_id, NULL, e);
    for (size_t l = 0; l < info->n_lessons && rc == CORE_OK; l++) {
        if (!info->lessons[l].exam)
            continue;
        struct db_exam x;
        rc = db_exam_start(b->sdb, uid, b->pk.id, info->lessons[l].id, b->pk.rev_id, 0, &x, e);
        if (rc == CORE_OK)
            rc = db_exam_submit(b->sdb, uid, b->pk.id, info->lessons[l].id, NULL, e);
        db_exam_fini(&x);
    }
    return rc;
}

/* Every student writes a submission file. */
static int bench_submit(struct bench *b, struct core_err *e)
{
    double t0 = core_time_mono(), c0 = cpu_now();
    int rc = CORE_OK;
    for (int s = 0; s < b->students && rc == CORE_OK; s++) {
        char user[32], name[64];
        snprintf(user, sizeof user, "student%03d", s + 1);
        snprintf(name, sizeof name, "%s.wbsub", user);
        int64_t uid;
        struct lesson_submit_report rep = {0};
        b->files[s] = core_path_join(b->dir, name);
        rc = db_user_ensure(b->sdb, user, &uid, e);
        if (rc == CORE_OK)
            rc =
                lesson_submit_write(b->sdb, uid, user, b->pk.id, NULL, b->files[s], false, &rep, e);
        if (rc == CORE_OK)
            b->n_files++;
        lesson_submit_report_fini(&rep);
    }
    b->t_submit = core_time_mono() - t0;
    b->c_submit = cpu_now() - c0;
    return rc;
}

/* The instructor imports every file into the class store at `name`, as
 * `class import` does, with the grade cache or (cache NULL) every answer
 * graded. Wall and CPU seconds into *t and *c. */
static int bench_import(struct bench *b, const char *name, struct lesson_grade_cache *cache,
                        double *t, double *c, struct core_err *e)
{
    char *path = core_path_join(b->dir, name);
    struct db *cs = NULL;
    int rc = db_class_open(&cs, path, e);
    free(path);
    struct lesson_class_opts opts = {.run_check = lab_run_plausible, .cache = cache};
    double t0 = core_time_mono(), c0 = cpu_now();
    for (size_t f = 0; f < b->n_files && rc == CORE_OK; f++) {
        struct lesson_class_report rep;
        rc = lesson_class_import(b->is, cs, b->files[f], &opts, &rep, e);
        if (rc == CORE_OK && cache) {
            b->n_regraded += rep.n_agree + rep.n_disagree;
            b->n_disagree += rep.n_disagree;
        }
        lesson_class_report_fini(&rep);
    }
    *t = core_time_mono() - t0;
    *c = cpu_now() - c0;
    db_close(cs);
    return rc;
}

/* The gradebook of the first class store, to CSV; then the item analysis. */
static int bench_grades(struct bench *b, struct core_err *e)
{
    char *cpath = core_path_join(b->dir, "class.db"), *csv = core_path_join(b->dir, "grades.csv");
    struct db *cs = NULL;
    int rc = db_class_open(&cs, cpath, e);
    double t0 = core_time_mono(), c0 = cpu_now();
    struct lesson_gradebook gb;
    if (rc == CORE_OK)
        rc = lesson_gradebook_load(b->idb, cs, NULL, false, &gb, e);
    if (rc == CORE_OK) {
        struct core_buf buf;
        core_buf_init(&buf);
        lesson_gradebook_csv(&gb, LESSON_CSV_CANVAS, &buf);
        b->gb_rows = gb.n_rows;
        lesson_gradebook_fini(&gb);
        rc = core_file_create(csv, buf.data ? buf.data : "", buf.len, false, NULL, e);
        core_buf_fini(&buf);
    }
    b->t_grades = core_time_mono() - t0;
    b->c_grades = cpu_now() - c0;
    t0 = core_time_mono();
    struct lesson_item *items = NULL;
    size_t ni = 0;
    if (rc == CORE_OK)
        rc = lesson_items_load(b->idb, cs, NULL, &items, &ni, e);
    lesson_items_free(items, ni);
    b->t_items = core_time_mono() - t0;
    db_close(cs);
    free(cpath);
    free(csv);
    return rc;
}

/* ---- the sealed class ------------------------------------------------------------------ */

/* The sealed course: SEALED_LESSONS graded homework lessons made from one
 * template ('@' is the lesson's number: ten questions, most with numbers
 * of the student's own) and an exam, a term's graded work. */
#define SEALED_LESSONS 8
static const char SEALED_HW[] =
    "lesson { id = \"hw@\", title = \"Homework @\", graded = true }\n"
    "local function job(rng) return { f = rng:pick({ 0.02, 0.05, 0.1, 0.2 }),\n"
    "  p = rng:pick({ 4, 8, 16, 32, 64 }) } end\n"
    "question { id = \"hw@.speedup\", kind = \"numeric\", unit = \"x\",\n"
    "  prompt = \"A job is {f} serial. Its speedup on {p} workers?\",\n"
    "  params = function(rng) return job(rng) end,\n"
    "  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) end,\n"
    "  wrong = { { value = function(p) return p.p end, feedback = \"That is ideal.\" } } }\n"
    "question { id = \"hw@.efficiency\", kind = \"numeric\",\n"
    "  prompt = \"A job is {f} serial. Its parallel efficiency on {p} workers (0 to 1)?\",\n"
    "  params = function(rng) return job(rng) end,\n"
    "  answer = function(p) return 1 / (p.f + (1 - p.f) / p.p) / p.p end }\n"
    "question { id = \"hw@.karp\", kind = \"numeric\",\n"
    "  prompt = \"A speedup of {s} on {p} workers: the Karp-Flatt serial fraction?\",\n"
    "  params = function(rng) local p = rng:pick({ 4, 8, 16 })\n"
    "    return { p = p, s = rng:pick({ 0.5, 0.6, 0.7, 0.8 }) * p } end,\n"
    "  answer = function(p) return (1 / p.s - 1 / p.p) / (1 - 1 / p.p) end }\n"
    "question { id = \"hw@.transfer\", kind = \"numeric\", unit = \"ms\",\n"
    "  prompt = \"Moving {mb} MB at {gbs} GB/s takes how long?\",\n"
    "  params = function(rng) return { mb = rng:pick({ 64, 256, 1024 }),\n"
    "    gbs = rng:pick({ 16, 25, 50, 900 }) } end,\n"
    "  answer = function(p) return p.mb / p.gbs end }\n"
    "question { id = \"hw@.bound\", kind = \"choice\", prompt = \"Amdahl's law bounds the speedup "
    "by\",\n"
    "  choices = { \"p\", \"1/f\", \"f\", \"p/f\" }, answer = 2 }\n"
    "question { id = \"hw@.weak\", kind = \"choice\", prompt = \"Weak scaling keeps fixed\",\n"
    "  choices = { \"the work per worker\", \"the total work\", \"the time\" }, answer = 1 }\n"
    "question { id = \"hw@.true\", kind = \"multi\", prompt = \"Which are true?\",\n"
    "  choices = { \"a\", \"b\", \"c\", \"d\" }, answer = { 1, 3 } }\n"
    "question { id = \"hw@.order\", kind = \"ordering\", prompt = \"Least to most speedup on "
    "16:\",\n"
    "  items = { \"half serial\", \"a quarter serial\", \"a tenth serial\", \"no serial part\" } "
    "}\n"
    "question { id = \"hw@.limit\", kind = \"text\", prompt = \"What limits a streaming "
    "kernel?\",\n"
    "  answer = { \"memory bandwidth\", \"bandwidth\" } }\n"
    "question { id = \"hw@.workers\", kind = \"numeric\",\n"
    "  prompt = \"A job is {f} serial. How many workers give a speedup of {s}?\",\n"
    "  params = function(rng) local f = rng:pick({ 0.01, 0.02, 0.05 })\n"
    "    return { f = f, s = rng:pick({ 5, 8 }) } end,\n"
    "  answer = function(p) return (1 - p.f) / (1 / p.s - p.f) end }\n";
static const char SEALED_EXAM[] =
    "lesson { id = \"exam\", title = \"Exam\", exam = true }\n"
    "question { id = \"exam.limit\", kind = \"numeric\", unit = \"x\",\n"
    "  prompt = \"A job is {f} serial. The largest speedup?\",\n"
    "  params = function(rng) return { f = rng:pick({ 0.02, 0.04, 0.05, 0.08 }) } end,\n"
    "  answer = function(p) return 1 / p.f end }\n"
    "question { id = \"exam.gustafson\", kind = \"choice\", prompt = \"Gustafson's law grows\",\n"
    "  choices = { \"the problem with the workers\", \"the serial part\" }, answer = 1 }\n"
    "question { id = \"exam.scaled\", kind = \"numeric\",\n"
    "  prompt = \"A scaled job is {f} serial on {p} workers. Its scaled speedup?\",\n"
    "  params = function(rng) return { f = rng:pick({ 0.05, 0.1 }), p = rng:pick({ 8, 32 }) }"
    " end,\n"
    "  answer = function(p) return p.p - p.f * (p.p - 1) end }\n";

/* The template with every '@' replaced by n. */
static char *sealed_lesson(const char *tmpl, int n)
{
    struct core_buf b;
    core_buf_init(&b);
    for (const char *c = tmpl; *c; c++)
        if (*c == '@')
            core_buf_printf(&b, "%d", n);
        else
            core_buf_putc(&b, *c);
    return core_buf_steal(&b);
}

/* What the sealed class measured. */
struct sealed_bench {
    size_t questions, recorded, graded, flagged;
    double t_setup, t_import, c_import;
};

/* Writes the sealed course into dir/src, releases it from the instructor's store
 * into dir/release, and returns the release's source pack loaded (for the
 * bench's own right answers) in *gp. */
static int sealed_release(struct bench *b, struct grader_pack **gp, char *salt, size_t salt_n,
                          struct core_err *e)
{
    char *src = core_path_join(b->dir, "src"), *rel = core_path_join(b->dir, "release");
    int rc = mkdir(src, 0700) == 0 ? CORE_OK
                                   : core_err_set(e, CORE_ERR_IO, "%s: %s", src, strerror(errno));
    struct core_buf list;
    core_buf_init(&list);
    for (int i = 0; rc == CORE_OK && i <= SEALED_LESSONS; i++) {
        char name[32];
        snprintf(name, sizeof name, i < SEALED_LESSONS ? "hw%d.lua" : "exam.lua", i + 1);
        core_buf_printf(&list, "\"%s\", ", name);
        char *text =
            i < SEALED_LESSONS ? sealed_lesson(SEALED_HW, i + 1) : core_xstrdup(SEALED_EXAM);
        char *path = core_path_join(src, name);
        rc = core_file_create(path, text, strlen(text), false, NULL, e);
        free(path);
        free(text);
    }
    char *pack = core_xasprintf("pack { id = \"bench.sealed\", title = \"Bench: a sealed term\", "
                                "version = \"1.0.0\",\n  lessons = { %s} }\n",
                                list.data ? list.data : "");
    core_buf_fini(&list);
    char *pack_path = core_path_join(src, "pack.lua");
    if (rc == CORE_OK)
        rc = core_file_create(pack_path, pack, strlen(pack), false, NULL, e);
    free(pack_path);
    free(pack);
    struct lesson_src ls = {0};
    if (rc == CORE_OK)
        rc = lesson_src_read(src, &ls, e);
    struct lesson_check check = {0};
    struct lesson_release_report rep = {0};
    struct lesson_release_opts o = {.salt = "5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5e"};
    if (rc == CORE_OK) {
        rc = lesson_pack_release(b->idb, &ls, rel, &o, &check, &rep, e);
        for (size_t i = 0; rc != CORE_OK && i < check.problems.n; i++)
            fprintf(stderr, "warpbench: %s\n", check.problems.items[i]);
    }
    if (rc == CORE_OK) {
        snprintf(salt, salt_n, "%s", rep.salt);
        lesson_release_report_fini(&rep);
    }
    struct db_pack pk = {0};
    if (rc == CORE_OK)
        rc = db_pack_get(b->idb, "bench.sealed", &pk, e);
    if (rc == CORE_OK)
        rc = lesson_session_pack(b->is, pk.rev_id, gp, e);
    if (pk.id)
        db_pack_fini(&pk);
    lesson_check_fini(&check);
    lesson_src_fini(&ls);
    free(src);
    free(rel);
    return rc;
}

/* Student s (id S0001...) imports the release and answers every sealed
 * question through lesson_answer (one or two tries; the exam once), then
 * submits into b->files[s]. */
static int sealed_student(struct bench *b, struct db *sdb, struct grader_pack *src,
                          const char *salt, int s, uint64_t *rng, struct sealed_bench *sb,
                          struct core_err *e)
{
    char user[32], sid[32], name[64], seeded[200];
    snprintf(user, sizeof user, "sealed%03d", s + 1);
    snprintf(sid, sizeof sid, "S%04d", s + 1);
    snprintf(name, sizeof name, "%s.wbsub", user);
    lesson_sealed_user(salt, sid, seeded, sizeof seeded);
    struct lesson_session *ss = NULL;
    int rc = lesson_session_new(&ss, sdb, user, e);
    if (rc == CORE_OK)
        rc = db_user_set_student_id(sdb, lesson_session_user_id(ss), sid, e);
    struct lesson_exam x;
    if (rc == CORE_OK && (rc = lesson_exam_start(ss, "exam", &x, e)) == CORE_OK)
        lesson_exam_fini(&x);
    const struct grader_pack_info *info = grader_pack_info(src);
    double skill = 0.3 + 0.6 * (double)(mix(rng) % 1000) / 1000.0;
    for (size_t l = 0; l < info->n_lessons && rc == CORE_OK; l++) {
        const struct grader_lesson *ls = &info->lessons[l];
        for (size_t k = 0; k < ls->n_questions && rc == CORE_OK; k++) {
            const struct grader_question *q = &ls->questions[k];
            /* The bench knows the key (the student does not): the right
             * answer for this student's numbers, some of the time. */
            struct grader_ctx ctx = {.user = seeded, .variant = 1, .identity = true};
            int tries = ls->exam ? 1 : 1 + (int)(mix(rng) % 2);
            for (int t = 0; t < tries && rc == CORE_OK; t++) {
                char *ans = pick_answer(src, q, &ctx, rng, skill);
                char qid[200];
                snprintf(qid, sizeof qid, "bench.sealed:%s", q->id);
                struct lesson_answer_result r;
                rc = lesson_answer(ss, qid, 1, ans, &r, e);
                if (rc == CORE_OK) {
                    sb->recorded += r.r.valid;
                    lesson_answer_result_fini(&r);
                }
                free(ans);
            }
        }
    }
    if (rc == CORE_OK) {
        b->files[s] = core_path_join(b->dir, name);
        struct lesson_submit_report rep = {0};
        rc = lesson_submit_write(sdb, lesson_session_user_id(ss), user, "bench.sealed", NULL,
                                 b->files[s], false, &rep, e);
        lesson_submit_report_fini(&rep);
    }
    lesson_session_free(ss);
    return rc;
}

/* The sealed class: release, answers, submissions (set-up, timed apart),
 * then the import with every sealed answer graded (timed, CPU). */
static int bench_sealed(struct bench *b, struct sealed_bench *sb, struct core_err *e)
{
    double t0 = core_time_mono();
    char salt[80];
    struct grader_pack *src = NULL;
    int rc = sealed_release(b, &src, salt, sizeof salt, e);
    char *spath = core_path_join(b->dir, "sealed-students.db");
    struct db *sdb = NULL;
    if (rc == CORE_OK)
        rc = db_open(&sdb, spath, e);
    free(spath);
    if (rc == CORE_OK) {
        char *rel = core_path_join(b->dir, "release");
        struct lesson_src ls;
        rc = lesson_src_read(rel, &ls, e);
        struct lesson_check check = {0};
        enum db_import_result res;
        if (rc == CORE_OK) {
            rc = lesson_pack_import_with(sdb, &ls, false, 0, &check, &res, e);
            lesson_src_fini(&ls);
        }
        lesson_check_fini(&check);
        free(rel);
    }
    for (size_t i = 0; rc == CORE_OK && i < b->n_files; i++) {
        free(b->files[i]);
        b->files[i] = NULL;
    }
    uint64_t rng = 0x7365616c6564ULL;
    for (int s = 0; s < b->students && rc == CORE_OK; s++)
        rc = sealed_student(b, sdb, src, salt, s, &rng, sb, e);
    sb->t_setup = core_time_mono() - t0;
    const struct grader_pack_info *info = rc == CORE_OK ? grader_pack_info(src) : NULL;
    for (size_t l = 0; info && l < info->n_lessons; l++)
        sb->questions += info->lessons[l].n_questions;
    struct db *cs = NULL;
    char *cpath = core_path_join(b->dir, "class-sealed.db");
    if (rc == CORE_OK)
        rc = db_class_open(&cs, cpath, e);
    free(cpath);
    struct lesson_class_opts opts = {.run_check = lab_run_plausible, .cache = NULL};
    double w0 = core_time_mono(), c0 = cpu_now();
    for (int s = 0; s < b->students && rc == CORE_OK; s++) {
        struct lesson_class_report rep;
        rc = lesson_class_import(b->is, cs, b->files[s], &opts, &rep, e);
        if (rc == CORE_OK) {
            sb->graded += rep.n_sealed;
            sb->flagged += rep.n_flags;
        }
        lesson_class_report_fini(&rep);
    }
    sb->t_import = core_time_mono() - w0;
    sb->c_import = cpu_now() - c0;
    db_close(cs);
    db_close(sdb);
    return rc;
}

static void bench_report(const struct cli_ctx *cx, const struct bench *b,
                         const struct sealed_bench *sb)
{
    double sealed_rate = sb->c_import > 0 ? (double)sb->graded / sb->c_import : 0;
    int students = b->students;
    double rate = b->t_import > 0 ? (double)b->n_regraded / b->t_import : 0;
    double cpu_rate = b->c_import > 0 ? (double)b->n_regraded / b->c_import : 0;
    double rate2 = b->t_import2 > 0 ? (double)b->n_regraded / b->t_import2 : 0;
    double cpu_rate2 = b->c_import2 > 0 ? (double)b->n_regraded / b->c_import2 : 0;
    if (cx->json) {
        struct core_buf jb;
        struct core_json j;
        cli_json_open(&jb, &j);
        core_json_kint(&j, "students", students);
        core_json_kint(&j, "questions", (long long)b->n_att / (students ? students : 1));
        core_json_kint(&j, "attempts", (long long)b->n_att);
        core_json_knum(&j, "setup_s", b->t_setup);
        core_json_knum(&j, "submit_s", b->t_submit);
        core_json_knum(&j, "import_s", b->t_import);
        core_json_kint(&j, "regraded", (long long)b->n_regraded);
        core_json_kint(&j, "disagree", (long long)b->n_disagree);
        core_json_knum(&j, "regraded_per_s", rate);
        core_json_knum(&j, "submit_cpu_s", b->c_submit);
        core_json_knum(&j, "import_cpu_s", b->c_import);
        core_json_knum(&j, "regraded_per_cpu_s", cpu_rate);
        core_json_knum(&j, "gradebook_cpu_s", b->c_grades);
        core_json_kint(&j, "cache_hits", (long long)b->n_hits);
        core_json_knum(&j, "import_uncached_s", b->t_import2);
        core_json_knum(&j, "import_uncached_cpu_s", b->c_import2);
        core_json_knum(&j, "regraded_uncached_per_s", rate2);
        core_json_knum(&j, "regraded_uncached_per_cpu_s", cpu_rate2);
        core_json_knum(&j, "gradebook_s", b->t_grades);
        core_json_kint(&j, "gradebook_rows", (long long)b->gb_rows);
        core_json_knum(&j, "items_s", b->t_items);
        core_json_knum(&j, "import_and_gradebook_s", b->t_import + b->t_grades);
        core_json_key(&j, "sealed");
        core_json_obj_begin(&j);
        core_json_kint(&j, "students", students);
        core_json_kint(&j, "questions", (long long)sb->questions);
        core_json_kint(&j, "answers_recorded", (long long)sb->recorded);
        core_json_kint(&j, "answers_graded", (long long)sb->graded);
        core_json_kint(&j, "flags", (long long)sb->flagged);
        core_json_knum(&j, "setup_s", sb->t_setup);
        core_json_knum(&j, "import_s", sb->t_import);
        core_json_knum(&j, "import_cpu_s", sb->c_import);
        core_json_knum(&j, "graded_per_cpu_s", sealed_rate);
        core_json_obj_end(&j);
        cli_json_close(&jb, &j);
        return;
    }
    printf("class benchmark: %d students x the built-in course (%zu attempts in all)\n", students,
           b->n_att);
    printf("  set up the class (grade, store every answer) %7.2f s\n", b->t_setup);
    printf("  %d students submit                %7.2f s (%.2f s CPU; %.1f ms each)\n", students,
           b->t_submit, b->c_submit, 1000 * b->t_submit / (students ? students : 1));
    printf("  import all %zu submissions        %7.2f s (%.2f s CPU): %zu attempts "
           "re-graded = %.0f per second, %.0f per CPU second (goal >= 20,000); %zu disagree\n",
           b->n_files, b->t_import, b->c_import, b->n_regraded, rate, cpu_rate, b->n_disagree);
    printf("    %zu of them graded, %zu taken from the grade of the same answer to the same "
           "question (no per-student numbers) earlier in the class\n",
           b->n_regraded - b->n_hits, b->n_hits);
    printf("  the same, every answer graded     %7.2f s (%.2f s CPU): %.0f per second, %.0f "
           "per CPU second\n",
           b->t_import2, b->c_import2, rate2, cpu_rate2);
    printf("  gradebook of %zu students to CSV   %7.2f s (%.2f s CPU)\n", b->gb_rows, b->t_grades,
           b->c_grades);
    printf("  item analysis                     %7.2f s\n", b->t_items);
    printf("  import + gradebook                %7.2f s (goal < 30 s)\n",
           b->t_import + b->t_grades);
    printf("sealed class: %d students x %zu sealed questions of a released pack (%zu answers "
           "recorded ungraded; set up in %.2f s)\n",
           students, sb->questions, sb->recorded, sb->t_setup);
    printf("  import, every sealed answer graded with the source (no cache) %7.2f s (%.2f s "
           "CPU): %zu answers = %.0f per CPU second (goal >= 20,000); %zu flags\n",
           sb->t_import, sb->c_import, sb->graded, sealed_rate, sb->flagged);
}

int cli_bench_class(struct cli_ctx *cx, int students)
{
    struct core_err e = {0};
    struct bench b = {.students = students};
    snprintf(b.dir, sizeof b.dir, "/tmp/warpbench-bench-class-XXXXXX");
    if (!mkdtemp(b.dir)) {
        perror("warpbench: mkdtemp");
        return CLI_EXIT_STORE;
    }
    b.files = core_xcalloc((size_t)students, sizeof *b.files);
    double t0 = core_time_mono();
    int rc = bench_open(&b, &e);
    uint64_t rng = 0x636c617373ULL;
    for (int s = 0; s < students && rc == CORE_OK; s++)
        rc = student_answers(&b, s, &rng, &e);
    b.t_setup = core_time_mono() - t0;
    if (rc == CORE_OK)
        rc = bench_submit(&b, &e);
    /* The instructor imports them all: as `class import` does, each
     * distinct answer to a question that cannot depend on the student
     * graded once (lesson_grade_cache); then again into a second class
     * store with every answer graded, to show what the cache saves. */
    if (rc == CORE_OK) {
        struct lesson_grade_cache *cache = lesson_grade_cache_new();
        rc = bench_import(&b, "class.db", cache, &b.t_import, &b.c_import, &e);
        lesson_grade_cache_stats(cache, &b.n_hits, &b.n_misses);
        lesson_grade_cache_free(cache);
    }
    if (rc == CORE_OK)
        rc = bench_import(&b, "class-nocache.db", NULL, &b.t_import2, &b.c_import2, &e);
    if (rc == CORE_OK)
        rc = bench_grades(&b, &e);
    struct sealed_bench sb = {0};
    if (rc == CORE_OK)
        rc = bench_sealed(&b, &sb, &e);
    if (rc == CORE_OK)
        bench_report(cx, &b, &sb);
    else
        rc = cli_fail(&e);
    pending_fini(&b.pq);
    for (int s = 0; s < students; s++)
        free(b.files[s]);
    free(b.files);
    db_pack_fini(&b.pk);
    lesson_session_free(b.ss);
    lesson_session_free(b.is);
    db_close(b.sdb);
    db_close(b.idb);
    /* WARPBENCH_BENCH_KEEP=1 keeps the class for a closer look. */
    if (getenv("WARPBENCH_BENCH_KEEP"))
        fprintf(stderr, "warpbench: kept the class in %s\n", b.dir);
    else
        rm_tree(b.dir);
    return rc;
}
