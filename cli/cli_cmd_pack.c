/* cli_cmd_pack.c — `warpbench pack check|import|export|list|regrade`, the
 * instructor's commands. `pack check` needs no store. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

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
    if (rc == CORE_OK)
        printf("ok: %s %s — %zu lesson%s, %zu page%s, %zu question%s, %zu self-check%s passed\n",
               c->pack_id, cli_tx(c->version), c->n_lessons, c->n_lessons == 1 ? "" : "s",
               c->n_pages, c->n_pages == 1 ? "" : "s", c->n_questions,
               c->n_questions == 1 ? "" : "s", c->n_checks, c->n_checks == 1 ? "" : "s");
    else
        fprintf(stderr, "%s: %zu problem%s\n", dir, c->problems.n, c->problems.n == 1 ? "" : "s");
}

static int pack_check(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    int rc = cli_check_args(cmd, a, 1, 1);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c;
    rc = lesson_pack_check(&src, &c, NULL, &e);
    print_check(a->argv[0], &c, cx->json, rc);
    lesson_check_fini(&c);
    lesson_src_fini(&src);
    return rc == CORE_OK ? CLI_EXIT_OK : cli_exit_for(rc);
}

static int pack_import(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_STORE);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_src src;
    if (lesson_src_read(a->argv[0], &src, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_check c = {0};
    enum db_import_result res = DB_IMPORT_UNCHANGED;
    rc = lesson_pack_import(cx->db, &src, force, &c, &res, &e);
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
            printf("%-24s %-10s %3d lesson%s %4d question%s  imported %s  %s\n", packs[i].id,
                   cli_tx(packs[i].version), packs[i].n_lessons, packs[i].n_lessons == 1 ? " " : "s",
                   packs[i].n_questions, packs[i].n_questions == 1 ? " " : "s",
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
        printf("%s %s %s: %zu attempts checked, %zu %s, %zu failed", opts.dry_run ? "dry run of" :
               "re-graded", rep.pack_id, cli_tx(rep.version), rep.n_checked, rep.n_changed,
               opts.dry_run ? "would change (nothing written)" :
               rep.written ? "changed (written)" : "changed", rep.n_failed);
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
    if (strcmp(sub, "list") == 0)
        return pack_list(cx, a, cmd);
    if (strcmp(sub, "regrade") == 0)
        return pack_regrade(cx, a, cmd);
    return cli_usage(cmd, "unknown pack command \"%s\"", sub);
}
