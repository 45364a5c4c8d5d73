/* cli_cmd_submit.c — `warpbench submit [PACK] [--out FILE] [--student-id ID]
 * [--force]`: a student writes everything they did (in PACK, or in every
 * pack) to one new submission file for their instructor. The store is only
 * read. */
#include "cli/cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* submission-<user>-<UTC time>.wbsub in the current folder (a name that is
 * taken gets a suffix, so submitting twice makes a second file). */
static char *default_name(const char *user)
{
    char now[32];
    core_time_iso(core_time_wall(), now);
    char stamp[20];
    /* "2026-11-21T10:00:00.123Z" -> "20261121-100000" */
    snprintf(stamp, sizeof stamp, "%.4s%.2s%.2s-%.2s%.2s%.2s", now, now + 5, now + 8, now + 11,
             now + 14, now + 17);
    char *u = core_xstrdup(user);
    for (char *p = u; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
            *p = '_';
    char *name = core_xasprintf("submission-%s-%s.wbsub", u, stamp);
    struct stat st;
    for (int k = 2; lstat(name, &st) == 0 && k < 1000; k++) {
        free(name);
        name = core_xasprintf("submission-%s-%s-%d.wbsub", u, stamp, k);
    }
    free(u);
    return name;
}

int cli_cmd_submit(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("submit");
    const char *out = NULL, *sid = NULL;
    bool missing = false;
    cli_take_flag(a, "--out", true, &out, &missing);
    cli_take_flag(a, "--student-id", true, &sid, &missing);
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    if (missing)
        return cli_usage(cmd, "--out and --student-id need a value");
    if (sid && (!*sid || strlen(sid) > 64))
        return cli_usage(cmd, "a student id is 1 to 64 characters");
    int rc = cli_begin(cx, cmd, a, 0, 1, CLI_NEED_SESSION);
    if (rc)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    char *path = out ? core_xstrdup(out) : default_name(cx->user);
    struct core_err e = {0};
    struct lesson_submit_report rep;
    if (lesson_submit_write(cx->db, lesson_session_user_id(cx->session), cx->user, pack, sid, path,
                            force, &rep, &e) != CORE_OK) {
        free(path);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "file", path);
        core_json_kstr(&j, "uid", rep.uid);
        core_json_kstr(&j, "user", cx->user);
        core_json_kstr(&j, "student_id", rep.student_id);
        core_json_kstr(&j, "pack", pack);
        core_json_kint(&j, "packs", (long long)rep.n_packs);
        core_json_kint(&j, "attempts", (long long)rep.n_attempts);
        core_json_kint(&j, "giveups", (long long)rep.n_giveups);
        core_json_kint(&j, "self_scores", (long long)rep.n_selfscores);
        core_json_kint(&j, "self_ratings", (long long)rep.n_ratings);
        core_json_kint(&j, "exams", (long long)rep.n_exams);
        core_json_kint(&j, "lab_runs", (long long)rep.n_runs);
        core_json_kint(&j, "lab_samples", (long long)rep.n_samples);
        cli_json_close(&b, &j);
    } else {
        printf("wrote %s for %s%s%s%s: %zu attempt%s, %zu give-up%s, %zu design self-score%s, "
               "%zu self-rating%s, %zu lab run%s (%zu samples) in %zu pack%s\n",
               cli_tx(path), cli_tx(cx->user), rep.student_id ? " (student id " : "",
               rep.student_id ? cli_tx(rep.student_id) : "", rep.student_id ? ")" : "",
               rep.n_attempts, rep.n_attempts == 1 ? "" : "s", rep.n_giveups,
               rep.n_giveups == 1 ? "" : "s", rep.n_selfscores, rep.n_selfscores == 1 ? "" : "s",
               rep.n_ratings, rep.n_ratings == 1 ? "" : "s", rep.n_runs, rep.n_runs == 1 ? "" : "s",
               rep.n_samples, rep.n_packs, rep.n_packs == 1 ? "" : "s");
        printf("submission %s; hand the file to your instructor (nothing in your store "
               "changed)\n",
               rep.uid);
    }
    lesson_submit_report_fini(&rep);
    free(path);
    return CLI_EXIT_OK;
}
