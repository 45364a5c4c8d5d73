/* cli_cmd_pack.c — `warpbench pack check|import|export|release|list|regrade`,
 * the instructor's commands. `pack check` needs no store (but for a release
 * checked against the source the store holds). */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-item table of `pack check --rubric`: the course items, then any
 * other name the pack uses (marked, since progress ignores it). */
static void print_rubric(const struct lesson_rubric_coverage *cov)
{
    printf("%-24s %9s %8s %8s\n", "rubric item", "questions", "points", "lessons");
    for (int i = 0; i < LESSON_RUBRIC_N + (int)cov->n_other; i++) {
        const struct lesson_rubric_count *it =
            i < LESSON_RUBRIC_N ? &cov->items[i] : &cov->other[i - LESSON_RUBRIC_N];
        printf("%-24s %9d %8g %8d%s\n", cli_tx(it->name), it->questions, it->points, it->lessons,
               it->item ? "" : "  (not a course rubric item)");
    }
}

static void json_rubric(struct core_json *j, const struct lesson_rubric_coverage *cov)
{
    core_json_key(j, "rubric");
    core_json_arr_begin(j);
    for (int i = 0; i < LESSON_RUBRIC_N + (int)cov->n_other; i++) {
        const struct lesson_rubric_count *it =
            i < LESSON_RUBRIC_N ? &cov->items[i] : &cov->other[i - LESSON_RUBRIC_N];
        core_json_obj_begin(j);
        core_json_kstr(j, "item", it->name);
        core_json_kbool(j, "course", it->item != NULL);
        if (it->item) {
            core_json_kstr(j, "title", it->item->title);
            core_json_knum(j, "rubric_max", it->item->max);
        }
        core_json_kint(j, "questions", it->questions);
        core_json_knum(j, "points", it->points);
        core_json_kint(j, "lessons", it->lessons);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

/* The sweep per question, for --json. */
static void json_sweep(struct core_json *j, const struct lesson_check *c)
{
    core_json_key(j, "sweep");
    core_json_arr_begin(j);
    for (size_t i = 0; c->swept && i < c->sweep.n; i++) {
        const struct grader_sweep_q *q = &c->sweep.q[i];
        core_json_obj_begin(j);
        core_json_kstr(j, "question", q->qid);
        core_json_kstr(j, "file", q->file);
        core_json_kint(j, "line", q->line);
        core_json_kint(j, "variants", (long long)q->variants);
        core_json_kint(j, "tried", (long long)q->tried);
        core_json_kint(j, "examples", (long long)q->examples);
        core_json_kint(j, "samples", (long long)q->samples);
        if (q->samples) {
            core_json_kint(j, "samples_off", (long long)q->samples_off);
            core_json_knum(j, "samples_worst", q->worst);
            core_json_knum(j, "samples_mean", q->mean);
            core_json_kint(j, "samples_good", (long long)q->good);
            core_json_kint(j, "samples_partial", (long long)q->partial);
            core_json_kint(j, "samples_keywords", (long long)q->keywords);
            core_json_kint(j, "samples_reversed", (long long)q->reversed);
            core_json_kint(j, "samples_terse", (long long)q->terse);
            core_json_kint(j, "samples_own_words", (long long)q->own_words);
            core_json_kint(j, "samples_wrong_fluent", (long long)q->wrong_fluent);
            core_json_knum(j, "good_min", q->good_min);
            core_json_knum(j, "keywords_reversed_max", q->bad_max);
            core_json_key(j, "kappa");
            if (isnan(q->kappa))
                core_json_null(j);
            else
                core_json_num(j, q->kappa);
        }
        if (q->attacks) {
            core_json_kint(j, "attacks", (long long)q->attacks);
            core_json_knum(j, "attack_max", q->attack_max);
            core_json_kstr(j, "attack_worst", q->attack_worst ? q->attack_worst : "");
            core_json_kbool(j, "attacks_reported", q->attacks_reported);
        }
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

/* One line per question: how many variants it has and how many were
 * drawn; for a design question, how its samples agree with the grader. */
static void print_sweep(const struct lesson_check *c)
{
    if (!c->swept)
        return;
    printf("%-44s %8s %6s  %s\n", "question", "variants", "tried",
           "samples (|automatic - person|, quadratic weighted kappa); attacks (the best one)");
    for (size_t i = 0; i < c->sweep.n; i++) {
        const struct grader_sweep_q *q = &c->sweep.q[i];
        printf("%-44s %8zu %6zu", cli_tx(q->qid), q->variants, q->tried);
        if (q->samples) {
            printf("  %zu, %zu off, worst %.2f, mean %.2f", q->samples, q->samples_off, q->worst,
                   q->mean);
            if (isnan(q->kappa))
                printf(", kappa -");
            else
                printf(", kappa %.2f", q->kappa);
        }
        if (q->attacks)
            printf("; %zu attacks, best %.2f (%s)%s", q->attacks, q->attack_max,
                   cli_tx(q->attack_worst ? q->attack_worst : ""),
                   q->attacks_reported ? ", reported only (attacks = \"report\")" : "");
        printf("\n");
    }
}

/* cov: the rubric coverage to add (pack check --rubric), or NULL. */
static void print_check(const char *dir, const struct lesson_check *c, bool json, int rc,
                        const struct lesson_rubric_coverage *cov)
{
    if (json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "dir", dir);
        core_json_kbool(&j, "ok", rc == CORE_OK);
        core_json_kstr(&j, "pack", c->pack_id);
        core_json_kstr(&j, "version", c->version);
        core_json_kint(&j, "lessons", (long long)c->n_lessons);
        core_json_kint(&j, "pages", (long long)c->n_pages);
        core_json_kint(&j, "questions", (long long)c->n_questions);
        core_json_kint(&j, "checks", (long long)c->n_checks);
        core_json_kint(&j, "variants_asked", (long long)c->variants);
        core_json_kint(&j, "variants_tried", (long long)c->sweep.tried);
        json_sweep(&j, c);
        core_json_key(&j, "problems");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < c->problems.n; i++)
            core_json_str(&j, c->problems.items[i]);
        core_json_arr_end(&j);
        if (cov)
            json_rubric(&j, cov);
        cli_json_close(&b, &j);
        return;
    }
    /* Problems go to stderr as "DIR/file:line: message", like a compiler. */
    for (size_t i = 0; i < c->problems.n; i++)
        fprintf(stderr, "%s/%s\n", dir, cli_tx(c->problems.items[i]));
    if (rc == CORE_OK) {
        print_sweep(c);
        printf("ok: %s %s — %zu lesson%s, %zu page%s, %zu question%s, %zu self-check%s passed",
               c->pack_id, cli_tx(c->version), c->n_lessons, c->n_lessons == 1 ? "" : "s",
               c->n_pages, c->n_pages == 1 ? "" : "s", c->n_questions,
               c->n_questions == 1 ? "" : "s", c->n_checks, c->n_checks == 1 ? "" : "s");
        if (c->swept)
            printf(" (%zu variants drawn, up to %zu distinct per question)", c->sweep.tried,
                   c->variants ? c->variants : 1);
        printf("\n");
    } else {
        print_sweep(c); /* the agreement and the attacks, also when something failed */
        fprintf(stderr, "%s: %zu problem%s\n", dir, c->problems.n, c->problems.n == 1 ? "" : "s");
    }
    if (cov)
        print_rubric(cov);
}

/* --variants N: distinct variants per question for the sweep. */
static int take_variants(const struct cli_command *cmd, struct cli_args *a, size_t *variants)
{
    const char *v = NULL;
    bool missing = false;
    *variants = GRADER_SWEEP_VARIANTS;
    if (cli_take_flag(a, "--variants", true, &v, &missing) || missing) {
        int n = 0;
        if (missing || (strcmp(v, "0") != 0 && !cli_parse_int(v, 100000, &n)))
            return cli_usage(cmd, "--variants needs a number of variants (0 to 100000)");
        *variants = (size_t)n;
    }
    return 0;
}

/* Reads the release in `dir` (and the source in `source_dir`, NULL: the
 * store's) and proves it carries nothing that grades. */
static int release_prove(struct cli_ctx *cx, const char *dir, const char *source_dir,
                         struct lesson_release_check *c, struct core_err *e)
{
    memset(c, 0, sizeof *c);
    struct lesson_src rel, src = {0};
    if (lesson_src_read(dir, &rel, e) != CORE_OK)
        return e->code;
    if (source_dir && lesson_src_read(source_dir, &src, e) != CORE_OK) {
        lesson_src_fini(&rel);
        return e->code;
    }
    int rc = lesson_release_check(cx->db, &rel, source_dir ? &src : NULL, c, e);
    lesson_src_fini(&rel);
    lesson_src_fini(&src);
    return rc;
}

/* The proof's problems, each under the release's folder, to stderr. */
static void release_problems(const char *dir, const struct lesson_release_check *c)
{
    for (size_t i = 0; i < c->problems.n; i++)
        fprintf(stderr, "%s/%s\n", dir, cli_tx(c->problems.items[i]));
    if (c->problems.n)
        fprintf(stderr, "%s: %zu problem%s: this release must not be handed out\n", dir,
                c->problems.n, c->problems.n == 1 ? "" : "s");
}

/* pack check --release DIR [--source SRC]: the release carries nothing
 * that grades (lesson_release_check). */
static int release_check(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                         const char *source_dir)
{
    int rc = cli_begin(cx, cmd, a, 1, 1, source_dir ? CLI_NEED_NOTHING : CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_release_check c;
    rc = release_prove(cx, a->argv[0], source_dir, &c, &e);
    if (rc != CORE_OK && !c.pack_id && c.problems.n == 0) {
        lesson_release_check_fini(&c);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "dir", a->argv[0]);
        core_json_kbool(&j, "ok", rc == CORE_OK);
        core_json_kstr(&j, "pack", c.pack_id);
        core_json_kstr(&j, "source", c.source_digest);
        core_json_kint(&j, "sealed_questions", (long long)c.sealed_questions);
        core_json_kint(&j, "students", (long long)c.students);
        core_json_kint(&j, "values_searched", (long long)c.searched_values);
        core_json_key(&j, "problems");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < c.problems.n; i++)
            core_json_str(&j, c.problems.items[i]);
        if (rc != CORE_OK && c.problems.n == 0)
            core_json_str(&j, e.msg);
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        release_problems(a->argv[0], &c);
        if (rc == CORE_OK)
            printf("ok: release of %s carries nothing that grades: %zu sealed question%s, each "
                   "drawn for %zu students (%zu reference values searched) in its files, the "
                   "questions' views and a student's store\n",
                   c.pack_id, c.sealed_questions, c.sealed_questions == 1 ? "" : "s", c.students,
                   c.searched_values);
        else if (c.problems.n == 0)
            cli_fail(&e);
    }
    lesson_release_check_fini(&c);
    return rc == CORE_OK ? CLI_EXIT_OK : cli_exit_for(rc);
}

/* --budget SECONDS: the whole check's CPU time (0: none). */
static int take_budget(const struct cli_command *cmd, struct cli_args *a, double *budget)
{
    const char *v = NULL;
    bool missing = false;
    *budget = LESSON_CHECK_BUDGET_S;
    if (cli_take_flag(a, "--budget", true, &v, &missing) || missing) {
        double s = 0;
        if (missing || core_num_parse(v, strlen(v), 0, &s, NULL, NULL) != CORE_OK || s < 0 ||
            s > 1e6)
            return cli_usage(cmd, "--budget needs seconds of CPU for the whole check (0: none)");
        *budget = s;
    }
    return 0;
}

static int pack_check(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    bool release = cli_take_flag(a, "--release", false, NULL, NULL);
    const char *source = NULL;
    bool missing = false;
    if (cli_take_flag(a, "--source", true, &source, &missing) && !release)
        return cli_usage(cmd, "--source goes with --release");
    if (missing)
        return cli_usage(cmd, "--source needs the source pack's folder");
    if (release)
        return release_check(cx, a, cmd, source);
    bool rubric = cli_take_flag(a, "--rubric", false, NULL, NULL);
    size_t variants;
    double budget;
    int rc = take_variants(cmd, a, &variants);
    if (rc == 0)
        rc = take_budget(cmd, a, &budget);
    if (rc != 0)
        return rc;
    rc = cli_check_args(cmd, a, 1, 1);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c;
    struct grader_pack *pack = NULL;
    rc = lesson_pack_check_budget(&src, variants, budget, &c, rubric ? &pack : NULL, &e);
    /* A pack that failed to load has no model to count; its problems say why. */
    struct lesson_rubric_coverage cov;
    if (pack)
        lesson_rubric_coverage_compute(grader_pack_info(pack), &cov);
    print_check(a->argv[0], &c, cx->json, rc, pack ? &cov : NULL);
    if (pack) {
        lesson_rubric_coverage_fini(&cov);
        grader_pack_free(pack);
    }
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc == CORE_OK ? CLI_EXIT_OK : cli_exit_for(rc);
}

/* --student-id ID for the current user (init, pack import). */
int cli_set_student_id(struct cli_ctx *cx, const char *sid)
{
    struct core_err e = {0};
    if (db_user_set_student_id(cx->db, lesson_session_user_id(cx->session), sid, &e) != CORE_OK)
        return cli_fail(&e);
    return CLI_EXIT_OK;
}

static int pack_import(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    const char *sid = NULL;
    bool sid_missing = false;
    cli_take_flag(a, "--student-id", true, &sid, &sid_missing);
    if (sid_missing)
        return cli_usage(cmd, "--student-id needs the id your instructor knows you by");
    size_t variants;
    int rc = take_variants(cmd, a, &variants);
    if (rc != 0)
        return rc;
    rc = cli_begin(cx, cmd, a, 1, 1, sid ? CLI_NEED_SESSION : CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    if (sid && (rc = cli_set_student_id(cx, sid)) != CLI_EXIT_OK)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c = {0};
    enum db_import_result res = DB_IMPORT_UNCHANGED;
    rc = lesson_pack_import_with(cx->db, &src, force, variants, &c, &res, &e);
    if (rc != CORE_OK && c.problems.n > 0) {
        print_check(a->argv[0], &c, cx->json, rc, NULL);
        rc = cli_exit_for(rc);
    } else if (rc != CORE_OK) {
        rc = cli_fail(&e);
    } else {
        static const char *what[] = {"imported", "unchanged (already imported)",
                                     "imported, replacing the previous version"};
        if (cx->json) {
            struct core_buf b;
            struct core_json j;
            cli_json_open(&b, &j);
            core_json_kstr(&j, "pack", c.pack_id);
            core_json_kstr(&j, "version", c.version);
            core_json_kstr(&j, "result",
                           res == DB_IMPORT_NEW         ? "new"
                           : res == DB_IMPORT_UNCHANGED ? "unchanged"
                                                        : "replaced");
            cli_json_close(&b, &j);
        } else {
            printf("%s %s: %s (%zu lesson%s, %zu question%s)\n", c.pack_id, cli_tx(c.version),
                   what[res], c.n_lessons, c.n_lessons == 1 ? "" : "s", c.n_questions,
                   c.n_questions == 1 ? "" : "s");
        }
        rc = CLI_EXIT_OK;
    }
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc;
}

static int pack_export(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    int rc = cli_begin(cx, cmd, a, 2, 2, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    if (lesson_pack_export(cx->db, a->argv[0], a->argv[1], force, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "pack", a->argv[0]);
        core_json_kstr(&j, "dir", a->argv[1]);
        cli_json_close(&b, &j);
    } else {
        printf("exported %s to %s\n", a->argv[0], a->argv[1]);
    }
    return CLI_EXIT_OK;
}

static int pack_release(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    struct lesson_release_opts o = {0};
    bool missing = false;
    cli_take_flag(a, "--salt", true, &o.salt, &missing);
    if (missing)
        return cli_usage(cmd, "--salt needs 16 to 64 lower-case hex digits");
    o.new_salt = cli_take_flag(a, "--new-salt", false, NULL, NULL);
    if (o.salt && o.new_salt)
        return cli_usage(cmd, "give --salt or --new-salt, not both");
    int rc = cli_begin(cx, cmd, a, 2, 2, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c = {0};
    struct lesson_release_report rep;
    rc = lesson_pack_release(cx->db, &src, a->argv[1], &o, &c, &rep, &e);
    /* Every release is proved as it is made: what pack check --release
     * would say, against the source just read. */
    struct lesson_release_check proof = {0};
    int proved = CORE_OK;
    if (rc == CORE_OK)
        proved = release_prove(cx, a->argv[1], a->argv[0], &proof, &e);
    if (rc != CORE_OK && c.problems.n > 0) {
        print_check(a->argv[0], &c, cx->json, rc, NULL);
        rc = cli_exit_for(rc);
    } else if (rc != CORE_OK) {
        rc = cli_fail(&e);
    } else if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "pack", rep.pack_id);
        core_json_kstr(&j, "version", rep.version);
        core_json_kstr(&j, "dir", a->argv[1]);
        core_json_kstr(&j, "digest", rep.digest);
        core_json_kstr(&j, "salt", rep.salt);
        core_json_kbool(&j, "salt_reused", rep.salt_reused);
        core_json_kint(&j, "sealed_lessons", (long long)rep.sealed_lessons);
        core_json_kint(&j, "sealed_questions", (long long)rep.sealed_questions);
        core_json_kint(&j, "calculators_left_out", (long long)rep.dropped_calcs);
        core_json_kint(&j, "hints_left_out", (long long)rep.dropped_hints);
        core_json_kint(&j, "definitions_left_out", (long long)rep.dropped_defs);
        core_json_kbool(&j, "proved", proved == CORE_OK);
        core_json_key(&j, "problems");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < proof.problems.n; i++)
            core_json_str(&j, proof.problems.items[i]);
        if (proved != CORE_OK && proof.problems.n == 0)
            core_json_str(&j, e.msg);
        core_json_arr_end(&j);
        core_json_key(&j, "notes");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < rep.notes.n; i++)
            core_json_str(&j, rep.notes.items[i]);
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
        rc = proved == CORE_OK ? CLI_EXIT_OK : cli_exit_for(proved);
    } else {
        for (size_t i = 0; i < rep.notes.n; i++)
            printf("note: %s\n", cli_tx(rep.notes.items[i]));
        printf("released %s %s to %s: %zu sealed lesson%s, %zu sealed question%s; left out %zu "
               "calculator%s, %zu private hint%s, %zu unused definition%s\n",
               rep.pack_id, cli_tx(rep.version), a->argv[1], rep.sealed_lessons,
               rep.sealed_lessons == 1 ? "" : "s", rep.sealed_questions,
               rep.sealed_questions == 1 ? "" : "s", rep.dropped_calcs,
               rep.dropped_calcs == 1 ? "" : "s", rep.dropped_hints,
               rep.dropped_hints == 1 ? "" : "s", rep.dropped_defs,
               rep.dropped_defs == 1 ? "" : "s");
        printf("release digest %.12s, class salt %s (%s); your store keeps the source to grade "
               "with\n",
               rep.digest, rep.salt, rep.salt_reused ? "the pack's earlier releases' salt" : "new");
        if (proved == CORE_OK) {
            printf("proved: it carries nothing that grades (%zu sealed question%s, each drawn "
                   "for %zu students, searched in its files, views and a student's store)\n",
                   proof.sealed_questions, proof.sealed_questions == 1 ? "" : "s", proof.students);
            rc = CLI_EXIT_OK;
        } else {
            release_problems(a->argv[1], &proof);
            if (proof.problems.n == 0)
                cli_fail(&e);
            rc = cli_exit_for(proved);
        }
    }
    if (rc == CLI_EXIT_OK || proved != CORE_OK)
        lesson_release_report_fini(&rep);
    lesson_release_check_fini(&proof);
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc;
}

