/* cli_cmd_class.c — `warpbench class ...`, the instructor's side of the
 * class loop, over a class store (--class PATH, else $WARPBENCH_CLASS,
 * else class.db beside the store):
 *   import FILE... [--force]      re-grade and store students' submissions
 *   grades [PACK] [--csv FILE]    the gradebook (CSV for Moodle and Canvas)
 *   items [PACK] [--sort KEY]     item analysis
 *   review [PACK|QID] [--all]     the design answers waiting for a person
 *   review set ATTEMPT --concept NAME=SCORE... [--comment TEXT]
 *   review --tui                  the review screen
 *   feedback --out DIR [--force]  one feedback file per student
 * The instructor's own store (--db) holds the packs answers are re-graded
 * with. */
#include "cli/cli.h"
#include "labs/lab.h"
#include "tui/tui.h"

#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int class_open(struct cli_ctx *cx, const char *opt, struct class_cx *c)
{
    memset(c, 0, sizeof *c);
    int rc = cli_open_session(cx);
    if (rc)
        return rc;
    const char *env = getenv("WARPBENCH_CLASS");
    c->path = opt           ? core_xstrdup(opt)
              : env && *env ? core_xstrdup(env)
                            : db_class_path_default(cx->db_path);
    struct core_err e = {0};
    if (db_class_open(&c->cs, c->path, &e) != CORE_OK) {
        free(c->path);
        c->path = NULL;
        return cli_fail(&e);
    }
    return 0;
}

/* A class subcommand's words (min..max after its flags were taken), then
 * the class store. */
int cli_class_begin(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd, int min,
                    int max, const char *class_path, struct class_cx *c)
{
    int rc = cli_check_args(cmd, a, min, max);
    return rc ? rc : class_open(cx, class_path, c);
}

void cli_class_close(struct class_cx *c)
{
    db_close(c->cs);
    free(c->path);
}

static void fmt_grade(bool valid, double score, double max, char *buf, size_t n)
{
    char s[32], m[32];
    lesson_score_format(score, s, sizeof s);
    lesson_score_format(max, m, sizeof m);
    if (valid)
        snprintf(buf, n, "%s/%s", s, m);
    else
        snprintf(buf, n, "unreadable");
}

static const char *result_name(enum db_class_import_result r)
{
    static const char *const names[] = {"new", "newer", "older", "unchanged", "replaced"};
    return (unsigned)r < 5 ? names[r] : "?";
}

/* ---- import ------------------------------------------------------------------------ */

