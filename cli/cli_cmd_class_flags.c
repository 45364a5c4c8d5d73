/* cli_cmd_class_flags.c — `warpbench class flags|clear|roster|regrade`:
 * what the imports found that a grade must not rest on, the instructor's
 * clearing of it, the class list the gradebook's identities come from, and
 * grading the whole class again. */
#include "cli/cli.h"
#include "labs/lab.h"

#include <stdlib.h>
#include <string.h>

int cli_class_flags(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                    const char *class_path)
{
    bool all = cli_take_flag(a, "--all", false, NULL, NULL);
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 0, class_path, &c);
    if (rc)
        return rc;
    struct core_err e = {0};
    struct db_class_flag *f = NULL;
    size_t n = 0;
    if (db_class_flags(c.cs, 0, all, &f, &n, &e) != CORE_OK) {
        cli_class_close(&c);
        return cli_fail(&e);
    }
    size_t open = 0, blocking = 0;
    for (size_t i = 0; i < n; i++) {
        open += !f[i].cleared;
        blocking += !f[i].cleared && f[i].blocking;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_kint(&j, "open", (long long)open);
        core_json_kint(&j, "blocking", (long long)blocking);
        core_json_key(&j, "flags");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "id", f[i].id);
            core_json_kstr(&j, "student", f[i].student_key);
            core_json_kstr(&j, "user", f[i].user);
            core_json_kstr(&j, "kind", f[i].kind);
            core_json_kbool(&j, "blocking", f[i].blocking);
            core_json_kstr(&j, "pack", f[i].pack_id);
            core_json_kstr(&j, "lesson", f[i].lesson_id);
            core_json_kstr(&j, "question", f[i].question_id);
            core_json_kint_if(&j, "attempt", f[i].src_attempt != 0, f[i].src_attempt);
            core_json_kstr(&j, "reason", f[i].reason);
            core_json_kstr(&j, "found_at", f[i].created_at);
            core_json_kbool(&j, "current", f[i].current);
            core_json_kbool(&j, "cleared", f[i].cleared);
            core_json_kstr(&j, "cleared_why", f[i].clear_why);
            core_json_kstr(&j, "cleared_at", f[i].cleared_at);
            core_json_kstr(&j, "cleared_by", f[i].cleared_by);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < n; i++) {
            printf("#%-5lld %-16s %-24s", (long long)f[i].id, cli_tx1(f[i].student_key),
                   cli_tx1(f[i].kind));
            if (f[i].question_id)
                printf(" %s:%s", cli_tx1(f[i].pack_id), cli_tx1(f[i].question_id));
            else if (f[i].lesson_id)
                printf(" %s:%s", cli_tx1(f[i].pack_id), cli_tx1(f[i].lesson_id));
            else if (f[i].pack_id)
                printf(" %s", cli_tx1(f[i].pack_id));
            if (f[i].src_attempt)
                printf(" attempt %lld", (long long)f[i].src_attempt);
            if (f[i].cleared)
                printf("  [cleared: %s]", cli_tx1(f[i].clear_why));
            else if (f[i].blocking)
                printf("  [no credit until cleared]");
            printf("\n        %s\n", cli_tx1(f[i].reason));
        }
        printf("%zu flag%s, %zu open (%zu withholding credit)%s\n", n, n == 1 ? "" : "s", open,
               blocking, all ? "" : " in the current submissions (--all: every submission)");
        if (blocking)
            printf("clear one, once you have checked it: warpbench class clear FLAG --why "
                   "\"what you found\"\n");
    }
    db_class_flags_free(f, n);
    cli_class_close(&c);
    return CLI_EXIT_OK;
}

int cli_class_clear(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                    const char *class_path)
{
    const char *why = NULL;
    bool missing = false;
    cli_take_flag(a, "--why", true, &why, &missing);
    if (missing || !why || !*why)
        return cli_usage(cmd, "clear FLAG --why TEXT: say what you found (it is recorded)");
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 1, 1, class_path, &c);
    if (rc)
        return rc;
    int id = 0;
    if (!cli_parse_int(a->argv[0][0] == '#' ? a->argv[0] + 1 : a->argv[0], 2000000000, &id)) {
        cli_class_close(&c);
        return cli_usage(cmd, "clear needs a flag number (warpbench class flags lists them)");
    }
    struct core_err e = {0};
    if (db_class_clear(c.cs, id, why, cx->user, &e) != CORE_OK) {
        cli_class_close(&c);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "flag", id);
        core_json_kstr(&j, "why", why);
        cli_json_close(&b, &j);
    } else {
        printf("flag #%d cleared (%s); the gradebook counts what it withheld\n", id, cli_tx1(why));
    }
    cli_class_close(&c);
    return CLI_EXIT_OK;
}

