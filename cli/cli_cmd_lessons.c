/* cli_cmd_lessons.c — `warpbench lessons` (packs and lessons with progress)
 * and `warpbench show LESSON` (a lesson's pages and questions). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_cmd_lessons(struct cli_ctx *cx, struct cli_args *a)
{
    int rc = cli_begin(cx, cli_command_find("lessons"), a, 0, 0, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct db_pack *packs = NULL;
    size_t np = 0, nl = 0, nr = 0;
    struct db_lesson *ls = NULL;
    struct db_progress_row *rows = NULL;
    if (db_pack_list(cx->db, &packs, &np, &e) != CORE_OK ||
        db_lesson_list(cx->db, NULL, &ls, &nl, &e) != CORE_OK ||
        lesson_progress_load(cx->db, lesson_session_user_id(cx->session), NULL, &rows, &nr, &e) !=
            CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    struct lesson_tallies t;
    lesson_tallies_compute(rows, nr, NULL, &t);
    struct core_buf b;
    struct core_json j;
    cli_json_open(&b, &j);
    core_json_kstr(&j, "user", cx->user);
    core_json_key(&j, "packs");
    core_json_arr_begin(&j);
    for (size_t p = 0; p < np; p++) {
        core_json_obj_begin(&j);
        core_json_kstr(&j, "id", packs[p].id);
        core_json_kstr(&j, "title", packs[p].title);
        core_json_kstr(&j, "version", packs[p].version);
        core_json_key(&j, "lessons");
        core_json_arr_begin(&j);
        if (!cx->json)
            printf("%s — %s (version %s)\n", packs[p].id, cli_tx(packs[p].title),
                   cli_tx(packs[p].version));
        for (size_t i = 0; i < nl; i++) {
            if (strcmp(ls[i].pack_id, packs[p].id) != 0)
                continue;
            const struct lesson_tally *tl = lesson_tallies_lesson(&t, ls[i].pack_id, ls[i].id);
            const struct lesson_tally s = tl ? *tl : (struct lesson_tally){0};
            core_json_obj_begin(&j);
            core_json_kstr(&j, "id", ls[i].id);
            core_json_kstr(&j, "title", ls[i].title);
            core_json_kint(&j, "pages", ls[i].n_pages);
            core_json_kint(&j, "questions", s.questions);
            core_json_kint(&j, "answered", s.answered);
            core_json_knum(&j, "score", s.score);
            core_json_knum(&j, "max", s.max);
            core_json_obj_end(&j);
            if (!cx->json)
                printf("  %-16s %-42s %2d page%s  %2d/%-2d answered  %5.1f/%-5.1f points\n",
                       ls[i].id, cli_tx(ls[i].title), ls[i].n_pages, ls[i].n_pages == 1 ? " " : "s",
                       s.answered, s.questions, s.score, s.max);
        }
        core_json_arr_end(&j);
        core_json_obj_end(&j);
    }
    core_json_arr_end(&j);
    core_json_obj_end(&j);
    if (cx->json)
        cli_json_print(&b);
    else {
        core_buf_fini(&b);
        printf("\nRead a lesson with: warpbench show LESSON\n");
    }
    lesson_tallies_fini(&t);
out:
    for (size_t i = 0; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    db_lessons_free(ls, nl);
    db_progress_free(rows, nr);
    return rc;
}

static void print_questions_after(const struct db_question *qs, size_t nq, int page,
                                  const struct db_progress_row *rows, size_t nr)
{
    for (size_t i = 0; i < nq; i++) {
        if (qs[i].page_after != page)
            continue;
        const char *mark = "  ";
        for (size_t r = 0; r < nr; r++)
            if (strcmp(rows[r].question_id, qs[i].id) == 0 &&
                strcmp(rows[r].pack_id, qs[i].pack_id) == 0 && rows[r].answered)
                mark = rows[r].best >= rows[r].points - 1e-9 ? "✓ " : "~ ";
        printf("  %s%-28s %-8s %s\n", mark, qs[i].id, qs[i].kind, cli_tx(qs[i].title));
    }
}

int cli_cmd_show(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("show");
    const char *pv = NULL;
    bool missing = false;
    int page = 0;
    bool has_page = cli_take_flag(a, "--page", true, &pv, &missing);
    if (missing || (has_page && !cli_parse_int(pv, 10000, &page)))
        return cli_usage(cmd, "--page needs a page number (1, 2, ...)");
    int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct db_lesson *l = NULL;
    size_t np = 0, nq = 0, nr = 0;
    struct db_page *pages = NULL;
    struct db_question *qs = NULL;
    struct db_progress_row *rows = NULL;
    if (lesson_find(cx->db, a->argv[0], &l, &e) != CORE_OK ||
        db_page_list(cx->db, l->pack_id, l->id, &pages, &np, &e) != CORE_OK ||
        db_question_list(cx->db, l->pack_id, l->id, &qs, &nq, &e) != CORE_OK ||
        lesson_progress_load(cx->db, lesson_session_user_id(cx->session), l->pack_id, &rows, &nr,
                             &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    if (has_page && (size_t)page > np) {
        rc = cli_usage(cmd, "lesson \"%s\" has %zu pages", l->id, np);
        goto out;
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "pack", l->pack_id);
        core_json_kstr(&j, "id", l->id);
        core_json_kstr(&j, "title", l->title);
        core_json_key(&j, "pages");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < np; i++) {
            if (has_page && (int)i != page - 1)
                continue;
            core_json_obj_begin(&j);
            core_json_kstr(&j, "title", pages[i].title);
            core_json_kstr(&j, "markdown", pages[i].markdown);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        core_json_key(&j, "questions");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < nq; i++) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "id", qs[i].id);
            core_json_kstr(&j, "kind", qs[i].kind);
            core_json_kstr(&j, "title", qs[i].title);
            core_json_kint(&j, "after_page", qs[i].page_after + 1);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
        goto out;
    }
    printf("%s — %s  [%s]\n", l->id, cli_tx(l->title), l->pack_id);
    if (!has_page)
        print_questions_after(qs, nq, -1, rows, nr);
    for (size_t i = 0; i < np; i++) {
        if (has_page && (int)i != page - 1)
            continue;
        printf("\n──── page %zu/%zu%s%s ────\n\n%s\n", i + 1, np, pages[i].title ? ": " : "",
               cli_tx(pages[i].title), cli_tx(pages[i].markdown));
        bool any = false;
        for (size_t q = 0; q < nq; q++)
            any |= qs[q].page_after == (int)i;
        if (any) {
            printf("Questions:\n");
            print_questions_after(qs, nq, (int)i, rows, nr);
        }
    }
    printf("\nAnswer with: warpbench question QID, then warpbench answer QID ANSWER\n");
out:
    db_lessons_free(l, l ? 1 : 0);
    db_pages_free(pages, np);
    db_questions_free(qs, nq);
    db_progress_free(rows, nr);
    return rc;
}