static void json_report(struct core_json *j, const struct lesson_class_report *r,
                        const struct core_err *e)
{
    core_json_obj_begin(j);
    core_json_kstr(j, "file", r->file);
    if (e) {
        core_json_kstr(j, "result", "refused");
        core_json_kstr(j, "error", e->msg);
        core_json_obj_end(j);
        return;
    }
    core_json_kstr(j, "result", result_name(r->result));
    core_json_kstr(j, "uid", r->uid);
    core_json_kstr(j, "user", r->user);
    core_json_kstr(j, "student_id", r->student_id);
    core_json_kstr(j, "student", r->key);
    core_json_kstr(j, "superseded", r->superseded);
    core_json_kint(j, "attempts", (long long)r->n_attempts);
    core_json_kint(j, "agree", (long long)r->n_agree);
    core_json_kint(j, "disagree", (long long)r->n_disagree);
    core_json_kint(j, "lab_regraded", (long long)r->n_lab_regraded);
    core_json_kint(j, "lab_runs", (long long)r->n_runs);
    core_json_kint(j, "lab_runs_implausible", (long long)r->n_runs_flagged);
    core_json_kint(j, "failed", (long long)r->n_failed);
    core_json_kint(j, "skipped", (long long)r->n_skipped);
    core_json_kint(j, "sealed", (long long)r->n_sealed);
    core_json_kint(j, "blocking", (long long)r->n_blocking);
    core_json_key(j, "flags");
    core_json_arr_begin(j);
    for (size_t i = 0; i < r->n_flags; i++) {
        const struct lesson_class_flag *f = &r->flags[i];
        core_json_obj_begin(j);
        core_json_kstr(j, "kind", lesson_flag_name(f->kind));
        core_json_kbool(j, "blocking", lesson_flag_blocking(f->kind));
        core_json_kint(j, "attempt", f->attempt);
        core_json_kstr(j, "pack", f->pack_id);
        core_json_kstr(j, "lesson", f->lesson_id);
        core_json_kstr(j, "question", f->question_id);
        core_json_kint(j, "variant", f->variant);
        core_json_knum_if(j, "recorded", f->rec_valid, f->rec_score);
        core_json_knum_if(j, "regraded", f->kind <= LESSON_FLAG_SKEW && f->new_valid, f->new_score);
        core_json_knum(j, "max", f->max);
        core_json_kstr(j, "reason", f->reason);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_key(j, "implausible_runs");
    core_json_arr_begin(j);
    for (size_t i = 0; i < r->n_runflags; i++) {
        core_json_obj_begin(j);
        core_json_kint(j, "run", r->runflags[i].run);
        core_json_kstr(j, "lab", r->runflags[i].lab);
        core_json_kstr(j, "problems", r->runflags[i].problems);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_obj_end(j);
}

static void print_report(const struct lesson_class_report *r)
{
    printf("%s: %s", cli_tx1(r->file), cli_tx1(r->user));
    if (r->student_id)
        printf(" (student id %s)", cli_tx1(r->student_id));
    switch (r->result) {
    case DB_CLASS_UNCHANGED:
        printf(": imported before, unchanged\n");
        return;
    case DB_CLASS_OLDER:
        printf(": older than the submission already counted (kept, not counted)");
        break;
    case DB_CLASS_NEWER:
        printf(": newer, supersedes %s", r->superseded ? r->superseded : "the previous one");
        break;
    case DB_CLASS_REPLACED:
        printf(": re-graded again");
        break;
    case DB_CLASS_NEW:
        printf(": new");
        break;
    }
    printf("\n  %zu attempt%s: ", r->n_attempts, r->n_attempts == 1 ? "" : "s");
    if (r->n_sealed)
        printf("%zu graded work%s graded with the source pack; practice: ", r->n_sealed,
               r->n_sealed == 1 ? "" : "s");
    printf("%zu agree with the student's record, %zu disagree", r->n_agree, r->n_disagree);
    if (r->n_failed)
        printf(", %zu the grader failed on", r->n_failed);
    if (r->n_skipped)
        printf(", %zu not graded", r->n_skipped);
    printf("\n  %zu lab-linked answer%s re-graded against the submitted run; %zu lab run%s, %zu "
           "implausible\n",
           r->n_lab_regraded, r->n_lab_regraded == 1 ? "" : "s", r->n_runs,
           r->n_runs == 1 ? "" : "s", r->n_runs_flagged);
    for (size_t i = 0; i < r->n_flags; i++) {
        const struct lesson_class_flag *f = &r->flags[i];
        char was[64], now[64];
        fmt_grade(f->rec_valid, f->rec_score, f->max, was, sizeof was);
        fmt_grade(f->new_valid, f->new_score, f->max, now, sizeof now);
        if (f->attempt)
            printf("  attempt %lld %s:%s", (long long)f->attempt, cli_tx1(f->pack_id),
                   cli_tx1(f->question_id));
        else if (f->lesson_id)
            printf("  exam %s:%s", cli_tx1(f->pack_id), cli_tx1(f->lesson_id));
        else if (f->pack_id)
            printf("  pack %s", cli_tx1(f->pack_id));
        else
            printf("  student %s", cli_tx1(r->key));
        if (f->kind <= LESSON_FLAG_SKIPPED)
            printf(" (variant %d)", f->variant);
        printf(": %s%s", lesson_flag_name(f->kind),
               lesson_flag_blocking(f->kind) ? " (no credit until cleared)" : "");
        if (f->kind <= LESSON_FLAG_SKEW)
            printf(", recorded %s, re-graded %s", was, now);
        printf(" — %s\n", cli_tx1(f->reason));
    }
    for (size_t i = 0; i < r->n_runflags; i++)
        printf("  lab run %lld (%s): implausible — %s\n", (long long)r->runflags[i].run,
               cli_tx1(r->runflags[i].lab), cli_tx1(r->runflags[i].problems));
}

/* Fault injection for the durability test (WARPBENCH_FAULT): die the
 * hardest way inside the transaction of the n-th file, rows written and not
 * committed ("kill-before-commit=N"), or once the n-th file is stored
 * ("kill-after-import=N"). */
struct fault {
    int before_commit, after_import, file;
};

static void fault_read(struct fault *f)
{
    const char *s = getenv("WARPBENCH_FAULT");
    memset(f, 0, sizeof *f);
    if (s && strncmp(s, "kill-before-commit=", 19) == 0)
        f->before_commit = atoi(s + 19);
    if (s && strncmp(s, "kill-after-import=", 18) == 0)
        f->after_import = atoi(s + 18);
}

static void fault_before_commit(void *ctx)
{
    const struct fault *f = ctx;
    if (f->before_commit && f->file == f->before_commit)
        raise(SIGKILL);
}

static int class_import(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                        const char *class_path)
{
    struct class_cx c;
    struct fault fault;
    fault_read(&fault);
    struct lesson_class_opts opts = {.code_rerun = cli_code_rerun,
                                     .code_ud = cx,
                                     .run_check = lab_run_plausible,
                                     .cache = lesson_grade_cache_new(),
                                     .before_commit = fault_before_commit,
                                     .hook_ctx = &fault};
    opts.force = cli_take_flag(a, "--force", false, NULL, NULL);
    const char *deadline = NULL;
    bool missing = false;
    cli_take_flag(a, "--deadline", true, &deadline, &missing);
    char due[32];
    bool no_deadline = deadline && strcmp(deadline, "none") == 0;
    if (missing || (deadline && !no_deadline && isnan(core_time_parse(deadline)))) {
        lesson_grade_cache_free(opts.cache);
        return cli_usage(cmd, "--deadline needs a time: 2026-12-01 (the end of that day), "
                              "\"2026-12-01 23:59\" or 2026-12-01T23:59+01:00 (UTC without "
                              "an offset), or none for each pack's own");
    }
    if (deadline && !no_deadline) {
        core_time_iso(core_time_parse(deadline), due);
        opts.deadline = due;
    }
    int rc = cli_class_begin(cx, a, cmd, 1, 100000, class_path, &c);
    if (rc) {
        lesson_grade_cache_free(opts.cache);
        return rc;
    }
    /* The class keeps the deadline given for its later imports and
     * re-grades; none goes back to each pack's own. */
    struct core_err de = {0};
    if (deadline && db_class_set_setting(c.cs, "deadline", opts.deadline, &de) != CORE_OK) {
        lesson_grade_cache_free(opts.cache);
        cli_class_close(&c);
        return cli_fail(&de);
    }
    struct core_buf b;
    struct core_json j;
    if (cx->json) {
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_key(&j, "files");
        core_json_arr_begin(&j);
    }
    int worst = CLI_EXIT_OK;
    size_t n_new = 0, n_same = 0, n_refused = 0, n_flags = 0, n_runs = 0, n_blocking = 0;
    double t0 = core_time_mono();
    for (int i = 0; i < a->argc; i++) {
        struct core_err e = {0};
        struct lesson_class_report rep;
        fault.file = i + 1;
        int r = lesson_class_import(cx->session, c.cs, a->argv[i], &opts, &rep, &e);
        if (fault.after_import && fault.file == fault.after_import)
            raise(SIGKILL);
        if (r != CORE_OK) {
            n_refused++;
            if (worst == CLI_EXIT_OK || worst == CLI_EXIT_WRONG)
                worst = cli_exit_for(r) == CLI_EXIT_PACK ? CLI_EXIT_STORE : cli_exit_for(r);
            if (cx->json)
                json_report(&j, &rep, &e);
            else
                fprintf(stderr, "warpbench: %s: refused: %s\n", cli_tx1(a->argv[i]),
                        cli_tx1(e.msg));
            lesson_class_report_fini(&rep);
            continue;
        }
        if (rep.result == DB_CLASS_UNCHANGED)
            n_same++;
        else
            n_new++;
        bool flagged =
            rep.n_disagree || rep.n_runs_flagged || rep.n_failed || rep.n_skipped || rep.n_blocking;
        if (rep.result != DB_CLASS_UNCHANGED) {
            n_flags += rep.n_disagree;
            n_runs += rep.n_runs_flagged;
            n_blocking += rep.n_blocking;
        }
        if (flagged && rep.result != DB_CLASS_UNCHANGED && worst == CLI_EXIT_OK)
            worst = CLI_EXIT_WRONG;
        if (cx->json)
            json_report(&j, &rep, NULL);
        else
            print_report(&rep);
        lesson_class_report_fini(&rep);
        /* each file's report reaches the terminal or file before the next
         * file is read, whatever happens to the rest of the batch */
        fflush(stdout);
    }
    double secs = core_time_mono() - t0;
    if (cx->json) {
        core_json_arr_end(&j);
        core_json_kint(&j, "imported", (long long)n_new);
        core_json_kint(&j, "unchanged", (long long)n_same);
        core_json_kint(&j, "refused", (long long)n_refused);
        core_json_kint(&j, "disagreements", (long long)n_flags);
        core_json_kint(&j, "implausible_runs", (long long)n_runs);
        core_json_kint(&j, "blocking_flags", (long long)n_blocking);
        core_json_knum(&j, "seconds", secs);
        cli_json_close(&b, &j);
    } else {
        printf("class %s: %zu imported, %zu unchanged, %zu refused; %zu grade%s disagree with "
               "the students' records, %zu implausible lab run%s, %zu flag%s withholding credit "
               "(%.2f s)\n",
               cli_tx(c.path), n_new, n_same, n_refused, n_flags, n_flags == 1 ? "" : "s", n_runs,
               n_runs == 1 ? "" : "s", n_blocking, n_blocking == 1 ? "" : "s", secs);
        if (n_blocking)
            printf("see them with: warpbench class flags; clear one with: warpbench class clear "
                   "FLAG --why TEXT\n");
    }
    cli_class_close(&c);
    lesson_grade_cache_free(opts.cache);
    return worst;
}

/* ---- output files -------------------------------------------------------------------- */

/* Writes text to a new file at path ("-": stdout). */
static int write_new(const char *path, const struct core_buf *b, bool force, struct core_err *e)
{
    if (strcmp(path, "-") == 0) {
        fwrite(b->data ? b->data : "", 1, b->len, stdout);
        return CORE_OK;
    }
    return core_file_create(path, b->data ? b->data : "", b->len, force, "add --force", e);
}

/* ---- grades ------------------------------------------------------------------------ */

static int class_grades(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                        const char *class_path)
{
    const char *csv = NULL, *format = NULL;
    bool missing = false, fmissing = false;
    cli_take_flag(a, "--csv", true, &csv, &missing);
    cli_take_flag(a, "--format", true, &format, &fmissing);
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    bool count_auto = cli_take_flag(a, "--count-automatic", false, NULL, NULL);
    if (missing)
        return cli_usage(cmd, "--csv needs a file name (- for standard output)");
    if (fmissing || (format && strcmp(format, "canvas") != 0 && strcmp(format, "moodle") != 0))
        return cli_usage(cmd, "--format is canvas (the default) or moodle");
    enum lesson_csv_format fmt =
        format && strcmp(format, "moodle") == 0 ? LESSON_CSV_MOODLE : LESSON_CSV_CANVAS;
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 1, class_path, &c);
    if (rc)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    struct core_err e = {0};
    struct lesson_gradebook gb;
    if (lesson_gradebook_load(cx->db, c.cs, pack, count_auto, &gb, &e) != CORE_OK) {
        cli_class_close(&c);
        return cli_fail(&e);
    }
    rc = CLI_EXIT_OK;
    if (csv) {
        struct core_buf b;
        core_buf_init(&b);
        lesson_gradebook_csv(&gb, fmt, &b);
        if (write_new(csv, &b, force, &e) != CORE_OK)
            rc = cli_fail(&e);
        else if (strcmp(csv, "-") != 0 && !cx->json)
            printf("wrote %s: %zu student%s, %zu lesson column%s (%s; UTF-8 with a BOM, RFC "
                   "4180)\n",
                   cli_tx(csv), gb.n_rows, gb.n_rows == 1 ? "" : "s", gb.n_lessons,
                   gb.n_lessons == 1 ? "" : "s", fmt == LESSON_CSV_MOODLE ? "Moodle" : "Canvas");
        core_buf_fini(&b);
        if (strcmp(csv, "-") == 0 || rc != CLI_EXIT_OK || !cx->json)
            goto out;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_kstr(&j, "csv", csv);
        core_json_kbool(&j, "graded_only", gb.graded_only);
        core_json_kbool(&j, "count_automatic", count_auto);
        core_json_key(&j, "lessons");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < gb.n_lessons; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "pack", gb.lessons[i].pack_id);
            core_json_kstr(&j, "lesson", gb.lessons[i].lesson_id);
            core_json_kstr(&j, "title", gb.lessons[i].title);
            core_json_knum(&j, "max", gb.lessons[i].max);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_key(&j, "rubric_items");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < gb.n_items; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "item", gb.items[i].name);
            core_json_kbool(&j, "course", gb.items[i].course);
            core_json_knum(&j, "max", gb.items[i].max);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_key(&j, "students");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < gb.n_rows; i++) {
            const struct lesson_gb_row *r = &gb.rows[i];
            core_json_obj_begin(&j);
            core_json_kstr(&j, "student", r->key);
            core_json_kstr(&j, "user", r->user);
            core_json_kstr(&j, "student_id", r->student_id);
            core_json_kstr(&j, "name", r->name);
            core_json_kstr(&j, "email", r->email);
            core_json_kstr(&j, "section", r->section);
            core_json_kstr(&j, "submitted_at", r->submitted_at);
            core_json_key(&j, "lessons");
            core_json_arr_begin(&j);
            for (size_t k = 0; k < gb.n_lessons; k++)
                core_json_num(&j, r->lessons[k]);
            core_json_arr_end(&j);
            core_json_key(&j, "rubric");
            core_json_obj_begin(&j);
            for (size_t k = 0; k < gb.n_items; k++)
                core_json_knum(&j, gb.items[k].name, r->items[k]);
            core_json_obj_end(&j);
            core_json_knum(&j, "points", r->points);
            core_json_knum(&j, "max", r->max);
            core_json_knum(&j, "percent", r->percent);
            core_json_kstr(&j, "level", r->level);
            core_json_knum(&j, "design_pending", r->design_pending);
            core_json_kint(&j, "flags", r->n_flags);
            core_json_kint(&j, "blocking_flags", r->n_blocking);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_key(&j, "warnings");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < gb.warnings.n; i++)
            core_json_str(&j, gb.warnings.items[i]);
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
        goto out;
    }
    for (size_t i = 0; i < gb.warnings.n; i++)
        fprintf(stderr, "warpbench: roster: %s\n", cli_tx1(gb.warnings.items[i]));
    printf("gradebook of %s: %zu student%s, %s\n", cli_tx(c.path), gb.n_rows,
           gb.n_rows == 1 ? "" : "s",
           gb.graded_only ? "the graded lessons" : "every lesson (no lesson is marked graded)");
    printf("  %-20s %-20s %14s %7s %-13s %8s %6s\n", "student", "user", "points", "%", "level",
           "pending", "flags");
    for (size_t i = 0; i < gb.n_rows; i++) {
        const struct lesson_gb_row *r = &gb.rows[i];
        char pts[48];
        snprintf(pts, sizeof pts, "%.2f/%g", r->points, r->max);
        printf("  ");
        cli_pad(r->key, 20);
        printf(" ");
        cli_pad(r->user, 20);
        printf(" %14s %7.1f %-13s %8g %6d\n", pts, r->percent, r->level, r->design_pending,
               r->n_flags);
    }
    if (gb.n_rows)
        printf("(per lesson and rubric item: --json or --csv FILE; pending: design points not "
               "reviewed yet, which count only once reviewed%s; flags: not cleared, see "
               "warpbench class flags)\n",
               count_auto ? " — here counted, --count-automatic" : "");
