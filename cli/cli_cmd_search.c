/* cli_cmd_search.c — `warpbench search TEXT`: the lesson pages, questions
 * and calculators that hold TEXT, each with where it was found and the line
 * around it (lessons' lesson_search_run). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_cmd_search(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("search");
    int rc = cli_begin(cx, cmd, a, 1, 64, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    /* The words after `search` are the text: `search ring all-reduce`. */
    struct core_buf q;
    core_buf_init(&q);
    for (int i = 0; i < a->argc; i++)
        core_buf_printf(&q, "%s%s", i ? " " : "", a->argv[i]);
    if (strspn(q.data, " \t") == q.len) {
        core_buf_fini(&q);
        return cli_usage(cmd, "give the text to search for");
    }
    struct core_err e = {0};
    struct lesson_search_index *x = NULL;
    if (lesson_search_index_new(cx->db, cx->session, &x, &e) != CORE_OK) {
        core_buf_fini(&q);
        return cli_fail(&e);
    }
    struct lesson_hit *h = NULL;
    size_t n = 0;
    lesson_search_run(x, q.data, &h, &n);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "query", q.data);
        core_json_kint(&j, "count", (long long)n);
        core_json_key(&j, "hits");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "kind", lesson_hit_kind_name(h[i].kind));
            core_json_kstr(&j, "pack", h[i].pack_id);
            core_json_kstr(&j, "lesson", h[i].lesson_id);
            core_json_kstr(&j, "lesson_title", h[i].lesson_title);
            core_json_kint(&j, "page", h[i].page + 1);
            core_json_kstr(&j, "question", h[i].kind == LESSON_HIT_QUESTION ? h[i].id : NULL);
            core_json_kstr(&j, "calculator", h[i].kind == LESSON_HIT_CALC ? h[i].id : NULL);
            core_json_kstr(&j, "title", h[i].title);
            core_json_kbool(&j, "in_title", h[i].in_title);
            core_json_kstr(&j, "where", h[i].where);
            core_json_kstr(&j, "snippet", h[i].snippet);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else if (n == 0) {
        printf("nothing in the lessons, questions or calculators holds \"%s\"\n", cli_tx1(q.data));
    } else {
        printf("%zu place%s \"%s\":\n", n, n == 1 ? " holds" : "s hold", cli_tx1(q.data));
        for (size_t i = 0; i < n; i++) {
            printf("\n%-10s %s\n", lesson_hit_kind_name(h[i].kind), cli_tx1(h[i].title));
            printf("  where: %s\n", cli_tx1(h[i].where));
            printf("  %s\n", cli_tx1(h[i].snippet));
            if (h[i].kind == LESSON_HIT_PAGE)
                printf("  read: warpbench show %s:%s --page %d\n", h[i].pack_id, h[i].lesson_id,
                       h[i].page + 1);
            else if (h[i].kind == LESSON_HIT_QUESTION)
                printf("  open: warpbench question %s:%s\n", h[i].pack_id, h[i].id);
            else
                printf("  run:  warpbench calc %s:%s\n", h[i].pack_id, h[i].id);
        }
    }
    lesson_hits_free(h, n);
    lesson_search_index_free(x);
    core_buf_fini(&q);
    return CLI_EXIT_OK;
}