int cli_class_roster(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                     const char *class_path)
{
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 1, 1, class_path, &c);
    if (rc)
        return rc;
    struct core_err e = {0};
    struct core_strlist warn;
    core_strlist_init(&warn);
    size_t n = 0;
    rc = lesson_roster_load(c.cs, a->argv[0], &warn, &n, &e);
    if (rc != CORE_OK) {
        core_strlist_fini(&warn);
        cli_class_close(&c);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "students", (long long)n);
        core_json_key(&j, "warnings");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < warn.n; i++)
            core_json_str(&j, warn.items[i]);
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < warn.n; i++)
            fprintf(stderr, "warpbench: roster: %s\n", cli_tx1(warn.items[i]));
        printf("roster of %s: %zu student%s\n", cli_tx1(c.path), n, n == 1 ? "" : "s");
    }
    core_strlist_fini(&warn);
    cli_class_close(&c);
    return CLI_EXIT_OK;
}

int cli_class_regrade(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd,
                      const char *class_path)
{
    bool dry = cli_take_flag(a, "--dry-run", false, NULL, NULL);
    struct class_cx c;
    int rc = cli_class_begin(cx, a, cmd, 0, 1, class_path, &c);
    if (rc)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    struct lesson_class_opts opts = {.run_check = lab_run_plausible};
    struct lesson_class_regrade r;
    struct core_err e = {0};
    double t0 = core_time_mono();
    if (lesson_class_regrade(cx->session, c.cs, pack, dry, &opts, &r, &e) != CORE_OK) {
        cli_class_close(&c);
        return cli_fail(&e);
    }
    double secs = core_time_mono() - t0;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "class", c.path);
        core_json_kbool(&j, "dry_run", dry);
        core_json_kbool(&j, "written", r.written);
        core_json_kint(&j, "students", (long long)r.n_students);
        core_json_kint(&j, "answers", (long long)r.n_answers);
        core_json_kint(&j, "changed_students", (long long)r.n_changed_students);
        core_json_kint(&j, "record_disagrees", (long long)r.n_disagree);
        core_json_kint(&j, "failed", (long long)r.n_failed);
        core_json_kint(&j, "blocking_flags", (long long)r.n_blocking);
        core_json_key(&j, "changes");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < r.n_changes; i++) {
            const struct lesson_class_regrade_change *ch = &r.changes[i];
            core_json_obj_begin(&j);
            core_json_kstr(&j, "student", ch->key);
            core_json_kstr(&j, "user", ch->user);
            core_json_kstr(&j, "pack", ch->pack_id);
            core_json_kstr(&j, "question", ch->question_id);
            core_json_knum(&j, "old", ch->old_points);
            core_json_knum(&j, "new", ch->new_points);
            core_json_knum(&j, "max", ch->max);
            core_json_kstr(&j, "why", ch->why);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_knum(&j, "seconds", secs);
        cli_json_close(&b, &j);
    } else {
        for (size_t i = 0; i < r.n_changes; i++) {
            const struct lesson_class_regrade_change *ch = &r.changes[i];
            char o[32], n[32], m[32];
            lesson_score_format(ch->old_points, o, sizeof o);
            lesson_score_format(ch->new_points, n, sizeof n);
            lesson_score_format(ch->max, m, sizeof m);
            if (ch->question_id)
                printf("  %-16s %s:%s  %s -> %s of %s  (%s)\n", cli_tx1(ch->key),
                       cli_tx1(ch->pack_id), cli_tx1(ch->question_id), o, n, m, cli_tx1(ch->why));
            else
                printf("%-18s total %s -> %s of %s\n", cli_tx1(ch->key), o, n, m);
        }
        printf("%s %s: %zu student%s, %zu answer%s graded again; the points of %zu student%s "
               "%s; %zu practice answer%s where the student's record disagrees; %zu grader "
               "failure%s; %zu flag%s withholding credit (%.2f s)\n",
               dry ? "dry run of" : "re-graded", cli_tx1(c.path), r.n_students,
               r.n_students == 1 ? "" : "s", r.n_answers, r.n_answers == 1 ? "" : "s",
               r.n_changed_students, r.n_changed_students == 1 ? "" : "s",
               dry ? "would change (nothing written)" : "changed", r.n_disagree,
               r.n_disagree == 1 ? "" : "s", r.n_failed, r.n_failed == 1 ? "" : "s", r.n_blocking,
               r.n_blocking == 1 ? "" : "s", secs);
    }
    lesson_class_regrade_fini(&r);
    cli_class_close(&c);
    return CLI_EXIT_OK;
}