out:
    lesson_gradebook_fini(&gb);
    cli_class_close(&c);
    return rc;
}

/* ---- items ------------------------------------------------------------------------- */

static int class_items(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                       const char *class_path)
{
    const char *sort = NULL;
    bool missing = false;
    cli_take_flag(a, "--sort", true, &sort, &missing);
    bool reverse = cli_take_flag(a, "--reverse", false, NULL, NULL);
    if (missing)
        return cli_usage(cmd, "--sort needs a key");
    int key = sort ? lesson_item_sort_find(sort) : LESSON_ITEM_ORDER;
    if (key < 0)
        return cli_usage(cmd,
                         "--sort is one of order, facility, discrimination, giveups, tries, "
                         "attempts; not \"%s\"",
                         sort);
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 1, class_path, &c);
    if (rc)
        return rc;
    struct core_err e = {0};
    struct lesson_item *it = NULL;
    size_t n = 0;
    if (lesson_items_load(cx->db, c.cs, a->argc ? a->argv[0] : NULL, &it, &n, &e) != CORE_OK) {
        cli_class_close(&c);
        return cli_fail(&e);
    }
    lesson_items_sort(it, n, (enum lesson_item_sort)key, reverse);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_kstr(&j, "sort", sort ? sort : "order");
        core_json_key(&j, "items");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "pack", it[i].pack_id);
            core_json_kstr(&j, "question", it[i].question_id);
            core_json_kstr(&j, "kind", it[i].kind);
            core_json_kstr(&j, "title", it[i].title);
            core_json_knum(&j, "points", it[i].points);
            core_json_kint(&j, "attempts", it[i].attempts);
            core_json_kint(&j, "students", it[i].students);
            core_json_knum(&j, "facility", it[i].facility);
            core_json_knum(&j, "discrimination", it[i].discrimination);
            core_json_knum(&j, "upper_lower", it[i].upper_lower);
            core_json_knum(&j, "giveup_rate", it[i].giveup_rate);
            core_json_knum(&j, "tries", it[i].tries);
            core_json_key(&j, "wrong");
            core_json_arr_begin(&j);
            for (size_t k = 0; k < it[i].n_wrong; k++) {
                core_json_obj_begin(&j);
                core_json_kstr(&j, "answer", it[i].wrong[k].answer);
                core_json_kint(&j, "count", it[i].wrong[k].count);
                core_json_kstr(&j, "feedback", it[i].wrong[k].feedback);
                core_json_kbool(&j, "explained", it[i].wrong[k].explained);
                core_json_obj_end(&j);
            }
            core_json_arr_end(&j);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        printf("%-34s %-8s %5s %5s %8s %6s %6s %7s %5s\n", "question", "kind", "tries", "stud.",
               "facility", "r_pb", "D27", "gave up", "tries");
        for (size_t i = 0; i < n; i++) {
            char id[160], fac[16], rpb[16], d[16], gu[16], tr[16];
            snprintf(id, sizeof id, "%s:%s", it[i].pack_id, it[i].question_id);
#define F(buf, v, fmt)                                                                             \
    (isnan(v) ? snprintf(buf, sizeof buf, "-") : snprintf(buf, sizeof buf, fmt, v))
            F(fac, it[i].facility, "%.2f");
            F(rpb, it[i].discrimination, "%+.2f");
            F(d, it[i].upper_lower, "%+.2f");
            F(gu, 100 * it[i].giveup_rate, "%.0f%%");
            F(tr, it[i].tries, "%.1f");
#undef F
            cli_pad(id, 34);
            printf(" %-8s %5d %5d %8s %6s %6s %7s %5s\n", it[i].kind, it[i].attempts,
                   it[i].students, fac, rpb, d, gu, tr);
            for (size_t k = 0; k < it[i].n_wrong; k++) {
                const struct lesson_item_wrong *w = &it[i].wrong[k];
                printf("    wrong \"%s\" x%d: %s%s%s\n", cli_tx1(w->answer), w->count,
                       w->explained ? "\"" : "no feedback matched",
                       w->explained ? cli_tx1(w->feedback) : "", w->explained ? "\"" : "");
            }
        }
        printf("(tries: readable answers by all; stud.: students who answered or gave up; "
               "facility: mean score under the attempt policy; r_pb: point-biserial against the "
               "rest of the total; D27: upper minus lower 27%%)\n");
    }
    lesson_items_free(it, n);
    cli_class_close(&c);
    return CLI_EXIT_OK;
}

