/* cli_cmd_pack.c — `warpbench pack check|import|export|list|regrade`, the
 * instructor's commands. `pack check` needs no store. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

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
            core_json_knum(j, "good_min", q->good_min);
            core_json_knum(j, "keywords_reversed_max", q->bad_max);
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
    printf("%-44s %8s %6s  %s\n", "question", "variants", "tried", "samples (|automatic - person|)");
    for (size_t i = 0; i < c->sweep.n; i++) {
        const struct grader_sweep_q *q = &c->sweep.q[i];
        printf("%-44s %8zu %6zu", cli_tx(q->qid), q->variants, q->tried);
        if (q->samples)
            printf("  %zu, %zu off, worst %.2f, mean %.2f", q->samples, q->samples_off, q->worst,
                   q->mean);
        printf("\n");
    }
}

static void print_check(const char *dir, const struct lesson_check *c, bool json, int rc)
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
        cli_json_close(&b, &j);
        return;
    }
    /* Problems go to stderr as "DIR/file:line: message", like a compiler. */
    for (size_t i = 0; i < c->problems.n; i++)
        fprintf(stderr, "%s/%s\n", dir, cli_tx(c->problems.items[i]));
    if (rc == CORE_OK) {
        print_sweep(c);
        printf("ok: %s %s — %zu lesson%s, %zu pages, %zu questions, %zu self-checks passed",
               c->pack_id, cli_tx(c->version), c->n_lessons, c->n_lessons == 1 ? "" : "s",
               c->n_pages, c->n_questions, c->n_checks);
        if (c->swept)
            printf(" (%zu variants drawn, up to %zu distinct per question)", c->sweep.tried,
                   c->variants ? c->variants : 1);
        printf("\n");
    } else {
        fprintf(stderr, "%s: %zu problem%s\n", dir, c->problems.n, c->problems.n == 1 ? "" : "s");
    }
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

static int pack_check(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    size_t variants;
    int rc = take_variants(cmd, a, &variants);
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
    rc = lesson_pack_check_with(&src, variants, &c, NULL, &e);
    print_check(a->argv[0], &c, cx->json, rc);
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc == CORE_OK ? CLI_EXIT_OK : cli_exit_for(rc);
}

static int pack_import(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    size_t variants;
    int rc = take_variants(cmd, a, &variants);
    if (rc != 0)
        return rc;
    rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c = {0};
    enum db_import_result res = DB_IMPORT_UNCHANGED;
    rc = lesson_pack_import_with(cx->db, &src, force, variants, &c, &res, &e);
    if (rc != CORE_OK && c.problems.n > 0) {
        print_check(a->argv[0], &c, cx->json, rc);
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
            printf("%s %s: %s (%zu lessons, %zu questions)\n", c.pack_id, cli_tx(c.version), what[res],
                   c.n_lessons, c.n_questions);
        }
        rc = CLI_EXIT_OK;
    }
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc;
}

static int pack_export(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    int rc = cli_begin(cx, cmd, a, 2, 2, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    if (lesson_pack_export(cx->db, a->argv[0], a->argv[1], &e) != CORE_OK)
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
            printf("%-24s %-10s %3d lessons %4d questions  imported %s  %s\n", packs[i].id,
                   cli_tx(packs[i].version), packs[i].n_lessons, packs[i].n_questions,
                   packs[i].imported_at, cli_tx(packs[i].title));
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
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    size_t n = 0;
    double t0 = core_time_mono();
    if (lesson_regrade(cx->session, a->argv[0], &n, &e) != CORE_OK)
        return cli_fail(&e);
    double secs = core_time_mono() - t0;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "pack", a->argv[0]);
        core_json_kint(&j, "regraded", (long long)n);
        core_json_knum(&j, "seconds", secs);
        cli_json_close(&b, &j);
    } else {
        printf("re-graded %zu attempts of %s in %.2f s\n", n, a->argv[0], secs);
    }
    return CLI_EXIT_OK;
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
    if (strcmp(sub, "list") == 0)
        return pack_list(cx, a, cmd);
    if (strcmp(sub, "regrade") == 0)
        return pack_regrade(cx, a, cmd);
    return cli_usage(cmd, "unknown pack command \"%s\"", sub);
}
