/* cli_cmd_progress.c — `warpbench progress [PACK]`: the student's standing
 * per lesson, per topic and per course rubric item. Scores are each
 * question's best valid attempt (a re-grade counts instead of its original). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

struct tally {
    char *name;
    int questions, answered;
    double score, max;
};

struct tallies {
    struct tally *t;
    size_t n;
};

static struct tally *tally_get(struct tallies *ts, const char *name, size_t len)
{
    for (size_t i = 0; i < ts->n; i++)
        if (strlen(ts->t[i].name) == len && strncmp(ts->t[i].name, name, len) == 0)
            return &ts->t[i];
    ts->t = core_xrealloc(ts->t, (ts->n + 1) * sizeof *ts->t);
    ts->t[ts->n] = (struct tally){core_xstrndup(name, len), 0, 0, 0, 0};
    return &ts->t[ts->n++];
}

static void tally_add(struct tally *t, const struct db_progress_row *r)
{
    t->questions++;
    t->answered += r->answered;
    t->score += r->best;
    t->max += r->points;
}

/* Adds row r to every name in a comma-separated list. */
static void tally_list(struct tallies *ts, const char *list, const struct db_progress_row *r)
{
    const char *s = list ? list : "";
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len)
            tally_add(tally_get(ts, s, len), r);
        s += len + (comma ? 1 : 0);
    }
}

static void tallies_free(struct tallies *ts)
{
    for (size_t i = 0; i < ts->n; i++)
        free(ts->t[i].name);
    free(ts->t);
}

static void print_section(const char *heading, const struct tallies *ts)
{
    printf("\n%s\n", heading);
    for (size_t i = 0; i < ts->n; i++) {
        const struct tally *t = &ts->t[i];
        double pct = t->max > 0 ? 100.0 * t->score / t->max : 0;
        printf("  %-28s %3d/%-3d answered  %6.1f/%-6.1f %5.1f%%\n", cli_tx(t->name), t->answered,
               t->questions, t->score, t->max, pct);
    }
}

static void json_section(struct core_json *j, const char *key, const struct tallies *ts)
{
    core_json_key(j, key);
    core_json_arr_begin(j);
    for (size_t i = 0; i < ts->n; i++) {
        core_json_obj_begin(j);
        core_json_kstr(j, "name", ts->t[i].name);
        core_json_kint(j, "questions", ts->t[i].questions);
        core_json_kint(j, "answered", ts->t[i].answered);
        core_json_knum(j, "score", ts->t[i].score);
        core_json_knum(j, "max", ts->t[i].max);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

int cli_cmd_progress(struct cli_ctx *cx, struct cli_args *a)
{
    int rc = cli_begin(cx, cli_command_find("progress"), a, 0, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    struct core_err e = {0};
    struct db_progress_row *rows = NULL;
    size_t n = 0;
    if (pack) {
        struct db_pack p = {0};
        if (db_pack_get(cx->db, pack, &p, &e) != CORE_OK)
            return cli_fail(&e);
        db_pack_fini(&p);
    }
    if (db_progress(cx->db, lesson_session_user_id(cx->session), pack, &rows, &n, &e) != CORE_OK)
        return cli_fail(&e);
    struct tallies lessons = {0}, topics = {0}, rubric = {0}, total = {0};
    for (size_t i = 0; i < n; i++) {
        char *key = core_xasprintf("%s:%s", rows[i].pack_id, rows[i].lesson_id);
        tally_add(tally_get(&lessons, key, strlen(key)), &rows[i]);
        free(key);
        tally_list(&topics, rows[i].topics, &rows[i]);
        tally_list(&rubric, rows[i].rubric, &rows[i]);
        tally_add(tally_get(&total, "total", 5), &rows[i]);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "user", cx->user);
        json_section(&j, "total", &total);
        json_section(&j, "lessons", &lessons);
        json_section(&j, "topics", &topics);
        json_section(&j, "rubric", &rubric);
        cli_json_close(&b, &j);
    } else {
        printf("progress of %s\n", cli_tx(cx->user));
        print_section("lessons", &lessons);
        print_section("topics", &topics);
        print_section("course rubric items", &rubric);
        print_section("overall", &total);
    }
    tallies_free(&lessons);
    tallies_free(&topics);
    tallies_free(&rubric);
    tallies_free(&total);
    db_progress_free(rows, n);
    return CLI_EXIT_OK;
}