/* ---- review ------------------------------------------------------------------------ */

/* One answer of the review queue; `read`: the answer graded again
 * (lesson_review_read), whose "claims" say what the grader read for each
 * concept (null: not read). */
static void json_review_item(struct core_json *j, const struct lesson_review_item *it,
                             const struct grader_result *read)
{
    core_json_obj_begin(j);
    core_json_kint(j, "attempt", it->attempt);
    core_json_kstr(j, "student", it->key);
    core_json_kstr(j, "user", it->user);
    core_json_kstr(j, "pack", it->pack_id);
    core_json_kstr(j, "question", it->question_id);
    core_json_kstr(j, "title", it->title);
    core_json_kint(j, "variant", it->variant);
    core_json_kstr(j, "prompt", it->prompt);
    core_json_kstr(j, "answer", it->answer);
    core_json_knum(j, "points", it->points);
    core_json_knum_if(j, "automatic", it->auto_valid, it->auto_score);
    core_json_kstr(j, "automatic_feedback", it->auto_feedback);
    if (read && read->valid)
        cli_json_claims(j, read->claims, read->n_claims);
    else
        core_json_kstr(j, "claims", NULL);
    core_json_knum_if(j, "self", it->has_self,
                      it->self_max > 0 ? it->points * it->self_total / it->self_max : 0);
    core_json_key(j, "rubric");
    core_json_arr_begin(j);
    for (size_t k = 0; k < it->n_concepts; k++) {
        core_json_obj_begin(j);
        core_json_kstr(j, "concept", it->concepts[k].label);
        core_json_knum(j, "points", it->concepts[k].points);
        core_json_knum(j, "self", it->concepts[k].self);
        core_json_knum(j, "reviewed", it->concepts[k].reviewed);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_kbool(j, "reviewed", it->reviewed);
    core_json_knum_if(j, "review_score", it->reviewed, it->rv_score);
    core_json_kstr(j, "comment", it->rv_comment);
    core_json_kstr(j, "reviewer", it->rv_reviewer);
    core_json_obj_end(j);
}

static void print_review_item(const struct lesson_review_item *it)
{
    char au[32], pts[32];
    lesson_score_format(it->auto_score, au, sizeof au);
    lesson_score_format(it->points, pts, sizeof pts);
    printf("attempt %lld  %s:%s  student %s (%s), variant %d%s\n", (long long)it->attempt,
           cli_tx1(it->pack_id), cli_tx1(it->question_id), cli_tx1(it->key), cli_tx1(it->user),
           it->variant, it->reviewed ? "  [reviewed]" : "");
    printf("  question: %s\n", cli_tx(it->prompt));
    printf("  answer:   %s\n", cli_tx1(it->answer));
    /* The feedback's later lines ("What the grader read: ...") stay under it. */
    const char *fb = cli_tx(it->auto_feedback);
    const char *nl = strchr(fb, '\n');
    printf("  automatic %s/%s: %.*s\n", it->auto_valid ? au : "-", pts,
           nl ? (int)(nl - fb) : (int)strlen(fb), fb);
    if (nl && nl[1])
        cli_print_indented("    ", nl + 1);
    printf("  %-28s %7s %6s %9s\n", "rubric concept", "points", "self", "reviewed");
    for (size_t k = 0; k < it->n_concepts; k++) {
        const struct lesson_review_concept *c = &it->concepts[k];
        char self[16] = "-", rv[16] = "-";
        if (!isnan(c->self))
            snprintf(self, sizeof self, "%g", c->self);
        if (!isnan(c->reviewed))
            snprintf(rv, sizeof rv, "%g", c->reviewed);
        printf("  ");
        cli_pad(c->label, 28);
        printf(" %7g %6s %9s\n", c->points, self, rv);
    }
    if (it->reviewed) {
        char rs[32];
        lesson_score_format(it->rv_score, rs, sizeof rs);
        printf("  reviewed %s/%s by %s%s%s\n", rs, pts, cli_tx1(it->rv_reviewer),
               it->rv_comment && *it->rv_comment ? ": " : "", cli_tx1(it->rv_comment));
    }
    printf("\n");
}

static int review_set(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                      const char *class_path)
{
    const char *comment = NULL;
    bool missing = false;
    cli_take_flag(a, "--comment", true, &comment, &missing);
    struct lesson_review_score *sc = core_xcalloc((size_t)a->argc + 1, sizeof *sc);
    char **names = core_xcalloc((size_t)a->argc + 1, sizeof *names);
    size_t n = 0;
    const char *v;
    int rc = CLI_EXIT_OK;
    while (cli_take_flag(a, "--concept", true, &v, &missing) && v) {
        const char *eq = strrchr(v, '=');
        char *end = NULL;
        double s = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || eq == v || !end || *end || end == eq + 1 || !isfinite(s)) {
            rc = cli_usage(cmd, "--concept takes NAME=SCORE, not \"%s\"", v);
            goto out;
        }
        names[n] = core_xstrndup(v, (size_t)(eq - v));
        sc[n] = (struct lesson_review_score){names[n], s};
        n++;
    }
    if (missing) {
        rc = cli_usage(cmd, "--concept and --comment need a value");
        goto out;
    }
    rc = cli_check_args(cmd, a, 1, 1);
    if (rc)
        goto out;
    char *end;
    long long id = strtoll(a->argv[0], &end, 10);
    if (*end || id < 1) {
        rc = cli_usage(cmd, "review set takes an attempt number (see warpbench class review)");
        goto out;
    }
    if (n == 0 && !comment) {
        rc = cli_usage(cmd, "score the rubric concepts with --concept NAME=SCORE (a concept not "
                            "given scores 0)");
        goto out;
    }
    struct class_cx c;
    rc = class_open(cx, class_path, &c);
    if (rc)
        goto out;
    struct core_err e = {0};
    struct lesson_review_item *it = NULL;
    if (lesson_review_set(cx->session, c.cs, id, sc, n, comment, cx->user, &it, &e) != CORE_OK) {
        rc = cli_fail(&e);
    } else if (cx->json) {
        struct core_buf b;
        struct core_json j;
        core_buf_init(&b);
        core_json_init(&j, &b);
        json_review_item(&j, it, NULL);
        cli_json_print(&b);
    } else {
        char rs[32], pts[32];
        lesson_score_format(it->rv_score, rs, sizeof rs);
        lesson_score_format(it->points, pts, sizeof pts);
        printf("reviewed attempt %lld (%s:%s, student %s): %s/%s; this score counts in the "
               "gradebook and, once fed back, in the student's progress\n",
               id, cli_tx1(it->pack_id), cli_tx1(it->question_id), cli_tx1(it->key), rs, pts);
    }
    lesson_review_items_free(it, it ? 1 : 0);
    cli_class_close(&c);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(sc);
    return rc;
}

