/*
 * fuzz_pack_lesson.c — fuzz target for the pack loader: the input is the
 * text of a lesson file (l.lua) of a pack whose pack.lua lists it, loaded
 * and checked as `pack check` does (grader_pack_new: evaluation in the
 * sandbox, validation, self-tests), with small sandbox limits.
 *
 * Checks, besides "no crash": a refused pack has problems, each of them
 * "file:..." naming one of the pack's two files; an accepted one has one
 * lesson, and every question in it renders for a student.
 */
#include "grader/grader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char pack_lua[] =
    "pack { id = \"fuzz.pack\", title = \"Fuzz\", version = \"1\", lessons = { \"l.lua\" } }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = core_xstrndup((const char *)data, size);
    struct grader_file files[2] = {{"pack.lua", pack_lua, sizeof pack_lua - 1},
                                   {"l.lua", text, size}};
    /* small limits: an input that loops or grows is stopped quickly */
    struct grader_limits lim = {.mem_bytes = 8u << 20, .instructions = 200000, .cpu_ms = 500};
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err;
    struct grader_pack *p = NULL;
    int rc = grader_pack_new(&p, files, 2, &lim, &problems, &err);
    if (rc != 0) {
        if (problems.n == 0 || p)
            abort();
        for (size_t i = 0; i < problems.n; i++)
            if (strncmp(problems.items[i], "l.lua:", 6) != 0 &&
                strncmp(problems.items[i], "pack.lua:", 9) != 0)
                abort();
    } else {
        const struct grader_pack_info *info = grader_pack_info(p);
        if (info->n_lessons != 1)
            abort();
        struct grader_ctx ctx = {.user = "fuzz", .variant = 1, .lab = NULL};
        for (size_t q = 0; q < info->lessons[0].n_questions; q++) {
            struct grader_view v;
            if (grader_question_view(p, info->lessons[0].questions[q].id, &ctx, &v, &err) == 0)
                grader_view_fini(&v);
            else if (!err.msg[0])
                abort();
        }
        grader_pack_free(p);
    }
    core_strlist_fini(&problems);
    free(text);
    return 0;
}
