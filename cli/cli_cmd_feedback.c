/* cli_cmd_feedback.c — `warpbench feedback import FILE`: a student brings
 * their instructor's reviews (a feedback file from `class feedback`) into
 * their store, where a reviewed score counts instead of the automatic one
 * (progress, the question's history). Also what progress prints of them. */
#include "cli/cli.h"

#include <string.h>

static int feedback_import(struct cli_ctx *cx, struct cli_args *a, const struct cli_command *cmd)
{
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc)
        return rc;
    struct core_err e = {0};
    struct lesson_feedback_import rep;
    if (lesson_feedback_import(cx->db, lesson_session_user_id(cx->session), cx->user, a->argv[0],
                               &rep, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "file", a->argv[0]);
        core_json_kint(&j, "reviews", (long long)rep.n_reviews);
        core_json_kint(&j, "added", (long long)rep.n_added);
        core_json_kint(&j, "known", (long long)rep.n_known);
        core_json_kint(&j, "mismatched", (long long)rep.n_mismatch);
        cli_json_close(&b, &j);
    } else {
        printf("%s: %zu official grade%s (%zu new), %zu review%s, %zu new, %zu imported before",
               cli_tx1(a->argv[0]), rep.n_grades, rep.n_grades == 1 ? "" : "s", rep.n_grades_added,
               rep.n_reviews, rep.n_reviews == 1 ? "" : "s", rep.n_added, rep.n_known);
        if (rep.n_mismatch)
            printf(", %zu naming no answer of yours (not stored)", rep.n_mismatch);
        printf("\n");
        if (rep.n_added)
            printf("reviewed scores now count in your progress (warpbench progress) and show in "
                   "each question's history\n");
        if (rep.n_grades_added)
            printf("your graded work's official grades show in warpbench progress, marked "
                   "official\n");
    }
    return CLI_EXIT_OK;
}

int cli_cmd_feedback(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("feedback");
    if (a->argc < 1)
        return cli_usage(cmd, "which feedback command?");
    const char *sub = a->argv[0];
    a->argc--;
    a->argv++;
    if (strcmp(sub, "import") == 0)
        return feedback_import(cx, a, cmd);
    return cli_usage(cmd, "unknown feedback command \"%s\"", sub);
}

void cli_reviews_print(struct cli_ctx *cx, const char *pack, struct core_json *j)
{
    struct core_err e = {0};
    struct db_review_row *r = NULL;
    size_t n = 0;
    if (db_review_list(cx->db, lesson_session_user_id(cx->session), pack, &r, &n, &e) != CORE_OK)
        n = 0; /* progress still shows the rest */
    if (j) {
        core_json_key(j, "reviews");
        core_json_arr_begin(j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(j);
            core_json_kstr(j, "pack", r[i].pack_id);
            core_json_kstr(j, "question", r[i].question_id);
            core_json_kint(j, "attempt", r[i].attempt_id);
            core_json_knum(j, "score", r[i].score);
            core_json_knum(j, "max", r[i].max);
            core_json_knum_if(j, "automatic", r[i].auto_valid, r[i].auto_score);
            core_json_kstr(j, "comment", r[i].comment);
            core_json_kstr(j, "reviewer", r[i].reviewer);
            core_json_kstr(j, "reviewed_at", r[i].reviewed_at);
            core_json_obj_end(j);
        }
        core_json_arr_end(j);
    } else if (n) {
        printf("\nreviewed by your instructor (these scores count instead of the automatic "
               "ones):\n");
        for (size_t i = 0; i < n; i++) {
            char id[160], sc[32], mx[32], au[32];
            snprintf(id, sizeof id, "%s:%s", r[i].pack_id, r[i].question_id);
            lesson_score_format(r[i].score, sc, sizeof sc);
            lesson_score_format(r[i].max, mx, sizeof mx);
            lesson_score_format(r[i].auto_score, au, sizeof au);
            printf("  %-30s reviewed %s/%s (automatic %s)%s%s\n", cli_tx1(id), sc, mx,
                   r[i].auto_valid ? au : "not read", r[i].comment && *r[i].comment ? ": " : "",
                   cli_tx1(r[i].comment));
        }
    }
    db_review_rows_free(r, n);
}

void cli_officials_print(struct cli_ctx *cx, const char *pack, struct core_json *j)
{
    struct core_err e = {0};
    struct db_official *o = NULL;
    size_t n = 0;
    if (db_official_list(cx->db, lesson_session_user_id(cx->session), pack, &o, &n, &e) != CORE_OK)
        n = 0; /* progress still shows the rest */
    if (j) {
        core_json_key(j, "official");
        core_json_arr_begin(j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(j);
            core_json_kstr(j, "pack", o[i].pack_id);
            core_json_kstr(j, "lesson", o[i].lesson_id);
            core_json_kstr(j, "question", o[i].question_id);
            core_json_knum_if(j, "score", o[i].has_score, o[i].score);
            core_json_knum(j, "max", o[i].max);
            core_json_kstr(j, "status", o[i].status);
            core_json_kstr(j, "note", o[i].note);
            core_json_kstr(j, "graded_at", o[i].graded_at);
            core_json_obj_end(j);
        }
        core_json_arr_end(j);
    } else if (n) {
        printf("\nofficial grades from your instructor (your graded work):\n");
        for (size_t i = 0; i < n; i++) {
            char id[200], sc[32], mx[32];
            if (o[i].question_id)
                snprintf(id, sizeof id, "  %s:%s", o[i].pack_id, o[i].question_id);
            else
                snprintf(id, sizeof id, "%s:%s (lesson)", o[i].pack_id, o[i].lesson_id);
            lesson_score_format(o[i].score, sc, sizeof sc);
            lesson_score_format(o[i].max, mx, sizeof mx);
            printf("  %-40s ", cli_tx(id));
            if (o[i].has_score)
                printf("%s/%s", sc, mx);
            else
                printf("held (of %s)", mx);
            printf("  %s%s%s\n", cli_tx(o[i].status), o[i].note && *o[i].note ? ": " : "",
                   cli_tx(o[i].note));
        }
    }
    db_officials_free(o, n);
}