static int class_review(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                        const char *class_path)
{
    if (a->argc > 0 && strcmp(a->argv[0], "set") == 0) {
        a->argc--;
        a->argv++;
        return review_set(cx, a, cmd, class_path);
    }
    bool all = cli_take_flag(a, "--all", false, NULL, NULL);
    bool tui = cli_take_flag(a, "--tui", false, NULL, NULL);
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 1, class_path, &c);
    if (rc)
        return rc;
    if (tui) {
        /* The screen opens its own handles on both stores. */
        char *path = core_xstrdup(c.path);
        cli_class_close(&c);
        struct tui_opts o = {.db_path = cx->db_path, .user = cx->user, .class_path = path};
        rc = tui_main(&o);
        free(path);
        return rc;
    }
    /* PACK, or PACK:QUESTION / a bare question id. */
    const char *pack = NULL, *question = NULL;
    char *pk = NULL;
    if (a->argc) {
        const char *colon = strchr(a->argv[0], ':');
        struct db_pack p;
        if (colon) {
            pk = core_xstrndup(a->argv[0], (size_t)(colon - a->argv[0]));
            pack = pk;
            question = colon + 1;
        } else if (db_pack_get(cx->db, a->argv[0], &p, NULL) == CORE_OK) {
            pack = a->argv[0];
            db_pack_fini(&p);
        } else {
            question = a->argv[0];
        }
    }
    struct core_err e = {0};
    struct lesson_review_item *it = NULL;
    size_t n = 0;
    if (lesson_review_list(cx->session, c.cs, pack, question, all, &it, &n, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_key(&j, "answers");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            /* what the grader reads in it, concept by concept: graded again */
            struct grader_result read;
            struct core_err re = {0};
            bool ok = lesson_review_read(cx->session, c.cs, it[i].attempt, &read, &re) == CORE_OK;
            json_review_item(&j, &it[i], ok ? &read : NULL);
            grader_result_fini(&read);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < n; i++)
            print_review_item(&it[i]);
        size_t pending = 0;
        for (size_t i = 0; i < n; i++)
            pending += !it[i].reviewed;
        printf("%zu design answer%s %s (review one: warpbench class review set ATTEMPT --concept "
               "NAME=SCORE... --comment TEXT; or warpbench class review --tui)\n",
               all ? n : pending, (all ? n : pending) == 1 ? "" : "s",
               all ? "in all" : "waiting for review");
    }
    lesson_review_items_free(it, n);
