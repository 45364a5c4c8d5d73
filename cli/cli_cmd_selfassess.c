/* cli_cmd_selfassess.c — `warpbench selfassess`: the student rates
 * themselves on the course's 100-point rubric, item by item, and the ratings
 * are stored as one dated self-assessment (the latest rating of an item is
 * the one `warpbench progress` shows beside the graded score).
 *
 * Two ways in: `--set ITEM=SCORE` (repeatable, for scripts; a mistake is a
 * usage error naming the item and its range) or, on a terminal, one prompt
 * per rubric item (Enter keeps the last rating or skips the item, q or end
 * of input stops without storing, a mistake is explained and asked again). */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a score: a plain decimal number (no unit, no expression). */
static bool parse_score(const char *s, double *out)
{
    return core_num_parse(s, strlen(s), CORE_NUM_BLANKS, out, NULL, NULL) == 0;
}

static void print_items(FILE *f)
{
    const struct lesson_rubric_item *r = lesson_rubric_items();
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        fprintf(f, "  %-22s 0 to %-3g %s\n", r[i].id, r[i].max, r[i].title);
}

/* Parses every --set into sc[] (indexed like lesson_rubric_items()).
 * Returns 0, or prints a usage error and returns CLI_EXIT_USAGE. */
static int take_sets(const struct cli_command *cmd, struct cli_args *a, bool set[], double sc[],
                     int *n_set)
{
    const struct lesson_rubric_item *r = lesson_rubric_items();
    const char *v = NULL;
    bool missing = false;
    *n_set = 0;
    while (cli_take_flag(a, "--set", true, &v, &missing)) {
        if (missing || !v)
            return cli_usage(cmd, "--set needs ITEM=SCORE, e.g. --set theory.gpu=7");
        const char *eq = strchr(v, '=');
        if (!eq || eq == v)
            return cli_usage(cmd, "--set needs ITEM=SCORE, e.g. --set theory.gpu=7, not \"%s\"",
                             cli_tx(v));
        char *name = core_xstrndup(v, (size_t)(eq - v));
        const struct lesson_rubric_item *it = lesson_rubric_find(name);
        if (!it) {
            fprintf(stderr, "warpbench: unknown rubric item \"%s\"; the items are:\n",
                    cli_tx(name));
            print_items(stderr);
            free(name);
            return cli_usage(cmd, "use one of the items above");
        }
        free(name);
        int i = (int)(it - r);
        double score;
        if (!parse_score(eq + 1, &score) || score < 0 || score > it->max)
            return cli_usage(cmd, "%s is scored from 0 to %g, not \"%s\"", it->id, it->max,
                             cli_tx(eq + 1));
        if (set[i])
            return cli_usage(cmd, "%s is set twice", it->id);
        set[i] = true;
        sc[i] = score;
        (*n_set)++;
    }
    if (missing)
        return cli_usage(cmd, "--set needs ITEM=SCORE, e.g. --set theory.gpu=7");
    return 0;
}

/* Asks for every item on the terminal, filling set[] and sc[] for the
 * items given a score; *cancelled on q or end of input. */
static void ask(FILE *out, const struct db_selfassess *last, size_t n_last, bool set[], double sc[],
                int *n_set, bool *cancelled)
{
    const struct lesson_rubric_item *r = lesson_rubric_items();
    static const struct {
        const char *area, *title;
    } areas[] = {{"theory", "Theoretical understanding (40 points)"},
                 {"practice", "Practical skills (40 points)"},
                 {"advanced", "Advanced applications (20 points)"}};
    char *line = NULL;
    size_t cap = 0;
    *cancelled = false;
    *n_set = 0;
    fprintf(out, "Rate yourself on the course rubric (100 points in all). For each item type\n"
                 "a score from 0 to its maximum; Enter keeps your last rating (or skips an\n"
                 "item you have not rated yet); q or Ctrl-D stops without storing anything.\n");
    const char *area = "";
    for (int i = 0; i < LESSON_RUBRIC_N && !*cancelled; i++) {
        if (strcmp(area, r[i].area) != 0) {
            area = r[i].area;
            for (size_t k = 0; k < sizeof areas / sizeof areas[0]; k++)
                if (strcmp(areas[k].area, area) == 0)
                    fprintf(out, "\n%s\n", areas[k].title);
        }
        const struct db_selfassess *prev = NULL;
        for (size_t k = 0; k < n_last; k++)
            if (strcmp(last[k].item, r[i].id) == 0)
                prev = &last[k];
        for (;;) {
            if (prev)
                fprintf(out, "  %s (%s) [0-%g, last %g]: ", r[i].title, r[i].id, r[i].max,
                        r[i].max * prev->score / prev->max);
            else
                fprintf(out, "  %s (%s) [0-%g]: ", r[i].title, r[i].id, r[i].max);
            fflush(out);
            ssize_t len = getline(&line, &cap, stdin);
            if (len < 0) {
                fprintf(out, "\n");
                *cancelled = true;
                break;
            }
            while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                line[--len] = '\0';
            char *s = line;
            while (*s == ' ' || *s == '\t')
                s++;
            if (!*s)
                break; /* keep / skip */
            if (strcmp(s, "q") == 0 || strcmp(s, "Q") == 0) {
                *cancelled = true;
                break;
            }
            double v;
            if (!parse_score(s, &v)) {
                fprintf(out,
                        "    \"%s\" is not a number: type a score from 0 to %g, Enter to "
                        "skip, q to stop\n",
                        cli_tx(s), r[i].max);
                continue;
            }
            if (v < 0 || v > r[i].max) {
                fprintf(out, "    %g is out of range: this item is scored from 0 to %g\n", v,
                        r[i].max);
                continue;
            }
            set[i] = true;
            sc[i] = v;
            (*n_set)++;
            break;
        }
    }
    free(line);
}