static int pack_list(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    int rc = cli_begin(cx, cmd, a, 0, 0, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct db_pack *packs = NULL;
    size_t n = 0;
    if (db_pack_list(cx->db, &packs, &n, &e) != CORE_OK)
        return cli_fail(&e);
    struct core_buf b;
    core_buf_init(&b);
    struct core_json j;
    core_json_init(&j, &b);
    core_json_arr_begin(&j);
    for (size_t i = 0; i < n; i++) {
        core_json_obj_begin(&j);
        core_json_kstr(&j, "id", packs[i].id);
        core_json_kstr(&j, "version", packs[i].version);
        core_json_kstr(&j, "title", packs[i].title);
        core_json_kint(&j, "lessons", packs[i].n_lessons);
        core_json_kint(&j, "questions", packs[i].n_questions);
        core_json_kstr(&j, "digest", packs[i].digest);
        core_json_kstr(&j, "imported_at", packs[i].imported_at);
        core_json_obj_end(&j);
        if (!cx->json)
            printf("%-24s %-10s %3d lesson%s %4d question%s  imported %s  %s\n", packs[i].id,
                   cli_tx(packs[i].version), packs[i].n_lessons,
                   packs[i].n_lessons == 1 ? " " : "s", packs[i].n_questions,
                   packs[i].n_questions == 1 ? " " : "s", packs[i].imported_at,
                   cli_tx(packs[i].title));
        db_pack_fini(&packs[i]);
    }
    core_json_arr_end(&j);
    free(packs);
    if (cx->json)
        cli_json_print(&b);
    else
        core_buf_fini(&b);
    return CLI_EXIT_OK;
}

static int pack_regrade(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    struct lesson_regrade_opts opts = {0};
    opts.dry_run = cli_take_flag(a, "--dry-run", false, NULL, NULL);
    opts.new_params = cli_take_flag(a, "--new-params", false, NULL, NULL);
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_regrade_report rep;
    double t0 = core_time_mono();
    if (lesson_regrade_run(cx->session, a->argv[0], &opts, &rep, &e) != CORE_OK)
        return cli_fail(&e);
    double secs = core_time_mono() - t0;
    char sa[32], sb[32];
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "pack", rep.pack_id);
        core_json_kstr(&j, "version", rep.version);
        core_json_kbool(&j, "dry_run", opts.dry_run);
        core_json_kbool(&j, "new_params", opts.new_params);
        core_json_kint(&j, "checked", (long long)rep.n_checked);
        core_json_kint(&j, "changed", (long long)rep.n_changed);
        core_json_kint(&j, "failed", (long long)rep.n_failed);
        core_json_kint(&j, "kept_shown_params", (long long)rep.n_kept_params);
        core_json_kint(&j, "skipped", (long long)rep.n_skipped);
        core_json_kbool(&j, "written", rep.written);
        core_json_knum(&j, "seconds", secs);
        core_json_key(&j, "attempts");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < rep.n_items; i++) {
            const struct lesson_regrade_item *it = &rep.items[i];
            core_json_obj_begin(&j);
            core_json_kint(&j, "attempt", it->attempt_id);
            core_json_kstr(&j, "user", it->user);
            core_json_kstr(&j, "question", it->question_id);
            core_json_kint(&j, "variant", it->variant);
            core_json_kbool(&j, "failed", it->failed);
            core_json_kbool(&j, "old_valid", it->old_valid);
            core_json_knum(&j, "old_score", it->old_score);
            core_json_kbool(&j, "new_valid", it->new_valid);
            core_json_knum(&j, "new_score", it->new_score);
            core_json_knum(&j, "max", it->max);
            core_json_kstr(&j, "reason", it->reason);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < rep.n_items; i++) {
            const struct lesson_regrade_item *it = &rep.items[i];
            if (it->failed) {
                printf("attempt %lld  %s  %s (variant %d): grader failed, grade kept: %s\n",
                       (long long)it->attempt_id, cli_tx(it->user), cli_tx(it->question_id),
                       it->variant, cli_tx(it->reason));
                continue;
            }
            snprintf(sa, sizeof sa, "%s", it->old_valid ? "" : "unreadable");
            if (it->old_valid)
                lesson_score_format(it->old_score, sa, sizeof sa);
            snprintf(sb, sizeof sb, "%s", it->new_valid ? "" : "unreadable");
            if (it->new_valid)
                lesson_score_format(it->new_score, sb, sizeof sb);
            char mx[32];
            lesson_score_format(it->max, mx, sizeof mx);
            printf("attempt %lld  %s  %s (variant %d): %s -> %s of %s  (%s)\n",
                   (long long)it->attempt_id, cli_tx(it->user), cli_tx(it->question_id),
                   it->variant, sa, sb, mx, cli_tx(it->reason));
        }
        printf("%s %s %s: %zu attempts checked, %zu %s, %zu failed",
               opts.dry_run ? "dry run of" : "re-graded", rep.pack_id, cli_tx(rep.version),
               rep.n_checked, rep.n_changed,
               opts.dry_run  ? "would change (nothing written)"
               : rep.written ? "changed (written)"
                             : "changed",
               rep.n_failed);
        if (rep.n_kept_params)
            printf("; %zu graded against the numbers shown to the student%s", rep.n_kept_params,
                   " (--new-params uses the new version's)");
        if (rep.n_skipped)
            printf("; %zu at questions no longer in the pack (kept)", rep.n_skipped);
        printf(" in %.2f s\n", secs);
    }
    rc = rep.n_failed ? CLI_EXIT_PACK : CLI_EXIT_OK;
    lesson_regrade_report_fini(&rep);
    return rc;
}

int cli_cmd_pack(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("pack");
    if (a->argc < 1)
        return cli_usage(cmd, "which pack command?");
    const char *sub = a->argv[0];
    a->argc--;
    a->argv++;
    if (strcmp(sub, "check") == 0)
        return pack_check(cx, a, cmd);
    if (strcmp(sub, "import") == 0)
        return pack_import(cx, a, cmd);
    if (strcmp(sub, "export") == 0)
        return pack_export(cx, a, cmd);
    if (strcmp(sub, "release") == 0)
        return pack_release(cx, a, cmd);
    if (strcmp(sub, "list") == 0)
        return pack_list(cx, a, cmd);
    if (strcmp(sub, "regrade") == 0)
        return pack_regrade(cx, a, cmd);
    return cli_usage(cmd, "unknown pack command \"%s\"", sub);
}