out:
    free(pk);
    cli_class_close(&c);
    return rc;
}

/* ---- feedback ---------------------------------------------------------------------- */

static int class_feedback(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                          const char *class_path)
{
    const char *dir = NULL;
    bool missing = false;
    cli_take_flag(a, "--out", true, &dir, &missing);
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    if (missing || !dir)
        return cli_usage(cmd, "class feedback needs --out DIR");
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 0, class_path, &c);
    if (rc)
        return rc;
    struct core_err e = {0};
    struct lesson_feedback_file *f = NULL;
    size_t n = 0;
    rc = lesson_feedback_write(cx->db, c.cs, dir, force, &f, &n, &e) != CORE_OK ? cli_fail(&e)
                                                                                : CLI_EXIT_OK;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "dir", dir);
        core_json_key(&j, "files");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "student", f[i].key);
            core_json_kstr(&j, "file", f[i].path);
            core_json_kint(&j, "reviews", (long long)f[i].n_reviews);
            core_json_kint(&j, "grades", (long long)f[i].n_grades);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < n; i++)
            printf("%s: %zu official grade%s, %zu review%s for %s\n", cli_tx1(f[i].path),
                   f[i].n_grades, f[i].n_grades == 1 ? "" : "s", f[i].n_reviews,
                   f[i].n_reviews == 1 ? "" : "s", cli_tx1(f[i].key));
        if (rc == CLI_EXIT_OK)
            printf("%zu feedback file%s in %s; each student runs: warpbench feedback import "
                   "FILE\n",
                   n, n == 1 ? "" : "s", cli_tx(dir));
    }
    lesson_feedback_files_free(f, n);
    cli_class_close(&c);
    return rc;
}