int cli_cmd_selfassess(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("selfassess");
    const struct lesson_rubric_item *r = lesson_rubric_items();
    bool set[LESSON_RUBRIC_N] = {false};
    double sc[LESSON_RUBRIC_N] = {0};
    int n_set = 0;
    int rc = take_sets(cmd, a, set, sc, &n_set);
    if (rc != 0)
        return rc;
    bool interactive = n_set == 0, cancelled = false;
    rc = cli_check_args(cmd, a, 0, 0);
    if (rc != 0)
        return rc;
    if (interactive && !isatty(STDIN_FILENO))
        return cli_usage(cmd, "without --set, selfassess asks one question per rubric item on a "
                              "terminal; in a script give --set ITEM=SCORE for each item");
    rc = cli_begin(cx, cmd, a, 0, 0, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    int64_t uid = lesson_session_user_id(cx->session);
    struct db_selfassess *last = NULL;
    size_t n_last = 0;
    if (interactive) {
        if (db_selfassess_latest(cx->db, uid, &last, &n_last, &e) != CORE_OK)
            return cli_fail(&e);
        /* With --json the document owns stdout: the conversation goes to stderr. */
        ask(cx->json ? stderr : stdout, last, n_last, set, sc, &n_set, &cancelled);
        db_selfassess_free(last, n_last);
        last = NULL;
        if (cancelled) {
            fprintf(cx->json ? stderr : stdout, "stopped: nothing was stored\n");
            memset(set, 0, sizeof set);
            n_set = 0;
        }
    }
    struct db_selfassess_in in[LESSON_RUBRIC_N];
    size_t n = 0;
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        if (set[i])
            in[n++] = (struct db_selfassess_in){r[i].id, sc[i], r[i].max};
    if (db_selfassess_insert_many(cx->db, uid, in, n, &e) != CORE_OK)
        return cli_fail(&e);
    struct lesson_standing st;
    if (lesson_standing_load(cx->db, uid, NULL, &st, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "user", cx->user);
        core_json_key(&j, "stored");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "item", in[i].item);
            core_json_knum(&j, "score", in[i].score);
            core_json_knum(&j, "max", in[i].max);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_kint(&j, "rated_items", st.n_rated);
        core_json_knum(&j, "self_total", st.self_total);
        core_json_kstr(&j, "self_level", st.self_level);
        cli_json_close(&b, &j);
    } else if (n > 0) {
        printf("stored %zu rating%s for %s:\n", n, n == 1 ? "" : "s", cli_tx(cx->user));
        for (size_t i = 0; i < n; i++)
            printf("  %-22s %g/%g\n", in[i].item, in[i].score, in[i].max);
        if (st.self_level)
            printf("self-rated total: %.1f/100, %s\n", st.self_total, st.self_level);
        else
            printf("self-rated so far: %.1f points over %d of %d items (rate all %d for a "
                   "level)\n",
                   st.self_total, st.n_rated, LESSON_RUBRIC_N, LESSON_RUBRIC_N);
        printf("compare with your graded scores: warpbench progress\n");
    } else if (!cancelled) {
        printf("nothing changed\n");
    }
    lesson_standing_fini(&st);
    return CLI_EXIT_OK;
}
