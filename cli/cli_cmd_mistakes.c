/* cli_cmd_mistakes.c — `warpbench mistakes [PACK] [--all]`: the questions
 * the student answered wrong, gave up on or missed in an exam, newest
 * first, with what went wrong and the command that tries each again on new
 * numbers (lessons' lesson_mistakes_load). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

/* "2026-11-21T10:00:00.123Z" -> "2026-11-21 10:00" */
static void when_text(const char *iso, char *buf, size_t n)
{
    snprintf(buf, n, "%s", iso ? iso : "");
    if (strlen(buf) >= 16) {
        buf[10] = ' ';
        buf[16] = '\0';
    }
}

int cli_cmd_mistakes(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("mistakes");
    bool all = cli_take_flag(a, "--all", false, NULL, NULL);
    int rc = cli_begin(cx, cmd, a, 0, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    struct core_err e = {0};
    if (pack) {
        struct db_pack pk = {0};
        if (db_pack_get(cx->db, pack, &pk, &e) != CORE_OK)
            return cli_fail(&e);
        db_pack_fini(&pk);
    }
    struct lesson_mistake *m = NULL;
    size_t n = 0;
    if (lesson_mistakes_load(cx->session, pack, all, &m, &n, &e) != CORE_OK)
        return cli_fail(&e);
    size_t open = 0;
    for (size_t i = 0; i < n; i++)
        open += !m[i].cleared;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "user", cx->user);
        core_json_kstr(&j, "pack", pack);
        core_json_kint(&j, "open", (long long)open);
        core_json_key(&j, "mistakes");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "pack", m[i].pack_id);
            core_json_kstr(&j, "lesson", m[i].lesson_id);
            core_json_kstr(&j, "question", m[i].question_id);
            core_json_kstr(&j, "title", m[i].title);
            core_json_kstr(&j, "lesson_title", m[i].lesson_title);
            core_json_kstr(&j, "why", lesson_mistake_kind_name(m[i].kind));
            core_json_kstr(&j, "when", m[i].when);
            core_json_kstr(&j, "answer", m[i].answer);
            core_json_kstr(&j, "what", m[i].what);
            core_json_knum(&j, "score", m[i].score);
            core_json_knum(&j, "points", m[i].points);
            core_json_kint(&j, "variant", m[i].variant);
            core_json_kint(&j, "retry_variant", m[i].retry_variant);
            core_json_kbool(&j, "exam", m[i].exam);
            core_json_kbool(&j, "cleared", m[i].cleared);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else if (n == 0) {
        printf("no mistakes to review%s: every question you answered is right (or not graded "
               "yet)\n",
               pack ? " in this pack" : "");
    } else {
        printf("%zu question%s to review, newest first (answer one right and it leaves the "
               "list):\n",
               open, open == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
            const struct lesson_mistake *x = &m[i];
            char when[24];
            when_text(x->when, when, sizeof when);
            const char *mark = x->cleared                          ? "✓"
                               : x->kind == LESSON_MISTAKE_GAVE_UP ? "h"
                               : x->kind == LESSON_MISTAKE_PARTLY  ? "~"
                                                                   : "✗";
            printf("\n%s %s:%s  %s%s\n", mark, x->pack_id, x->question_id, cli_tx1(x->title),
                   x->exam ? "  (exam)" : "");
            printf("  %s · %s%s\n", when, cli_tx1(x->lesson_title),
                   x->cleared ? " · answered right since" : "");
            if (x->answer)
                printf("  you answered: %s\n", cli_tx1(x->answer));
            if (x->what)
                printf("  %s\n", cli_tx1(x->what));
            if (!x->cleared) {
                if (x->retry_variant != 1)
                    printf("  try again on new numbers: warpbench question %s:%s --variant %d\n",
                           x->pack_id, x->question_id, x->retry_variant);
                else
                    printf("  try again: warpbench question %s:%s\n", x->pack_id, x->question_id);
            }
        }
    }
    lesson_mistakes_free(m, n);
    return CLI_EXIT_OK;
}
