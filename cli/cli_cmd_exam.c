/* cli_cmd_exam.c — `warpbench exam start|status|submit LESSON`: sitting a
 * lesson in exam mode (one try per question, no feedback, hints or
 * solutions until it is submitted, an optional time limit), then its
 * score, the course rubric items it evidences, and the level. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static void json_exam(struct core_json *j, const struct lesson_exam *x)
{
    core_json_kstr(j, "pack", x->pack_id);
    core_json_kstr(j, "lesson", x->lesson_id);
    core_json_kstr(j, "title", x->title);
    core_json_kint_if(j, "time_limit_s", x->time_limit_s > 0, x->time_limit_s);
    core_json_kbool(j, "started", x->started);
    core_json_kbool(j, "over", x->over);
    core_json_kbool(j, "submitted", x->submitted);
    core_json_kstr(j, "started_at", x->started_at);
    core_json_kstr(j, "deadline", x->deadline);
    core_json_kstr(j, "submitted_at", x->submitted_at);
    core_json_knum_if(j, "seconds_left", x->started && !x->over && x->time_limit_s > 0,
                      x->seconds_left);
    core_json_kint(j, "questions", x->n_questions);
    core_json_kint(j, "answered", x->n_answered);
    /* a sealed exam: graded by the instructor; official grades come with a feedback file */
    bool graded = x->over && (!x->sealed || x->n_official > 0);
    core_json_kbool(j, "sealed", x->sealed);
    core_json_kint(j, "official", x->n_official);
    core_json_knum_if(j, "score", graded, x->score);
    core_json_knum(j, "max", x->max);
    core_json_key(j, "rubric");
    core_json_arr_begin(j);
    for (int i = 0; graded && i < LESSON_RUBRIC_N; i++) {
        const struct lesson_item_standing *it = &x->standing.items[i];
        if (it->questions == 0)
            continue;
        core_json_obj_begin(j);
        core_json_kstr(j, "item", it->item->id);
        core_json_kstr(j, "title", it->item->title);
        core_json_knum(j, "graded", it->graded);
        core_json_knum(j, "max", it->item->max);
        core_json_kint(j, "questions", it->questions);
        core_json_kint(j, "answered", it->answered);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_knum_if(j, "rubric_total", graded, x->rubric_total);
    core_json_kstr(j, "level", graded ? x->level : NULL);
}

static void print_left(double s)
{
    int m = (int)(s / 60), sec = (int)s % 60;
    printf("%d:%02d left", m, sec);
}

static void print_exam(const struct lesson_exam *x)
{
    printf("exam %s:%s — %s\n", x->pack_id, x->lesson_id, cli_tx(x->title));
    char lim[32];
    lesson_duration_format(x->time_limit_s, lim, sizeof lim);
    if (x->time_limit_s > 0)
        printf("  time limit: %s\n", lim);
    else
        printf("  no time limit\n");
    printf("  one try per question; %s\n",
           x->sealed ? "your instructor grades it after you submit (graded work of a class)"
                     : "no feedback, hints or solutions until you submit");
    if (!x->started) {
        printf("  not started: %s\n", x->time_limit_s > 0
                                          ? "warpbench exam start LESSON starts the clock"
                                          : "it starts with your first answer");
        printf("  %d question%s\n", x->n_questions, x->n_questions == 1 ? "" : "s");
        return;
    }
    printf("  started %s", x->started_at);
    if (!x->over && x->time_limit_s > 0) {
        printf("; ");
        print_left(x->seconds_left);
    }
    printf("\n  answered %d of %d\n", x->n_answered, x->n_questions);
    if (!x->over) {
        printf("  submit with: warpbench exam submit %s\n", x->lesson_id);
        return;
    }
    char sc[32], mx[32];
    lesson_score_format(x->score, sc, sizeof sc);
    lesson_score_format(x->max, mx, sizeof mx);
    printf("  %s %s\n", x->submitted ? "submitted" : "time ran out at",
           x->submitted ? x->submitted_at : x->deadline);
    if (x->sealed && x->n_official == 0) {
        printf("\nrecorded for your instructor, who grades it: hand in your work with warpbench "
               "submit; the grades come back in a feedback file (warpbench feedback import "
               "FILE)\n");
        return;
    }
    printf("\n%sscore: %s of %s points\n", x->sealed ? "official " : "", sc, mx);
    printf("\ncourse rubric items this exam evidences:\n");
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        const struct lesson_item_standing *it = &x->standing.items[i];
        if (it->questions == 0)
            continue;
        char g[32], m[32];
        lesson_score_format(it->graded, g, sizeof g);
        lesson_score_format(it->item->max, m, sizeof m);
        printf("  %-22s %5s/%-3s  %s\n", it->item->id, g, m, it->item->title);
    }
    char tot[32];
    lesson_score_format(x->rubric_total, tot, sizeof tot);
    printf("\nlevel: %s (%s of 100 on the items it covers): %s\n", x->level, tot,
           lesson_level_meaning(x->rubric_total));
    printf("each answer's feedback: warpbench question QID\n");
}

int cli_cmd_exam(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("exam");
    if (a->argc < 1)
        return cli_usage(cmd, "start, status or submit?");
    const char *sub = a->argv[0];
    a->argc--;
    a->argv++;
    int (*fn)(struct lesson_session *, const char *, struct lesson_exam *, struct core_err *);
    if (strcmp(sub, "start") == 0)
        fn = lesson_exam_start;
    else if (strcmp(sub, "status") == 0)
        fn = lesson_exam_status;
    else if (strcmp(sub, "submit") == 0)
        fn = lesson_exam_submit;
    else
        return cli_usage(cmd, "unknown exam command \"%s\" (start, status or submit)", sub);
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_exam x;
    if (fn(cx->session, a->argv[0], &x, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        json_exam(&j, &x);
        cli_json_close(&b, &j);
    } else {
        print_exam(&x);
    }
    lesson_exam_fini(&x);
    return CLI_EXIT_OK;
}