int cli_cmd_class(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("class");
    const char *class_path = NULL;
    bool missing = false;
    cli_take_flag(a, "--class", true, &class_path, &missing);
    if (missing)
        return cli_usage(cmd, "--class needs a path");
    if (a->argc < 1)
        return cli_usage(cmd, "which class command?");
    const char *sub = a->argv[0];
    a->argc--;
    a->argv++;
    if (strcmp(sub, "import") == 0)
        return class_import(cx, a, cmd, class_path);
    if (strcmp(sub, "grades") == 0)
        return class_grades(cx, a, cmd, class_path);
    if (strcmp(sub, "items") == 0)
        return class_items(cx, a, cmd, class_path);
    if (strcmp(sub, "review") == 0)
        return class_review(cx, a, cmd, class_path);
    if (strcmp(sub, "feedback") == 0)
        return class_feedback(cx, a, cmd, class_path);
    if (strcmp(sub, "flags") == 0)
        return cli_class_flags(cx, a, cmd, class_path);
    if (strcmp(sub, "clear") == 0)
        return cli_class_clear(cx, a, cmd, class_path);
    if (strcmp(sub, "roster") == 0)
        return cli_class_roster(cx, a, cmd, class_path);
    if (strcmp(sub, "regrade") == 0)
        return cli_class_regrade(cx, a, cmd, class_path);
    return cli_usage(cmd, "unknown class command \"%s\"", sub);
}
