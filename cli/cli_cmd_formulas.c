/* cli_cmd_formulas.c — `warpbench formulas`: the course's formula sheet
 * (formulas { ... } of each pack), each formula with what its symbols mean,
 * the page that teaches it and the calculator that computes it. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_cmd_formulas(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("formulas");
    int rc = cli_begin(cx, cmd, a, 0, 0, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_formula *fs = NULL;
    size_t n = 0;
    if (lesson_formulas_list(cx->db, cx->session, &fs, &n, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kint(&j, "count", (long long)n);
        core_json_key(&j, "formulas");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            const struct lesson_formula *x = &fs[i];
            core_json_obj_begin(&j);
            core_json_kstr(&j, "pack", x->pack_id);
            core_json_kstr(&j, "id", x->f->id);
            core_json_kstr(&j, "name", x->f->name);
            core_json_kstr(&j, "formula", x->f->formula);
            core_json_kstr(&j, "symbols", x->f->symbols);
            core_json_kstr(&j, "note", x->f->note);
            core_json_kstr(&j, "lesson", x->f->lesson);
            core_json_kstr(&j, "lesson_title", x->lesson_title);
            core_json_kint(&j, "page", x->page + 1);
            core_json_kstr(&j, "page_title", x->page_title);
            core_json_kstr(&j, "calculator", x->calc_id);
            core_json_kstr(&j, "calculator_title", x->calc_title);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else if (n == 0) {
        printf("no formula sheet: no pack declares formulas { ... }\n");
    } else {
        for (size_t i = 0; i < n; i++) {
            const struct lesson_formula *x = &fs[i];
            printf("%s%s\n", i ? "\n" : "", cli_tx1(x->f->name));
            cli_print_indented("    ", x->f->formula);
            if (x->f->symbols)
                cli_print_indented("  ", x->f->symbols);
            if (x->f->note)
                cli_print_indented("  ", x->f->note);
            printf("  taught: %s, page %d%s%s%s  (warpbench show %s:%s --page %d)\n",
                   cli_tx1(x->lesson_title), x->page + 1, x->page_title ? " \"" : "",
                   x->page_title ? cli_tx1(x->page_title) : "", x->page_title ? "\"" : "",
                   x->pack_id, x->f->lesson, x->page + 1);
            if (x->calc_id)
                printf("  calculator: %s  (warpbench calc %s:%s)\n", cli_tx1(x->calc_title),
                       x->pack_id, x->calc_id);
        }
    }
    free(fs);
    return CLI_EXIT_OK;
}
